"""Rules for If, Loop, Scan and SequenceMap: output types come from the traced bodies."""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import merge_shape
from onnxcraft.types import Dim, Optional, Sequence, Tensor, ValueType

__all__ = ["register", "merge_types"]


def merge_types(a: ValueType | None, b: ValueType | None) -> ValueType | None:
    """The type both values can have: equal parts kept, differing dims unknown."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        elem = a.elem_type if a.elem_type == b.elem_type else None
        return Tensor(elem, merge_shape(a.shape, b.shape))
    if isinstance(a, Sequence) and isinstance(b, Sequence):
        return Sequence(merge_types(a.elem, b.elem))
    if isinstance(a, Optional) and isinstance(b, Optional):
        return Optional(merge_types(a.elem, b.elem))
    return None


def _if(ctx: InferenceContext) -> list[ValueType | None]:
    then_types = ctx.bodies.get("then_branch")
    else_types = ctx.bodies.get("else_branch")
    cond = ctx.value(0)
    if cond is not None and cond.size == 1:  # a known condition: only one branch ever runs
        taken = then_types if bool(cond.reshape(-1)[0]) else else_types
        return [None] * ctx.num_outputs if taken is None else list(taken)
    if then_types is None or else_types is None:
        return [None] * ctx.num_outputs
    if len(then_types) != len(else_types):
        raise ctx.fail(
            f"then_branch returns {len(then_types)} values but else_branch returns "
            f"{len(else_types)}; both branches must return the same number of outputs"
        )
    for i, (a, b) in enumerate(zip(then_types, else_types)):
        if (
            isinstance(a, Tensor)
            and isinstance(b, Tensor)
            and (a.elem_type and b.elem_type and a.elem_type != b.elem_type)
        ):
            raise ctx.fail(f"output {i}: then_branch gives {a} but else_branch gives {b}")
    return [merge_types(a, b) for a, b in zip(then_types, else_types)]


def _stacked(t: ValueType | None, axis: int, length: Dim) -> ValueType | None:
    if not isinstance(t, Tensor):
        return None
    if t.shape is None:
        return Tensor(t.elem_type, None)
    axis = axis + len(t.shape) + 1 if axis < 0 else axis
    return Tensor(t.elem_type, t.shape[:axis] + (length,) + t.shape[axis:])


def _loop(ctx: InferenceContext) -> list[ValueType | None]:
    body = ctx.bodies.get("body")
    if body is None:
        return [None] * ctx.num_outputs
    carried_init = list(ctx.input_types[2:])
    carried = [
        merge_types(init, out) for init, out in zip(carried_init, body[1 : 1 + len(carried_init)])
    ]
    scans = [_stacked(t, 0, None) for t in body[1 + len(carried_init) :]]
    return [*carried, *scans]


def _scan(ctx: InferenceContext) -> list[ValueType | None]:
    body = ctx.bodies.get("body")
    if body is None:
        return [None] * ctx.num_outputs
    num_scan = int(ctx.attr("num_scan_inputs"))
    scan_8 = ctx.op.since_version == 8
    inputs = list(ctx.input_types[1:] if scan_8 else ctx.input_types)
    num_state = len(inputs) - num_scan
    if num_state < 0:
        raise ctx.fail(f"num_scan_inputs={num_scan} exceeds the {len(inputs)} inputs")
    if scan_8:
        return _scan_8(inputs, num_state, body)
    states = [merge_types(init, out) for init, out in zip(inputs[:num_state], body[:num_state])]
    length: Dim = None
    first = inputs[num_state] if num_scan else None
    if isinstance(first, Tensor) and first.shape is not None:
        axes = ctx.attr("scan_input_axes") or [0] * num_scan
        axis = int(axes[0])
        if -len(first.shape) <= axis < len(first.shape):
            length = first.shape[axis]
    out_axes = ctx.attr("scan_output_axes") or [0] * (len(body) - num_state)
    scans = [_stacked(t, int(out_axes[i]), length) for i, t in enumerate(body[num_state:])]
    return [*states, *scans]


def _scan_8(
    inputs: list[ValueType | None], num_state: int, body: list[ValueType | None]
) -> list[ValueType | None]:
    """Scan-8 runs the body per batch entry: every value gains a leading batch axis, and the
    scan outputs a sequence axis after it."""
    first = inputs[num_state] if num_state < len(inputs) else None
    batch: Dim = None
    length: Dim = None
    if isinstance(first, Tensor) and first.shape is not None and len(first.shape) >= 2:
        batch, length = first.shape[0], first.shape[1]
    states: list[ValueType | None] = []
    for init, out in zip(inputs[:num_state], body[:num_state]):
        per_batch = _stacked(out, 0, batch)
        states.append(merge_types(init, per_batch))
    scans = [_stacked(_stacked(t, 0, length), 0, batch) for t in body[num_state:]]
    return [*states, *scans]


def _sequence_map(ctx: InferenceContext) -> list[ValueType | None]:
    body = ctx.bodies.get("body")
    if body is None:
        return [None] * ctx.num_outputs
    return [Sequence(t) for t in body]


def register(rules: RuleRegistry) -> None:
    rules.add("If", _if, since=ALL_VERSIONS)
    rules.add("Loop", _loop, since=ALL_VERSIONS)
    rules.add("Scan", _scan, since=ALL_VERSIONS)
    rules.add("SequenceMap", _sequence_map, since=ALL_VERSIONS)
