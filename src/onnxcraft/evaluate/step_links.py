"""What every rewrite of the plan needs: which step alone reads a value, the steps with the
rewritten ones swapped in, and the steps of one operator's kernel wrapped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Set
from dataclasses import replace
from typing import Any

from onnxcraft.ops.kernel_api import Step

__all__ = ["sole_readers", "with_kernels_wrapped", "with_replacements"]


def sole_readers(steps: list[Step], readers: Counter[str], kept: set[str]) -> dict[str, int]:
    """The index of the one step reading each value that exactly one step reads, among its
    inputs, and that the graph does not output (``kept``). ``readers`` counts every read,
    subgraphs' included, so a value a subgraph also reads is not here: a rewrite may take
    such a value over only when nothing else will look at it."""
    return {
        name: index
        for index, step in enumerate(steps)
        for name in step.inputs
        if name and readers[name] == 1 and name not in kept
    }


def with_replacements(
    steps: list[Step], replaced: dict[int, Step], dropped: Set[int] = frozenset()
) -> list[Step]:
    """``steps`` with the steps at the keys of ``replaced`` swapped in and those at
    ``dropped`` left out (``steps`` itself when a rewrite found nothing)."""
    if not replaced and not dropped:
        return steps
    return [replaced.get(i, step) for i, step in enumerate(steps) if i not in dropped]


def with_kernels_wrapped(
    steps: list[Step],
    op_type: str,
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]],
    is_library_step: Callable[[Step, str], bool],
) -> list[Step]:
    """``steps`` with the function of each step running onnxcraft's own kernel for
    ``op_type`` (without a kernel context) replaced by ``wrap(kernel)``."""
    replaced = {
        index: replace(step, fn=wrap(step.fn))
        for index, step in enumerate(steps)
        if is_library_step(step, op_type) and step.context is None and step.fn
    }
    return with_replacements(steps, replaced)
