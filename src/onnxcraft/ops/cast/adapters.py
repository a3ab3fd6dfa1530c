"""Version adapters of Cast and CastLike: saturate (19) and CastLike below 15."""

from __future__ import annotations

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry

# saturate only changes casts to the float 8 types (17..20 in TensorProto's numbering)
_FLOAT8 = frozenset({17, 18, 19, 20})


def _saturate_down(ctx: AdapterContext) -> None:
    saturate = int(ctx.attr("saturate", 1))
    ctx.drop_attr("saturate")
    if ctx.node.op_type == "Cast":
        target = int(ctx.attr("to", 0))
    else:
        elem = ctx.elem_type(ctx.input(1))
        target = int(elem) if elem is not None else -1
    if saturate != 1 and (target in _FLOAT8 or target < 0):
        ctx.fail("saturate=0 on a cast to a float 8 type has no equivalent before version 19")


def _castlike_absent(ctx: AdapterContext) -> None:
    """CastLike-15 -> before 15: Cast to the element type of target_type (known)."""
    elem = ctx.elem_type(ctx.input(1))
    if elem is None:
        ctx.fail("the element type of target_type is unknown")
    attributes = {"to": ("INT", int(elem))}
    ctx.emit("Cast", [ctx.input(0)], list(ctx.node.outputs), attributes, opset=13)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("Cast", 19, 13, _saturate_down, "saturate dropped where it changes nothing")
    table.add("CastLike", 19, 15, _saturate_down, "saturate dropped where it changes nothing")
    table.add("CastLike", 15, ABSENT, _castlike_absent, "before 15: Cast to the known type")
