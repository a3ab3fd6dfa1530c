"""Rules of the signal family: DFT, STFT, the cosine-sum windows and MelWeightMatrix.

Output lengths depend on scalar inputs (dft_length, axis, frame_step, frame_length, size,
num_mel_bins); each is used when it is a known constant and leaves its dim unknown otherwise.
Batch and untouched signal dims (symbols included) carry over from the input.
"""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import InferenceContext, Rule, RuleRegistry
from onnxcraft.ops.signal.kernels import OUTPUT_TYPES
from onnxcraft.ops.signal.shapes import irfft_length, one_sided_bins, signal_axis
from onnxcraft.ops.windows import window_count
from onnxcraft.specs import versions
from onnxcraft.types import Dim, Tensor, ValueType

__all__ = ["register"]


# -- shared checks -------------------------------------------------------------------------------


def _scalar(ctx: InferenceContext, index: int, arg: str) -> Dim:
    """The value of scalar input ``index``: an int, a symbol (a size taken from a shape) or
    None when unknown."""
    shape = ctx.shape(index)
    if shape is not None and (len(shape) > 1 or any(isinstance(d, int) and d != 1 for d in shape)):
        raise ctx.fail(f"{arg} must be a scalar, got a tensor of shape {list(shape)}")
    entries = ctx.dims_value(index)
    return entries[0] if entries is not None and len(entries) == 1 else None


def _known(value: Dim) -> int | None:
    return value if isinstance(value, int) else None


def _at_least(ctx: InferenceContext, value: int | None, minimum: int, arg: str) -> None:
    if value is not None and value < minimum:
        raise ctx.fail(f"{arg} must be >= {minimum}, got {value}")


def _parts(ctx: InferenceContext, shape: tuple[Dim, ...], arg: str) -> Dim:
    """The last dim (1 real, 2 complex) after checking what is known of it."""
    if len(shape) < 2:
        raise ctx.fail(
            f"{arg} must have rank >= 2 (signal dimensions, then 1 or 2 for real or complex), "
            f"got shape {list(shape)}"
        )
    parts = shape[-1]
    if isinstance(parts, int) and parts not in (1, 2):
        raise ctx.fail(
            f"the last dimension of {arg} must be 1 (real) or 2 (real, imaginary), "
            f"got shape {list(shape)}"
        )
    return parts


def _check_onesided(ctx: InferenceContext, parts: Dim, *, onesided: bool, inverse: bool) -> None:
    if onesided and not inverse and parts == 2:
        raise ctx.fail(
            "onesided=1 with inverse=0 needs a real input (last dimension 1), got a complex "
            "input (last dimension 2): set onesided=0 to transform a complex signal"
        )
    if onesided and inverse and parts == 1:
        raise ctx.fail(
            "onesided=1 with inverse=1 needs a complex one-sided spectrum (last dimension 2), "
            "got a real input (last dimension 1)"
        )


def _half_spectrum(length: Dim) -> Dim:
    """The number of bins of a one-sided spectrum of a signal of ``length`` samples."""
    return one_sided_bins(length) if isinstance(length, int) else None


def _output_type(ctx: InferenceContext) -> ElementType:
    value = ctx.attr("output_datatype", int(ElementType.FLOAT))
    try:
        elem = ElementType(int(value))
    except ValueError:
        elem = ElementType.UNDEFINED
    if elem not in OUTPUT_TYPES:
        allowed = ", ".join(t.name.lower() for t in OUTPUT_TYPES)
        raise ctx.fail(f"output_datatype={value} is not one of the allowed types ({allowed})")
    return elem


# -- DFT -----------------------------------------------------------------------------------------


def _signal_axis(ctx: InferenceContext, axis: int, rank: int) -> int:
    index = signal_axis(axis, rank)
    if index is not None:
        return index
    raise ctx.fail(
        f"axis={axis} is out of range for an input of rank {rank}: expected {-rank} <= axis "
        f"<= -2 or 0 <= axis <= {rank - 2} (the last dimension holds the real and imaginary "
        f"parts)"
    )


def _transformed_length(
    ctx: InferenceContext, signal_length: Dim, *, irfft: bool, onesided: bool
) -> Dim:
    """The output length along the transformed axis."""
    if ctx.has_input(1):
        length = _scalar(ctx, 1, "dft_length")
        _at_least(ctx, _known(length), 1, "dft_length")
    elif irfft:
        # A one-sided spectrum of m bins is the transform of 2 * (m - 1) samples.
        length = irfft_length(signal_length) if isinstance(signal_length, int) else None
    else:
        length = signal_length
    if not ctx.has_input(1) and isinstance(length, int) and length < 1:
        raise ctx.fail(
            f"the input has {signal_length} values along the axis, which gives a DFT length "
            f"of {length}: pass dft_length (>= 1)"
        )
    return _half_spectrum(length) if onesided and not irfft else length


def _dft(ctx: InferenceContext, axis: int | None) -> list[ValueType | None]:
    """``axis`` is the requested axis, None when it is an input of unknown value."""
    elem, shape = ctx.elem(0), ctx.shape(0)
    inverse, onesided = bool(ctx.attr("inverse", 0)), bool(ctx.attr("onesided", 0))
    irfft = inverse and onesided
    if shape is None:
        return [Tensor(elem, None)]
    parts = _parts(ctx, shape, "input")
    _check_onesided(ctx, parts, onesided=onesided, inverse=inverse)
    signal = list(shape[:-1])
    if axis is None:
        # The transformed axis is unknown: only a transform that keeps every length is exact.
        if ctx.has_input(1) or onesided:
            signal = [None] * len(signal)
    else:
        index = _signal_axis(ctx, axis, len(shape))
        signal[index] = _transformed_length(ctx, shape[index], irfft=irfft, onesided=onesided)
    return [Tensor(elem, (*signal, 1 if irfft else 2))]


def _dft_17(ctx: InferenceContext) -> list[ValueType | None]:
    return _dft(ctx, int(ctx.attr("axis", 1)))


def _dft_20(ctx: InferenceContext) -> list[ValueType | None]:
    axis = _known(_scalar(ctx, 2, "axis")) if ctx.has_input(2) else -2
    return _dft(ctx, axis)


# -- STFT ----------------------------------------------------------------------------------------


def _window_length(ctx: InferenceContext) -> Dim:
    shape = ctx.shape(2)
    if shape is None:
        return None
    if len(shape) != 1:
        raise ctx.fail(f"window must be 1-D, got shape {list(shape)}")
    return shape[0]


def _frame_length(ctx: InferenceContext, signal_length: Dim) -> Dim:
    """The frame length: given, else the window's length, else the whole signal."""
    window = _window_length(ctx) if ctx.has_input(2) else None
    if ctx.has_input(3):
        length = _scalar(ctx, 3, "frame_length")
        if isinstance(length, int) and isinstance(window, int) and length != window:
            raise ctx.fail(
                f"the window has {window} values but frame_length={length}: when both are "
                f"given they must be equal"
            )
        if length is None:
            length = window
    else:
        length = window if ctx.has_input(2) else signal_length
    _at_least(ctx, _known(length), 1, "frame_length")
    if isinstance(length, int) and isinstance(signal_length, int) and length > signal_length:
        raise ctx.fail(
            f"frame_length={length} is larger than the signal length {signal_length}: no frame "
            f"fits in the signal"
        )
    return length


def _frame_count(signal_length: Dim, frame_length: Dim, step: int | None) -> Dim:
    if frame_length is not None and frame_length == signal_length:
        return 1  # one frame covers the whole signal, whatever the step
    if isinstance(signal_length, int) and isinstance(frame_length, int) and step is not None:
        return window_count(signal_length, 0, 0, frame_length, step)
    return None


def _stft(ctx: InferenceContext) -> list[ValueType | None]:
    elem, shape = ctx.elem(0), ctx.shape(0)
    onesided = bool(ctx.attr("onesided", 1))
    step = _known(_scalar(ctx, 1, "frame_step"))
    _at_least(ctx, step, 1, "frame_step")
    signal: tuple[Dim, ...] = shape if shape is not None else (None, None, None)
    if len(signal) != 3:
        raise ctx.fail(
            f"signal must have rank 3 ([batch, signal_length, 1 or 2]), got shape {list(signal)}"
        )
    parts = _parts(ctx, signal, "signal")
    if onesided and parts == 2:
        raise ctx.fail(
            "onesided=1 needs a real signal (last dimension 1), got a complex signal (last "
            "dimension 2): set onesided=0 to transform a complex signal"
        )
    batch, signal_length = signal[0], signal[1]
    length = _frame_length(ctx, signal_length)
    frames = _frame_count(signal_length, length, step)
    bins = _half_spectrum(length) if onesided else length
    return [Tensor(elem, (batch, frames, bins, 2))]


# -- windows and MelWeightMatrix -----------------------------------------------------------------


def _window(ctx: InferenceContext) -> list[ValueType | None]:
    elem = _output_type(ctx)
    periodic = ctx.attr("periodic", 1)
    if periodic not in (0, 1):
        raise ctx.fail(f"periodic must be 0 or 1, got {periodic}")
    size = _scalar(ctx, 0, "size")
    _at_least(ctx, _known(size), 0, "size")
    return [Tensor(elem, (size,))]


def _mel_weight_matrix(ctx: InferenceContext) -> list[ValueType | None]:
    elem = _output_type(ctx)
    bands = _scalar(ctx, 0, "num_mel_bins")
    length = _scalar(ctx, 1, "dft_length")
    _at_least(ctx, _known(bands), 0, "num_mel_bins")
    _at_least(ctx, _known(length), 1, "dft_length")
    _at_least(ctx, _known(_scalar(ctx, 2, "sample_rate")), 1, "sample_rate")
    return [Tensor(elem, (_half_spectrum(length), bands))]


def register(rules: RuleRegistry) -> None:
    dft: dict[int, Rule] = {17: _dft_17, 20: _dft_20}
    for since in versions("DFT"):
        rules.add("DFT", dft[since], since=since)
    rules.add("STFT", _stft, since=versions("STFT"))
    for name in ("HannWindow", "HammingWindow", "BlackmanWindow"):
        rules.add(name, _window, since=versions(name))
    rules.add("MelWeightMatrix", _mel_weight_matrix, since=versions("MelWeightMatrix"))
