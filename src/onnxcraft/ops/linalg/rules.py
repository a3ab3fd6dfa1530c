"""Rules for MatMul, Gemm and Det."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import broadcast
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register", "matmul_shape"]


def _inner_clash(a: Dim, b: Dim) -> bool:
    return isinstance(a, int) and isinstance(b, int) and a != b


def matmul_shape(
    ctx: InferenceContext, a: tuple[Dim, ...] | None, b: tuple[Dim, ...] | None
) -> tuple[Dim, ...] | None:
    op = ctx.op.op_type
    if a is None or b is None:
        return None
    if not a or not b:
        raise ctx.fail("inputs must have rank >= 1 (scalars cannot be multiplied as matrices)")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if _inner_clash(a2[-1], b2[-2]):
        raise ctx.fail(
            f"inner dimensions differ: A[..., {a2[-1]}] vs B[{b2[-2]}, ...] "
            f"(A has shape {list(a)}, B has shape {list(b)})"
        )
    batch = broadcast(op, a2[:-2], b2[:-2])
    assert batch is not None
    result = (*batch, a2[-2], b2[-1])
    if len(a) == 1:
        result = result[:-2] + result[-1:]
    if len(b) == 1:
        result = result[:-1]
    return result


def _matmul(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0) if ctx.elem(0) is not None else ctx.elem(1)
    return [Tensor(elem, matmul_shape(ctx, ctx.shape(0), ctx.shape(1)))]


def _det(ctx: InferenceContext) -> list[ValueType | None]:
    shape = ctx.shape(0)
    if shape is None:
        return [Tensor(ctx.elem(0), None)]
    if len(shape) < 2:
        raise ctx.fail(f"X must have rank >= 2 ([*, M, M]), got shape {list(shape)}")
    rows, cols = shape[-2:]
    if isinstance(rows, int) and isinstance(cols, int) and rows != cols:
        raise ctx.fail(f"the matrices must be square, got shape {list(shape)}")
    return [Tensor(ctx.elem(0), shape[:-2])]


def _gemm(ctx: InferenceContext) -> list[ValueType | None]:
    a, b = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(0)
    if a is None or b is None:
        return [Tensor(elem, (None, None))]
    if len(a) != 2 or len(b) != 2:
        raise ctx.fail(f"A and B must be 2-D, got shapes {list(a)} and {list(b)}")
    if ctx.attr("transA", 0):
        a = (a[1], a[0])
    if ctx.attr("transB", 0):
        b = (b[1], b[0])
    if _inner_clash(a[1], b[0]):
        raise ctx.fail(
            f"inner dimensions differ: A[..., {a[1]}] vs B[{b[0]}, ...] (after transA/transB)"
        )
    shape = (a[0], b[1])
    c = ctx.shape(2)
    if c is not None and len(c) <= 2:
        broadcast("Gemm", shape, c, ("A @ B", "C"))  # C must broadcast to (M, N)
    return [Tensor(elem, shape)]


def register(rules: RuleRegistry) -> None:
    rules.add("MatMul", _matmul, since=ALL_VERSIONS)
    rules.add("Gemm", _gemm, since=ALL_VERSIONS)
    rules.add("Det", _det, since=ALL_VERSIONS)
