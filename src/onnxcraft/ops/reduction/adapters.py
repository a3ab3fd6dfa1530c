"""Version adapters of the reductions: axes between attribute and input, negative axes, TopK's k."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import (
    AdapterContext,
    AdapterRegistry,
    attribute_to_input,
    input_to_attribute,
    int64s,
    nonnegative_axes,
)

_REDUCE = (
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
    "ReduceMin", "ReduceProd", "ReduceSumSquare",
)  # fmt: skip


def _axes_down(ctx: AdapterContext) -> None:
    """axes input -> attribute; an omitted or empty axes means "all" unless
    noop_with_empty_axes, which the older version cannot say."""
    noop = ctx.attr("noop_with_empty_axes", 0)
    ctx.drop_attr("noop_with_empty_axes")
    axes = ctx.constant_input(1, "axes")
    ctx.drop_inputs_from(1)
    if axes is None or axes.size == 0:
        if noop:
            ctx.fail("noop_with_empty_axes=1 with no axes (the identity) has no attribute form")
        return
    ctx.set_attr("axes", "INTS", [int(v) for v in axes.reshape(-1)])


def _select_last_down(ctx: AdapterContext) -> None:
    """12 -> 11: select_last_index=1 as the first index over the axis reversed (a Slice with
    step -1), counted back from the end: n - 1 - index (n known)."""
    last = int(ctx.attr("select_last_index", 0))
    ctx.drop_attr("select_last_index")
    if not last:
        return
    name = ctx.input(0)
    shape = ctx.shape(name)
    axis = int(ctx.attr("axis", 0))
    if shape is None or not isinstance(shape[axis], int):
        ctx.fail("select_last_index=1 needs the length of the axis, which is unknown")
    length = shape[axis]
    axis = axis + len(shape) if axis < 0 else axis
    starts = ctx.add_constant(int64s([-1]), "argmax_start")
    ends = ctx.add_constant(int64s([-(2**63)]), "argmax_end")
    axes = ctx.add_constant(int64s([axis]), "argmax_axis")
    steps = ctx.add_constant(int64s([-1]), "argmax_step")
    (reversed_,) = ctx.emit("Slice", [name, starts, ends, axes, steps], 1, opset=11)
    first = ctx.fresh_name(f"{ctx.node.op_type.lower()}_reversed")
    result = ctx.node.outputs[0]
    ctx.node.inputs[0] = reversed_
    ctx.node.outputs[0] = first
    ctx.declare_type(first, ctx.value_type(result))
    top = ctx.add_constant(np.asarray(length - 1, np.int64), "argmax_last")
    ctx.emit("Sub", [top, first], [result], opset=7, after=True)


def register(table: AdapterRegistry) -> None:
    for op in ("ArgMax", "ArgMin"):
        table.add(op, 12, 11, _select_last_down, "select_last_index=1 over the reversed axis")
    up = attribute_to_input("axes", 1)
    table.add("ReduceSum", 11, 13, up, "axes attribute -> axes input (a constant)")
    table.add("ReduceSum", 13, 11, _axes_down, "axes input (a constant) -> axes attribute")
    table.add_many(_REDUCE, 13, 18, up, "axes attribute -> axes input (a constant)")
    table.add_many(_REDUCE, 18, 13, _axes_down, "axes input (a constant) -> axes attribute")
    negative = nonnegative_axes("axes")
    for op in (*_REDUCE, "ReduceSum"):
        table.add(op, 11, 1, negative, "negative axes made non-negative (rank known)")
    for op in ("ArgMax", "ArgMin"):
        table.add(op, 11, 1, nonnegative_axes("axis"), "negative axis made non-negative")
    table.add("TopK", 1, 10, attribute_to_input("k", 1, kind="INT"), "k attribute -> input")
    table.add("TopK", 10, 1, _topk_k_down, "k input (a constant) -> attribute")
    table.add(
        "TopK", 11, 10, _topk_down, "negative axis made non-negative; largest=1 sorted=1 only"
    )


_topk_k = input_to_attribute(1, "k", kind="INT")


def _topk_k_down(ctx: AdapterContext) -> None:
    k = ctx.constant_input(1, "k")
    if k is None or k.size != 1:
        ctx.fail("k must be a one-element constant")
    _topk_k(ctx)


def _topk_down(ctx: AdapterContext) -> None:
    if int(ctx.attr("largest", 1)) != 1 or int(ctx.attr("sorted", 1)) != 1:
        ctx.fail("largest=0 or sorted=0 has no equivalent at version 10")
    ctx.drop_attr("largest")
    ctx.drop_attr("sorted")
    nonnegative_axes("axis")(ctx)
