"""Version adapters of Pad (pads and value between attributes and inputs, new modes), Compress
(negative axis) and OneHot (negative indices: all off at 9, counted from the end at 11)."""

from __future__ import annotations

import numpy as np

from onnxcraft.dtypes import numpy_dtype
from onnxcraft.ops.adapter_api import (
    ABSENT,
    AdapterContext,
    AdapterRegistry,
    nonnegative_axes,
    refuse_value,
)


def _pad_up(ctx: AdapterContext) -> None:
    """2 -> 11: pads and value attributes -> inputs (value in the data's type)."""
    pads = ctx.attr("pads")
    value = float(ctx.attr("value", 0.0))
    ctx.drop_attr("pads")
    ctx.drop_attr("value")
    if pads is None:
        ctx.fail("Pad-2 without pads")
    ctx.set_input(1, ctx.add_constant(np.asarray(pads, np.int64), "pad_pads"))
    if value != 0.0:
        elem = ctx.elem_type(ctx.input(0))
        if elem is None:
            ctx.fail("the data's element type is unknown, which the value input needs")
        array = np.asarray(value, numpy_dtype(elem))
        if float(array) != value:
            ctx.fail(f"value={value} is not exact in {elem.name}")
        ctx.set_input(2, ctx.add_constant(array, "pad_value"))


def _pad_down(ctx: AdapterContext) -> None:
    """11 -> 2: pads and constant_value (constants) -> attributes (value as a float)."""
    pads = ctx.constant_input(1, "pads")
    value = ctx.constant_input(2, "constant_value")
    ctx.drop_inputs_from(1)
    assert pads is not None
    ctx.set_attr("pads", "INTS", [int(v) for v in pads.reshape(-1)])
    if value is not None and value.size:
        number = value.reshape(-1)[0]
        if value.dtype.kind not in "fiub" or np.float32(number) != number:
            ctx.fail(f"constant_value={number!r} is not exactly a float attribute")
        ctx.set_attr("value", "FLOAT", float(number))


def _pad_axes_down(ctx: AdapterContext) -> None:
    """18 -> 13: the axes input expanded into pads for every axis."""
    if not ctx.input(3):
        return
    axes = ctx.constant_input(3, "axes")
    pads = ctx.constant_input(1, "pads")
    rank = ctx.rank(ctx.input(0))
    assert axes is not None and pads is not None
    if rank is None:
        ctx.fail("the axes input needs the data's rank, which is unknown")
    full = np.zeros(2 * rank, np.int64)
    count = axes.size
    for i, axis in enumerate(axes.reshape(-1)):
        a = int(axis) + rank if int(axis) < 0 else int(axis)
        full[a] = pads[i]
        full[a + rank] = pads[i + count]
    ctx.drop_inputs_from(3)
    ctx.set_input(1, ctx.add_constant(full, "pad_pads"))


def _known_nonnegative(ctx: AdapterContext, name: str) -> bool:
    value = ctx.constant(name)
    return value is not None and bool(np.all(np.asarray(value).astype(np.int64) >= 0))


def _one_hot_up(ctx: AdapterContext) -> None:
    """9 -> 11: version 9 requires non-negative indices (its text also calls indices outside
    [0, depth) all off_value); for those, 11 computes the same. Nothing to rewrite."""
    del ctx


def _one_hot_down(ctx: AdapterContext) -> None:
    """11 -> 9: indices in [-depth, -1] count from the end at 11, and version 9 requires
    non-negative ones: depth is added to negative indices (after the cast to int64 both
    versions make), and those still negative (below -depth, all off_value at 11) become depth
    (all off_value at 9). A negative axis is made non-negative from the indices' rank + 1."""
    nonnegative_axes("axis", extra_rank=1)(ctx)
    indices, depth = ctx.input(0), ctx.input(1)
    if _known_nonnegative(ctx, indices):
        return
    (whole,) = ctx.emit("Cast", [indices], 1, {"to": ("INT", 7)}, opset=13)
    (count,) = ctx.emit("Cast", [depth], 1, {"to": ("INT", 7)}, opset=13)
    scalar = ctx.add_constant(np.asarray([], np.int64), "onehot_scalar")
    (count,) = ctx.emit("Reshape", [count, scalar], 1, opset=13)
    zero = ctx.add_constant(np.asarray(0, np.int64), "onehot_zero")
    (negative,) = ctx.emit("Less", [whole, zero], 1, opset=13)
    (shifted,) = ctx.emit("Add", [whole, count], 1, opset=14)
    (wrapped,) = ctx.emit("Where", [negative, shifted, whole], 1, opset=16)
    (below,) = ctx.emit("Less", [wrapped, zero], 1, opset=13)
    (kept,) = ctx.emit("Where", [below, count, wrapped], 1, opset=16)
    ctx.set_input(0, kept)


def _trilu_absent(ctx: AdapterContext) -> None:
    """Trilu-14 -> before 14: with the last two dims static, a Where (9) between the input and
    zeros under the triangle mask (exact for every value, inf and NaN included, unlike a
    multiplication by the mask): a constant for a constant k, else column - row compared with
    k (upper: not below k; lower: not above k)."""
    x = ctx.input(0)
    shape, elem = ctx.shape(x), ctx.elem_type(x)
    if shape is None or len(shape) < 2 or not all(isinstance(d, int) for d in shape[-2:]):
        ctx.fail(f"the input's last two dims must be static to build the mask, got {shape}")
    if elem is None or elem.name.lower() not in _PLAIN_TYPES:
        ctx.fail(f"element type {elem}: only the plain numeric and bool types are written out")
    rows, cols = int(shape[-2]), int(shape[-1])
    upper = int(ctx.attr("upper", 1)) != 0
    k_name = ctx.input(1)
    k = ctx.constant(k_name) if k_name else np.zeros((), np.int64)
    if k is not None:
        offset = int(np.asarray(k).reshape(-1)[0])
        ones = np.ones((rows, cols), bool)
        keep = ctx.add_constant(np.triu(ones, offset) if upper else np.tril(ones, offset), "tri")
    else:
        diagonal = (
            np.arange(cols, dtype=np.int64)[None, :] - np.arange(rows, dtype=np.int64)[:, None]
        )
        offsets = ctx.add_constant(diagonal, "trilu_diagonal")
        (outside,) = ctx.emit("Less" if upper else "Greater", [offsets, k_name], 1, opset=13)
        (keep,) = ctx.emit("Not", [outside], 1, opset=1)
    zero = ctx.add_constant(np.zeros((), numpy_dtype(elem)), "trilu_zero")
    ctx.emit("Where", [keep, x, zero], list(ctx.node.outputs), opset=16)
    ctx.remove()


_PLAIN_TYPES = {
    "float", "float16", "double", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "bool",
}  # fmt: skip


def register(table: AdapterRegistry) -> None:
    table.add("Trilu", 14, ABSENT, _trilu_absent, "before 14: Where under a constant mask")
    table.add("OneHot", 9, 11, _one_hot_up, "the same for the non-negative indices 9 allows")
    table.add("OneHot", 11, 9, _one_hot_down, "negative indices counted from the end")
    table.add("Pad", 2, 11, _pad_up, "pads/value attributes -> inputs")
    table.add("Pad", 11, 2, _pad_down, "pads/constant_value inputs (constants) -> attributes")
    table.add("Pad", 18, 13, _pad_axes_down, "axes input folded into pads")
    table.add("Pad", 19, 18, refuse_value("mode", ["wrap"], "is new in version 19"),
              "wrap mode refused")  # fmt: skip
    table.add("Compress", 11, 9, nonnegative_axes("axis"), "negative axis made non-negative")
    table.changed("OneHot", 9, 11, "negative indices and axis became defined at version 11")
