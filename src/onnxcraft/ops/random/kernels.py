"""Kernels of the random family: RandomNormal, RandomUniform, their ``*Like`` forms, Bernoulli
and Multinomial, for every version in the specs.

Seeds. The standard's ``seed`` is a float attribute. onnxcraft turns it into a generator as
follows: the seed's IEEE-754 binary64 bit pattern, read as an unsigned 64-bit integer, seeds
``numpy.random.Generator(numpy.random.PCG64(bits))`` (PCG64 runs the integer through numpy's
``SeedSequence``). Reading the bit pattern rather than ``int(seed)`` keeps seeds such as 1.25
and 1.75 apart. Every evaluation of a node starts that stream afresh, so a seeded node gives
the same values run after run and in every onnxcraft evaluator (two nodes with the same seed and
the same shape give the same values, too). Without a seed each evaluation draws from a new
generator seeded by the operating system, so the values differ from run to run.

The values cannot match those of another runtime (onnxruntime, the ONNX reference evaluator,
or numpy's legacy global stream, from which the expected outputs of the ONNX ``test_bernoulli*``
node tests were drawn): the standard fixes the distributions, not a generator or the order of
draws. Only the distributions, element types and shapes are comparable across runtimes.

Draws are made in float64 and rounded to the output element type, so a uniform value just below
``high`` may round to ``high`` itself in a narrow type (float16, bfloat16).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.core.opinfo import op_info
from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype, type_string
from onnxcraft.numerics import from_float32, to_float32
from onnxcraft.ops.kernel_api import KernelContext, KernelRegistry
from onnxcraft.ops.kernel_common import fail, is_lowp
from onnxcraft.ops.run_guard import check_allocation
from onnxcraft.ops.versions import versions

__all__ = ["generator", "register"]


# -- shared helpers -------------------------------------------------------------------------------


def generator(seed: float | None) -> np.random.Generator:
    """The generator of a node: from the seed's float64 bit pattern, or fresh when unseeded."""
    if seed is None:
        return np.random.default_rng()
    bits = int(np.array(seed, dtype=np.float64).view(np.uint64))
    return np.random.Generator(np.random.PCG64(bits))


def _allowed_outputs(ctx: KernelContext) -> frozenset[ElementType]:
    """The output element types this operator version admits, from its spec."""
    elems = op_info(ctx.domain, ctx.op_type, ctx.since_version).outputs[0].tensor_elems
    return elems or frozenset()


def _names(elems: frozenset[ElementType]) -> str:
    return ", ".join(sorted(type_string(e) for e in elems))


def _output_type(ctx: KernelContext, dtype: int | None, fallback: ElementType) -> ElementType:
    """The element type named by ``dtype`` (else ``fallback``), checked against the spec."""
    allowed = _allowed_outputs(ctx)
    if dtype is None:
        if fallback not in allowed:
            fail(
                ctx.op_type,
                f"the input's element type {type_string(fallback)} is not a valid output type "
                f"and the dtype attribute is not given (expected one of {_names(allowed)})",
            )
        return fallback
    try:
        elem = ElementType(int(dtype))
    except ValueError:
        fail(ctx.op_type, f"dtype={dtype} is not an ONNX element type")
    if elem not in allowed:
        fail(
            ctx.op_type,
            f"dtype={int(dtype)} ({elem.name.lower()}) is not allowed at version "
            f"{ctx.since_version} (expected one of {_names(allowed)})",
        )
    return elem


def _as_type(values: np.ndarray, elem: ElementType) -> np.ndarray:
    """float64 ``values`` rounded into element type ``elem`` (bfloat16 included)."""
    return from_float32(values, elem)


def _shape_attribute(op: str, shape: Sequence[int] | None) -> tuple[int, ...]:
    if shape is None:
        fail(op, "the shape attribute is required")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        fail(op, f"shape must not have negative dims, got {list(dims)}")
    return dims


def _float_input(op: str, x: Any) -> np.ndarray:
    """A float input as float64 values (low-precision types decoded first)."""
    array = to_float32(x) if is_lowp(x) else np.asarray(x)
    if array.dtype.kind != "f":
        fail(op, f"the input must be a float tensor, got {array.dtype}")
    return array.astype(np.float64)


# -- the distributions ----------------------------------------------------------------------------


def _normal(
    op: str, shape: tuple[int, ...], mean: float, scale: float, seed: float | None
) -> np.ndarray:
    if not scale >= 0.0:
        fail(op, f"scale (the standard deviation) must be >= 0, got {scale}")
    values: np.ndarray = generator(seed).standard_normal(shape) * scale + mean
    return values


def _uniform(
    op: str, shape: tuple[int, ...], low: float, high: float, seed: float | None
) -> np.ndarray:
    if not low <= high:
        fail(op, f"low must not exceed high, got low={low} and high={high}")
    values: np.ndarray = low + (high - low) * generator(seed).random(shape)
    return values


# -- kernels --------------------------------------------------------------------------------------


def random_normal(
    ctx: KernelContext,
    *,
    shape: Sequence[int] | None = None,
    dtype: int = int(ElementType.FLOAT),
    mean: float = 0.0,
    scale: float = 1.0,
    seed: float | None = None,
) -> np.ndarray:
    elem = _output_type(ctx, dtype, ElementType.FLOAT)
    dims = _shape_attribute(ctx.op_type, shape)
    check_allocation(ctx.op_type, dims, np.float64)  # drawn in double, then cast
    return _as_type(_normal(ctx.op_type, dims, mean, scale, seed), elem)


def random_uniform(
    ctx: KernelContext,
    *,
    shape: Sequence[int] | None = None,
    dtype: int = int(ElementType.FLOAT),
    low: float = 0.0,
    high: float = 1.0,
    seed: float | None = None,
) -> np.ndarray:
    elem = _output_type(ctx, dtype, ElementType.FLOAT)
    dims = _shape_attribute(ctx.op_type, shape)
    check_allocation(ctx.op_type, dims, np.float64)  # drawn in double, then cast
    return _as_type(_uniform(ctx.op_type, dims, low, high, seed), elem)


def random_normal_like(
    ctx: KernelContext,
    x: Any,
    *,
    dtype: int | None = None,
    mean: float = 0.0,
    scale: float = 1.0,
    seed: float | None = None,
) -> np.ndarray:
    array = np.asarray(x)
    elem = _output_type(ctx, dtype, element_type_of(array.dtype))
    return _as_type(_normal(ctx.op_type, array.shape, mean, scale, seed), elem)


def random_uniform_like(
    ctx: KernelContext,
    x: Any,
    *,
    dtype: int | None = None,
    low: float = 0.0,
    high: float = 1.0,
    seed: float | None = None,
) -> np.ndarray:
    array = np.asarray(x)
    elem = _output_type(ctx, dtype, element_type_of(array.dtype))
    return _as_type(_uniform(ctx.op_type, array.shape, low, high, seed), elem)


def bernoulli(
    ctx: KernelContext, x: Any, *, dtype: int | None = None, seed: float | None = None
) -> np.ndarray:
    """1 with probability ``x``, else 0, element by element."""
    elem = _output_type(ctx, dtype, element_type_of(np.asarray(x).dtype))
    p = _float_input(ctx.op_type, x)
    if not np.all((p >= 0.0) & (p <= 1.0)):  # also rejects NaN
        bad = p[~((p >= 0.0) & (p <= 1.0))].reshape(-1)[0]
        fail(ctx.op_type, f"the input holds probabilities, expected values in [0, 1], got {bad}")
    # u < p is true with probability p for u uniform in [0, 1).
    drawn = (generator(seed).random(p.shape) < p).astype(np.float64)
    return _as_type(drawn, elem)


def _row_weights(op: str, logits: np.ndarray) -> np.ndarray:
    """Per row, exp(logits - max): softmax up to the row's sum (``-inf`` gives weight 0)."""
    if np.isnan(logits).any() or np.isposinf(logits).any():
        fail(op, "the input holds log-probabilities: NaN and +inf are not allowed")
    top = logits.max(axis=1, keepdims=True)
    if not np.isfinite(top).all():
        fail(op, "every row of the input needs at least one finite log-probability")
    weights: np.ndarray = np.exp(logits - top)  # shifted by the row maximum: no overflow
    return weights


def _sample_rows(weights: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Class indices by inverse transform: per draw, the first class whose cdf exceeds it."""
    cdf = np.cumsum(weights, axis=1)
    cdf /= cdf[:, -1:]
    # numpy has no batched searchsorted: the loop runs over rows, each row's draws vectorised.
    picked = np.stack([np.searchsorted(row, u, side="right") for row, u in zip(cdf, uniforms)])
    # Rounding may leave a row's cdf a hair below 1: a draw past it takes the last class of
    # positive probability (never a class of probability 0).
    classes = weights.shape[1]
    last_positive = classes - 1 - np.argmax(weights[:, ::-1] > 0, axis=1)
    clipped: np.ndarray = np.minimum(picked, last_positive[:, None])
    return clipped


def multinomial(
    ctx: KernelContext,
    x: Any,
    *,
    dtype: int = int(ElementType.INT32),
    sample_size: int = 1,
    seed: float | None = None,
) -> np.ndarray:
    """``sample_size`` class indices per row, drawn with probabilities softmax(row)."""
    elem = _output_type(ctx, dtype, ElementType.INT32)
    logits = _float_input(ctx.op_type, x)
    if logits.ndim != 2:
        fail(
            ctx.op_type,
            f"the input must be 2-D [batch_size, class_size], got shape {list(logits.shape)}",
        )
    if sample_size < 1:
        fail(ctx.op_type, f"sample_size must be >= 1, got {sample_size}")
    batch, classes = logits.shape
    if classes == 0:
        fail(ctx.op_type, "the input has no classes to sample from (class_size is 0)")
    if batch == 0:
        return np.zeros((0, sample_size), dtype=numpy_dtype(elem))
    weights = _row_weights(ctx.op_type, logits)
    uniforms = generator(seed).random((batch, sample_size))
    return _sample_rows(weights, uniforms).astype(numpy_dtype(elem))


def register(kernels: KernelRegistry) -> None:
    """Add the random operators to ``kernels`` (all context-aware: they check dtype per version)."""
    table = (
        ("RandomNormal", random_normal),
        ("RandomUniform", random_uniform),
        ("RandomNormalLike", random_normal_like),
        ("RandomUniformLike", random_uniform_like),
        ("Bernoulli", bernoulli),
        ("Multinomial", multinomial),
    )
    for op_type, fn in table:
        kernels.add(op_type, fn, since=versions(op_type), context=True)
