"""Rules for elementwise operators: math, comparison, logic, activations, casts, Where."""

from __future__ import annotations

from onnxcraft.core.types import Tensor, ValueType
from onnxcraft.dtypes import ElementType
from onnxcraft.infer.common import broadcast, broadcast_many
from onnxcraft.infer.registry import ALL_VERSIONS, InferenceContext, RuleRegistry

__all__ = ["register"]

_BINARY_SAME_TYPE = (
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Mod",
    "BitShift",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "PRelu",
)
_COMPARISON = ("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor")
_VARIADIC = ("Max", "Min", "Sum", "Mean")
_UNARY_SAME = (
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "BitwiseNot",
    "Ceil",
    "Celu",
    "Cos",
    "Cosh",
    "Elu",
    "Erf",
    "Exp",
    "Floor",
    "Gelu",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "LeakyRelu",
    "Log",
    "LogSoftmax",
    "Mish",
    "Neg",
    "Not",
    "Reciprocal",
    "Relu",
    "Round",
    "Selu",
    "Shrink",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softmax",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Swish",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Clip",
    "Identity",
)


def _binary(ctx: InferenceContext) -> list[ValueType | None]:
    a, b = ctx.tensor(0), ctx.tensor(1)
    if a is None:
        return [None]
    if ctx.op.since_version < 7 and ctx.op.op_type in ("Add", "Sub", "Mul", "Div", "Pow"):
        return [Tensor(a.elem_type, a.shape)]  # limited broadcast: B fits into A's shape
    shape = broadcast(ctx.op.op_type, a.shape, None if b is None else b.shape)
    if ctx.op.op_type == "Pow":
        return [Tensor(a.elem_type, shape)]  # Pow's exponent may have another type
    elem = a.elem_type if a.elem_type is not None else (None if b is None else b.elem_type)
    return [Tensor(elem, shape)]


def _comparison(ctx: InferenceContext) -> list[ValueType | None]:
    a, b = ctx.tensor(0), ctx.tensor(1)
    if ctx.op.since_version < 7:
        shape = None if a is None else a.shape
    else:
        shape = broadcast(
            ctx.op.op_type, None if a is None else a.shape, None if b is None else b.shape
        )
    return [Tensor(ElementType.BOOL, shape)]


def _variadic(ctx: InferenceContext) -> list[ValueType | None]:
    tensors = [ctx.tensor(i) for i in range(len(ctx.input_types))]
    known = [t for t in tensors if t is not None]
    if not known:
        return [None]
    elem = next((t.elem_type for t in known if t.elem_type is not None), None)
    if ctx.op.since_version < 8:
        shapes = [t.shape for t in known]
        shape = shapes[0] if all(s == shapes[0] for s in shapes) else None
    else:
        shape = broadcast_many(ctx.op.op_type, [None if t is None else t.shape for t in tensors])
    return [Tensor(elem, shape)]


def _unary_same(ctx: InferenceContext) -> list[ValueType | None]:
    if ctx.op.op_type == "Identity" and ctx.value(0) is not None:
        ctx.set_value(0, ctx.value(0))  # type: ignore[arg-type]
    return [ctx.input_types[0] if ctx.input_types else None]


def _predicate(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ElementType.BOOL, ctx.shape(0))]


def _cast(ctx: InferenceContext) -> list[ValueType | None]:
    to = ctx.attr("to")
    return [Tensor(None if to is None else ElementType(int(to)), ctx.shape(0))]


def _cast_like(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(1), ctx.shape(0))]


def _where(ctx: InferenceContext) -> list[ValueType | None]:
    shapes = [ctx.shape(i) for i in range(3)]
    elem = ctx.elem(1) if ctx.elem(1) is not None else ctx.elem(2)
    return [Tensor(elem, broadcast_many("Where", shapes))]


def _swiglu(ctx: InferenceContext) -> list[ValueType | None]:
    # Y = Swish(A) * B with A and B of one shape (no broadcasting).
    a, b = ctx.shape(0), ctx.shape(1)
    if a is not None and b is not None and len(a) == len(b):
        for x, y in zip(a, b):
            if isinstance(x, int) and isinstance(y, int) and x != y:
                raise ctx.fail(f"A {list(a)} and B {list(b)} must have the same shape")
    return [Tensor(ctx.elem(0), a if a is not None else b)]


def register(rules: RuleRegistry) -> None:
    for name in _BINARY_SAME_TYPE:
        rules.add(name, _binary, since=ALL_VERSIONS)
    for name in _COMPARISON:
        rules.add(name, _comparison, since=ALL_VERSIONS)
    for name in _VARIADIC:
        rules.add(name, _variadic, since=ALL_VERSIONS)
    for name in _UNARY_SAME:
        rules.add(name, _unary_same, since=ALL_VERSIONS)
    for name in ("IsNaN", "IsInf"):
        rules.add(name, _predicate, since=ALL_VERSIONS)
    rules.add("Cast", _cast, since=ALL_VERSIONS)
    rules.add("CastLike", _cast_like, since=ALL_VERSIONS)
    rules.add("Where", _where, since=ALL_VERSIONS)
    rules.add("SwiGLU", _swiglu, since=ALL_VERSIONS)
