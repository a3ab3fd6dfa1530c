"""Rules for RNN, GRU and LSTM."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]


def _recurrent(ctx: InferenceContext) -> list[ValueType | None]:
    x = ctx.shape(0)
    elem = ctx.elem(0)
    hidden: Dim = ctx.attr("hidden_size")
    direction = ctx.attr("direction", "forward")
    directions: Dim = 2 if direction == "bidirectional" else 1
    for index, arg in ((1, "W"), (2, "R"), (3, "B")):
        given = ctx.shape(index)
        if given and isinstance(given[0], int) and given[0] != directions:
            raise ctx.fail(
                f"input {arg!r} has shape {list(given)}: its first dim must be the number of "
                f"directions, {directions} for direction={direction!r}"
            )
    if x is None or len(x) != 3:
        return [Tensor(elem, None)] * ctx.num_outputs
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
