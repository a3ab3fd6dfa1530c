"""Version adapters of Scatter (deprecated at 11), the reductions added to the scatters, and
GatherElements below 11 (a Gather from the flattened data)."""

from __future__ import annotations

import math

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry, refuse_value


def _scatter_to_elements(ctx: AdapterContext) -> None:
    node = ctx.node
    attributes = {"axis": ("INT", int(ctx.attr("axis", 0)))}
    ctx.emit("ScatterElements", list(node.inputs), list(node.outputs), attributes, opset=11)
    ctx.remove()


def _gather_elements_absent(ctx: AdapterContext) -> None:
    """GatherElements-11 -> before 11: with static shapes, element [i] of the output is the
    flattened data's element at sum over axes d of i_d * stride_d, where along ``axis`` the
    coordinate is the index (a negative one counted from the end first): a Gather (1) from the
    flattened data at those non-negative positions."""
    data, indices = ctx.input(0), ctx.input(1)
    data_shape, index_shape = ctx.shape(data), ctx.shape(indices)
    for what, dims in (("data", data_shape), ("indices", index_shape)):
        if dims is None or not all(isinstance(d, int) for d in dims):
            ctx.fail(f"the shape of {what} must be static to flatten the gather, got {dims}")
    assert data_shape is not None and index_shape is not None
    sizes, picked = [int(d) for d in data_shape], [int(d) for d in index_shape]
    if len(sizes) != len(picked) or not sizes:
        ctx.fail(f"data {sizes} and indices {picked} must have the same (non-zero) rank")
    rank = len(sizes)
    axis = int(ctx.attr("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        ctx.fail(f"axis={ctx.attr('axis', 0)} is out of range for rank {rank}")
    strides = [math.prod(sizes[d + 1 :]) for d in range(rank)]
    base = np.zeros(picked, np.int64)
    for d in range(rank):
        if d != axis:
            coordinate = np.arange(picked[d], dtype=np.int64).reshape(
                [picked[d] if e == d else 1 for e in range(rank)]
            )
            base = base + coordinate * strides[d]
    size = sizes[axis]
    known = ctx.constant(indices)
    if known is not None:
        values = np.asarray(known).astype(np.int64)
        if np.any((values < -size) | (values >= size)):
            ctx.fail(f"indices must lie in [-{size}, {size - 1}]")
        position = ctx.add_constant(
            base + np.where(values < 0, values + size, values) * strides[axis], "gather_elements_at"
        )
    else:
        (whole,) = ctx.emit("Cast", [indices], 1, {"to": ("INT", 7)}, opset=13)
        zero = ctx.add_constant(np.asarray(0, np.int64), "gather_elements_zero")
        length = ctx.add_constant(np.asarray(size, np.int64), "gather_elements_size")
        (negative,) = ctx.emit("Less", [whole, zero], 1, opset=13)
        (wrapped,) = ctx.emit("Add", [whole, length], 1, opset=14)
        (whole,) = ctx.emit("Where", [negative, wrapped, whole], 1, opset=16)
        stride = ctx.add_constant(np.asarray(strides[axis], np.int64), "gather_elements_stride")
        (scaled,) = ctx.emit("Mul", [whole, stride], 1, opset=14)
        offsets = ctx.add_constant(base, "gather_elements_base")
        (position,) = ctx.emit("Add", [scaled, offsets], 1, opset=14)
    flat_shape = ctx.add_constant(np.asarray([-1], np.int64), "gather_elements_flat")
    (flat,) = ctx.emit("Reshape", [data, flat_shape], 1, opset=14)
    # written at opset 1: the positions are non-negative by construction
    ctx.emit("Gather", [flat, position], list(ctx.node.outputs), {"axis": ("INT", 0)}, opset=1)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("GatherElements", 11, ABSENT, _gather_elements_absent, "before 11: a flat Gather")
    table.add("Scatter", 9, 11, _scatter_to_elements, "deprecated at 11: ScatterElements")
    for op in ("ScatterElements", "ScatterND"):
        table.add(op, 18, 16, refuse_value("reduction", ["max", "min"], "is new in version 18"),
                  "max/min reductions refused")  # fmt: skip
