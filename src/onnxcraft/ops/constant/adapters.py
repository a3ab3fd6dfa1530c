"""Version adapters of Constant: the value_* shorthands (12) and element types before 9."""

from __future__ import annotations

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import element_type_of
from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry

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


def register(table: AdapterRegistry) -> None:
    table.add("Constant", 12, 11, _shorthand_down, "value_int(s)/value_float(s) -> value")
    table.add("Constant", 9, 1, _to_initializer, "a non-float value -> an initializer")
