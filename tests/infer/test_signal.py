"""Signal rules: the shapes and types they infer equal what the evaluator produces on the same
cases; symbols carry over, unknown scalar inputs leave only their dims unknown, and the clashes
the kernels reject are rejected at build time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft import specs
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.errors import EvaluationError, InferenceError
from onnxcraft.infer.rules import default_rules
from onnxcraft.opset.ai.onnx import v17, v20
from onnxcraft.types import Tensor
from tests.evaluate._signal_oracle import (
    OUTPUT_TYPES,
    WINDOWS,
    DftCase,
    MelCase,
    StftCase,
    dft_cases,
    mel_cases,
    reference_mel,
    stft_cases,
)

OPS = ("DFT", "STFT", "MelWeightMatrix", *WINDOWS)


def _const(value: int | None) -> np.ndarray | None:
    return None if value is None else np.array(value, np.int64)


def build_dft(case: DftCase, x: oc.Var) -> oc.Var:
    attrs = {"inverse": case.inverse, "onesided": case.onesided}
    if case.since == 17:
        axis = {} if case.axis is None else {"axis": case.axis}
        return v17.DFT(x, _const(case.dft_length), **attrs, **axis)
    return v20.DFT(x, _const(case.dft_length), _const(case.axis), **attrs)


def evaluated(inputs: dict[oc.Var, np.ndarray], output: oc.Var) -> np.ndarray:
    model = oc.build(inputs=list(inputs), outputs={"out": output})
    feeds = {var.name: value for var, value in inputs.items()}
    return np.asarray(oc.evaluate(model, feeds)["out"])


def assert_rule_matches(var: oc.Var, value: np.ndarray) -> None:
    assert isinstance(var.type, Tensor)
    assert var.type.elem_type == element_type_of(value.dtype)
    assert var.type.shape == value.shape


@pytest.mark.parametrize("op_type", OPS)
def test_every_spec_version_has_a_rule(op_type: str) -> None:
    registered = set(default_rules().keys())
    for since in specs.versions(op_type):
        assert ("", op_type, since) in registered


# -- rules agree with the evaluator --------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(dft_cases())
def test_dft_rule_matches_the_evaluator(case: DftCase) -> None:
    x = oc.arg("x", case.x.dtype, case.x.shape)
    y = build_dft(case, x)
    assert_rule_matches(y, evaluated({x: case.x}, y))


@settings(max_examples=60, deadline=None)
@given(stft_cases())
def test_stft_rule_matches_the_evaluator(case: StftCase) -> None:
    signal = oc.arg("signal", case.signal.dtype, case.signal.shape)
    _, step, window, length = case.inputs()
    y = v17.STFT(signal, step, window, length, onesided=case.onesided)
    assert_rule_matches(y, evaluated({signal: case.signal}, y))


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(WINDOWS),
    st.integers(0, 50),
    st.integers(0, 1),
    st.sampled_from(OUTPUT_TYPES),
)
def test_window_rule_matches_the_evaluator(
    op_type: str, size: int, periodic: int, output_datatype: int
) -> None:
    make = getattr(v17, op_type)
    y = make(np.array(size, np.int64), periodic=periodic, output_datatype=output_datatype)
    size_arg = oc.arg("size", np.int64, ())
    z = make(size_arg, periodic=periodic, output_datatype=output_datatype)
    assert z.shape == (None,)  # size unknown until run
    assert z.type.elem_type == ElementType(output_datatype)
    value = evaluated({size_arg: np.array(size, np.int64)}, z)
    assert_rule_matches(y, value)


@settings(max_examples=40, deadline=None)
@given(mel_cases())
# a corner on the last bin's boundary, where a less exact mel round trip misplaced it
@example(MelCase(1, 1, 3399, np.float32(1699.5), np.float32(1699.5), 1))
def test_mel_weight_matrix_rule_matches_the_evaluator(case: MelCase) -> None:
    inputs = case.inputs()
    args = [oc.arg(f"in{i}", value.dtype, ()) for i, value in enumerate(inputs)]
    y = v17.MelWeightMatrix(*inputs, output_datatype=case.output_datatype)
    z = v17.MelWeightMatrix(*args, output_datatype=case.output_datatype)
    assert z.shape == (None, None)
    assert y.shape == (case.n // 2 + 1, case.bands)
    feeds = dict(zip(args, inputs))
    try:
        reference_mel(case.bands, case.n, case.rate, float(case.lower), float(case.upper))
    except IndexError:  # a band past the last bin: the evaluator refuses, the shape stands
        with pytest.raises(EvaluationError):
            evaluated(feeds, z)
        return
    assert_rule_matches(y, evaluated(feeds, z))


# -- symbols and unknown scalars -----------------------------------------------------------------


def test_dft_symbols_propagate() -> None:
    x = oc.arg("x", np.float32, ("N", "T", "F", 1))
    assert v20.DFT(x).shape == ("N", "T", "F", 2)
    assert v20.DFT(x, None, np.array(1)).shape == ("N", "T", "F", 2)
    assert v20.DFT(x, np.array(8), np.array(1), onesided=1).shape == ("N", 5, "F", 2)
    assert v17.DFT(x, axis=2, onesided=1).shape == ("N", "T", None, 2)  # T // 2 + 1 unknown
    spectrum = oc.arg("s", np.float64, ("N", 6, "F", 2))
    assert v17.DFT(spectrum, axis=1, inverse=1, onesided=1).shape == ("N", 10, "F", 1)
    assert v20.DFT(spectrum, None, np.array(-2), inverse=1, onesided=1).shape == (
        "N",
        6,
        None,
        1,
    )


def test_dft_unknown_scalars_leave_their_dims_unknown() -> None:
    x = oc.arg("x", np.float32, ("N", 10, 4, 2))
    length = oc.arg("n", np.int64, ())
    axis = oc.arg("axis", np.int64, ())
    assert v20.DFT(x, length, np.array(1)).shape == ("N", None, 4, 2)
    # The transformed axis unknown: a plain transform keeps every length, others do not.
    assert v20.DFT(x, None, axis).shape == ("N", 10, 4, 2)
    assert v20.DFT(x, None, axis, inverse=1).shape == ("N", 10, 4, 2)
    assert v20.DFT(x, length, axis).shape == (None, None, None, 2)
    assert v20.DFT(x, None, axis, inverse=1, onesided=1).shape == (None, None, None, 1)
    unknown_rank = oc.arg("u", np.float16, None)
    y = v20.DFT(unknown_rank)
    assert y.shape is None and y.type.elem_type == ElementType.FLOAT16


def test_dft_unknown_axis_matches_the_evaluator() -> None:
    x = oc.arg("x", np.float32, (3, 10, 4, 2))
    axis = oc.arg("axis", np.int64, ())
    y = v20.DFT(x, None, axis)
    value = evaluated({x: np.ones((3, 10, 4, 2), np.float32), axis: np.array(2)}, y)
    assert y.shape == value.shape


def test_stft_symbols_and_unknown_scalars() -> None:
    signal = oc.arg("signal", np.float32, ("B", 128, 1))
    assert v17.STFT(signal, np.array(8), None, np.array(16)).shape == ("B", 15, 9, 2)
    step = oc.arg("step", np.int64, ())
    assert v17.STFT(signal, step, None, np.array(16)).shape == ("B", None, 9, 2)
    length = oc.arg("length", np.int64, ())
    assert v17.STFT(signal, np.array(8), None, length).shape == ("B", None, None, 2)
    window = oc.arg("window", np.float32, ("W",))
    assert v17.STFT(signal, np.array(8), window, onesided=0).shape == ("B", None, "W", 2)
    # Neither window nor frame_length: one frame of the whole signal, whatever the step.
    open_length = oc.arg("open", np.float32, ("B", "L", 2))
    assert v17.STFT(open_length, step, onesided=0).shape == ("B", 1, "L", 2)


def test_sizes_taken_from_a_shape_keep_their_symbol() -> None:
    reference = oc.arg("r", np.float32, ("N", "T", 1))
    size = v20.Squeeze(v20.Shape(reference, start=1, end=2), np.array([0]))  # the symbol T
    signal = oc.arg("s", np.float32, ("N", "L", 1))
    assert v20.DFT(signal, size, np.array(1)).shape == ("N", "T", 2)
    assert v20.DFT(signal, size, np.array(1), onesided=1).shape == ("N", None, 2)
    assert v20.STFT(signal, np.array(4), None, size, onesided=0).shape == ("N", None, "T", 2)
    window = v20.HannWindow(size)
    assert window.shape == ("T",)
    spectrogram = v20.STFT(signal, np.array(4), window, onesided=0)
    assert spectrogram.shape == ("N", None, "T", 2)
    mel = v20.MelWeightMatrix(size, np.array(16), np.array(8000), np.float32(0), np.float32(4000))
    assert mel.shape == (9, "T")
    # The evaluator agrees once T and L have sizes.
    values = {reference: np.ones((2, 6, 1), np.float32), signal: np.ones((2, 20, 1), np.float32)}
    assert evaluated(values, spectrogram).shape == (2, 4, 6, 2)
    assert evaluated(values, mel).shape == (9, 6)


def test_mel_weight_matrix_partly_known() -> None:
    bins = oc.arg("bins", np.int64, ())
    y = v17.MelWeightMatrix(
        bins,
        np.array(400),
        np.array(16000),
        np.float32(0),
        np.float32(8000),
        output_datatype=np.float64,
    )
    assert y.shape == (201, None)
    assert y.type.elem_type == ElementType.DOUBLE


# -- clashes rejected at build time --------------------------------------------------------------


def _arg(*shape: Any, dtype: Any = np.float32) -> oc.Var:
    return oc.arg("x", dtype, shape)


BUILD_ERRORS: list[tuple[Callable[[], Any], list[str]]] = [
    (lambda: v20.DFT(_arg(2, 5, 1), None, np.array(2)), ["DFT: ", "axis=2", "rank 3"]),
    (lambda: v20.DFT(_arg(2, 5, 1), None, np.array(-1)), ["DFT: ", "axis=-1"]),
    (lambda: v17.DFT(_arg(5, 1)), ["DFT: ", "axis=1"]),
    (lambda: v20.DFT(_arg(2, 5, 3)), ["DFT: ", "last dimension"]),
    (lambda: v20.DFT(_arg(5)), ["DFT: ", "rank >= 2"]),
    (lambda: v20.DFT(_arg(2, 5, 1), np.array(0)), ["DFT: ", "dft_length", ">= 1"]),
    (lambda: v20.DFT(_arg(2, 5, 1), np.array([3, 4])), ["DFT: ", "dft_length", "scalar"]),
    (lambda: v20.DFT(_arg(2, 5, 2), onesided=1), ["DFT: ", "onesided=1", "real input"]),
    (lambda: v20.DFT(_arg(2, 5, 1), inverse=1, onesided=1), ["DFT: ", "complex"]),
    (lambda: v20.DFT(_arg(2, 1, 2), None, np.array(1), inverse=1, onesided=1), ["length of 0"]),
    (lambda: v17.STFT(_arg(1, 10, 1), np.array(2), None, np.array(11)), ["STFT: ", "larger"]),
    (lambda: v17.STFT(_arg(1, 10, 1), np.array(2), np.ones(11, np.float32)), ["larger"]),
    (
        lambda: v17.STFT(_arg(1, 10, 1), np.array(2), np.ones(4, np.float32), np.array(5)),
        ["STFT: ", "window has 4", "frame_length=5"],
    ),
    (lambda: v17.STFT(_arg(1, 10, 2), np.array(2)), ["STFT: ", "onesided=1", "complex"]),
    (lambda: v17.STFT(_arg(10, 1), np.array(2)), ["STFT: ", "rank 3"]),
    (lambda: v17.STFT(_arg(1, 10, 3), np.array(2), onesided=0), ["STFT: ", "last dimension"]),
    (lambda: v17.STFT(_arg(1, 10, 1), np.array(0)), ["STFT: ", "frame_step", ">= 1"]),
    (lambda: v17.HannWindow(np.array(-2)), ["HannWindow: ", "size", ">= 0"]),
    (lambda: v17.BlackmanWindow(np.array(4), periodic=3), ["BlackmanWindow: ", "periodic"]),
    (
        lambda: v17.HammingWindow(np.array(4), output_datatype=ElementType.BOOL),
        ["HammingWindow: ", "output_datatype=9"],
    ),
    (
        lambda: v17.MelWeightMatrix(
            np.array(-1), np.array(16), np.array(8000), np.float32(0), np.float32(4000)
        ),
        ["MelWeightMatrix: ", "num_mel_bins", ">= 0"],
    ),
    (
        lambda: v17.MelWeightMatrix(
            np.array(8), np.array(0), np.array(8000), np.float32(0), np.float32(4000)
        ),
        ["MelWeightMatrix: ", "dft_length", ">= 1"],
    ),
]


@pytest.mark.parametrize(("call", "words"), BUILD_ERRORS)
def test_clashes_fail_at_build_time(call: Callable[[], Any], words: list[str]) -> None:
    with pytest.raises(InferenceError) as info:
        call()
    for word in words:
        assert word in str(info.value)
