"""The limits of one evaluation run, as kernels and the step loop see them.

The evaluator makes a :class:`RunGuard` for each run (``oc.Limits`` and a cancel token) and
makes it current (:func:`guarded`); kernels that loop call :func:`count_iteration` once per
iteration (Loop, Scan) or :func:`ticker` once per round of a long loop of their own (an RNN's
time steps, NonMaxSuppression's classes), and kernels that allocate an output whose size
comes from input values call :func:`check_allocation` (or :func:`check_broadcast`,
:func:`check_matmul`) before allocating. Outside a run (a kernel called directly) the default
guard applies: no iteration or time limit, one value at most the machine's memory.

Checks are per step, per loop iteration and per allocation, never per element, so a run
with no limits costs a few attribute reads more.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

import numpy as np

from onnxcraft.errors import EvaluationLimitError

__all__ = [
    "CancelToken",
    "RunGuard",
    "check_allocation",
    "check_broadcast",
    "check_matmul",
    "count_iteration",
    "current_guard",
    "guarded",
    "machine_memory",
    "ticker",
]

# Where the machine cannot say how much memory it has (no sysconf: Windows): 1 TiB, more than
# any one array a workstation holds, still far below the sizes hostile shapes ask for (2**62).
_FALLBACK_MEMORY = 1 << 40


def machine_memory() -> int:
    """The machine's physical memory in bytes: no single value larger than this can exist."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return _FALLBACK_MEMORY


class CancelToken(Protocol):
    """What ``cancel=`` takes: a ``threading.Event``, or anything with ``is_set()``."""

    def is_set(self) -> bool: ...


class RunGuard:
    """The limits of one run and what it has used so far (loop iterations)."""

    __slots__ = (
        "cancel",
        "deadline",
        "iterations",
        "max_loop_iterations",
        "max_value_bytes",
        "per_step",
        "timeout",
        "values_limited",
    )

    def __init__(
        self,
        *,
        max_loop_iterations: int | None = None,
        max_value_bytes: int | None = None,
        timeout: float | None = None,
        cancel: CancelToken | None = None,
    ) -> None:
        self.max_loop_iterations = max_loop_iterations
        self.max_value_bytes = machine_memory() if max_value_bytes is None else max_value_bytes
        # A limit the user chose is also held against every value a step returns; the default
        # (the machine's memory) needs no such check: no larger value can have been made.
        self.values_limited = max_value_bytes is not None
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.cancel = cancel
        self.iterations = 0
        # Whether anything must be looked at between steps (a clock or a token).
        self.per_step = timeout is not None or cancel is not None

    def check(self) -> None:
        """Between steps and loop iterations: stop when cancelled or out of time."""
        if self.cancel is not None and self.cancel.is_set():
            raise EvaluationLimitError("cancel", True, "evaluation cancelled (the token is set)")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise EvaluationLimitError(
                "timeout",
                self.timeout,
                f"evaluation limit timeout={self.timeout} s reached",
            )

    def tick(self) -> None:
        """One round of a long loop inside a kernel: stop there when cancelled or out of time."""
        if self.per_step:
            self.check()

    def iteration(self, op: str) -> None:
        self.iterations += 1
        limit = self.max_loop_iterations
        if limit is not None and self.iterations > limit:
            raise EvaluationLimitError(
                "max_loop_iterations",
                limit,
                f"evaluation limit max_loop_iterations={limit} reached: {op} would run "
                f"iteration {self.iterations} (Loop and Scan iterations are summed over the run)",
            )
        if self.per_step:
            self.check()

    def allocation(self, op: str, shape: Iterable[int], dtype: Any) -> None:
        dims = [int(d) for d in shape]
        count = 1
        for dim in dims:
            count *= max(dim, 0)
        size = count * np.dtype(dtype).itemsize
        if size > self.max_value_bytes:
            raise EvaluationLimitError(
                "max_value_bytes",
                self.max_value_bytes,
                f"evaluation limit max_value_bytes={self.max_value_bytes} reached: {op} would "
                f"allocate a value of shape {dims} and type {np.dtype(dtype)} ({size} bytes); "
                f"nothing was allocated",
            )

    def produced(self, op: str, value: Any) -> None:
        """After a step: refuse a value over a user's ``max_value_bytes`` (sequences summed)."""
        size = _value_bytes(value)
        if size > self.max_value_bytes:
            raise EvaluationLimitError(
                "max_value_bytes",
                self.max_value_bytes,
                f"evaluation limit max_value_bytes={self.max_value_bytes} reached: {op} "
                f"produced a value of {size} bytes",
            )


def _value_bytes(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (list, tuple)):
        return sum(_value_bytes(item) for item in value)
    if isinstance(value, dict):
        return sum(_value_bytes(np.asarray(v)) for v in value.values()) + len(value) * 8
    return 0


_current: ContextVar[RunGuard | None] = ContextVar("onnxcraft_run_guard", default=None)
_default: list[RunGuard] = []  # the guard outside runs, made on first use


def current_guard() -> RunGuard:
    guard = _current.get()
    if guard is not None:
        return guard
    if not _default:
        _default.append(RunGuard())
    return _default[0]


@contextmanager
def guarded(guard: RunGuard) -> Iterator[RunGuard]:
    """Make ``guard`` the current one while a run lasts (per thread and task)."""
    token = _current.set(guard)
    try:
        yield guard
    finally:
        _current.reset(token)


def count_iteration(op: str) -> None:
    """One more iteration of a looping kernel (Loop, Scan): counted against the run's limit."""
    current_guard().iteration(op)


def check_allocation(op: str, shape: Iterable[int], dtype: Any) -> None:
    """Refuse, before allocating it, an output of ``op`` larger than one value may be."""
    current_guard().allocation(op, shape, dtype)


def ticker() -> Callable[[], None]:
    """What a kernel with a long loop of its own calls once per round (time step, class ...)."""
    return current_guard().tick


def check_broadcast(op: str, *arrays: np.ndarray, dtype: Any = None) -> None:
    """Refuse, before computing it, an elementwise result that broadcasting makes too large.

    Inputs of one shape cannot grow; only shapes that differ are broadcast and measured. A
    mismatch is left to the kernel, which reports it in the operator's own words.
    """
    first = arrays[0].shape
    if all(a.shape == first for a in arrays):
        return
    # Each output axis is the largest of the inputs', so the output holds at most the
    # product of the inputs' sizes: when even that fits (a bias added to a batch), no more
    # work is needed. 16 bytes is the widest element.
    bound = 16
    for array in arrays:
        bound *= max(array.size, 1)
    if bound <= current_guard().max_value_bytes:
        return
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return
    check_allocation(op, shape, np.result_type(*arrays) if dtype is None else dtype)


def check_matmul(op: str, a: np.ndarray, b: np.ndarray, dtype: Any = None) -> None:
    """Refuse, before multiplying, a (batched) matrix product too large to hold."""
    if a.ndim == 0 or b.ndim == 0:
        return
    rows = a.shape[-2:-1] if a.ndim >= 2 else ()
    columns = b.shape[-1:] if b.ndim >= 2 else ()
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        return
    result_type = np.result_type(a, b) if dtype is None else dtype
    check_allocation(op, (*batch, *rows, *columns), result_type)
