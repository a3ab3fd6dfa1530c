"""What an attribute's spec says its value may be: one of an enumerated set, or an axis within
the rank of an input.

The same rules serve an operator call (an OpAttributeError at the call) and ``oc.check`` (a
problem reported for a model from elsewhere), so both name the same allowed values and range.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from onnxcraft.core.opinfo import AttrInfo, OpInfo
from onnxcraft.types import Optional, Sequence, Tensor, ValueType

__all__ = ["axis_problem", "bounding_input", "rank_of", "value_problem"]


def _elements(value: Any) -> list[Any]:
    if isinstance(value, np.ndarray):
        return list(value.ravel().tolist())
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def value_problem(info: AttrInfo, value: Any) -> str | None:
    """Why ``value`` is not allowed for an enumerated attribute (None: it is, or the
    attribute is not enumerated)."""
    if not info.allowed:
        return None
    outside = [v for v in _elements(value) if not _listed(v, info.allowed)]
    if not outside:
        return None
    allowed = ", ".join(repr(v) for v in info.allowed)
    which = repr(outside[0]) if outside == _elements(value) else f"{outside[0]!r} in {value!r}"
    each = " (each element)" if info.type.endswith("S") or info.type == "TENSOR" else ""
    return f"attribute {info.name!r} must be one of {allowed}{each}, got {which}"


def _listed(value: Any, allowed: tuple[str | int, ...]) -> bool:
    # a string mode and an integer code never stand for each other (1 is not "1", True not 1)
    if isinstance(value, bool):
        return False
    return any(type(value) is type(item) and value == item for item in allowed)


def rank_of(value_type: ValueType | None) -> int | None:
    """The rank that bounds an axis: a tensor's, or the tensors' of a sequence."""
    if isinstance(value_type, Optional):
        value_type = value_type.elem
    if isinstance(value_type, Sequence):
        value_type = value_type.elem
    if isinstance(value_type, Tensor) and value_type.shape is not None:
        return len(value_type.shape)
    return None


def bounding_input(op: OpInfo, info: AttrInfo) -> int | None:
    """The position of the input whose rank bounds ``info`` (None: not an axis attribute)."""
    if info.axis is None:
        return None
    for index, formal in enumerate(op.inputs):
        if formal.name == info.axis.input:
            return index
    return None


def axis_problem(
    info: AttrInfo, value: Any, rank: int, attributes: Mapping[str, Any]
) -> str | None:
    """Why an axis attribute's ``value`` is outside the range an input of ``rank`` allows."""
    bound = info.axis
    if bound is None:
        return None
    axes = [int(a) for a in _elements(value)]
    limit = bound.limit(rank, len(axes), attributes)
    high = limit if bound.end_inclusive else limit - 1
    outside = [a for a in axes if not -limit <= a <= high]
    if not outside:
        return None
    shown = outside[0] if len(axes) == 1 else f"{outside[0]} in {list(axes)}"
    return (
        f"attribute {info.name!r} must be an axis in {-limit} … {high} "
        f"({bound.describe()}, here r = {rank}), got {shown}"
    )
