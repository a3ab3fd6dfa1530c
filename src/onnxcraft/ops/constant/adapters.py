"""Version adapters of Constant (the value_* shorthands at 12, element types before 9),
ConstantOfShape before 9 and Range before 11."""

from __future__ import annotations

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry
from onnxcraft.types import Tensor

_SHORTHANDS = {
    "value_int": np.int64,
    "value_ints": np.int64,
    "value_float": np.float32,
    "value_floats": np.float32,
}


def _shorthand_down(ctx: AdapterContext) -> None:
    """12 -> 11: value_int(s)/value_float(s) -> a value tensor."""
    for name, dtype in _SHORTHANDS.items():
        value = ctx.attr(name)
        if value is None:
            continue
        array = np.asarray(value, dtype)
        ctx.drop_attr(name)
        tensor = ir.TensorData.from_array("", array, element_type_of(array))
        ctx.set_attr("value", "TENSOR", tensor)
        return
    for name in ("value_string", "value_strings"):
        value = ctx.attr(name)
        if value is not None:
            texts = [value] if name == "value_string" else list(value)
            array = np.asarray(
                [t.decode() if isinstance(t, bytes) else t for t in texts], dtype=object
            )
            ctx.drop_attr(name)
            tensor = ir.TensorData.from_array(
                "", array.reshape(() if name == "value_string" else -1), element_type_of(array)
            )
            ctx.set_attr("value", "TENSOR", tensor)
            return


def _to_initializer(ctx: AdapterContext) -> None:
    """9 -> 1: Constant-1 holds float types only; another type becomes an initializer."""
    attr = ctx.node.attribute("value")
    if attr is None or not isinstance(attr.value, ir.TensorData):
        return
    if attr.value.elem_type in (1, 10, 11):  # float, float16, double
        return
    if not ctx.add_initializer(attr.value.array(), ctx.node.outputs[0]):
        ctx.fail("a non-float Constant inside a function has no equivalent before version 9")
    ctx.remove()


def _fill_value(ctx: AdapterContext) -> np.ndarray:
    value = ctx.attr("value")
    if value is None:
        return np.zeros((), np.float32)
    array = np.asarray(value.array() if isinstance(value, ir.TensorData) else value)
    if array.size != 1:
        ctx.fail(f"value must hold one element, got {array.size}")
    return array.reshape(())


def _constant_of_shape_absent(ctx: AdapterContext) -> None:
    """ConstantOfShape-9 -> before 9: a known shape gives the tensor itself; a shape known
    only at run time is Expand's (8) broadcast of the value."""
    fill = _fill_value(ctx)
    shape = ctx.constant(ctx.input(0))
    output = ctx.node.outputs[0]
    if shape is not None:
        dims = [int(d) for d in np.asarray(shape).reshape(-1)]
        if any(d < 0 for d in dims):
            ctx.fail(f"shape {dims} has negative dims")
        whole = ctx.add_constant(np.full(dims, fill, dtype=fill.dtype), "constant_of_shape")
        ctx.emit("Identity", [whole], [output], opset=1)
    else:
        value = ctx.add_constant(fill, "constant_of_shape_value")
        ctx.emit("Expand", [value, ctx.input(0)], [output], opset=8)
    ctx.remove()


_INTEGERS = {int(t) for t in (ElementType.INT16, ElementType.INT32, ElementType.INT64)}


def _range_absent(ctx: AdapterContext) -> None:
    """Range-11 -> before 11 (the standard's body holds a Loop): the count
    max(ceil((limit - start) / delta), 0) (the quotient in float for float inputs, in double
    otherwise), then a Loop whose iteration i outputs start + i * delta, computed in int64
    for integers and in double for floats, as the operator's evaluation does, and cast back."""
    start, limit, delta = (ctx.input(i) for i in range(3))
    elem = ctx.elem_type(start)
    if elem is None:
        ctx.fail("the element type of start must be known")
    t = int(elem)
    quotient = 1 if t == int(ElementType.FLOAT) else 11
    work = 7 if t in _INTEGERS else 11

    def cast(name: str, to: int, opset: int = 11) -> str:
        if t == to:
            return name
        (out,) = ctx.emit("Cast", [name], 1, {"to": ("INT", to)}, opset=opset)
        return out

    (span,) = ctx.emit("Sub", [limit, start], 1, opset=11)
    (ratio,) = ctx.emit("Div", [cast(span, quotient), cast(delta, quotient)], 1, opset=11)
    (steps,) = ctx.emit("Ceil", [ratio], 1, opset=11)
    (steps,) = ctx.emit("Relu", [steps], 1, opset=11)
    (count,) = ctx.emit("Cast", [steps], 1, {"to": ("INT", 7)}, opset=11)
    first, step = cast(start, work), cast(delta, work)
    # the Loop body: (iteration, condition, carried) -> (condition, carried, start + iteration *
    # delta); a carried value passes through unchanged, since Loop before 13 needs one
    keys = ("i", "c", "k", "c_out", "k_out", "i_w", "m", "v", "y")
    names = {n: ctx.fresh_name(f"range_{n}") for n in keys}
    body_nodes = [
        ir.Node("Identity", [names["c"]], [names["c_out"]]),
        ir.Node("Identity", [names["k"]], [names["k_out"]]),
    ]
    index = names["i"]
    if work != 7:
        body_nodes.append(
            ir.Node("Cast", [index], [names["i_w"]], attributes=[ir.Attribute("to", "INT", work)])
        )
        index = names["i_w"]
    body_nodes.append(ir.Node("Mul", [index, step], [names["m"]]))
    body_nodes.append(ir.Node("Add", [names["m"], first], [names["v"]]))
    body_nodes.append(
        ir.Node("Cast", [names["v"]], [names["y"]], attributes=[ir.Attribute("to", "INT", t)])
    )
    types = {
        names["i"]: Tensor(ElementType.INT64, ()), names["c"]: Tensor(ElementType.BOOL, ()),
        names["c_out"]: Tensor(ElementType.BOOL, ()), names["i_w"]: Tensor(work, ()),
        names["k"]: Tensor(ElementType.INT64, ()), names["k_out"]: Tensor(ElementType.INT64, ()),
        names["m"]: Tensor(work, ()), names["v"]: Tensor(work, ()), names["y"]: Tensor(t, ()),
    }  # fmt: skip
    for name, value_type in types.items():
        ctx.declare_type(name, value_type)
    body = ir.Graph(
        name="range_body",
        nodes=body_nodes,
        inputs=[ir.ValueInfo(names[n], types[names[n]]) for n in ("i", "c", "k")],
        outputs=[ir.ValueInfo(names[n], types[names[n]]) for n in ("c_out", "k_out", "y")],
    )
    carried = ctx.fresh_name("range_carried")
    ctx.emit(
        "Loop", [count, "", count], [carried, ctx.node.outputs[0]], {"body": ("GRAPH", body)},
        opset=11,
    )  # fmt: skip
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("ConstantOfShape", 9, ABSENT, _constant_of_shape_absent, "a constant, or Expand")
    table.add("Range", 11, ABSENT, _range_absent, "before 11: a Loop")
    table.add("Constant", 12, 11, _shorthand_down, "value_int(s)/value_float(s) -> value")
    table.add("Constant", 9, 1, _to_initializer, "a non-float value -> an initializer")
