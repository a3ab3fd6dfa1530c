"""Version adapters of CausalConvWithState: below 27, where it does not exist, the convolution
is written out for the node's shapes (the standard's body depends on them): the past state
(zeros when omitted) put before the input, each of the k taps a slice of that sequence times
its per-channel weight, summed in tap order, the bias added, SiLU applied when asked; the next
state is the last k - 1 positions. float16 is computed in float, as the operator's evaluation
does."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry

_FLOAT, _FLOAT16, _DOUBLE = 1, 10, 11


def _slice(ctx: AdapterContext, name: str, start: int, end: int, axis: int) -> str:
    starts = ctx.add_constant(np.asarray([start], np.int64), "ccs_start")
    ends = ctx.add_constant(np.asarray([end], np.int64), "ccs_end")
    axes = ctx.add_constant(np.asarray([axis], np.int64), "ccs_axis")
    (part,) = ctx.emit("Slice", [name, starts, ends, axes], 1, opset=13)
    return part


def _written_out(ctx: AdapterContext) -> None:
    x, weight, bias, past = (ctx.input(i) for i in range(4))
    activation = ctx.attr("activation", "none")
    activation = activation.decode() if isinstance(activation, bytes) else str(activation)
    if activation not in ("none", "silu", "swish"):
        ctx.fail(f"activation={activation!r} is not one of 'none', 'silu', 'swish'")
    elem = ctx.elem_type(x)
    if elem is None or int(elem) not in (_FLOAT, _FLOAT16, _DOUBLE):
        ctx.fail(f"the input's element type must be float16, float or double, got {elem}")
    shape, weight_shape = ctx.shape(x), ctx.shape(weight)
    for what, dims in (("input", shape), ("weight", weight_shape)):
        if dims is None or len(dims) != 3 or not all(isinstance(d, int) for d in dims):
            ctx.fail(f"the {what}'s shape must be static and 3-D, got {dims}")
    assert shape is not None and weight_shape is not None
    batch, channels, length = (int(d) for d in shape)
    taps = int(weight_shape[2])
    compute = _FLOAT if int(elem) == _FLOAT16 else int(elem)
    dtype = np.float64 if compute == _DOUBLE else np.float32
    parts = [x, weight, bias, past]
    for index, name in enumerate(parts):
        if name and int(ctx.elem_type(name) or 0) != compute:
            (parts[index],) = ctx.emit("Cast", [name], 1, {"to": ("INT", compute)}, opset=13)
    x, weight, bias, past = parts
    sequence = x
    if taps > 1:
        history = past or ctx.add_constant(np.zeros((batch, channels, taps - 1), dtype), "ccs_zero")
        (sequence,) = ctx.emit("Concat", [history, x], 1, {"axis": ("INT", 2)}, opset=13)
    column = ctx.add_constant(np.asarray([1, channels, 1], np.int64), "ccs_column")
    total = ""
    for tap in range(taps):
        window = _slice(ctx, sequence, tap, tap + length, 2)
        (tap_weight,) = ctx.emit(
            "Reshape", [_slice(ctx, weight, tap, tap + 1, 2), column], 1, opset=14
        )
        (term,) = ctx.emit("Mul", [window, tap_weight], 1, opset=14)
        if total:
            (total,) = ctx.emit("Add", [total, term], 1, opset=14)
        else:
            total = term
    if bias:
        (per_channel,) = ctx.emit("Reshape", [bias, column], 1, opset=14)
        (total,) = ctx.emit("Add", [total, per_channel], 1, opset=14)
    if activation != "none":
        one = ctx.add_constant(np.asarray(1, dtype), "ccs_one")
        (negated,) = ctx.emit("Neg", [total], 1, opset=13)
        (exp,) = ctx.emit("Exp", [negated], 1, opset=13)
        (denominator,) = ctx.emit("Add", [one, exp], 1, opset=14)
        (total,) = ctx.emit("Div", [total, denominator], 1, opset=14)
    outputs = list(ctx.node.outputs) + [""]
    present = _slice(ctx, sequence, length, length + taps - 1, 2) if outputs[1] else ""
    for result, output in ((total, outputs[0]), (present, outputs[1])):
        if not output:
            continue
        if compute != int(elem):
            ctx.emit("Cast", [result], [output], {"to": ("INT", int(elem))}, opset=13)
        else:
            ctx.emit("Identity", [result], [output], opset=13)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("CausalConvWithState", 27, ABSENT, _written_out, "before 27: written out")
