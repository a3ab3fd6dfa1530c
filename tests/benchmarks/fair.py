"""What every benchmark here does to compare libraries fairly.

- **The same threads for everyone.** :func:`pin_threads` holds numpy's BLAS (and any OpenMP
  pool) to ``threads`` through threadpoolctl, and :func:`ort_session` gives onnxruntime the
  same count; :func:`describe_machine` prints what was set, so a table carries its settings.
- **Warm-up, then alternation.** :func:`race` runs each contender once untimed (imports,
  caches, first allocations), then runs them in turn, round after round, the order rotating
  each round, so that a slow moment of the machine falls on everyone alike.
- **Median and best of at least five.** :class:`Timing` keeps every run; tables print both.

Scripts import this module as ``fair`` (their folder is first on ``sys.path``).
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "MIN_REPEAT",
    "Timing",
    "describe_machine",
    "format_ratio",
    "ms",
    "ort_session",
    "pin_threads",
    "race",
    "same_outputs",
]

MIN_REPEAT = 5  # fewer runs than this and a median means little

_held: list[Any] = []  # the threadpoolctl limit in force, kept alive for the process


def pin_threads(threads: int = 1) -> str:
    """Hold numpy's BLAS and OpenMP pools to ``threads``; return what was set, for the header.

    Environment variables cover libraries loaded later (onnxruntime reads its own option);
    threadpoolctl changes the pools numpy has already loaded.
    """
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(threads)
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return (
            f"threads={threads} (environment only: install threadpoolctl, the bench extra, "
            f"to pin numpy's BLAS already loaded)"
        )
    _held.append(threadpool_limits(limits=threads))
    pools = ", ".join(
        f"{pool['internal_api']} {pool.get('architecture', '')} {pool['num_threads']} thread(s)"
        for pool in threadpool_info()
    )
    # Machine-wide settings that pick OpenBLAS's kernels and cache size instead of its own
    # detection: they change the BLAS's speed, so a table says when they were in force.
    forced = [
        f"{k}={os.environ[k]}" for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ
    ]
    if forced:
        pools += f" ({', '.join(forced)} in the environment)"
    return (
        f"threads={threads}: {pools or 'no BLAS pool found'}; onnxruntime sessions get "
        f"intra/inter={threads}"
    )


def ort_session(model: bytes, threads: int = 1) -> Any:
    """An onnxruntime CPU session on ``threads`` threads, run sequentially."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def describe_machine(threads_line: str, libraries: Iterable[str] = ()) -> str:
    """Python, numpy, CPU count, thread settings and the versions of the contenders."""
    versions = []
    for name in ("numpy", "onnxcraft", *libraries):
        try:
            module = __import__(name)
            versions.append(f"{name} {getattr(module, '__version__', '?')}")
        except ImportError:
            versions.append(f"{name} not installed")
    return (
        f"# {platform.python_implementation()} {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} CPUs; {threads_line}\n# " + ", ".join(versions)
    )


@dataclass
class Timing:
    """Seconds of each timed run of one contender."""

    runs: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def best(self) -> float:
        return min(self.runs)


def race(
    contenders: dict[str, Callable[[], Any]], repeat: int = MIN_REPEAT, *, warmup: int = 1
) -> dict[str, Timing]:
    """Warm each contender up, then time them in turn for ``repeat`` rounds (order rotating)."""
    if repeat < MIN_REPEAT:
        print(f"# note: {repeat} runs each, fewer than {MIN_REPEAT}", file=sys.stderr)
    for fn in contenders.values():
        for _ in range(warmup):
            fn()
    names = list(contenders)
    timings = {name: Timing() for name in names}
    for round_ in range(repeat):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            fn = contenders[name]
            start = time.perf_counter()
            fn()
            timings[name].runs.append(time.perf_counter() - start)
    return timings


def cpu_counted(fn: Callable[..., Any], spent: list[float]) -> Callable[..., Any]:
    """``fn``, adding the CPU time of each call to ``spent[0]`` (a step of a plan timed
    inside whole runs)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        result = fn(*args, **kwargs)
        spent[0] += time.process_time() - start
        return result

    return run


def format_ratio(ours: Timing | None, theirs: Timing | None) -> str:
    """``ours / theirs`` of the medians (and of the bests), or ``-`` when one is missing."""
    if ours is None or theirs is None:
        return "-"
    return f"{ours.median / theirs.median:.2f}x ({ours.best / theirs.best:.2f}x)"


def ms(timing: Timing | None) -> str:
    """Median and best in milliseconds."""
    if timing is None:
        return "-"
    return f"{timing.median * 1e3:.1f} ({timing.best * 1e3:.1f})"


def same_outputs(ours: dict[str, np.ndarray], theirs: list[np.ndarray], names: list[str]) -> float:
    """The largest absolute difference between two runs' outputs (for the table's check)."""
    worst = 0.0
    for name, expected in zip(names, theirs):
        got = np.asarray(ours[name], dtype=np.float64)
        worst = max(worst, float(np.max(np.abs(got - np.asarray(expected, np.float64)))))
    return worst
