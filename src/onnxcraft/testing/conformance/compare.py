"""Whether a backend's output is the standard's value: exact or within a float tolerance.

Floats are compared in units of the last place of the output's element type, with an
allowance scaled to the output's magnitude for operators that accumulate (a sum of many terms
is exact only to the spacing of its largest terms, whatever the order of summation). NaN must
meet NaN, an infinity the same infinity. Integers, booleans and strings are compared exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.numerics import to_float32

__all__ = ["RANDOM_OPERATORS", "Difference", "Tolerance", "difference", "tolerance_for"]

# Operators whose outputs are random draws: only their types and shapes are compared.
RANDOM_OPERATORS = frozenset(
    {
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
        "Bernoulli",
        "Multinomial",
    }
)

# Operators that write numbers as strings: the standard does not fix the text ("-0" or "-0.0",
# digits of a float), so a different text is a matter of precision, not a wrong value.
_NUMBERS_AS_TEXT = frozenset({"Cast", "CastLike"})

# Operators whose integer outputs round a real result (an interpolation, a mean, a logarithm):
# how is not written down, so a difference of one is a matter of precision.
_REAL_VALUED = frozenset(
    {
        "Resize", "Upsample", "ReduceLogSumExp", "ReduceLogSum", "ReduceMean", "ReduceL2",
        "AveragePool", "GlobalAveragePool", "LpPool", "GlobalLpPool", "GridSample", "Mean",
        "RoiAlign", "BlackmanWindow", "HammingWindow", "HannWindow", "Pow", "Sqrt",
    }
)  # fmt: skip

# Operators whose outputs are computed by long chains or sums: errors scale with the output's
# magnitude, not each value's.
_ACCUMULATING = frozenset(
    {
        "MatMul", "Gemm", "Conv", "ConvTranspose", "DeformConv", "ConvInteger", "Einsum",
        "ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
        "ReduceLogSumExp", "ReduceSumSquare", "CumSum", "CumProd", "AveragePool", "LpPool",
        "GlobalAveragePool", "GlobalLpPool", "LpNormalization", "BatchNormalization",
        "InstanceNormalization", "LayerNormalization", "GroupNormalization",
        "RMSNormalization", "MeanVarianceNormalization", "LRN", "Softmax", "LogSoftmax",
        "Attention", "RNN", "GRU", "LSTM", "Det", "DFT", "STFT", "MelWeightMatrix",
        "Resize", "Upsample", "GridSample", "RoiAlign", "AffineGrid", "Mean", "Sum",
        "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "Gelu", "Mish",
        "LinearRegressor", "LinearClassifier", "SVMRegressor", "SVMClassifier",
        "TreeEnsembleRegressor", "TreeEnsembleClassifier", "TreeEnsemble", "Normalizer",
        "Scaler", "RotaryEmbedding", "TfIdfVectorizer", "HammingWindow", "HannWindow",
        "BlackmanWindow", "Pow", "CenterCropPad", "Celu", "Selu", "Elu",
    }
)  # fmt: skip

# The spacing of 1 in each float type (2**-mantissa bits).
_EPSILON = {
    ElementType.DOUBLE: 2.0**-52,
    ElementType.FLOAT: 2.0**-23,
    ElementType.FLOAT16: 2.0**-10,
    ElementType.BFLOAT16: 2.0**-7,
    ElementType.FLOAT8E4M3FN: 2.0**-3,
    ElementType.FLOAT8E4M3FNUZ: 2.0**-3,
    ElementType.FLOAT8E5M2: 2.0**-2,
    ElementType.FLOAT8E5M2FNUZ: 2.0**-2,
    ElementType.FLOAT8E8M0: 1.0,
    ElementType.FLOAT4E2M1: 2.0**-1,
    ElementType.FLOAT6E2M3: 2.0**-3,
    ElementType.FLOAT6E3M2: 2.0**-2,
}

# The smallest normal magnitude of each float type: below it the last place stays that of it.
_TINY = {
    ElementType.DOUBLE: 2.0**-1022,
    ElementType.FLOAT: 2.0**-126,
    ElementType.FLOAT16: 2.0**-14,
    ElementType.BFLOAT16: 2.0**-126,
    ElementType.FLOAT8E4M3FN: 2.0**-6,
    ElementType.FLOAT8E4M3FNUZ: 2.0**-7,
    ElementType.FLOAT8E5M2: 2.0**-14,
    ElementType.FLOAT8E5M2FNUZ: 2.0**-15,
    ElementType.FLOAT8E8M0: 2.0**-127,
    ElementType.FLOAT4E2M1: 1.0,
    ElementType.FLOAT6E2M3: 1.0,
    ElementType.FLOAT6E3M2: 2.0**-2,
}


@dataclass(frozen=True)
class Tolerance:
    """``ulps`` units in the last place of each value, plus ``scaled`` units of the last
    place of the output's largest magnitude (at least 1)."""

    ulps: float
    scaled: float


def tolerance_for(op_type: str, elem: ElementType) -> Tolerance:
    """The tolerance of a float output of ``op_type`` in element type ``elem``."""
    if elem not in (ElementType.DOUBLE, ElementType.FLOAT, ElementType.FLOAT16):
        return Tolerance(1.0, 1.0 if op_type in _ACCUMULATING else 0.0)  # a step of the type
    if op_type in _ACCUMULATING:
        return Tolerance(16.0, 64.0)
    return Tolerance(4.0, 0.0)


@dataclass(frozen=True)
class Difference:
    """Why an output is not the expected one: ``cause`` (short, the same for the same kind of
    difference, to group cases by), ``detail`` (this case's numbers) and ``gross`` (not a
    matter of precision: a shape, type, NaN or exact value, or a float far off)."""

    cause: str
    detail: str
    gross: bool


def difference(op_type: str, index: int, expected: Any, got: Any) -> Difference | None:
    """How output ``index`` of the backend (``got``) differs from ``expected`` (None: same)."""
    where = f"output {index}"
    if expected is None or got is None:
        if expected is None and got is None:
            return None
        return Difference(
            f"{where}: {_kind(got)} where the standard gives {_kind(expected)}", "", True
        )
    if isinstance(expected, list) or isinstance(got, list):
        if not (isinstance(expected, list) and isinstance(got, list)):
            return Difference(f"{where}: {_kind(got)} instead of {_kind(expected)}", "", True)
        if len(expected) != len(got):
            return Difference(
                f"{where}: a sequence of another length", f"{len(got)} vs {len(expected)}", True
            )
        for mine, theirs in zip(expected, got):
            found = difference(op_type, index, mine, theirs)
            if found is not None:
                return Difference(f"{found.cause} (in a sequence)", found.detail, found.gross)
        return None
    if isinstance(expected, dict) or isinstance(got, dict):
        if not (isinstance(expected, dict) and isinstance(got, dict)):
            return Difference(f"{where}: {_kind(got)} instead of {_kind(expected)}", "", True)
        if set(expected) != set(got):
            return Difference(f"{where}: a map of other keys", "", True)
        for key in expected:
            mine = np.asarray(expected[key])
            theirs = got[key]
            if not isinstance(theirs, (np.ndarray, np.generic)):
                # a plain Python number in a map (as runtimes hand maps over): its value counts
                theirs = np.asarray(theirs, dtype=mine.dtype if mine.dtype.kind in "fiub" else None)
            found = difference(op_type, index, mine, np.asarray(theirs))
            if found is not None:
                return Difference(f"{found.cause} (in a map)", found.detail, found.gross)
        return None
    return _tensor_difference(op_type, where, np.asarray(expected), np.asarray(got))


def _kind(value: Any) -> str:
    if value is None:
        return "no value"
    if isinstance(value, list):
        return "a sequence"
    if isinstance(value, dict):
        return "a map"
    return "a tensor"


def _elem(array: np.ndarray) -> ElementType | None:
    try:
        return element_type_of(array.dtype)
    except (TypeError, ValueError, KeyError):
        return None


def _tensor_difference(
    op_type: str, where: str, expected: np.ndarray, got: np.ndarray
) -> Difference | None:
    mine, theirs = _elem(expected), _elem(got)
    if mine == ElementType.STRING and got.dtype.kind in "OUS":
        theirs = ElementType.STRING
    if mine != theirs:
        name = "unknown" if theirs is None else theirs.name.lower()
        return Difference(
            f"{where}: element type {name} instead of {mine.name.lower() if mine else '?'}",
            "",
            True,
        )
    if expected.shape != got.shape:
        return Difference(
            f"{where}: shape differs", f"{list(got.shape)} instead of {list(expected.shape)}", True
        )
    if op_type in RANDOM_OPERATORS or expected.size == 0:
        return None
    if mine not in _EPSILON:
        if mine == ElementType.STRING:
            same = [str(a) for a in expected.reshape(-1)] == [str(b) for b in got.reshape(-1)]
            if not same and op_type in _NUMBERS_AS_TEXT:
                return Difference(
                    f"{where}: numbers written as other text", _first_values(expected, got), False
                )
        else:
            same = bool(np.array_equal(_plain(expected), _plain(got)))
        if same:
            return None
        if op_type in _REAL_VALUED and expected.dtype.kind in "iu" and got.dtype.kind in "iu":
            off = np.abs(expected.astype(np.float64) - got.astype(np.float64))
            if off.max() <= 1:
                # the standard does not say how an integer output of a real result is rounded
                return Difference(
                    f"{where}: integers rounded otherwise", _first_values(expected, got), False
                )
        return Difference(f"{where}: values differ", _first_values(expected, got), True)
    return _float_difference(op_type, where, mine, expected, got)


def _plain(array: np.ndarray) -> np.ndarray:
    return to_float32(array) if array.dtype.names else array


def _first_values(expected: np.ndarray, got: np.ndarray) -> str:
    flat_mine, flat_theirs = _plain(expected).reshape(-1), _plain(got).reshape(-1)
    with np.errstate(all="ignore"):
        same = flat_mine == flat_theirs
        if flat_mine.dtype.kind == "f":
            same |= np.isnan(flat_mine) & np.isnan(flat_theirs.astype(np.float64))
        wrong = np.flatnonzero(~same)
    shown = wrong[:4] if wrong.size else np.arange(min(4, flat_mine.size))
    return (
        f"at flat index {shown.tolist()}: got {flat_theirs[shown].tolist()}, "
        f"expected {flat_mine[shown].tolist()}"
    )


def _float_difference(
    op_type: str, where: str, elem: ElementType, expected: np.ndarray, got: np.ndarray
) -> Difference | None:
    with np.errstate(all="ignore"):
        mine = (to_float32(expected) if expected.dtype.names else expected).astype(np.float64)
        theirs = (to_float32(got) if got.dtype.names else got).astype(np.float64)
        nan_mine, nan_theirs = np.isnan(mine), np.isnan(theirs)
        if (nan_mine != nan_theirs).any():
            cause = (
                "NaN where the standard gives a number"
                if nan_theirs[~nan_mine].any()
                else ("a number where the standard gives NaN")
            )
            return Difference(f"{where}: {cause}", _first_values(expected, got), True)
        inf_mine, inf_theirs = np.isinf(mine), np.isinf(theirs)
        if (inf_mine != inf_theirs).any() or (mine[inf_mine] != theirs[inf_mine]).any():
            return Difference(f"{where}: infinities differ", _first_values(expected, got), True)
        finite = ~(nan_mine | inf_mine)
        if not finite.any():
            return None
        a, b = mine[finite], theirs[finite]
        epsilon = _EPSILON[elem]
        rule = tolerance_for(op_type, elem)
        # the last place of each value (that of the smallest normal one for subnormals and
        # zeros, whose last place is the same)
        unit = epsilon * np.exp2(np.floor(np.log2(np.maximum(np.abs(a), _TINY[elem]))))
        scale = epsilon * max(float(np.max(np.abs(a))), 1.0)
        allowed = rule.ulps * unit + rule.scaled * scale
        excess = np.abs(a - b) - allowed
    if not (excess > 0).any():
        return None
    worst = int(np.argmax(excess))
    ulps = float(np.abs(a[worst] - b[worst]) / unit[worst])
    gross = bool(np.abs(a[worst] - b[worst]) > 1000 * allowed[worst] + 1e-3 * scale / epsilon)
    return Difference(
        f"{where}: values differ beyond the tolerance",
        f"got {b[worst]!r}, expected {a[worst]!r} ({ulps:.3g} units in the last place)",
        gross,
    )
