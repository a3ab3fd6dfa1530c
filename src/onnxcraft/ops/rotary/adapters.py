"""Version adapters of RotaryEmbedding: below 23, where it does not exist, the rotation is
written out for the node (its rank, heads, rotary dimension, layout), since the standard's
body depends on them: the caches gathered at the positions, the rotated features split in two
halves (or in even and odd features when interleaved), each pair turned by its angle, and the
untouched features appended, each step in the input's type (as the standard's body does).
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry

_FLOAT, _FLOAT16, _DOUBLE = 1, 10, 11


def _slice_last(ctx: AdapterContext, name: str, start: int, end: int, rank: int = 4) -> str:
    """``name[..., start:end]`` (the axis named non-negative: older versions need it)."""
    starts = ctx.add_constant(np.asarray([start], np.int64), "rope_start")
    ends = ctx.add_constant(np.asarray([end], np.int64), "rope_end")
    axes = ctx.add_constant(np.asarray([rank - 1], np.int64), "rope_axis")
    (part,) = ctx.emit("Slice", [name, starts, ends, axes], 1, opset=13)
    return part


def _reshape(ctx: AdapterContext, name: str, shape: list[int]) -> str:
    target = ctx.add_constant(np.asarray(shape, np.int64), "rope_shape")
    (reshaped,) = ctx.emit("Reshape", [name, target], 1, opset=13)
    return reshaped


def _written_out(ctx: AdapterContext) -> None:
    x, cos, sin, positions = (ctx.input(i) for i in range(4))
    elem = ctx.elem_type(x)
    if elem is None or int(elem) not in (_FLOAT, _FLOAT16, _DOUBLE):
        ctx.fail(f"the input's element type must be float16, float or double, got {elem}")
    shape = ctx.shape(x)
    if shape is None or not all(isinstance(d, int) for d in shape) or len(shape) not in (3, 4):
        ctx.fail(f"the input's shape must be static and 3-D or 4-D, got {shape}")
    shape = tuple(int(d) for d in shape)
    heads = ctx.attr("num_heads")
    if len(shape) == 3:
        if not heads or shape[2] % int(heads):
            ctx.fail(f"a 3-D input needs num_heads dividing its hidden size {shape[2]}")
        batch, seq, head = shape[0], shape[1], shape[2] // int(heads)
        count = int(heads)
        (x4,) = ctx.emit(
            "Transpose",
            [_reshape(ctx, x, [batch, seq, count, head])],
            1,
            {"perm": ("INTS", [0, 2, 1, 3])},
            opset=13,
        )
    else:
        batch, count, seq, head = shape
        x4 = x
    dim = int(ctx.attr("rotary_embedding_dim", 0)) or head
    if dim % 2 or dim > head:
        ctx.fail(f"rotary_embedding_dim={dim} must be even and at most the head size {head}")
    half = dim // 2
    angles: list[str] = []
    for cache in (cos, sin):
        if positions:
            (cache,) = ctx.emit("Gather", [cache, positions], 1, {"axis": ("INT", 0)}, opset=13)
        elif ctx.rank(ctx.input(1)) == 2:
            cache = _reshape(ctx, cache, [1, seq, -1])
        cache = _slice_last(ctx, cache, 0, half, rank=3)
        one = ctx.add_constant(np.asarray([1], np.int64), "rope_axis")
        (cache,) = ctx.emit("Unsqueeze", [cache, one], 1, opset=13)
        angles.append(cache)
    cos_part, sin_part = angles
    rotated = x4 if dim == head else _slice_last(ctx, x4, 0, dim)
    interleaved = int(ctx.attr("interleaved", 0)) != 0
    if interleaved:
        pairs = _reshape(ctx, rotated, [batch, count, seq, half, 2])
        first = _reshape(ctx, _slice_last(ctx, pairs, 0, 1, rank=5), [batch, count, seq, half])
        second = _reshape(ctx, _slice_last(ctx, pairs, 1, 2, rank=5), [batch, count, seq, half])
    else:
        first, second = _slice_last(ctx, rotated, 0, half), _slice_last(ctx, rotated, half, dim)
    (a,) = ctx.emit("Mul", [first, cos_part], 1, opset=14)
    (b,) = ctx.emit("Mul", [second, sin_part], 1, opset=14)
    (out_first,) = ctx.emit("Sub", [a, b], 1, opset=14)
    (c,) = ctx.emit("Mul", [second, cos_part], 1, opset=14)
    (d,) = ctx.emit("Mul", [first, sin_part], 1, opset=14)
    (out_second,) = ctx.emit("Add", [c, d], 1, opset=14)
    if interleaved:
        wide = [batch, count, seq, half, 1]
        parts = [_reshape(ctx, out_first, wide), _reshape(ctx, out_second, wide)]
        (joined,) = ctx.emit("Concat", parts, 1, {"axis": ("INT", 4)}, opset=13)
        result = _reshape(ctx, joined, [batch, count, seq, dim])
    else:
        (result,) = ctx.emit("Concat", [out_first, out_second], 1, {"axis": ("INT", 3)}, opset=13)
    if dim < head:
        rest = _slice_last(ctx, x4, dim, head)
        (result,) = ctx.emit("Concat", [result, rest], 1, {"axis": ("INT", 3)}, opset=13)
    output = ctx.node.outputs[0]
    if len(shape) == 3:
        (moved,) = ctx.emit("Transpose", [result], 1, {"perm": ("INTS", [0, 2, 1, 3])}, opset=13)
        target = ctx.add_constant(np.asarray(shape, np.int64), "rope_shape")
        ctx.emit("Reshape", [moved, target], [output], opset=13)
    else:
        ctx.emit("Identity", [result], [output], opset=13)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("RotaryEmbedding", 23, ABSENT, _written_out, "before 23: the rotation written out")
