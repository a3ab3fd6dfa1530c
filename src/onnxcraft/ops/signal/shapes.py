"""Output lengths of the signal family, computed alike by the rules and the kernels.

Integer arithmetic on known values: the rules call it where the lengths are known (symbols and
unknown lengths stay theirs), the kernels once per node. STFT's frame count is a sliding-window
count (:func:`onnxcraft.ops.windows.window_count`).
"""

from __future__ import annotations

__all__ = ["irfft_length", "one_sided_bins", "signal_axis"]


def signal_axis(axis: int, rank: int) -> int | None:
    """DFT's ``axis`` as an index in ``[0, rank - 2]``, or None when out of range.

    The last dimension holds the real and imaginary parts, so it is no signal axis: ``axis``
    may be ``-rank .. -2`` or ``0 .. rank - 2``.
    """
    if -rank <= axis <= -2:
        return axis + rank
    if 0 <= axis <= rank - 2:
        return axis
    return None


def one_sided_bins(length: int) -> int:
    """The bins of a one-sided spectrum of a real signal of ``length`` samples."""
    return length // 2 + 1


def irfft_length(bins: int) -> int:
    """The real signal a one-sided spectrum of ``bins`` bins transforms back to, by default."""
    return 2 * (bins - 1)
