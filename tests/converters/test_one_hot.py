"""OneHotEncoder on string and integer columns, and a ColumnTransformer with a float input
and a string input, against scikit-learn on both backends."""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.compose import ColumnTransformer
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from examples.converters.one_hot import convert_column_transformer, convert_one_hot
from tests.converters.backends import Backends

COLOURS = ["red", "green", "blue", "ochre"]
SIZES = ["S", "M", "L"]
# Values the encoders never saw, to check handle_unknown="ignore" (a row of zeros).
UNSEEN = ["pink", "XL", ""]


@cache
def string_encoder() -> OneHotEncoder:
    X = np.array([[c, s] for c in COLOURS for s in SIZES], dtype=object)
    return OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(X)


@cache
def int_encoder() -> OneHotEncoder:
    X = np.array([[k, 100 * (k % 3)] for k in range(-2, 5)], np.int64)
    return OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(X)


def string_rows(columns: list[list[str]]) -> st.SearchStrategy[np.ndarray]:
    return st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            *[
                st.lists(st.sampled_from(values + UNSEEN), min_size=n, max_size=n)
                for values in columns
            ]
        ).map(lambda cols: np.array(list(zip(*cols)), dtype=object))
    )


@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=string_rows([COLOURS, SIZES]))
def test_string_columns(data: np.ndarray) -> None:
    expected = string_encoder().transform(data)
    for backend, outputs in cached(convert_one_hot, string_encoder()).run({"X": data}).items():
        np.testing.assert_array_equal(outputs["encoded"], expected, err_msg=backend)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    data=st.integers(1, 6).flatmap(
        lambda n: hnp.arrays(np.int64, (n, 2), elements=st.integers(-3, 300))
    )
)
def test_integer_columns(data: np.ndarray) -> None:
    expected = int_encoder().transform(data)
    for backend, outputs in cached(convert_one_hot, int_encoder()).run({"X": data}).items():
        np.testing.assert_array_equal(outputs["encoded"], expected, err_msg=backend)


@cache
def cached(convert: object, estimator: object) -> Backends:
    return Backends(convert(estimator))  # type: ignore[operator]


@cache
def column_transformer() -> ColumnTransformer:
    rng = np.random.default_rng(9)
    rows = [[float(rng.normal(50.0, 10.0)), COLOURS[i % 4]] for i in range(40)]
    return ColumnTransformer(
        [
            ("amount", StandardScaler(), [0]),
            ("colour", OneHotEncoder(handle_unknown="ignore"), [1]),
        ],
        sparse_threshold=0,
    ).fit(np.array(rows, dtype=object))


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    data=st.lists(
        st.tuples(st.floats(0.0, 100.0, width=32), st.sampled_from(COLOURS + UNSEEN)),
        min_size=1,
        max_size=6,
    )
)
def test_column_transformer_with_a_float_and_a_string_input(data: list[tuple[float, str]]) -> None:
    transformer = column_transformer()
    expected = transformer.transform(np.array(data, dtype=object))
    feeds = {
        "amount": np.array([[a] for a, _ in data], np.float32),
        "colour": np.array([[c] for _, c in data], dtype=object),
    }
    for backend, outputs in cached(convert_column_transformer, transformer).run(feeds).items():
        features = outputs["features"]
        # float32 scaling of amounts below 100: a few ulps of values below ~10.
        np.testing.assert_allclose(features[:, :1], expected[:, :1], atol=2e-6, err_msg=backend)
        np.testing.assert_array_equal(features[:, 1:], expected[:, 1:], err_msg=backend)
