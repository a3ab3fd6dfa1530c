"""Kernels of the signal family: DFT, STFT, the cosine-sum windows and MelWeightMatrix.

A complex tensor is carried as a trailing dimension of 2 (real, imaginary); a real one has a
trailing dimension of 1. The transforms decode their input (bfloat16 included) to float64, run
numpy's FFT and return the input's element type. The windows repeat their function bodies in
the standard (float32 arithmetic, then a Cast to ``output_datatype``), only without the graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.numerics import to_float32
from onnxcraft.ops.cast.kernels import cast_array
from onnxcraft.ops.kernel_api import Kernel, KernelRegistry
from onnxcraft.ops.kernel_common import fail, is_lowp
from onnxcraft.ops.signal.shapes import irfft_length, one_sided_bins, signal_axis
from onnxcraft.ops.versions import versions

__all__ = [
    "OUTPUT_TYPES",
    "blackman_window",
    "dft_17",
    "dft_20",
    "hamming_window",
    "hann_window",
    "mel_weight_matrix",
    "register",
    "stft",
]

# The element types a window or a MelWeightMatrix may be produced in (T2 / T3 of the specs).
OUTPUT_TYPES: tuple[ElementType, ...] = (
    ElementType.UINT8,
    ElementType.UINT16,
    ElementType.UINT32,
    ElementType.UINT64,
    ElementType.INT8,
    ElementType.INT16,
    ElementType.INT32,
    ElementType.INT64,
    ElementType.FLOAT16,
    ElementType.FLOAT,
    ElementType.DOUBLE,
    ElementType.BFLOAT16,
)

# -- scalar inputs and element types ------------------------------------------------------------


def _scalar_int(op: str, arg: str, value: Any) -> int:
    """The integer held by a scalar (or one-element) input, or a clear failure."""
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        fail(op, f"{arg} must be an integer scalar, got a tensor of type {array.dtype}")
    if array.size != 1 or array.ndim > 1:
        fail(op, f"{arg} must be a scalar, got a tensor of shape {list(array.shape)}")
    return int(array.reshape(-1)[0])


def _scalar_float(op: str, arg: str, value: Any) -> float:
    array = np.asarray(value)
    if is_lowp(array):
        array = _decode(op, arg, array)
    if array.dtype.kind not in "fiu":
        fail(op, f"{arg} must be a numeric scalar, got a tensor of type {array.dtype}")
    if array.size != 1 or array.ndim > 1:
        fail(op, f"{arg} must be a scalar, got a tensor of shape {list(array.shape)}")
    return float(array.reshape(-1)[0])


def _decode(op: str, arg: str, x: Any) -> np.ndarray:
    """float64 values of a float tensor of any element type (bfloat16 included)."""
    array = np.asarray(x)
    if is_lowp(array):
        return to_float32(array).astype(np.float64)
    if array.dtype.kind != "f":
        fail(op, f"{arg} must be a float tensor, got a tensor of type {array.dtype}")
    return array.astype(np.float64)


def _output_type(op: str, output_datatype: int) -> ElementType:
    try:
        elem = ElementType(int(output_datatype))
    except ValueError:
        elem = ElementType.UNDEFINED
    if elem not in OUTPUT_TYPES:
        allowed = ", ".join(t.name.lower() for t in OUTPUT_TYPES)
        fail(op, f"output_datatype={output_datatype} is not one of the allowed types ({allowed})")
    return elem


# -- complex tensors as [..., 1 | 2] -------------------------------------------------------------


def _parts(op: str, arg: str, x: np.ndarray) -> int:
    """1 for a real tensor, 2 for a complex one: the size of the last dimension."""
    if x.ndim < 2:
        fail(
            op,
            f"{arg} must have rank >= 2 (signal dimensions, then 1 or 2 for real or complex), "
            f"got shape {list(x.shape)}",
        )
    parts = int(x.shape[-1])
    if parts not in (1, 2):
        fail(
            op,
            f"the last dimension of {arg} must be 1 (real) or 2 (real, imaginary), "
            f"got shape {list(x.shape)}",
        )
    return parts


def _complex_values(op: str, arg: str, x: np.ndarray) -> np.ndarray:
    """The values of ``x`` without its last dimension: float64 if real, complex128 if not."""
    values = _decode(op, arg, x)
    if values.shape[-1] == 1:
        return values[..., 0]
    return values[..., 0] + 1j * values[..., 1]


def _pack(values: np.ndarray, like: np.ndarray, *, real: bool) -> np.ndarray:
    """``values`` as a [..., 1] (real) or [..., 2] (complex) tensor of ``like``'s element type."""
    packed = values[..., np.newaxis] if real else np.stack([values.real, values.imag], axis=-1)
    return cast_array(packed, element_type_of(like.dtype))


# -- DFT -----------------------------------------------------------------------------------------


def _signal_axis(axis: int, rank: int) -> int:
    """``axis`` in [0, rank - 2]; the last dimension holds the parts and is no signal axis."""
    index = signal_axis(axis, rank)
    if index is not None:
        return index
    fail(
        "DFT",
        f"axis={axis} is out of range for an input of rank {rank}: expected {-rank} <= axis "
        f"<= -2 or 0 <= axis <= {rank - 2} (the last dimension holds the real and imaginary "
        f"parts)",
    )


def _dft_length(dft_length: Any, signal_length: int, *, irfft: bool) -> int:
    if dft_length is not None:
        length = _scalar_int("DFT", "dft_length", dft_length)
        if length < 1:
            fail("DFT", f"dft_length must be >= 1, got {length}")
        return length
    # The inverse of a one-sided spectrum of m bins is a signal of 2 * (m - 1) samples.
    length = irfft_length(signal_length) if irfft else signal_length
    if length < 1:
        what = "inverse one-sided input" if irfft else "input"
        fail(
            "DFT",
            f"the {what} has {signal_length} values along the axis, which gives a DFT length of "
            f"{length}: pass dft_length (>= 1)",
        )
    return length


def _dft(x: Any, dft_length: Any, axis: int, inverse: int, onesided: int) -> np.ndarray:
    x = np.asarray(x)
    parts = _parts("DFT", "input", x)
    axis = _signal_axis(int(axis), x.ndim)
    irfft = bool(inverse) and bool(onesided)
    if onesided and not inverse and parts == 2:
        fail(
            "DFT",
            "onesided=1 with inverse=0 needs a real input (last dimension 1), got a complex "
            f"input of shape {list(x.shape)}: set onesided=0 to transform a complex signal",
        )
    if irfft and parts == 1:
        fail(
            "DFT",
            "onesided=1 with inverse=1 needs a complex one-sided spectrum (last dimension 2), "
            f"got a real input of shape {list(x.shape)}",
        )
    n = _dft_length(dft_length, int(x.shape[axis]), irfft=irfft)
    values = _complex_values("DFT", "input", x)
    if irfft:
        # numpy's irfft reads the first n // 2 + 1 bins (zero-padding fewer), as the standard's
        # dft_length asks, and returns the real signal of the Hermitian-extended spectrum.
        return _pack(np.fft.irfft(values, n=n, axis=axis), x, real=True)
    if inverse:
        return _pack(np.fft.ifft(values, n=n, axis=axis), x, real=False)
    if onesided:
        return _pack(np.fft.rfft(values, n=n, axis=axis), x, real=False)
    return _pack(np.fft.fft(values, n=n, axis=axis), x, real=False)


def dft_17(
    input: Any, dft_length: Any = None, *, axis: int = 1, inverse: int = 0, onesided: int = 0
) -> np.ndarray:
    """DFT-17: the axis is an attribute (default 1)."""
    return _dft(input, dft_length, axis, inverse, onesided)


def dft_20(
    input: Any, dft_length: Any = None, axis: Any = None, *, inverse: int = 0, onesided: int = 0
) -> np.ndarray:
    """DFT-20: the axis is an optional scalar input (default -2, the last signal axis)."""
    axis_value = -2 if axis is None else _scalar_int("DFT", "axis", axis)
    return _dft(input, dft_length, axis_value, inverse, onesided)


# -- STFT ----------------------------------------------------------------------------------------


def _frame_length(window: np.ndarray | None, frame_length: Any, signal_length: int) -> int:
    """The frame length: given, else the window's length, else the whole signal."""
    window_length = None if window is None else int(window.shape[0])
    if frame_length is not None:
        length = _scalar_int("STFT", "frame_length", frame_length)
        if window_length is not None and window_length != length:
            fail(
                "STFT",
                f"the window has {window_length} values but frame_length={length}: when both "
                f"are given they must be equal",
            )
    else:
        length = signal_length if window_length is None else window_length
    if length < 1:
        fail(
            "STFT",
            f"the frame length (frame_length, or the window's size) must be >= 1, got {length}",
        )
    if length > signal_length:
        fail(
            "STFT",
            f"frame_length={length} is larger than the signal length {signal_length}: no frame "
            f"fits in the signal",
        )
    return length


def stft(
    signal: Any, frame_step: Any, window: Any = None, frame_length: Any = None, *, onesided: int = 1
) -> np.ndarray:
    """STFT-17: [batch, length, 1|2] -> [batch, frames, bins, 2]."""
    signal = np.asarray(signal)
    if signal.ndim != 3:
        fail(
            "STFT",
            f"signal must have rank 3 ([batch, signal_length, 1 or 2]), got shape "
            f"{list(signal.shape)}",
        )
    parts = _parts("STFT", "signal", signal)
    if onesided and parts == 2:
        fail(
            "STFT",
            "onesided=1 needs a real signal (last dimension 1), got a complex signal of shape "
            f"{list(signal.shape)}: set onesided=0 to transform a complex signal",
        )
    step = _scalar_int("STFT", "frame_step", frame_step)
    if step < 1:
        fail("STFT", f"frame_step must be >= 1, got {step}")
    weights = None
    if window is not None:
        weights = _decode("STFT", "window", window)
        if weights.ndim != 1:
            fail("STFT", f"window must be 1-D, got shape {list(weights.shape)}")
    length = _frame_length(weights, frame_length, int(signal.shape[1]))
    values = _complex_values("STFT", "signal", signal)
    # [batch, length] -> [batch, frames, length]: every frame_step-th window of the signal.
    frames = np.lib.stride_tricks.sliding_window_view(values, length, axis=1)[:, ::step]
    if weights is not None:
        frames = frames * weights
    spectrum = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    return _pack(spectrum, signal, real=False)


# -- windows -------------------------------------------------------------------------------------

# w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), with the float32 constants of the bodies.
_TAU = np.float32(2 * np.pi)
_HANN = (np.float32(0.5), np.float32(0.5), np.float32(0.0))
_HAMMING = (np.float32(25 / 46), np.float32(21 / 46), np.float32(0.0))
_BLACKMAN = (np.float32(0.42), np.float32(0.5), np.float32(0.08))


def _cosine_sum_window(
    op: str, coefficients: tuple[np.float32, ...], size: Any, output_datatype: int, periodic: int
) -> np.ndarray:
    elem = _output_type(op, output_datatype)
    count = _scalar_int(op, "size", size)
    if count < 0:
        fail(op, f"size must be >= 0, got {count}")
    if periodic not in (0, 1):
        fail(op, f"periodic must be 0 or 1, got {periodic}")
    a0, a1, a2 = coefficients
    # A periodic window divides the circle in `size` steps, a symmetric one in `size - 1`. As in
    # the body, a symmetric window of size 1 divides by zero and is NaN.
    period = np.float32(count if periodic else count - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        angles = np.arange(count, dtype=np.float32) * (_TAU / period)
        values = (a0 - a1 * np.cos(angles)) + a2 * np.cos(angles * np.float32(2))
    return cast_array(values.astype(np.float32), elem)


def hann_window(size: Any, *, output_datatype: int = 1, periodic: int = 1) -> np.ndarray:
    return _cosine_sum_window("HannWindow", _HANN, size, output_datatype, periodic)


def hamming_window(size: Any, *, output_datatype: int = 1, periodic: int = 1) -> np.ndarray:
    return _cosine_sum_window("HammingWindow", _HAMMING, size, output_datatype, periodic)


def blackman_window(size: Any, *, output_datatype: int = 1, periodic: int = 1) -> np.ndarray:
    return _cosine_sum_window("BlackmanWindow", _BLACKMAN, size, output_datatype, periodic)


# -- MelWeightMatrix -----------------------------------------------------------------------------


# The mel scale through log1p and expm1, as the standard's reference writes it: the round
# trip hz -> mel -> hz is then exact where corners sit on bin boundaries (log10 and 10**
# missed 1699.5 by an ulp, moving a corner one bin).
_LN10 = float(np.log(10.0))


def _hz_to_mel(hz: np.ndarray | float) -> Any:
    return 2595.0 * np.log1p(np.asarray(hz, dtype=np.float64) / 700.0) / _LN10


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    return np.asarray(700.0 * np.expm1(mel / 2595.0 * _LN10))


def _mel_edges(bands: int, dft_length: int, rate: int, lower: float, upper: float) -> np.ndarray:
    """The spectrogram bins of the bands + 2 triangle corners, evenly spaced in mel.

    The mel range is cut in bands + 2 equal steps from the lower edge; a corner at frequency f
    falls on bin floor((dft_length + 1) * f / sample_rate).
    """
    low, high = _hz_to_mel(lower), _hz_to_mel(upper)
    step = (high - low) / (bands + 2)
    hz = _mel_to_hz(low + step * np.arange(bands + 2, dtype=np.float64))
    # Every corner lies within the edges; the round trip through the mel scale can miss the
    # lower edge by an ulp, which moves a corner sitting on a bin boundary down one bin
    # (lower == upper == 250 Hz at 1000 Hz and dft_length 3: bin 1, not 0).
    hz = np.clip(hz, lower, upper)
    return np.asarray(np.floor((dft_length + 1) * hz / rate), np.int64)


def _check_mel_range(lower: float, upper: float) -> None:
    if not 0 <= lower <= upper:
        fail(
            "MelWeightMatrix",
            f"expected 0 <= lower_edge_hertz <= upper_edge_hertz, got lower_edge_hertz={lower} "
            f"and upper_edge_hertz={upper}",
        )


def _check_mel_fits(edges: np.ndarray, dft_length: int, rate: int, upper: float) -> None:
    """Every band must lie inside the spectrogram: its centre and the rows before its right
    corner are weighted."""
    if len(edges) < 3:
        return  # no band
    bins = one_sided_bins(dft_length)
    last_row = int(max(edges[-2], edges[-1] - 1))
    if last_row >= bins:
        fail(
            "MelWeightMatrix",
            f"upper_edge_hertz={upper} puts the highest mel band on spectrogram bin {last_row}, "
            f"beyond the last of the {bins} bins of a DFT of length {dft_length} at "
            f"sample_rate={rate}: lower upper_edge_hertz (at most sample_rate / 2)",
        )


def _triangles(edges: np.ndarray, bins: int) -> np.ndarray:
    """[bins, bands] weights: each band rises from its left corner to 1 at its centre and falls
    to 0 at its right corner."""
    left, centre, right = edges[:-2], edges[1:-1], edges[2:]
    row = np.arange(bins, dtype=np.int64)[:, np.newaxis]
    rising = (row - left) / np.maximum(centre - left, 1)
    falling = (right - row) / np.maximum(right - centre, 1)
    weights = np.where(row < centre, rising, falling)
    inside = (row >= left) & (row < right)
    return np.where(row == centre, 1.0, np.where(inside, weights, 0.0))


def mel_weight_matrix(
    num_mel_bins: Any,
    dft_length: Any,
    sample_rate: Any,
    lower_edge_hertz: Any,
    upper_edge_hertz: Any,
    *,
    output_datatype: int = 1,
) -> np.ndarray:
    """MelWeightMatrix-17: [dft_length // 2 + 1, num_mel_bins] triangular mel filters."""
    op = "MelWeightMatrix"
    elem = _output_type(op, output_datatype)
    bands = _scalar_int(op, "num_mel_bins", num_mel_bins)
    length = _scalar_int(op, "dft_length", dft_length)
    rate = _scalar_int(op, "sample_rate", sample_rate)
    lower = _scalar_float(op, "lower_edge_hertz", lower_edge_hertz)
    upper = _scalar_float(op, "upper_edge_hertz", upper_edge_hertz)
    if bands < 0:
        fail(op, f"num_mel_bins must be >= 0, got {bands}")
    if length < 1:
        fail(op, f"dft_length must be >= 1, got {length}")
    if rate < 1:
        fail(op, f"sample_rate must be >= 1, got {rate}")
    _check_mel_range(lower, upper)
    edges = _mel_edges(bands, length, rate, lower, upper)
    _check_mel_fits(edges, length, rate, upper)
    weights = _triangles(edges, one_sided_bins(length))
    return cast_array(weights, elem)


# -- registration --------------------------------------------------------------------------------


def register(kernels: KernelRegistry) -> None:
    dft: dict[int, Kernel] = {17: dft_17, 20: dft_20}
    for since in versions("DFT"):
        kernels.add("DFT", dft[since], since=since)
    kernels.add("STFT", stft, since=versions("STFT"))
    kernels.add("HannWindow", hann_window, since=versions("HannWindow"))
    kernels.add("HammingWindow", hamming_window, since=versions("HammingWindow"))
    kernels.add("BlackmanWindow", blackman_window, since=versions("BlackmanWindow"))
    kernels.add("MelWeightMatrix", mel_weight_matrix, since=versions("MelWeightMatrix"))
