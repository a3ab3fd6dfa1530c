"""Tracing Python callables into subgraph bodies, and the body signatures of control flow.

If, Loop, Scan and SequenceMap take callables for their graph attributes. What the callable
receives (the body's typed inputs) and how many outputs the operator then has depend on the
operator, so each has a small signature rule here. Other operators with graph attributes take
a body prebuilt with :func:`subgraph`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from onnxcraft.core import literals
from onnxcraft.core.opinfo import OpInfo
from onnxcraft.core.scope import new_scope
from onnxcraft.core.var import ARG, Body, Var
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import BuildError, OpAttributeError
from onnxcraft.types import Sequence as SequenceType
from onnxcraft.types import Tensor, ValueType

__all__ = ["body_tracer", "subgraph", "trace", "variadic_output_count"]

_INT64_SCALAR = Tensor(ElementType.INT64, ())
_BOOL_SCALAR = Tensor(ElementType.BOOL, ())
_ANY_ELEM = frozenset(ElementType)


def trace(fn: Callable[..., Any], input_types: Sequence[ValueType | None], name: str) -> Body:
    """Call ``fn`` with fresh typed input Vars in a new scope; its result is the body's outputs."""
    with new_scope() as scope:
        args = [Var(t, kind=ARG, scope=scope) for t in input_types]
        try:
            result = fn(*args)
        except TypeError as exc:
            if "positional argument" in str(exc):
                raise BuildError(
                    f"{name}: the body callable must take {len(args)} argument(s) "
                    f"({', '.join(str(t) for t in input_types) or 'none'}): {exc}"
                ) from exc
            raise
        outputs = [_as_output(name, i, v, scope) for i, v in enumerate(_as_list(name, result))]
    return Body(args, outputs, scope, name)


def subgraph(
    fn: Callable[..., Any], input_types: Sequence[ValueType | None], *, name: str = "body"
) -> Body:
    """Trace ``fn`` into a body with the given input types, for any graph attribute."""
    return trace(fn, list(input_types), name)


def _as_list(name: str, result: Any) -> list[Any]:
    if isinstance(result, Var):
        return [result]
    if isinstance(result, (list, tuple)):
        return list(result)
    raise BuildError(
        f"{name}: the body must return a Var or a list of Vars, got {type(result).__name__}"
    )


def _as_output(name: str, index: int, value: Any, scope: int) -> Var:
    if isinstance(value, Var):
        return value
    if literals.is_literal(value):
        array = literals.literal_array(name, index, value, role="body output")
        # As for unbound operator inputs: numpy values keep their type, Python floats become
        # float32 and ints int64 (a body output binds no type constraint).
        from_python = not isinstance(value, (np.ndarray, np.generic))
        elem = literals.default_elem_type(array, from_python, _ANY_ELEM)
        converted = literals.convert(name, index, array, elem, role="body output")
        return literals.lift(converted, elem, scope)
    raise BuildError(
        f"{name}: body output {index} must be a Var or a literal, got {type(value).__name__}"
    )


# -- per-operator body signatures ---------------------------------------------------------------


def _relaxed(t: ValueType | None) -> ValueType | None:
    """A loop-carried type with its dims forgotten (they may change between iterations)."""
    if isinstance(t, Tensor) and t.shape is not None:
        return Tensor(t.elem_type, tuple(None for _ in t.shape))
    return t


def _merge(a: ValueType | None, b: ValueType | None) -> ValueType | None:
    if a == b:
        return a
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.elem_type == b.elem_type:
        if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
            return Tensor(a.elem_type, None)
        return Tensor(a.elem_type, tuple(x if x == y else None for x, y in zip(a.shape, b.shape)))
    return _relaxed(a)


def _loop_body(fn: Callable[..., Any], carried: list[ValueType | None], name: str) -> Body:
    # Trace with the initial types; if the body changes a carried type, trace again with the
    # types merged so that nothing inside the body relies on a shape that varies.
    body = trace(fn, [_INT64_SCALAR, _BOOL_SCALAR, *carried], name)
    if len(body.outputs) < 1 + len(carried):
        raise BuildError(
            f"{name}: the body returns {len(body.outputs)} value(s); a Loop body returns the "
            f"condition, then the {len(carried)} carried value(s), then any scan outputs"
        )
    produced = [v.type for v in body.outputs[1 : 1 + len(carried)]]
    merged = [_merge(a, b) for a, b in zip(carried, produced)]
    if merged != carried:
        body = trace(fn, [_INT64_SCALAR, _BOOL_SCALAR, *merged], name)
    return body


def _scan_slice(t: ValueType | None, axis: int) -> ValueType | None:
    if not isinstance(t, Tensor) or t.shape is None:
        return t if not isinstance(t, Tensor) else Tensor(t.elem_type, None)
    rank = len(t.shape)
    if not -rank <= axis < rank:
        raise OpAttributeError(
            f"Scan: scan_input_axes entry {axis} is out of range for rank {rank}"
        )
    axis %= rank
    return Tensor(t.elem_type, t.shape[:axis] + t.shape[axis + 1 :])


def _sequence_elem(t: ValueType | None) -> ValueType | None:
    return t.elem if isinstance(t, SequenceType) else t


def body_tracer(
    op: OpInfo, inputs: tuple[Var | None, ...], attrs: dict[str, Any]
) -> Callable[[str, Any], Body]:
    """The function tracing a callable given for one of ``op``'s graph attributes."""
    types = [None if v is None else v.type for v in inputs]

    def tracer(attr_name: str, fn: Any) -> Body:
        label = f"{op.op_type}.{attr_name}"
        if op.op_type == "If" and op.domain == "":
            return trace(fn, [], label)
        if op.op_type == "Loop" and op.domain == "":
            return _loop_body(fn, types[2:], label)
        if op.op_type == "Scan" and op.domain == "":
            return _scan_body(op, fn, types, attrs, label)
        if op.op_type == "SequenceMap" and op.domain == "":
            return trace(fn, [_sequence_elem(t) for t in types], label)
        if op.op_type == "FlexAttention" and op.domain == "ai.onnx.preview":
            return trace(fn, [_flex_scores_type(types, attrs)], label)
        raise OpAttributeError(
            f"{op.op_type}: attribute {attr_name!r}: pass a body built with "
            f"oc.subgraph(fn, input_types); the body's input types of this operator are not "
            f"derivable from its inputs"
        )

    return tracer


def _flex_scores_type(types: list[ValueType | None], attrs: dict[str, Any]) -> ValueType:
    """What FlexAttention's score_mod/prob_mod receive: the (B, Hq, L, S) scores, in the
    softmax precision (softmax_precision, else double for double inputs, else float)."""
    q = types[0] if types else None
    k = types[1] if len(types) > 1 else None
    precision = attrs.get("softmax_precision")
    if isinstance(precision, (int, np.integer)):
        elem = ElementType(int(precision))
    elif isinstance(q, Tensor) and q.elem_type == ElementType.DOUBLE:
        elem = ElementType.DOUBLE
    else:
        elem = ElementType.FLOAT
    if not isinstance(q, Tensor) or q.shape is None or len(q.shape) != 4:
        return Tensor(elem, (None,) * 4)
    keys = (
        k.shape[2] if isinstance(k, Tensor) and k.shape is not None and len(k.shape) == 4 else None
    )
    return Tensor(elem, (q.shape[0], q.shape[1], q.shape[2], keys))


def _scan_body(
    op: OpInfo, fn: Any, types: list[ValueType | None], attrs: dict[str, Any], label: str
) -> Body:
    num_scan = attrs.get("num_scan_inputs")
    # The generated functions pass a marker for required attributes left out.
    if num_scan is None or not isinstance(num_scan, (int, np.integer)):
        raise OpAttributeError("Scan: missing required attribute 'num_scan_inputs' (an int)")
    num_scan = int(num_scan)
    if op.since_version == 8:
        types = types[1:]  # sequence_lens comes first in Scan-8
        axes = [1] * num_scan  # Scan-8 has a batch axis 0; the scan axis is 1
    else:
        axes = list(attrs.get("scan_input_axes") or [0] * num_scan)
    num_state = len(types) - num_scan
    if num_state < 0:
        raise OpAttributeError(f"Scan: num_scan_inputs={num_scan} exceeds the {len(types)} inputs")
    states = types[:num_state]
    if op.since_version == 8:
        states = [_scan_slice(t, 0) for t in states]
    slices = [_scan_slice(t, axes[i]) for i, t in enumerate(types[num_state:])]
    if op.since_version == 8:
        slices = [_scan_slice(t, 0) if isinstance(t, Tensor) else t for t in slices]
    body = trace(fn, [*states, *slices], label)
    produced = [v.type for v in body.outputs[:num_state]]
    merged = [_merge(a, b) for a, b in zip(states, produced)]
    if merged != states:
        body = trace(fn, [*merged, *slices], label)
    return body


def variadic_output_count(
    op: OpInfo, inputs: tuple[Var | None, ...], attrs: dict[str, Any]
) -> int | None:
    """How many outputs a variadic-output operator has, when the call determines it."""
    if op.domain != "":
        return None
    name = op.op_type
    if name == "If":
        body = attrs.get("then_branch")
        return len(body.outputs) if isinstance(body, Body) else None
    if name == "Loop":
        body = attrs.get("body")
        return len(body.outputs) - 1 if isinstance(body, Body) else None
    if name in ("Scan", "SequenceMap"):
        body = attrs.get("body")
        return len(body.outputs) if isinstance(body, Body) else None
    if name == "Split":
        if "num_outputs" in attrs:
            return int(attrs["num_outputs"])
        if "split" in attrs:
            return len(attrs["split"])
        split = inputs[1].value if len(inputs) > 1 and inputs[1] is not None else None
        if isinstance(split, np.ndarray):
            return int(split.size)
        if split is not None:  # a shape-like value known in part still knows its length
            return len(split)
    return None
