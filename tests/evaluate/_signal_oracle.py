"""Oracles and hypothesis cases shared by the signal-family tests (kernels and rules).

- ``run_ort`` runs one node on onnxruntime; ``run_window_body`` runs a window operator's
  function body from the standard (``onnx.defs``) as a model-local function on onnxruntime.
- ``reference_dft`` / ``reference_stft`` / ``reference_mel`` re-derive the operators from their
  definitions in the standard with plain numpy (DFT as a matrix of exponentials, no FFT).
- ``dft_cases`` / ``stft_cases`` / ``window_cases`` / ``mel_cases`` draw valid argument sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from hypothesis import strategies as st
from onnx import TensorProto, helper

ORT_ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int64): TensorProto.INT64,
}

# output_datatype values of the windows and MelWeightMatrix (T2 / T3 of the specs).
OUTPUT_TYPES = (
    TensorProto.UINT8,
    TensorProto.UINT16,
    TensorProto.UINT32,
    TensorProto.UINT64,
    TensorProto.INT8,
    TensorProto.INT16,
    TensorProto.INT32,
    TensorProto.INT64,
    TensorProto.FLOAT16,
    TensorProto.FLOAT,
    TensorProto.DOUBLE,
    TensorProto.BFLOAT16,
)
WINDOWS = ("HannWindow", "HammingWindow", "BlackmanWindow")


# -- onnxruntime ---------------------------------------------------------------------------------


def _session(model: onnx.ModelProto) -> ort.InferenceSession:
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def run_ort(op_type: str, inputs: Sequence[np.ndarray | None], *, opset: int, **attrs: Any) -> Any:
    """The single output of ``op_type`` per onnxruntime (None inputs are omitted)."""
    names = [f"in{i}" if value is not None else "" for i, value in enumerate(inputs)]
    while names and not names[-1]:
        names.pop()
    node = helper.make_node(op_type, names, ["out"], **attrs)
    graph_inputs = [
        helper.make_tensor_value_info(name, ORT_ELEM[value.dtype], value.shape)
        for name, value in zip(names, inputs)
        if value is not None
    ]
    graph = helper.make_graph(
        [node], "single", graph_inputs, [helper.make_empty_tensor_value_info("out")]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {name: value for name, value in zip(names, inputs) if name}
    return _session(model).run(None, feeds)[0]


def run_window_body(op_type: str, size: int, *, periodic: int, output_datatype: int) -> Any:
    """The window computed by its function body in the standard, run by onnxruntime."""
    body = onnx.FunctionProto()
    body.CopyFrom(onnx.defs.get_schema(op_type, 17).function_body)
    body.domain = "body"
    node = helper.make_node(
        op_type,
        ["size"],
        ["out"],
        domain="body",
        periodic=periodic,
        output_datatype=output_datatype,
    )
    graph = helper.make_graph(
        [node],
        "body",
        [helper.make_tensor_value_info("size", TensorProto.INT64, [])],
        [helper.make_empty_tensor_value_info("out")],
    )
    model = helper.make_model(
        graph,
        functions=[body],
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("body", 1)],
    )
    return _session(model).run(None, {"size": np.array(size, np.int64)})[0]


# -- numpy re-derivations ------------------------------------------------------------------------


def complex_of(x: np.ndarray) -> np.ndarray:
    """[..., 1|2] float -> [...] complex128."""
    x = x.astype(np.float64)
    return x[..., 0] + (1j * x[..., 1] if x.shape[-1] == 2 else 0)


def _fit(values: np.ndarray, n: int, axis: int) -> np.ndarray:
    """``values`` cut or zero-padded to length ``n`` along ``axis``."""
    values = np.moveaxis(values, axis, -1)[..., :n]
    pad = n - values.shape[-1]
    values = np.concatenate([values, np.zeros((*values.shape[:-1], pad), values.dtype)], -1)
    return np.moveaxis(values, -1, axis)


def _transform(values: np.ndarray, axis: int, sign: float) -> np.ndarray:
    """sum_t values[t] * exp(sign * 2 pi j k t / n) along ``axis``."""
    n = values.shape[axis]
    k = np.arange(n)
    matrix = np.exp(sign * 2j * np.pi * np.outer(k, k) / n)
    moved = np.moveaxis(values.astype(np.complex128), axis, -1)
    return np.moveaxis(moved @ matrix.T, -1, axis)


def reference_dft(
    values: np.ndarray, n: int, axis: int, *, inverse: bool, onesided: bool
) -> np.ndarray:
    """The DFT of the standard, from its formula: complex or (irfft) real result."""
    if inverse and onesided:
        # The one-sided spectrum holds bins 0 .. n // 2; the rest mirror them conjugated.
        half = _fit(values, n // 2 + 1, axis)
        half = np.moveaxis(half, axis, -1)
        full = np.concatenate([half, np.conj(half[..., 1 : (n + 1) // 2][..., ::-1])], -1)
        return np.moveaxis(_transform(full, -1, 1.0).real / n, -1, axis)
    fitted = _fit(values, n, axis)
    if inverse:
        return _transform(fitted, axis, 1.0) / n
    result = _transform(fitted, axis, -1.0)
    if onesided:
        result = np.moveaxis(np.moveaxis(result, axis, -1)[..., : n // 2 + 1], -1, axis)
    return result


def reference_stft(
    signal: np.ndarray, step: int, window: np.ndarray | None, length: int, onesided: bool
) -> np.ndarray:
    """[batch, frames, bins] complex: the DFT of each windowed frame."""
    values = complex_of(signal)
    weights = np.ones(length) if window is None else window.astype(np.float64)
    count = (values.shape[1] - length) // step + 1
    frames = [values[:, f * step : f * step + length] * weights for f in range(count)]
    spectra = [
        reference_dft(frame, length, 1, inverse=False, onesided=onesided) for frame in frames
    ]
    return np.stack(spectra, axis=1)


def reference_mel(bands: int, n: int, rate: int, lower: float, upper: float) -> np.ndarray:
    """The triangular mel filter bank, one band and one bin at a time.

    Corners: the mel range cut in bands + 2 equal steps from mel(lower), mapped back to hertz
    and onto bin floor((n + 1) * f / rate), as the standard's reference and onnxruntime do.
    """
    # log1p and expm1, as the standard's reference writes the mel scale: the round trip
    # hz -> mel -> hz then lands exactly on a corner that sits on a bin boundary (log10 and
    # 10** can miss it by an ulp and move the corner one bin).
    mel_low = 2595 * np.log1p(lower / 700) / np.log(10)
    mel_high = 2595 * np.log1p(upper / 700) / np.log(10)
    corners = []
    for i in range(bands + 2):
        mel = mel_low + i * (mel_high - mel_low) / (bands + 2)
        hz = 700 * np.expm1(mel / 2595 * np.log(10))
        hz = min(max(hz, lower), upper)  # a corner lies within the edges, whatever the rounding
        corners.append(int(np.floor((n + 1) * hz / rate)))
    out = np.zeros((n // 2 + 1, bands))
    for band in range(bands):
        left, centre, right = corners[band : band + 3]
        for row in range(left, right):
            if row < centre:
                out[row, band] = (row - left) / (centre - left)
            else:
                out[row, band] = (right - row) / (right - centre)
        out[centre, band] = 1.0
    return out


# -- hypothesis cases ----------------------------------------------------------------------------


def _array(draw: Any, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    seed = draw(st.integers(0, 2**32 - 1))
    data = np.random.default_rng(seed).uniform(-4, 4, size=shape)
    return data.astype(dtype)


@dataclass
class DftCase:
    since: int
    x: np.ndarray
    dft_length: int | None
    axis: int | None  # None: omitted, the version's default applies
    inverse: int
    onesided: int

    @property
    def axis_value(self) -> int:
        default = 1 if self.since == 17 else -2
        return default if self.axis is None else self.axis

    @property
    def n(self) -> int:
        """The DFT length the standard implies."""
        if self.dft_length is not None:
            return self.dft_length
        m = int(self.x.shape[self.axis_value])
        return 2 * (m - 1) if self.inverse and self.onesided else m

    def ort_inputs(self) -> tuple[list[np.ndarray | None], dict[str, int]]:
        length = None if self.dft_length is None else np.array(self.dft_length, np.int64)
        attrs = {"inverse": self.inverse, "onesided": self.onesided}
        if self.since == 17:
            if self.axis is not None:
                attrs["axis"] = self.axis
            return [self.x, length], attrs
        axis = None if self.axis is None else np.array(self.axis, np.int64)
        return [self.x, length, axis], attrs


@st.composite
def dft_cases(draw: Any, dtypes: tuple[Any, ...] = (np.float32, np.float64)) -> DftCase:
    since = draw(st.sampled_from([17, 20]))
    rank = draw(st.integers(3 if since == 17 else 2, 4))
    dims = draw(st.lists(st.integers(1, 7), min_size=rank - 1, max_size=rank - 1))
    inverse, onesided = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    if onesided:
        parts = 2 if inverse else 1
    else:
        parts = draw(st.sampled_from([1, 2]))
    axis = draw(st.none() | st.integers(0, rank - 2))
    if axis is not None and draw(st.booleans()):
        axis -= rank  # the same axis counted from the back
    dft_length = draw(st.none() | st.integers(1, 12))
    index = (1 if since == 17 else rank - 2) if axis is None else axis % rank
    if inverse and onesided and dft_length is None:
        dims[index] = max(dims[index], 2)  # the default length 2 * (m - 1) must be >= 1
    x = _array(draw, (*dims, parts), draw(st.sampled_from(dtypes)))
    return DftCase(since, x, dft_length, axis, inverse, onesided)


@dataclass
class StftCase:
    signal: np.ndarray
    step: int
    window: np.ndarray | None
    frame_length: int | None
    onesided: int
    length: int = field(init=False)

    def __post_init__(self) -> None:
        if self.frame_length is not None:
            self.length = self.frame_length
        elif self.window is not None:
            self.length = len(self.window)
        else:
            self.length = self.signal.shape[1]

    def inputs(self) -> list[np.ndarray | None]:
        length = None if self.frame_length is None else np.array(self.frame_length, np.int64)
        return [self.signal, np.array(self.step, np.int64), self.window, length]


@st.composite
def stft_cases(draw: Any) -> StftCase:
    batch, size = draw(st.integers(1, 3)), draw(st.integers(1, 40))
    onesided = draw(st.integers(0, 1))
    parts = 1 if onesided else draw(st.sampled_from([1, 2]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    signal = _array(draw, (batch, size, parts), dtype)
    step = draw(st.integers(1, 9))
    length = draw(st.integers(1, size))
    given = draw(st.sampled_from(["frame_length", "window", "both", "neither"]))
    window = None
    if given in ("window", "both"):
        window = np.abs(_array(draw, (length,), dtype))
    frame_length = length if given in ("frame_length", "both") else None
    return StftCase(signal, step, window, frame_length, onesided)


@dataclass
class MelCase:
    bands: int
    n: int
    rate: int
    lower: np.float32
    upper: np.float32
    output_datatype: int
    int_type: Any = np.int64  # T1: num_mel_bins, dft_length and sample_rate share it

    def inputs(self) -> list[np.ndarray]:
        return [
            np.array(self.bands, self.int_type),
            np.array(self.n, self.int_type),
            np.array(self.rate, self.int_type),
            np.array(self.lower, np.float32),
            np.array(self.upper, np.float32),
        ]


@st.composite
def mel_cases(draw: Any, types: tuple[int, ...] = OUTPUT_TYPES) -> MelCase:
    rate = draw(st.integers(1000, 48000))
    fractions = sorted(draw(st.lists(st.floats(0, 1), min_size=2, max_size=2)))
    nyquist = rate / 2
    lower, upper = (np.float32(f * nyquist) for f in fractions)
    return MelCase(
        bands=draw(st.integers(0, 24)),
        n=draw(st.integers(1, 600)),
        rate=rate,
        lower=np.float32(min(lower, upper)),
        upper=np.float32(min(max(lower, upper), nyquist)),
        output_datatype=draw(st.sampled_from(types)),
        int_type=draw(st.sampled_from([np.int32, np.int64])),
    )
