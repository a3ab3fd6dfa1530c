"""Version adapters of the shape operators: axes and split between attribute and input,
Slice's and Reshape's attributes that became inputs, negative axes, Concat's axis default."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import (
    AdapterContext,
    AdapterRegistry,
    attribute_to_input,
    input_to_attribute,
    nonnegative_axes,
)


def _slice_up(ctx: AdapterContext) -> None:
    """Slice-1 attributes starts/ends/axes -> inputs (steps stay omitted: all 1)."""
    for index, attr in ((1, "starts"), (2, "ends"), (3, "axes")):
        value = ctx.attr(attr)
        ctx.drop_attr(attr)
        if value is not None:
            ctx.set_input(index, ctx.add_constant(np.asarray(value, np.int64), f"slice_{attr}"))


def _slice_down(ctx: AdapterContext) -> None:
    steps = ctx.constant_input(4, "steps")
    if steps is not None and np.any(steps != 1):
        ctx.fail("steps other than 1 have no equivalent at version 1")
    values = {}
    for index, attr in ((1, "starts"), (2, "ends"), (3, "axes")):
        value = ctx.constant_input(index, attr)
        if value is not None:
            values[attr] = [int(v) for v in value.reshape(-1)]
    ctx.drop_inputs_from(1)
    for attr, attr_value in values.items():
        ctx.set_attr(attr, "INTS", attr_value)


def _slice_axes_down(ctx: AdapterContext) -> None:
    """Slice-11 -> 10: negative axes made non-negative (starts/ends may be negative in both)."""
    axes = ctx.constant_input(3, "axes") if ctx.input(3) else None
    if axes is None or not np.any(axes < 0):
        return
    rank = ctx.rank(ctx.input(0))
    if rank is None:
        ctx.fail("axes are negative and the input's rank is unknown")
    fixed = np.where(axes < 0, axes + rank, axes).astype(axes.dtype)
    ctx.set_input(3, ctx.add_constant(fixed, "slice_axes"))


def _split_down(ctx: AdapterContext) -> None:
    split = ctx.constant_input(1, "split")
    ctx.drop_inputs_from(1)
    if split is not None:
        ctx.set_attr("split", "INTS", [int(v) for v in split.reshape(-1)])


def _split_num_outputs_down(ctx: AdapterContext) -> None:
    """Split-18 -> 13: num_outputs (uneven last chunk allowed) -> an explicit split input."""
    count = ctx.attr("num_outputs")
    ctx.drop_attr("num_outputs")
    if count is None:
        return
    shape = ctx.shape(ctx.input(0))
    axis = int(ctx.attr("axis", 0))
    if shape is None or not isinstance(shape[axis], int):
        ctx.fail("num_outputs needs the split axis's length, which is unknown")
    length = shape[axis]
    chunk = -(-length // int(count))
    sizes = [min(chunk, max(length - i * chunk, 0)) for i in range(int(count))]
    ctx.set_input(1, ctx.add_constant(np.asarray(sizes, np.int64), "split_sizes"))


def _concat_axis(ctx: AdapterContext) -> None:
    """Concat-1 -> 4: axis was optional (default 1) and is required from version 4."""
    if ctx.attr("axis") is None:
        ctx.set_attr("axis", "INT", 1)


def _reshape_up(ctx: AdapterContext) -> None:
    shape = ctx.attr("shape")
    ctx.drop_attr("shape")
    ctx.drop_attr("consumed_inputs")
    if shape is None:
        ctx.fail("Reshape-1 without a shape attribute")
    ctx.set_input(1, ctx.add_constant(np.asarray(shape, np.int64), "reshape_shape"))


def _gather_down(ctx: AdapterContext) -> None:
    """Gather-11 -> 1: negative indices are defined only from version 11."""
    nonnegative_axes("axis")(ctx)
    indices = ctx.constant(ctx.input(1))
    if indices is None or np.any(indices < 0):
        ctx.fail("indices may be negative, which version 1 does not define")


def _shape_down(ctx: AdapterContext) -> None:
    """15 -> 13: start/end -> Shape then Slice."""
    start = int(ctx.attr("start", 0))
    end = ctx.attr("end")
    ctx.drop_attr("start")
    ctx.drop_attr("end")
    if start == 0 and end is None:
        return
    stop = np.iinfo(np.int64).max if end is None else int(end)
    (whole,) = ctx.emit("Shape", list(ctx.node.inputs), 1, opset=13)
    starts = ctx.add_constant(np.asarray([start], np.int64), "shape_start")
    ends = ctx.add_constant(np.asarray([stop], np.int64), "shape_end")
    ctx.emit("Slice", [whole, starts, ends], list(ctx.node.outputs), opset=13)
    ctx.remove()


def _allowzero_down(ctx: AdapterContext) -> None:
    """14 -> 13: allowzero=1 means the same when the shape holds no 0."""
    if int(ctx.attr("allowzero", 0)) == 0:
        ctx.drop_attr("allowzero")
        return
    shape = ctx.constant(ctx.input(1))
    if shape is None or np.any(shape == 0):
        ctx.fail("allowzero=1 with a shape that may hold 0 has no equivalent at version 13")
    ctx.drop_attr("allowzero")


def register(table: AdapterRegistry) -> None:
    table.add("Shape", 15, 13, _shape_down, "start/end -> Shape then Slice")
    table.add("Reshape", 14, 13, _allowzero_down, "allowzero=1 only when the shape has no 0")
    axes_up = attribute_to_input("axes", 1)
    for op in ("Squeeze", "Unsqueeze"):
        table.add(op, 11, 13, axes_up, "axes attribute -> axes input (a constant)")
        table.add(op, 13, 11, input_to_attribute(1, "axes"), "axes input -> attribute")
    table.add("Squeeze", 11, 1, nonnegative_axes("axes"), "negative axes made non-negative")
    table.add(
        "Unsqueeze", 11, 1, nonnegative_axes("axes", rank_of="output"),
        "negative axes made non-negative (rank of the output)",
    )  # fmt: skip
    table.add("Split", 11, 13, attribute_to_input("split", 1), "split attribute -> input")
    table.add("Split", 13, 11, _split_down, "split input (a constant) -> attribute")
    table.add("Split", 18, 13, _split_num_outputs_down, "num_outputs -> explicit split sizes")
    table.add("Split", 11, 2, nonnegative_axes("axis"), "negative axis made non-negative")
    table.add("Slice", 1, 10, _slice_up, "starts/ends/axes attributes -> inputs")
    table.add("Slice", 10, 1, _slice_down, "starts/ends/axes inputs (constants) -> attributes")
    table.add("Slice", 11, 10, _slice_axes_down, "negative axes made non-negative")
    table.add("Concat", 1, 4, _concat_axis, "the old default axis=1 written explicitly")
    table.add("Concat", 11, 4, nonnegative_axes("axis"), "negative axis made non-negative")
    table.add("Flatten", 11, 9, nonnegative_axes("axis"), "negative axis made non-negative")
    table.add("Reshape", 1, 5, _reshape_up, "shape attribute -> shape input")
    table.add("Reshape", 5, 1, input_to_attribute(1, "shape"), "shape input -> attribute")
    table.add("Gather", 11, 1, _gather_down, "non-negative axis and constant indices only")
