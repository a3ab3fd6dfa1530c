"""The random kernels: distributions, element types, shapes, seeds and errors.

Values cannot be compared with another runtime's (generators differ), so the oracle is
statistics: with n draws a sample mean lies within ``Z`` standard errors of the true mean, and
a sample variance within ``Z`` standard errors of the true variance (its standard error is
about ``sigma**2 * sqrt(2 / n)`` for a normal and ``sigma**2 * sqrt(4 / 5 / n)`` for a
uniform). With ``Z = 6`` a correct sampler falls outside with probability below 1e-8.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import EvaluationError, InferenceError
from onnxcraft.numerics import to_float32
from onnxcraft.ops.kernel_api import KernelContext
from onnxcraft.ops.random.kernels import bernoulli, multinomial, random_normal, random_uniform_like
from onnxcraft.opset.ai.onnx import v21, v22

Z = 6.0
N = 120_000


def _evaluate(outputs: dict[str, oc.Var], inputs: tuple[oc.Var, ...] = (), **feeds: Any) -> Any:
    model = oc.build(inputs=list(inputs), outputs=outputs)
    return oc.evaluate(model, feeds)


def _ctx(op_type: str, since: int) -> KernelContext:
    return KernelContext("", op_type, since, since, 1, (True,))


def _decoded(values: np.ndarray) -> np.ndarray:
    """float64 values of any float representation (bfloat16 is a structured dtype)."""
    return np.asarray(to_float32(values) if values.dtype.names else values, dtype=np.float64)


def _assert_mean(samples: np.ndarray, mean: float, std: float) -> None:
    bound = Z * std / np.sqrt(samples.size)
    assert abs(samples.mean() - mean) < bound, f"mean {samples.mean()} vs {mean} +- {bound}"


def _assert_variance(samples: np.ndarray, variance: float, relative_se: float) -> None:
    bound = Z * variance * relative_se
    got = samples.var()
    assert abs(got - variance) < bound, f"variance {got} vs {variance} +- {bound}"


def _assert_frequency(hits: int, total: int, p: float) -> None:
    bound = Z * np.sqrt(p * (1 - p) / total) + 1e-12
    assert abs(hits / total - p) < bound, f"frequency {hits / total} vs {p} +- {bound}"


# -- RandomNormal / RandomUniform -------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (None, np.float32),
        (np.float64, np.float64),
        (np.float16, np.float16),
        (ElementType.BFLOAT16, None),
    ],
)
def test_random_normal_has_the_requested_moments_and_type(dtype: Any, expected: Any) -> None:
    kwargs = {} if dtype is None else {"dtype": dtype}
    y = v22.RandomNormal(shape=[N // 100, 100], mean=2.0, scale=3.0, seed=11.0, **kwargs)
    out = _evaluate({"y": y})["y"]
    assert out.shape == (N // 100, 100)
    if expected is None:
        assert out.dtype.names is not None  # bfloat16's representation
    else:
        assert out.dtype == expected
    samples = _decoded(out)
    _assert_mean(samples, 2.0, 3.0)
    _assert_variance(samples, 9.0, np.sqrt(2 / samples.size))


def test_random_uniform_stays_in_range_and_fills_it_evenly() -> None:
    y = v21.RandomUniform(shape=[N], low=-3.0, high=5.0, dtype=np.float64, seed=2.5)
    samples = _evaluate({"y": y})["y"]
    assert samples.dtype == np.float64 and samples.shape == (N,)
    assert samples.min() >= -3.0 and samples.max() < 5.0
    _assert_mean(samples, 1.0, 8.0 / np.sqrt(12))
    _assert_variance(samples, 64.0 / 12, np.sqrt(0.8 / N))
    counts = np.histogram(samples, bins=8, range=(-3.0, 5.0))[0]
    for count in counts:  # each eighth of the interval holds about an eighth of the draws
        _assert_frequency(int(count), N, 1 / 8)


def test_random_uniform_in_float16_stays_within_bounds() -> None:
    y = v22.RandomUniform(shape=[4000], low=0.5, high=0.75, dtype=np.float16, seed=1.0)
    samples = _evaluate({"y": y})["y"]
    assert samples.dtype == np.float16
    # Rounding to float16 may reach high itself; nothing may leave [low, high].
    assert samples.min() >= 0.5 and samples.max() <= 0.75


def test_like_forms_take_the_input_shape_and_type_unless_dtype_is_given() -> None:
    X = oc.arg("X", np.float16, ("N", 3))
    S = oc.arg("S", str, (2,))
    outputs = {
        "normal": v22.RandomNormalLike(X, mean=-1.0, seed=4.0),
        "uniform": v22.RandomUniformLike(X, dtype=np.float64),
        "from_strings": v22.RandomUniformLike(S, dtype=np.float32, low=10.0, high=11.0),
    }
    x = np.zeros((5, 3), np.float16)
    s = np.array(["a", "b"], dtype=object)
    out = _evaluate(outputs, (X, S), X=x, S=s)
    assert out["normal"].dtype == np.float16 and out["normal"].shape == (5, 3)
    assert out["uniform"].dtype == np.float64 and out["uniform"].shape == (5, 3)
    assert out["from_strings"].dtype == np.float32 and out["from_strings"].shape == (2,)
    assert ((out["from_strings"] >= 10.0) & (out["from_strings"] <= 11.0)).all()


def test_like_forms_have_the_moments_of_their_distribution() -> None:
    X = oc.arg("X", np.float64, (N,))
    outputs = {
        "normal": v22.RandomNormalLike(X, mean=-1.0, scale=0.5),
        "uniform": v22.RandomUniformLike(X, low=2.0, high=4.0),
    }
    out = _evaluate(outputs, (X,), X=np.zeros(N))
    _assert_mean(out["normal"], -1.0, 0.5)
    _assert_variance(out["normal"], 0.25, np.sqrt(2 / N))
    _assert_mean(out["uniform"], 3.0, 2.0 / np.sqrt(12))


# -- seeds ------------------------------------------------------------------------------------


def test_a_seed_gives_the_documented_stream_every_time() -> None:
    def build() -> Any:
        y = v22.RandomUniform(shape=[6], dtype=np.float64, seed=1.25)
        return oc.build(inputs=[], outputs={"y": y})

    first = oc.evaluate(build(), {})["y"]
    np.testing.assert_array_equal(first, oc.evaluate(build(), {})["y"])
    # The module docstring's recipe: the seed's float64 bits seed a PCG64 generator.
    bits = int(np.array(1.25, dtype=np.float64).view(np.uint64))
    expected = np.random.Generator(np.random.PCG64(bits)).random(6)
    np.testing.assert_array_equal(first, expected)


def test_different_seeds_and_no_seed_give_different_values() -> None:
    a = v22.RandomNormal(shape=[50], seed=1.25)
    b = v22.RandomNormal(shape=[50], seed=1.75)  # int(seed) would make these equal
    c = v22.RandomNormal(shape=[50])
    model = oc.build(inputs=[], outputs={"a": a, "b": b, "c": c})
    first, second = oc.evaluate(model, {}), oc.evaluate(model, {})
    np.testing.assert_array_equal(first["a"], second["a"])
    assert not np.array_equal(first["a"], first["b"])
    assert not np.array_equal(first["c"], second["c"])


# -- Bernoulli --------------------------------------------------------------------------------


def test_bernoulli_draws_ones_with_the_given_probability() -> None:
    probabilities = np.array([0.0, 0.1, 0.5, 0.93, 1.0])
    repeats = 30_000
    P = oc.arg("P", np.float64, (len(probabilities), repeats))
    out = _evaluate(
        {"y": v22.Bernoulli(P)},
        (P,),
        P=np.repeat(probabilities, repeats).reshape(len(probabilities), repeats),
    )["y"]
    assert out.dtype == np.float64
    assert set(np.unique(out).tolist()) <= {0.0, 1.0}
    for p, row in zip(probabilities, out):
        _assert_frequency(int(row.sum()), repeats, float(p))
    assert out[0].sum() == 0 and out[-1].sum() == repeats


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [(np.bool_, np.bool_), (np.int64, np.int64), (np.uint8, np.uint8), (np.float16, np.float16)],
)
def test_bernoulli_output_type_follows_dtype(dtype: Any, expected: Any) -> None:
    P = oc.arg("P", np.float32, (20_000,))
    p = np.full(20_000, 0.3, np.float32)
    out = _evaluate({"y": v22.Bernoulli(P, dtype=dtype, seed=5.0)}, (P,), P=p)["y"]
    assert out.dtype == expected and out.shape == (20_000,)
    values = out.astype(np.float64)
    assert set(np.unique(values).tolist()) <= {0.0, 1.0}
    _assert_frequency(int(values.sum()), values.size, 0.3)


def test_bernoulli_reads_and_writes_bfloat16_at_version_22() -> None:
    p = np.full(10_000, 0.75, np.float32)
    from onnxcraft.numerics import from_float32

    encoded = from_float32(p, ElementType.BFLOAT16)
    out = bernoulli(_ctx("Bernoulli", 22), encoded, seed=3.0)
    assert out.dtype == encoded.dtype  # the input's type, bfloat16
    values = _decoded(out)
    assert set(np.unique(values).tolist()) <= {0.0, 1.0}
    _assert_frequency(int(values.sum()), values.size, 0.75)


@pytest.mark.parametrize("bad", [-0.1, 1.5, np.nan])
def test_bernoulli_rejects_values_that_are_not_probabilities(bad: float) -> None:
    with pytest.raises(EvaluationError, match=r"Bernoulli: .*expected values in \[0, 1\]"):
        bernoulli(_ctx("Bernoulli", 22), np.array([0.5, bad]))


def test_bernoulli_rejects_a_dtype_of_another_version() -> None:
    with pytest.raises(EvaluationError, match=r"Bernoulli: dtype=8 \(string\) is not allowed"):
        bernoulli(_ctx("Bernoulli", 15), np.array([0.5]), dtype=int(ElementType.STRING))


# -- Multinomial ------------------------------------------------------------------------------


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_multinomial_frequencies_follow_softmax_of_each_row() -> None:
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [3.0, 3.0, -np.inf, 0.5]], np.float32)
    samples = 60_000
    X = oc.arg("X", np.float32, (2, 4))
    out = _evaluate({"y": v22.Multinomial(X, sample_size=samples, seed=9.0)}, (X,), X=logits)["y"]
    assert out.dtype == np.int32 and out.shape == (2, samples)  # int32 is the default
    assert out.min() >= 0 and out.max() < 4
    expected = _softmax(logits.astype(np.float64))
    for row, probabilities in zip(out, expected):
        for cls, p in enumerate(probabilities):
            _assert_frequency(int((row == cls).sum()), samples, float(p))
    assert not (out[1] == 2).any()  # a -inf log-probability is never drawn


def test_multinomial_returns_int64_when_asked_and_one_class_always_wins() -> None:
    X = oc.arg("X", np.float64, ("B", 3))
    logits = np.array([[-np.inf, 0.0, -np.inf]] * 3)
    out = _evaluate({"y": v21.Multinomial(X, sample_size=7, dtype=np.int64)}, (X,), X=logits)["y"]
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, np.ones((3, 7), np.int64))


@pytest.mark.parametrize(
    ("logits", "attributes", "message"),
    [
        (np.zeros(3), {}, r"must be 2-D \[batch_size, class_size\], got shape \[3\]"),
        (np.array([[0.0, np.nan]]), {}, "NaN and \\+inf are not allowed"),
        (np.array([[-np.inf, -np.inf]]), {}, "at least one finite log-probability"),
        (np.zeros((1, 2)), {"sample_size": 0}, "sample_size must be >= 1, got 0"),
        (np.zeros((2, 0)), {}, r"no classes to sample from \(class_size is 0\)"),
        (np.zeros((1, 2)), {"dtype": 1}, r"dtype=1 \(float\) is not allowed"),
    ],
)
def test_multinomial_rejects_bad_input(logits: Any, attributes: Any, message: str) -> None:
    with pytest.raises(EvaluationError, match="Multinomial: .*" + message):
        multinomial(_ctx("Multinomial", 7), logits, **attributes)


# -- errors -----------------------------------------------------------------------------------


def test_kernels_reject_bad_attributes_naming_the_operator() -> None:
    with pytest.raises(
        EvaluationError, match=r"RandomNormal: dtype=16 \(bfloat16\) is not allowed"
    ):
        random_normal(_ctx("RandomNormal", 1), shape=[2], dtype=int(ElementType.BFLOAT16))
    with pytest.raises(EvaluationError, match=r"RandomNormal: scale .* must be >= 0, got -1\.0"):
        random_normal(_ctx("RandomNormal", 22), shape=[2], scale=-1.0)
    with pytest.raises(EvaluationError, match="RandomNormal: shape must not have negative dims"):
        random_normal(_ctx("RandomNormal", 22), shape=[2, -1])
    with pytest.raises(EvaluationError, match="RandomUniformLike: low must not exceed high"):
        random_uniform_like(_ctx("RandomUniformLike", 22), np.zeros(2), low=1.0, high=0.0)
    with pytest.raises(EvaluationError, match="RandomUniformLike: the input's element type int32"):
        random_uniform_like(_ctx("RandomUniformLike", 22), np.zeros(2, np.int32))


def test_the_dsl_rejects_an_output_type_outside_the_version() -> None:
    with pytest.raises(InferenceError, match="RandomUniform: dtype=6 \\(int32\\) is not allowed"):
        v22.RandomUniform(shape=[2], dtype=np.int32)
