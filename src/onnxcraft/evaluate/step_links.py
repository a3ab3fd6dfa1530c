"""Which step alone reads a value: the question every rewrite of the plan starts from."""

from __future__ import annotations

from collections import Counter

from onnxcraft.ops.kernel_api import Step

__all__ = ["sole_readers"]


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
