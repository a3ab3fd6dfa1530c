"""Python operators on Var (``+ - * / @ ** -x``, ``< <= > >=``, ``x[...]``).

They emit the operators of the default opset (:data:`onnxcraft.core.api.DEFAULT_OPSET`, 21)
with the same literal lifting as explicit calls: ``x * 2.0`` makes a constant of x's element
type. ``==`` and ``!=`` keep their identity meaning (Vars live in sets and dicts): use
``op.Equal``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from onnxcraft.core.var import Var
from onnxcraft.errors import BuildError

__all__ = ["binary", "getitem", "neg"]

_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min
_module: ModuleType | None = None


def _op() -> ModuleType:
    global _module
    if _module is None:
        from onnxcraft.opset.ai.onnx import v21

        _module = v21
    return _module


def binary(name: str, left: Any, right: Any) -> Var:
    """Emit the default-opset operator ``name`` on two operands (literals are lifted)."""
    return getattr(_op(), name)(left, right)  # type: ignore[no-any-return]


def neg(self: Var) -> Var:
    return _op().Neg(self)  # type: ignore[no-any-return]


def getitem(self: Var, index: Any) -> Var:
    op = _op()
    if isinstance(index, Var):
        return op.Gather(self, index, axis=0)  # type: ignore[no-any-return]
    items = index if isinstance(index, tuple) else (index,)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise BuildError("x[...]: at most one Ellipsis is allowed")
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    rank = self.rank
    if Ellipsis in items:
        if rank is None:
            raise BuildError("x[...]: indexing with Ellipsis needs a Var of known rank")
        fill = rank - consumed
        at = items.index(Ellipsis)
        items = items[:at] + (slice(None),) * fill + items[at + 1 :]
    elif rank is not None and consumed > rank:
        raise BuildError(f"x[...]: too many indices ({consumed}) for a Var of rank {rank}")
    starts: list[int] = []
    ends: list[int] = []
    axes: list[int] = []
    steps: list[int] = []
    squeeze: list[int] = []
    unsqueeze: list[int] = []
    axis = 0  # axis of the input being indexed
    out_axis = 0  # axis in the result (after squeezes and new axes)
    for item in items:
        if item is None:
            unsqueeze.append(out_axis)
            out_axis += 1
            continue
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            i = int(item)
            starts.append(i)
            ends.append(i + 1 if i != -1 else _INT64_MAX)
            axes.append(axis)
            steps.append(1)
            squeeze.append(axis)
        elif isinstance(item, slice):
            step = 1 if item.step is None else int(item.step)
            if step == 0:
                raise BuildError("x[...]: slice step cannot be zero")
            if item.start is None:
                start = 0 if step > 0 else _INT64_MAX
            else:
                start = int(item.start)
            if item.stop is None:
                stop = _INT64_MAX if step > 0 else _INT64_MIN
            else:
                stop = int(item.stop)
            if (start, stop, step) != (0, _INT64_MAX, 1):
                starts.append(start)
                ends.append(stop)
                axes.append(axis)
                steps.append(step)
            out_axis += 1
        else:
            raise BuildError(
                f"x[...]: unsupported index {item!r}: use ints, slices, None, Ellipsis or a Var"
            )
        axis += 1
    result = self
    if axes:
        result = op.Slice(
            result,
            np.array(starts, np.int64),
            np.array(ends, np.int64),
            np.array(axes, np.int64),
            np.array(steps, np.int64),
        )
    if squeeze:
        result = op.Squeeze(result, np.array(squeeze, np.int64))
    if unsqueeze:
        result = op.Unsqueeze(result, np.array(unsqueeze, np.int64))
    return result
