"""Element types across a version step: the node's actual types against the version's.

Each type constraint of the version reached is bound from the node's values (inferred before
the conversion). A type the version accepts passes; a type it lacks, downward, is computed in
a wider type the version accepts, with Casts around the node, when the operator only moves,
selects or compares values (so the wider computation rounds to the same values); otherwise the
step is refused.
"""

from __future__ import annotations

from onnxcraft.core.typestr import type_to_string
from onnxcraft.dtypes import ElementType
from onnxcraft.ops.adapter_api import AdapterContext
from onnxcraft.specs.model import FormalParameter, OpSpec
from onnxcraft.types import Tensor

__all__ = ["check_types"]

# Operators whose result, computed in a wider type and cast back, is the same bit for bit:
# they move, select or compare values and never round.
_EXACT_IN_WIDER = frozenset(
    {
        "ArgMax", "ArgMin", "Compress", "Concat", "DepthToSpace", "Equal", "Expand", "Flatten",
        "Gather", "GatherElements", "GatherND", "Greater", "GreaterOrEqual", "Identity", "Less",
        "LessOrEqual", "Max", "Min", "ReduceMax", "ReduceMin", "Reshape", "ScatterElements",
        "ScatterND", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile", "Transpose", "Trilu",
        "Unsqueeze", "Where", "Relu", "Abs", "Neg", "Ceil", "Floor", "Round", "Sign", "IsNaN",
        "IsInf", "MaxPool", "GlobalMaxPool", "ReverseSequence",
    }
)  # fmt: skip

# Only floats for these: in an integer type, Abs and Neg of the minimum wrap.
_FLOAT_ONLY = frozenset({"Abs", "Neg", "Relu", "Sign"})

# Wider types that hold every value of a type exactly (integers in floats whose mantissa holds
# them), nearest first.
_WIDER: dict[ElementType, tuple[ElementType, ...]] = {
    ElementType.FLOAT16: (ElementType.FLOAT, ElementType.DOUBLE),
    ElementType.BFLOAT16: (ElementType.FLOAT, ElementType.DOUBLE),
    ElementType.FLOAT: (ElementType.DOUBLE,),
    ElementType.INT8: (ElementType.INT16, ElementType.INT32, ElementType.INT64,
                       ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE),
    ElementType.INT16: (ElementType.INT32, ElementType.INT64, ElementType.FLOAT,
                        ElementType.DOUBLE),
    ElementType.INT32: (ElementType.INT64, ElementType.DOUBLE),
    ElementType.UINT8: (ElementType.UINT16, ElementType.INT16, ElementType.UINT32,
                        ElementType.INT32, ElementType.UINT64, ElementType.INT64,
                        ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE),
    ElementType.UINT16: (ElementType.UINT32, ElementType.INT32, ElementType.UINT64,
                         ElementType.INT64, ElementType.FLOAT, ElementType.DOUBLE),
    ElementType.UINT32: (ElementType.UINT64, ElementType.INT64, ElementType.DOUBLE),
}  # fmt: skip

_FLOATS = frozenset({ElementType.FLOAT16, ElementType.BFLOAT16, ElementType.FLOAT})


def _allowed(spec: OpSpec, param: FormalParameter) -> tuple[str, ...]:
    for constraint in spec.type_constraints:
        if constraint.name == param.type_str:
            return constraint.allowed
    return (param.type_str,)


def _bound(
    ctx: AdapterContext, spec: OpSpec
) -> dict[str, tuple[list[tuple[str, int, str]], set[str]]]:
    """Per type string of ``spec``: the node's values bound to it ((kind, index, name)) and the
    type strings seen."""
    found: dict[str, tuple[list[tuple[str, int, str]], set[str]]] = {}
    for kind, params, names in (
        ("input", spec.inputs, ctx.node.inputs),
        ("output", spec.outputs, ctx.node.outputs),
    ):
        for index, name in enumerate(names):
            if not name or not params:
                continue
            param = params[min(index, len(params) - 1)]
            if index >= len(params) and param.option != "variadic":
                continue
            entry = found.setdefault(param.type_str, ([], set()))
            entry[0].append((kind, index, name))
            text = type_to_string(ctx.value_type(name))
            if "?" not in text:
                entry[1].add(text)
    return found


def check_types(ctx: AdapterContext, before: OpSpec, after: OpSpec) -> None:
    """Check ``ctx.node``'s types at ``after`` (reached from ``before``); insert Casts or fail."""
    params = {p.type_str: p for p in (*after.inputs, *after.outputs)}
    old_params = {p.type_str: p for p in (*before.inputs, *before.outputs)}
    for type_str, (values, seen) in _bound(ctx, after).items():
        allowed = set(_allowed(after, params[type_str]))
        if not seen:
            old = old_params.get(type_str)
            if old is not None and not set(_allowed(before, old)) <= allowed:
                ctx.fail(
                    f"the element type of {type_str} is unknown, and version {ctx.to_version} "
                    f"accepts fewer types than version {ctx.from_version}"
                )
            continue
        missing = sorted(seen - allowed)
        if not missing:
            continue
        if len(seen) == 1 and type_str in {c.name for c in after.type_constraints}:
            _widen(ctx, type_str, values, missing[0], allowed)
            continue
        ctx.fail(f"version {ctx.to_version} does not accept {missing[0]} for {type_str}")


def _widen(
    ctx: AdapterContext,
    type_str: str,
    values: list[tuple[str, int, str]],
    actual: str,
    allowed: set[str],
) -> None:
    node = ctx.node
    narrow = next(
        (t.elem_type for _, _, n in values if isinstance(t := ctx.value_type(n), Tensor)),
        None,
    )
    refuse = (
        f"version {ctx.to_version} does not accept {actual} for {type_str}, and {node.op_type} "
        f"computed in a wider type would not round the same"
    )
    if narrow is None or node.op_type not in _EXACT_IN_WIDER:
        ctx.fail(refuse)
    if node.op_type in _FLOAT_ONLY and narrow not in _FLOATS:
        ctx.fail(refuse)
    wide = next(
        (w for w in _WIDER.get(narrow, ()) if type_to_string(Tensor(w)) in allowed),
        None,
    )
    if wide is None:
        ctx.fail(
            f"version {ctx.to_version} does not accept {actual} for {type_str}, and no "
            f"wider type it accepts holds every value"
        )
    for kind, index, name in values:
        if kind == "input":
            (cast,) = ctx.emit("Cast", [name], 1, {"to": ("INT", int(wide))}, opset=13)
            node.inputs[index] = cast
        else:
            wide_name = ctx.fresh_name(name)
            node.outputs[index] = wide_name
            shape = ctx.shape(name)
            ctx.declare_type(wide_name, Tensor(wide, shape))
            ctx.emit(
                "Cast", [wide_name], [name], {"to": ("INT", int(narrow))}, opset=13, after=True
            )
