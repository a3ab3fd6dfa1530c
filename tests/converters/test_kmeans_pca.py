"""KMeans (predict, transform) and PCA (transform) against scikit-learn, on both backends."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA

from examples.converters.kmeans import convert_kmeans
from examples.converters.pca import convert_pca
from tests.converters.backends import Backends, assert_labels, float_rows

DTYPES = [np.float32, np.float64]


@cache
def kmeans() -> KMeans:
    rng = np.random.default_rng(3)
    centres = rng.normal(0.0, 2.5, (4, 3))
    X = centres[rng.integers(0, 4, 200)] + rng.standard_normal((200, 3))
    return KMeans(n_clusters=4, n_init=2, random_state=0).fit(X)


@cache
def kmeans_backends(dtype: Any) -> Backends:
    return Backends(convert_kmeans(kmeans(), dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=float_rows(3, bound=6.0))
def test_kmeans_labels_and_distances(dtype: Any, data: np.ndarray) -> None:
    estimator = kmeans()
    X = data.astype(dtype)
    distances = estimator.transform(X.astype(np.float64))
    # |x|^2 - 2 x.c + |c|^2 loses about eps * |x|^2 to cancellation: compare squared distances
    # (rows within ±6 in 3 features: |x|^2 <= 108, float32 eps 1.2e-7).
    squared_tolerance = 1e-4 if dtype == np.float32 else 1e-11
    for backend, outputs in kmeans_backends(dtype).run({"X": X}).items():
        assert outputs["distances"].dtype == dtype
        np.testing.assert_allclose(
            outputs["distances"].astype(np.float64) ** 2,
            distances**2,
            atol=squared_tolerance,
            rtol=1e-6,
            err_msg=backend,
        )
        assert_labels(
            outputs["label"],
            estimator.predict(X.astype(np.float64)),
            distances**2,
            np.arange(4),
            margin=2 * squared_tolerance,
            larger_is_better=False,
        )


@cache
def pca(whiten: bool) -> PCA:
    rng = np.random.default_rng(4)
    X = rng.standard_normal((100, 5)) @ rng.standard_normal((5, 5)) + 3.0
    return PCA(n_components=3, whiten=whiten).fit(X)


@cache
def pca_backends(whiten: bool, dtype: Any) -> Backends:
    return Backends(convert_pca(pca(whiten), dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("whiten", [False, True])
@settings(max_examples=15, deadline=None, derandomize=True)
@given(data=float_rows(5, bound=8.0))
def test_pca_transform(whiten: bool, dtype: Any, data: np.ndarray) -> None:
    X = data.astype(dtype)
    expected = pca(whiten).transform(X.astype(np.float64))
    # float32: a Gemm over 5 features with weights folded into the bias, values up to ~50.
    atol = 2e-4 if dtype == np.float32 else 1e-10
    for backend, outputs in pca_backends(whiten, dtype).run({"X": X}).items():
        assert outputs["components"].dtype == dtype
        np.testing.assert_allclose(outputs["components"], expected, atol=atol, err_msg=backend)
