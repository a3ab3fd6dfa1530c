"""Version adapters of Attention: below 23, where it does not exist, the computation is written
out for the node at hand (its heads, shapes, mask, options), since the standard's body depends
on them. The same rewrite serves the steps 24 -> 23 when the node uses ``nonpad_kv_seqlen`` and
25 -> 24 when it uses a window, which the older versions lack.

The steps follow the standard's body and the evaluator's kernel: Q and K each scaled by
sqrt(scale) in the input's type, the scores capped, the bias (attn_mask, causality, windows,
padding) added, softmax over the keys in ``softmax_precision``, rows with no allowed key set to
zeros, the probabilities times V. Shapes must be static (the causal and window bias is a
constant built from them).
"""

from __future__ import annotations

import math

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry

_DTYPES = {1: np.float32, 10: np.float16, 11: np.float64}
_BOOL = 9


def _static(ctx: AdapterContext, name: str, what: str) -> tuple[int, ...]:
    shape = ctx.shape(name)
    if shape is None or not all(isinstance(d, int) for d in shape):
        ctx.fail(f"the shape of {what} must be static to write the attention out (got {shape})")
    return tuple(int(d) for d in shape)


def _to_4d(ctx: AdapterContext, name: str, shape: tuple[int, ...], heads: int | None, what: str,
           attr: str) -> tuple[str, tuple[int, int, int, int]]:  # fmt: skip
    """``name`` as (batch, heads, sequence, head_size)."""
    if len(shape) == 4:
        return name, (shape[0], shape[1], shape[2], shape[3])
    if len(shape) != 3:
        ctx.fail(f"{what} must be 3-D or 4-D, got shape {shape}")
    if heads is None or heads <= 0 or shape[2] % heads:
        ctx.fail(f"{what} is 3-D with hidden size {shape[2]}, which {attr}={heads} must divide")
    size = shape[2] // heads
    target = ctx.add_constant(np.asarray([0, 0, heads, size], np.int64), "attn_split")
    (split,) = ctx.emit("Reshape", [name, target], 1, opset=13)
    (moved,) = ctx.emit("Transpose", [split], 1, {"perm": ("INTS", [0, 2, 1, 3])}, opset=13)
    return moved, (shape[0], heads, shape[1], size)


def _repeat_heads(ctx: AdapterContext, name: str, shape: tuple[int, ...], group: int) -> str:
    """Each key/value head repeated for the ``group`` query heads it serves (head h uses
    key/value head h // group)."""
    if group == 1:
        return name
    batch, heads, length, size = shape
    axis = ctx.add_constant(np.asarray([2], np.int64), "attn_axis")
    (wide,) = ctx.emit("Unsqueeze", [name, axis], 1, opset=13)
    repeats = ctx.add_constant(np.asarray([1, 1, group, 1, 1], np.int64), "attn_repeats")
    (tiled,) = ctx.emit("Tile", [wide, repeats], 1, opset=13)
    wanted = np.asarray([batch, heads * group, length, size], np.int64)
    target = ctx.add_constant(wanted, "attn_rep")
    (repeated,) = ctx.emit("Reshape", [tiled, target], 1, opset=13)
    return repeated


def _allowed_constant(
    q_length: int, total: int, offset: int, causal: bool, left: int, right: int
) -> np.ndarray:
    """Which keys each query may attend (shape (1, 1, q_length, total)), without padding."""
    rows = np.arange(q_length).reshape(q_length, 1) + offset
    cols = np.arange(total).reshape(1, total)
    allowed = np.ones((q_length, total), bool)
    if causal:
        allowed &= cols <= rows
    if left >= 0:
        allowed &= cols >= rows - left
    if right >= 0:
        allowed &= cols <= rows + right
    return allowed.reshape(1, 1, q_length, total)


def _allowed_at_run_time(
    ctx: AdapterContext, valid: str, q_length: int, total: int, causal: bool, left: int,
    right: int,
) -> str:  # fmt: skip
    """The allowed keys (bool, (batch, 1, q_length, total)) from ``nonpad_kv_seqlen``: keys
    before the valid count, the queries ending at the last valid key."""
    shape = ctx.add_constant(np.asarray([-1, 1, 1, 1], np.int64), "attn_valid_shape")
    (count,) = ctx.emit("Cast", [valid], 1, {"to": ("INT", 7)}, opset=13)
    (count,) = ctx.emit("Reshape", [count, shape], 1, opset=13)
    cols = ctx.add_constant(np.arange(total, dtype=np.int64).reshape(1, 1, 1, total), "attn_cols")
    (allowed,) = ctx.emit("Less", [cols, count], 1, opset=13)
    rows = ctx.add_constant(
        np.arange(q_length, dtype=np.int64).reshape(1, 1, q_length, 1) - q_length, "attn_rows"
    )
    (position,) = ctx.emit("Add", [rows, count], 1, opset=14)
    limits: list[tuple[str, int]] = []
    if causal:
        limits.append(("Greater", 0))
    if right >= 0:
        limits.append(("Greater", right))
    if left >= 0:
        limits.append(("Less", -left))
    for compare, shift in limits:
        edge = position
        if shift:
            delta = ctx.add_constant(np.asarray(shift, np.int64), "attn_window")
            (edge,) = ctx.emit("Add", [position, delta], 1, opset=14)
        (outside,) = ctx.emit(compare, [cols, edge], 1, opset=13)
        (inside,) = ctx.emit("Not", [outside], 1, opset=1)
        (allowed,) = ctx.emit("And", [allowed, inside], 1, opset=7)
    return allowed


def _written_out(ctx: AdapterContext) -> None:
    node = ctx.node
    inputs = [ctx.input(i) for i in range(7)]
    q, k, v, mask, past_key, past_value, valid = inputs
    elem = ctx.elem_type(q)
    if elem is None or int(elem) not in _DTYPES:
        ctx.fail(f"Q's element type must be float16, float or double here, got {elem}")
    dtype = _DTYPES[int(elem)]
    mode = int(ctx.attr("qk_matmul_output_mode", 0))
    if mode not in (0, 1, 2, 3):
        ctx.fail(f"qk_matmul_output_mode={mode} is not 0, 1, 2 or 3")
    if bool(past_key) != bool(past_value):
        ctx.fail("past_key and past_value must be given together")
    if past_key and valid:
        ctx.fail("nonpad_kv_seqlen (an external cache) cannot be combined with past_key")
    q_shape, k_shape, v_shape = (_static(ctx, n, w) for n, w in ((q, "Q"), (k, "K"), (v, "V")))
    q_heads, kv_heads = ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")
    q4, qs = _to_4d(ctx, q, q_shape, q_heads, "Q", "q_num_heads")
    k4, ks = _to_4d(ctx, k, k_shape, kv_heads, "K", "kv_num_heads")
    v4, vs = _to_4d(ctx, v, v_shape, kv_heads, "V", "kv_num_heads")
    past_length = 0
    keys, values = k4, v4
    if past_key:
        past_shape = _static(ctx, past_key, "past_key")
        past_length = past_shape[2]
        (keys,) = ctx.emit("Concat", [past_key, k4], 1, {"axis": ("INT", 2)}, opset=13)
        (values,) = ctx.emit("Concat", [past_value, v4], 1, {"axis": ("INT", 2)}, opset=13)
    outputs = list(node.outputs) + [""] * 4
    for index, present in ((1, keys), (2, values)):
        if outputs[index]:
            ctx.emit("Identity", [present], [outputs[index]], opset=13)
    batch, heads, q_length, size = qs
    total = past_length + ks[2]
    if heads % ks[1]:
        ctx.fail(f"{heads} query heads are not a multiple of {ks[1]} key/value heads")
    group = heads // ks[1]
    keys = _repeat_heads(ctx, keys, (batch, ks[1], total, size), group)
    values = _repeat_heads(ctx, values, (batch, vs[1], total, vs[3]), group)

    scale = ctx.attr("scale")
    factor = math.sqrt(1 / math.sqrt(size) if scale is None else float(scale))
    root = ctx.add_constant(np.asarray(factor, dtype), "attn_scale_root")
    (q_scaled,) = ctx.emit("Mul", [q4, root], 1, opset=14)
    (k_scaled,) = ctx.emit("Mul", [keys, root], 1, opset=14)
    (k_t,) = ctx.emit("Transpose", [k_scaled], 1, {"perm": ("INTS", [0, 1, 3, 2])}, opset=13)
    (raw,) = ctx.emit("MatMul", [q_scaled, k_t], 1, opset=13)
    capped = raw
    softcap = float(ctx.attr("softcap", 0.0))
    if softcap > 0:
        cap = ctx.add_constant(np.asarray(softcap, dtype), "attn_softcap")
        (ratio,) = ctx.emit("Div", [raw, cap], 1, opset=14)
        (bent,) = ctx.emit("Tanh", [ratio], 1, opset=13)
        (capped,) = ctx.emit("Mul", [bent, cap], 1, opset=14)

    causal = bool(int(ctx.attr("is_causal", 0)))
    left, right = int(ctx.attr("left_window_size", -1)), int(ctx.attr("right_window_size", -1))
    zero = ctx.add_constant(np.asarray(0, dtype), "attn_zero")
    minus_inf = ctx.add_constant(np.asarray(-np.inf, dtype), "attn_minus_inf")
    bias = ""
    maybe_empty_rows = False
    if valid:
        allowed = _allowed_at_run_time(ctx, valid, q_length, total, causal, left, right)
        (bias,) = ctx.emit("Where", [allowed, zero, minus_inf], 1, opset=16)
        maybe_empty_rows = True
    elif causal or left >= 0 or right >= 0:
        allowed_now = _allowed_constant(q_length, total, past_length, causal, left, right)
        bias = ctx.add_constant(np.where(allowed_now, 0, -np.inf).astype(dtype), "attn_bias")
        maybe_empty_rows = not bool(np.all(np.any(allowed_now, axis=-1)))
    if mask:
        mask_bias = mask
        if ctx.elem_type(mask) is not None and int(ctx.elem_type(mask) or 0) == _BOOL:
            (mask_bias,) = ctx.emit("Where", [mask, zero, minus_inf], 1, opset=16)
        elif ctx.elem_type(mask) != elem:
            ctx.fail(f"attn_mask's element type must be bool or Q's, got {ctx.elem_type(mask)}")
        mask_shape = _static(ctx, mask, "attn_mask")
        width = mask_shape[-1] if mask_shape else 1
        if mask_shape and width < total:
            pads = [0] * (2 * len(mask_shape))
            pads[2 * len(mask_shape) - 1] = total - width
            amounts = ctx.add_constant(np.asarray(pads, np.int64), "attn_mask_pads")
            (mask_bias,) = ctx.emit("Pad", [mask_bias, amounts, minus_inf], 1, opset=13)
        if bias:
            (bias,) = ctx.emit("Add", [bias, mask_bias], 1, opset=14)
        else:
            bias = mask_bias
        maybe_empty_rows = True
    biased = capped
    if bias:
        (biased,) = ctx.emit("Add", [capped, bias], 1, opset=14)

    precision = ctx.attr("softmax_precision")
    work = int(elem) if precision is None else int(precision)
    if work not in _DTYPES:
        ctx.fail(f"softmax_precision={precision}: only float16, float and double are written out")
    scores = biased
    if work != int(elem):
        (scores,) = ctx.emit("Cast", [biased], 1, {"to": ("INT", work)}, opset=13)
    (probs,) = ctx.emit("Softmax", [scores], 1, {"axis": ("INT", -1)}, opset=13)
    if work != int(elem):
        (probs,) = ctx.emit("Cast", [probs], 1, {"to": ("INT", int(elem))}, opset=13)
    if maybe_empty_rows:
        # a row with no allowed key gives zeros (its softmax would be NaN)
        (row_max,) = ctx.emit(
            "ReduceMax", [bias], 1, {"axes": ("INTS", [-1]), "keepdims": ("INT", 1)}, opset=13
        )
        (empty,) = ctx.emit("Equal", [row_max, minus_inf], 1, opset=13)
        (probs,) = ctx.emit("Where", [empty, zero, probs], 1, opset=16)
    if outputs[3]:
        chosen = (raw, capped, biased, probs)[mode]
        ctx.emit("Identity", [chosen], [outputs[3]], opset=13)
    if len(q_shape) == 4:
        ctx.emit("MatMul", [probs, values], [outputs[0]], opset=13)
    else:
        (y4,) = ctx.emit("MatMul", [probs, values], 1, opset=13)
        (moved,) = ctx.emit("Transpose", [y4], 1, {"perm": ("INTS", [0, 2, 1, 3])}, opset=13)
        merged = ctx.add_constant(np.asarray([0, 0, -1], np.int64), "attn_merge")
        ctx.emit("Reshape", [moved, merged], [outputs[0]], opset=13)
    ctx.remove()


def _without_padding_input(ctx: AdapterContext) -> None:
    """24 -> 23: version 23 has no ``nonpad_kv_seqlen``; a node using it is written out."""
    if ctx.input(6):
        _written_out(ctx)


def _without_windows(ctx: AdapterContext) -> None:
    """25 -> 24: version 24 has no windows; a node using one is written out."""
    if int(ctx.attr("left_window_size", -1)) >= 0 or int(ctx.attr("right_window_size", -1)) >= 0:
        _written_out(ctx)
        return
    ctx.drop_attr("left_window_size")
    ctx.drop_attr("right_window_size")


def register(table: AdapterRegistry) -> None:
    table.add("Attention", 23, ABSENT, _written_out, "before 23: its computation written out")
    table.add("Attention", 24, 23, _without_padding_input, "nonpad_kv_seqlen: written out")
    table.add("Attention", 25, 24, _without_windows, "windows: written out")
