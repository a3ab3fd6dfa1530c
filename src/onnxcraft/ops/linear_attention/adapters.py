"""Version adapters of LinearAttention: below 27, where it does not exist, the recurrence is
written out for the node (its heads, update rule, shapes), since the standard's body depends on
them. The sequence length must be static: each token's state update and read is unrolled, in
float32 as the operator computes, then cast to the input types.

Per token t, with the state S of each key/value head:

    gated rules   S = S * exp(decay_t)
    delta rules   write = beta_t * (v_t - k_t S)      (else write = v_t)
                  S = S + k_t^T write
    output        scale * q_t S   (for each query head of the key/value head's group)
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry

_FLOAT, _FLOAT16 = 1, 10
_RULES = ("linear", "gated", "delta", "gated_delta")
_MAX_UNROLLED = 256  # tokens: the written-out recurrence grows with the sequence


class _Writer:
    """Small helpers over the context, for the shapes of this rewrite."""

    def __init__(self, ctx: AdapterContext) -> None:
        self.ctx = ctx

    def const(self, values: object, base: str) -> str:
        return self.ctx.add_constant(np.asarray(values, np.int64), base)

    def reshape(self, name: str, shape: list[int]) -> str:
        (out,) = self.ctx.emit("Reshape", [name, self.const(shape, "la_shape")], 1, opset=14)
        return out

    def transpose(self, name: str, perm: list[int]) -> str:
        (out,) = self.ctx.emit("Transpose", [name], 1, {"perm": ("INTS", perm)}, opset=13)
        return out

    def step(self, name: str, t: int, axis: int) -> str:
        starts, ends = self.const([t], "la_t"), self.const([t + 1], "la_t1")
        axes = self.const([axis], "la_axis")
        (out,) = self.ctx.emit("Slice", [name, starts, ends, axes], 1, opset=13)
        return out

    def op(self, op_type: str, *inputs: str) -> str:
        (out,) = self.ctx.emit(op_type, list(inputs), 1, opset=14)
        return out

    def as_float(self, name: str) -> str:
        if not name or int(self.ctx.elem_type(name) or 0) == _FLOAT:
            return name
        (out,) = self.ctx.emit("Cast", [name], 1, {"to": ("INT", _FLOAT)}, opset=13)
        return out


def _packed_shape(ctx: AdapterContext, name: str, what: str) -> tuple[int, int, int]:
    shape = ctx.shape(name)
    if shape is None or len(shape) != 3 or not all(isinstance(d, int) for d in shape):
        ctx.fail(f"{what} must have a static 3-D shape (batch, sequence, hidden), got {shape}")
    return int(shape[0]), int(shape[1]), int(shape[2])


def _written_out(ctx: AdapterContext) -> None:
    query, key, value, past, decay, beta = (ctx.input(i) for i in range(6))
    rule = ctx.attr("update_rule", "gated_delta")
    rule = rule.decode() if isinstance(rule, bytes) else str(rule)
    if rule not in _RULES:
        ctx.fail(f"update_rule={rule!r} is not one of {_RULES}")
    q_heads, kv_heads = ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")
    if not q_heads or not kv_heads or int(q_heads) % int(kv_heads):
        ctx.fail(f"q_num_heads={q_heads} must be a positive multiple of kv_num_heads={kv_heads}")
    q_heads, kv_heads = int(q_heads), int(kv_heads)
    for name in (query, past):
        elem = ctx.elem_type(name) if name else None
        if name and (elem is None or int(elem) not in (_FLOAT, _FLOAT16)):
            ctx.fail(f"the element types must be float16 or float here, got {elem}")
    batch, length, q_hidden = _packed_shape(ctx, query, "query")
    _, _, v_hidden = _packed_shape(ctx, value, "value")
    if length > _MAX_UNROLLED:
        ctx.fail(f"sequence length {length}: more than {_MAX_UNROLLED} tokens are not unrolled")
    if q_hidden % q_heads or v_hidden % kv_heads:
        ctx.fail("the hidden sizes must be divisible by the head counts")
    d_k, d_v, group = q_hidden // q_heads, v_hidden // kv_heads, q_heads // kv_heads
    gated, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    if (gated and not decay) or (delta and not beta):
        ctx.fail(f"update_rule={rule!r} needs its decay/beta input")
    w = _Writer(ctx)

    def heads_first(name: str, heads: int) -> str:  # (B, T, H * d) -> (B, H, T, d)
        return w.transpose(w.reshape(w.as_float(name), [batch, length, heads, -1]), [0, 2, 1, 3])

    queries = w.reshape(heads_first(query, q_heads), [batch, kv_heads, group, length, d_k])
    keys, values = heads_first(key, kv_heads), heads_first(value, kv_heads)
    gates = ""
    if gated:  # exp(decay) as (B, H, d_k or 1, T)
        gates = w.transpose(w.op("Exp", heads_first(decay, kv_heads)), [0, 1, 3, 2])
    rates = ""
    if delta:  # beta as (B, H or 1, T, 1)
        beta_heads = ctx.shape(beta)
        width = int(beta_heads[2]) if beta_heads and isinstance(beta_heads[2], int) else -1
        rates = w.reshape(w.transpose(w.as_float(beta), [0, 2, 1]), [batch, width, length, 1])
    state = w.as_float(past) or ctx.add_constant(
        np.zeros((batch, kv_heads, d_k, d_v), np.float32), "la_state"
    )
    scale = float(ctx.attr("scale", 0.0))
    factor = np.float32(1) / np.sqrt(np.float32(d_k)) if scale == 0.0 else np.float32(scale)
    factor_name = ctx.add_constant(np.asarray(factor, np.float32), "la_scale")
    reads: list[str] = []
    for t in range(length):
        if gated:
            state = w.op("Mul", state, w.step(gates, t, 3))
        k_row, write = w.step(keys, t, 2), w.step(values, t, 2)  # (B, H, 1, d)
        if delta:
            retrieved = w.op("MatMul", k_row, state)
            write = w.op("Mul", w.step(rates, t, 2), w.op("Sub", write, retrieved))
        state = w.op("Add", state, w.op("Mul", w.transpose(k_row, [0, 1, 3, 2]), write))
        (wide_state,) = ctx.emit("Unsqueeze", [state, w.const([2], "la_axis")], 1, opset=13)
        read = w.op("MatMul", w.step(queries, t, 3), wide_state)  # (B, H, G, 1, d_v)
        reads.append(w.op("Mul", factor_name, read))
    if len(reads) == 1:
        joined = reads[0]
    else:
        (joined,) = ctx.emit("Concat", reads, 1, {"axis": ("INT", 3)}, opset=13)
    per_head = w.reshape(joined, [batch, q_heads, length, d_v])
    packed = w.reshape(w.transpose(per_head, [0, 2, 1, 3]), [batch, length, q_heads * d_v])
    outputs = list(ctx.node.outputs) + [""]
    query_type = int(ctx.elem_type(query) or _FLOAT)
    state_type = int(ctx.elem_type(past) or _FLOAT) if past else query_type
    finals = ((packed, outputs[0], query_type), (state, outputs[1], state_type))
    for result, output, wanted in finals:
        if not output:
            continue
        if wanted != _FLOAT:
            ctx.emit("Cast", [result], [output], {"to": ("INT", wanted)}, opset=13)
        else:
            ctx.emit("Identity", [result], [output], opset=13)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("LinearAttention", 27, ABSENT, _written_out, "before 27: recurrence unrolled")
