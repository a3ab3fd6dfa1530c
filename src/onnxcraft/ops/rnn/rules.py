"""Rules for RNN, GRU and LSTM."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]


def _recurrent(ctx: InferenceContext) -> list[ValueType | None]:
    x, w = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(0)
    hidden: Dim = ctx.attr("hidden_size")
    directions: Dim = 2 if ctx.attr("direction", "forward") == "bidirectional" else 1
    if x is None or len(x) != 3:
        return [Tensor(elem, None)] * ctx.num_outputs
    if w is not None and len(w) == 3 and isinstance(w[0], int):
        directions = w[0]
    layout = int(ctx.attr("layout", 0) or 0)
    steps, batch = (x[1], x[0]) if layout else (x[0], x[1])
    if layout:
        y = (batch, steps, directions, hidden)
        state = (batch, directions, hidden)
    else:
        y = (steps, directions, batch, hidden)
        state = (directions, batch, hidden)
    outputs: list[ValueType | None] = [Tensor(elem, y), Tensor(elem, state)]
    if ctx.num_outputs > 2:
        outputs.append(Tensor(elem, state))
    return outputs[: ctx.num_outputs]


def register(rules: RuleRegistry) -> None:
    for name in ("RNN", "GRU", "LSTM"):
        rules.add(name, _recurrent, since=ALL_VERSIONS)
