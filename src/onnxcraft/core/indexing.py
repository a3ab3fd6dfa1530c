"""``x[...]`` on a Var: numpy's basic indexing as a plan of Slice, Squeeze and Unsqueeze.

:func:`index_plan` reads an index expression (ints, slices, None, Ellipsis) against the
indexed value's rank and shape, checking it as numpy does; ``Var.__getitem__`` emits the plan
with the operators of the default opset.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

import numpy as np

from onnxcraft.errors import BuildError
from onnxcraft.types import Shape

__all__ = ["IndexPlan", "index_plan"]

_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


class Indexed(Protocol):
    """What indexing needs to know of the indexed value."""

    @property
    def rank(self) -> int | None: ...

    @property
    def shape(self) -> Shape: ...


def index_plan(value: Indexed, index: Any) -> IndexPlan:
    """The plan of ``value[index]`` (an index that is not a Var): checked, not yet emitted."""
    items = _expand_ellipsis(value, index if isinstance(index, tuple) else (index,))
    plan = IndexPlan()
    axis = 0  # axis of the input being indexed
    for item in items:
        if item is None:
            plan.unsqueeze.append(axis - len(plan.squeeze) + len(plan.unsqueeze))
            continue
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            plan.take(axis, _index(value, axis, int(item)))
        elif isinstance(item, slice):
            plan.slice(axis, item)
        else:
            raise BuildError(
                f"x[...]: unsupported index {item!r}: use ints, slices, None, Ellipsis or a Var"
            )
        axis += 1
    return plan


class IndexPlan:
    """The Slice, Squeeze and Unsqueeze an index expression turns into."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.axes: list[int] = []
        self.steps: list[int] = []
        self.squeeze: list[int] = []  # input axes taken by an int index
        self.unsqueeze: list[int] = []  # result axes a None inserts

    def take(self, axis: int, i: int) -> None:
        self._add(axis, i, i + 1 if i != -1 else _INT64_MAX, 1)
        self.squeeze.append(axis)

    def slice(self, axis: int, item: slice) -> None:
        step = 1 if item.step is None else _int64(item.step)
        if step == 0:
            raise BuildError("x[...]: slice step cannot be zero")
        if item.start is None:
            start = 0 if step > 0 else _INT64_MAX
        else:
            start = _int64(item.start)
        if item.stop is None:
            stop = _INT64_MAX if step > 0 else _INT64_MIN
        else:
            stop = _int64(item.stop)
        if (start, stop, step) != (0, _INT64_MAX, 1):  # a full slice needs no Slice
            self._add(axis, start, stop, step)

    def _add(self, axis: int, start: int, stop: int, step: int) -> None:
        self.starts.append(start)
        self.ends.append(stop)
        self.axes.append(axis)
        self.steps.append(step)

    def emit(self, value: Any, op: ModuleType) -> Any:
        """Emit the plan on ``value`` with the operator functions of the opset module ``op``."""
        result = value
        if self.axes:
            result = op.Slice(
                result,
                np.array(self.starts, np.int64),
                np.array(self.ends, np.int64),
                np.array(self.axes, np.int64),
                np.array(self.steps, np.int64),
            )
        if self.squeeze:
            result = op.Squeeze(result, np.array(self.squeeze, np.int64))
        if self.unsqueeze:
            result = op.Unsqueeze(result, np.array(self.unsqueeze, np.int64))
        return result


def _expand_ellipsis(value: Indexed, items: tuple[Any, ...]) -> tuple[Any, ...]:
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise BuildError("x[...]: at most one Ellipsis is allowed")
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    rank = value.rank
    # Found by identity: `in` and .index() would compare arrays and Vars with ==.
    at = next((n for n, i in enumerate(items) if i is Ellipsis), None)
    if at is not None:
        if rank is None:
            raise BuildError("x[...]: indexing with Ellipsis needs a Var of known rank")
        return items[:at] + (slice(None),) * (rank - consumed) + items[at + 1 :]
    if rank is not None and consumed > rank:
        raise BuildError(f"x[...]: too many indices ({consumed}) for a Var of rank {rank}")
    return items


def _int64(value: Any) -> int:
    number = int(value)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise BuildError(f"x[...]: index {number} does not fit in int64")
    return number


def _index(value: Indexed, axis: int, i: int) -> int:
    """An int index, checked against the axis when its size is known (as numpy does)."""
    i = _int64(i)
    shape = value.shape
    size = shape[axis] if shape is not None and axis < len(shape) else None
    if isinstance(size, int) and not -size <= i < size:
        raise BuildError(f"x[...]: index {i} is out of range for axis {axis} of size {size}")
    return i
