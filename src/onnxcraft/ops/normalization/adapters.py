"""Version adapters of the normalizations: BatchNormalization's retired attributes, and
LayerNormalization below 17 (the standard's body depends on the node's types, so it is
written here)."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry


def _bn_6_to_7(ctx: AdapterContext) -> None:
    """6 -> 7: is_test went away (version 7 infers the mode from the outputs used). A node
    that computes in test mode and uses only Y is the same; training mode is refused."""
    if int(ctx.attr("is_test", 0)) != 1 or any(ctx.node.outputs[1:]):
        ctx.fail("only a test-mode node (is_test=1, Y alone) has the same meaning at version 7")
    ctx.drop_attr("is_test")


def _bn_7_to_6(ctx: AdapterContext) -> None:
    if any(ctx.node.outputs[1:]):
        ctx.fail("the node computes its training outputs, which version 6 ties to is_test=0")
    ctx.set_attr("is_test", "INT", 1)


def _bn_14_to_9(ctx: AdapterContext) -> None:
    if int(ctx.attr("training_mode", 0)) != 0:
        ctx.fail("training_mode=1 has no equivalent at version 9")
    ctx.drop_attr("training_mode")
    if any(ctx.node.outputs[1:]):
        ctx.fail("the running mean/var outputs of version 14 differ from version 9's")


def _bn_9_to_14(ctx: AdapterContext) -> None:
    if any(ctx.node.outputs[1:]):
        ctx.fail("the training outputs of version 9 differ from version 14's")


def _layer_norm_absent(ctx: AdapterContext) -> None:
    """LayerNormalization-17 -> before 17: the standard's computation over the axes from
    ``axis`` on, in the stash type (mean, mean of squares, their difference as the variance)."""
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.input(2)
    rank, elem = ctx.rank(x), ctx.elem_type(x)
    if rank is None or elem is None:
        ctx.fail("the input's rank and element type must be known")
    axis = int(ctx.attr("axis", -1))
    axis = axis + rank if axis < 0 else axis
    stash = int(ctx.attr("stash_type", 1))
    if stash != 1:
        ctx.fail(f"stash_type={stash}: only float (1) has an older form")
    epsilon = float(ctx.attr("epsilon", 1e-5))
    axes = ctx.add_constant(np.arange(axis, rank, dtype=np.int64), "ln_axes")
    eps = ctx.add_constant(np.asarray(epsilon, np.float32), "ln_epsilon")
    xu = x
    if int(elem) != 1:
        (xu,) = ctx.emit("Cast", [x], 1, {"to": ("INT", 1)}, opset=13)
    (square,) = ctx.emit("Mul", [xu, xu], 1, opset=14)
    (square_mean,) = ctx.emit("ReduceMean", [square, axes], 1, opset=18)
    outputs = list(ctx.node.outputs) + ["", ""]
    mean_name = outputs[1] if outputs[1] and int(elem) == 1 else ctx.fresh_name("ln_mean")
    (mean,) = ctx.emit("ReduceMean", [xu, axes], [mean_name], opset=18)
    (mean_square,) = ctx.emit("Mul", [mean, mean], 1, opset=14)
    (variance,) = ctx.emit("Sub", [square_mean, mean_square], 1, opset=14)
    (shifted,) = ctx.emit("Add", [variance, eps], 1, opset=14)
    (std,) = ctx.emit("Sqrt", [shifted], 1, opset=13)
    (deviation,) = ctx.emit("Sub", [xu, mean], 1, opset=14)
    (normalized,) = ctx.emit("Div", [deviation, std], 1, opset=14)
    if int(elem) != 1:
        (normalized,) = ctx.emit("Cast", [normalized], 1, {"to": ("INT", int(elem))}, opset=13)
    if bias:
        (scaled,) = ctx.emit("Mul", [normalized, scale], 1, opset=14)
        ctx.emit("Add", [scaled, bias], [outputs[0]], opset=14)
    else:
        ctx.emit("Mul", [normalized, scale], [outputs[0]], opset=14)
    if outputs[1] and outputs[1] != mean_name:
        ctx.emit("Identity", [mean_name], [outputs[1]], opset=16)
    if outputs[2]:
        ctx.emit("Reciprocal", [std], [outputs[2]], opset=13)
    ctx.remove()


def _rms_norm_absent(ctx: AdapterContext) -> None:
    """RMSNormalization-23 -> before 23: X / sqrt(mean(X^2 over the axes from ``axis``) + eps)
    * scale, computed in float (stash_type 1) and cast back."""
    x, scale = ctx.input(0), ctx.input(1)
    rank, elem = ctx.rank(x), ctx.elem_type(x)
    if rank is None or elem is None:
        ctx.fail("the input's rank and element type must be known")
    axis = int(ctx.attr("axis", -1))
    axis = axis + rank if axis < 0 else axis
    if int(ctx.attr("stash_type", 1)) != 1:
        ctx.fail("only stash_type=1 (float) has an older form")
    axes = ctx.add_constant(np.arange(axis, rank, dtype=np.int64), "rms_axes")
    eps = ctx.add_constant(np.asarray(float(ctx.attr("epsilon", 1e-5)), np.float32), "rms_eps")
    xu = x
    if int(elem) != 1:
        (xu,) = ctx.emit("Cast", [x], 1, {"to": ("INT", 1)}, opset=13)
    (square,) = ctx.emit("Mul", [xu, xu], 1, opset=14)
    (mean,) = ctx.emit("ReduceMean", [square, axes], 1, opset=18)
    (shifted,) = ctx.emit("Add", [mean, eps], 1, opset=14)
    (rms,) = ctx.emit("Sqrt", [shifted], 1, opset=13)
    (normalized,) = ctx.emit("Div", [xu, rms], 1, opset=14)
    if int(elem) != 1:
        (normalized,) = ctx.emit("Cast", [normalized], 1, {"to": ("INT", int(elem))}, opset=13)
    ctx.emit("Mul", [normalized, scale], list(ctx.node.outputs), opset=14)
    ctx.remove()


def _group_norm_up(ctx: AdapterContext) -> None:
    """18 -> 21: per-group scale and bias (constants) repeated per channel."""
    groups = int(ctx.attr("num_groups", 0))
    shape = ctx.shape(ctx.input(0))
    if shape is None or len(shape) < 2 or not isinstance(shape[1], int) or groups <= 0:
        ctx.fail("the channel count must be known to repeat the per-group scale and bias")
    channels = shape[1]
    for index, what in ((1, "scale"), (2, "bias")):
        value = ctx.constant_input(index, what)
        if value is None:
            ctx.fail(f"{what} must be given")
        repeated = np.repeat(value.reshape(-1), channels // groups)
        ctx.set_input(index, ctx.add_constant(repeated, f"groupnorm_{what}"))


def _group_norm_absent(ctx: AdapterContext) -> None:
    """GroupNormalization-18 -> before 18: see :func:`_group_norm_written`."""
    _group_norm_written(ctx, per_channel=False)


def _group_norm_down(ctx: AdapterContext) -> None:
    """21 -> 18: version 18 scales per group, 21 per channel, and GroupNormalization-18 is
    deprecated: the computation of 21 is written out (:func:`_group_norm_written`)."""
    _group_norm_written(ctx, per_channel=True)


def _group_norm_written(ctx: AdapterContext, *, per_channel: bool) -> None:
    """Per group, (x - mean) / sqrt(variance + epsilon), then scale and bias per channel (at
    18 one per group, repeated over the group's channels); computed in float (double for
    double inputs, or stash_type double) and cast back."""
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.input(2)
    shape, elem = ctx.shape(x), ctx.elem_type(x)
    if shape is None or len(shape) < 2 or not isinstance(shape[1], int) or elem is None:
        ctx.fail("the input's rank (at least 2), channel count and element type must be known")
    rank, channels = len(shape), int(shape[1])
    groups = int(ctx.attr("num_groups", 0))
    if groups <= 0 or channels % groups:
        ctx.fail(f"num_groups={groups} must divide the {channels} channels")
    compute = 11 if int(elem) == 11 or int(ctx.attr("stash_type", 1)) == 11 else 1
    dtype = np.float64 if compute == 11 else np.float32
    parts = [x, scale, bias]
    for index, name in enumerate(parts):
        if int(ctx.elem_type(name) or 0) != compute:
            (parts[index],) = ctx.emit("Cast", [name], 1, {"to": ("INT", compute)}, opset=13)
    grouped_shape = ctx.add_constant(np.asarray([0, groups, -1], np.int64), "gn_groups")
    (grouped,) = ctx.emit("Reshape", [parts[0], grouped_shape], 1, opset=14)
    reduce = {"axes": ("INTS", [2]), "keepdims": ("INT", 1)}
    (mean,) = ctx.emit("ReduceMean", [grouped], 1, reduce, opset=13)
    (deviation,) = ctx.emit("Sub", [grouped, mean], 1, opset=14)
    (square,) = ctx.emit("Mul", [deviation, deviation], 1, opset=14)
    (variance,) = ctx.emit("ReduceMean", [square], 1, reduce, opset=13)
    eps = ctx.add_constant(np.asarray(float(ctx.attr("epsilon", 1e-5)), dtype), "gn_epsilon")
    (shifted,) = ctx.emit("Add", [variance, eps], 1, opset=14)
    (std,) = ctx.emit("Sqrt", [shifted], 1, opset=13)
    (normalized,) = ctx.emit("Div", [deviation, std], 1, opset=14)
    (original_shape,) = ctx.emit("Shape", [x], 1, opset=13)
    (normalized,) = ctx.emit("Reshape", [normalized, original_shape], 1, opset=14)
    column = ctx.add_constant(np.asarray([groups, 1], np.int64), "gn_column")
    repeats = ctx.add_constant(np.asarray([1, channels // groups], np.int64), "gn_repeats")
    per_channel_shape = ctx.add_constant(np.asarray([-1] + [1] * (rank - 2), np.int64), "gn_shape")
    spread: list[str] = []
    for name in parts[1:]:
        if not per_channel:
            (tall,) = ctx.emit("Reshape", [name, column], 1, opset=14)
            (name,) = ctx.emit("Tile", [tall, repeats], 1, opset=13)
        (flat,) = ctx.emit("Reshape", [name, per_channel_shape], 1, opset=14)
        spread.append(flat)
    (scaled,) = ctx.emit("Mul", [normalized, spread[0]], 1, opset=14)
    if compute == int(elem):
        ctx.emit("Add", [scaled, spread[1]], list(ctx.node.outputs), opset=14)
    else:
        (result,) = ctx.emit("Add", [scaled, spread[1]], 1, opset=14)
        ctx.emit("Cast", [result], list(ctx.node.outputs), {"to": ("INT", int(elem))}, opset=13)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("GroupNormalization", 18, ABSENT, _group_norm_absent, "before 18: its computation")
    table.add("GroupNormalization", 21, 18, _group_norm_down, "its computation (18 deprecated)")
    table.add("RMSNormalization", 23, ABSENT, _rms_norm_absent, "before 23: its computation")
    table.add("GroupNormalization", 18, 21, _group_norm_up, "per-group scale/bias repeated")
    table.changed("GroupNormalization", 18, 21, "scale and bias became per-channel at 21")
    table.add("LayerNormalization", 17, ABSENT, _layer_norm_absent, "before 17: its computation")
    table.add("BatchNormalization", 6, 7, _bn_6_to_7, "is_test=1 dropped (test mode only)")
    table.add("BatchNormalization", 7, 6, _bn_7_to_6, "is_test=1 written (test mode only)")
    table.add("BatchNormalization", 14, 9, _bn_14_to_9, "inference mode only")
    table.add("BatchNormalization", 9, 14, _bn_9_to_14, "inference mode only")
    table.changed("BatchNormalization", 9, 14, "training outputs changed meaning at version 14")
