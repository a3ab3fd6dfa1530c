"""Output types for operators without a rule: what the type constraints alone imply.

An output whose type parameter is bound by an input (``T`` of ``Add``) gets that input's element
type; an output of a fixed type (``tensor(int64)``) or of a parameter allowing one type gets that
type. Shapes stay unknown: never guess a wrong one.
"""

from __future__ import annotations

from collections.abc import Sequence

from onnxcraft.core.opinfo import OpInfo
from onnxcraft.types import Tensor, ValueType

__all__ = ["types_from_constraints", "bind_constraints"]


def _strip_shape(value: ValueType | None) -> ValueType | None:
    if isinstance(value, Tensor):
        return Tensor(value.elem_type, None) if value.shape is not None else value
    return value


def bind_constraints(op: OpInfo, input_types: Sequence[ValueType | None]) -> dict[str, ValueType]:
    """Type parameter -> the (shape-free) type bound to it by the inputs."""
    bound: dict[str, ValueType] = {}
    formals = op.inputs
    for i, t in enumerate(input_types):
        if t is None or not formals:
            continue
        formal = formals[min(i, len(formals) - 1)]
        if formal.constraint is None or formal.constraint in bound:
            continue
        stripped = _strip_shape(t)
        if isinstance(stripped, Tensor) and stripped.elem_type is None:
            continue
        if stripped is not None:
            bound[formal.constraint] = stripped
    return bound


def types_from_constraints(
    op: OpInfo, input_types: Sequence[ValueType | None], num_outputs: int
) -> list[ValueType | None]:
    bound = bind_constraints(op, input_types)
    result: list[ValueType | None] = []
    outputs = op.outputs
    for i in range(num_outputs):
        if not outputs:
            result.append(None)
            continue
        formal = outputs[min(i, len(outputs) - 1)]
        if formal.constraint is not None and formal.constraint in bound:
            result.append(bound[formal.constraint])
        elif len(formal.allowed) == 1:
            result.append(formal.allowed[0])
        else:
            result.append(None)
    return result
