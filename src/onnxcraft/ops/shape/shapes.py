"""Shape arithmetic that the shape family's rules and kernels share.

Integer formulas on known sizes and bounds: the kernels call them once per node, the rules
where the dims are known (their handling of symbolic and unknown dims stays in the rules).
"""

from __future__ import annotations

__all__ = ["ceil_split_sizes", "slice_bounds", "slice_indices"]


def slice_bounds(dim: int, start: int, end: int, step: int) -> tuple[int, int]:
    """Slice's start and end along an axis of ``dim`` elements, after ONNX's adjustment.

    A negative bound counts from the end (``+ dim``); then bounds saturate to ``[0, dim]``
    going forward and to ``[-1, dim - 1]`` going backward (``step < 0``). Unlike Python, a
    backward start before the first element means the first element, and an end of -1 means
    "through the first element", not "the last".
    """
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if step > 0:
        return min(max(start, 0), dim), min(max(end, 0), dim)
    return min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)


def slice_indices(dim: int, start: int, end: int, step: int) -> range:
    """The indices Slice takes along an axis of ``dim`` elements (its length is the output's)."""
    first, stop = slice_bounds(dim, start, end, step)
    return range(first, stop, step)


def ceil_split_sizes(dim: int, parts: int) -> list[int] | None:
    """Split's sizes for ``num_outputs`` parts (opset 18): ``ceil(dim / parts)`` each, the last
    part what is left; None when nothing is left for it (5 into 4 would need 2+2+2 and -1), or
    when ``parts`` is not positive."""
    if parts < 1:
        return None
    chunk = -(-dim // parts)
    last = dim - chunk * (parts - 1)
    return None if last < 0 else [chunk] * (parts - 1) + [last]
