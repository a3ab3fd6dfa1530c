"""Signal kernels (DFT, STFT, windows, MelWeightMatrix) against their definitions in the
standard (numpy re-derivations without FFT), onnxruntime, and the windows' function bodies."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft import specs
from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.errors import EvaluationError
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.numerics import from_float32, to_float32
from onnxcraft.ops.signal.kernels import (
    blackman_window,
    dft_17,
    dft_20,
    hamming_window,
    hann_window,
    mel_weight_matrix,
    stft,
)
from tests.evaluate._signal_oracle import (
    OUTPUT_TYPES,
    WINDOWS,
    DftCase,
    MelCase,
    StftCase,
    complex_of,
    dft_cases,
    mel_cases,
    reference_dft,
    reference_mel,
    reference_stft,
    run_ort,
    run_window_body,
    stft_cases,
)

WINDOW_KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "HannWindow": hann_window,
    "HammingWindow": hamming_window,
    "BlackmanWindow": blackman_window,
}
OPS = ("DFT", "STFT", "MelWeightMatrix", *WINDOWS)


def run_dft(case: DftCase) -> np.ndarray:
    inputs, attrs = case.ort_inputs()
    if case.since == 17:
        return dft_17(*inputs, **attrs)
    return dft_20(*inputs, **attrs)


def as_complex(out: np.ndarray) -> np.ndarray:
    return complex_of(out) if out.shape[-1] == 2 else out[..., 0].astype(np.float64)


def dft_scale(case: DftCase) -> float:
    """A bound on the output magnitude, to size absolute tolerances."""
    x = to_float32(case.x) if case.x.dtype.names else case.x.astype(np.float64)
    return max(1.0, float(np.abs(x).max(initial=0.0))) * max(case.n, *case.x.shape)


def expected_dft(case: DftCase, x: np.ndarray) -> np.ndarray:
    axis = case.axis_value % case.x.ndim
    return reference_dft(
        complex_of(x), case.n, axis, inverse=bool(case.inverse), onesided=bool(case.onesided)
    )


def expected_shape(case: DftCase) -> tuple[int, ...]:
    shape = list(case.x.shape)
    axis = case.axis_value % case.x.ndim
    irfft = case.inverse and case.onesided
    shape[axis] = case.n // 2 + 1 if case.onesided and not case.inverse else case.n
    shape[-1] = 1 if irfft else 2
    return tuple(shape)


# -- registration --------------------------------------------------------------------------------


@pytest.mark.parametrize("op_type", OPS)
def test_every_spec_version_has_a_kernel(op_type: str) -> None:
    registry = default_registry()
    for since in specs.versions(op_type):
        assert ("", op_type, since) in registry


# -- DFT -----------------------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(dft_cases())
def test_dft_matches_the_definition_and_onnxruntime(case: DftCase) -> None:
    out = run_dft(case)
    assert out.dtype == case.x.dtype
    assert out.shape == expected_shape(case)
    scale = dft_scale(case)
    eps = 1e-6 if case.x.dtype == np.float32 else 1e-12
    expected = expected_dft(case, case.x)
    np.testing.assert_allclose(as_complex(out), expected, rtol=eps, atol=eps * scale)
    irfft = case.inverse and case.onesided
    if irfft and case.n // 2 + 1 != case.x.shape[case.axis_value]:
        # onnxruntime 1.32 disagrees with the standard here: an inverse one-sided DFT whose
        # dft_length does not match the spectrum (n // 2 + 1 != bins) neither reads the first
        # n // 2 + 1 bins nor zero-pads them (checked by the definition above instead).
        return
    inputs, attrs = case.ort_inputs()
    ort_out = run_ort("DFT", inputs, opset=case.since, **attrs)
    assert ort_out.shape == out.shape
    np.testing.assert_allclose(as_complex(out), as_complex(ort_out), rtol=1e-5, atol=1e-5 * scale)


@settings(max_examples=40, deadline=None)
@given(dft_cases(dtypes=(np.float16,)))
def test_dft_float16_is_computed_in_float32_or_better(case: DftCase) -> None:
    out = run_dft(case)
    assert out.dtype == np.float16
    expected = expected_dft(case, case.x)
    # Only the final rounding to float16 may differ from the exact transform.
    np.testing.assert_allclose(as_complex(out), expected, rtol=2e-3, atol=1e-3 * dft_scale(case))


@settings(max_examples=30, deadline=None)
@given(dft_cases(dtypes=(np.float32,)))
def test_dft_bfloat16_keeps_its_element_type(case: DftCase) -> None:
    bf16 = from_float32(case.x, ElementType.BFLOAT16)
    low = DftCase(case.since, bf16, case.dft_length, case.axis, case.inverse, case.onesided)
    out = run_dft(low)
    assert out.dtype == numpy_dtype(ElementType.BFLOAT16)
    expected = expected_dft(case, to_float32(bf16))
    np.testing.assert_allclose(
        as_complex(to_float32(out)), expected, rtol=1e-2, atol=8e-3 * dft_scale(case)
    )


def test_dft_hand_computed_spectrum_and_inverse() -> None:
    # x = [1, 2, 3, 4]: X[k] = sum_n x[n] e^{-2 pi j k n / 4} = [10, -2+2j, -2, -2-2j].
    x = np.array([[[1.0], [2.0], [3.0], [4.0]]], np.float32)
    spectrum = np.array([[[10, 0], [-2, 2], [-2, 0], [-2, -2]]], np.float32)
    np.testing.assert_allclose(dft_20(x), spectrum, atol=1e-5)
    np.testing.assert_allclose(dft_17(x, onesided=1), spectrum[:, :3], atol=1e-5)
    back = dft_20(spectrum, inverse=1)
    np.testing.assert_allclose(back, [[[1, 0], [2, 0], [3, 0], [4, 0]]], atol=1e-6)
    # The inverse of the one-sided spectrum [10, -2+2j, -2]: default length 2 * (3 - 1) = 4.
    np.testing.assert_allclose(dft_20(spectrum[:, :3], inverse=1, onesided=1), x, atol=1e-6)


def test_dft_length_pads_with_zeros_and_truncates() -> None:
    x = np.array([[[1.0], [2.0], [3.0]]], np.float64)
    # Padded to [1, 2, 3, 0, 0, 0]: X[3] = 1 - 2 + 3 - 0 + 0 - 0 = 2.
    padded = dft_20(x, np.array(6))
    assert padded.shape == (1, 6, 2)
    np.testing.assert_allclose(padded[0, 3], [2.0, 0.0], atol=1e-12)
    # Cut to [1, 2]: X = [3, -1].
    np.testing.assert_allclose(dft_20(x, np.array(2))[0], [[3, 0], [-1, 0]], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 17), st.integers(0, 2**32 - 1))
def test_irfft_of_rfft_gives_back_the_signal_of_any_length(length: int, seed: int) -> None:
    # An odd length needs dft_length: the default 2 * (bins - 1) is even.
    x = np.random.default_rng(seed).standard_normal((2, length, 1))
    spectrum = dft_20(x, None, np.array(1), onesided=1)
    assert spectrum.shape == (2, length // 2 + 1, 2)
    back = dft_20(spectrum, np.array(length), np.array(1), inverse=1, onesided=1)
    np.testing.assert_allclose(back, x, atol=1e-12)


def _x(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


DFT_ERRORS: list[tuple[Callable[[], Any], list[str]]] = [
    (lambda: dft_20(_x(2, 5, 1), None, np.array(2)), ["axis=2", "rank 3"]),
    (lambda: dft_20(_x(2, 5, 1), None, np.array(-1)), ["axis=-1"]),
    (lambda: dft_20(_x(2, 5, 1), None, np.array(-4)), ["axis=-4"]),
    (lambda: dft_17(_x(2, 5, 1), axis=2), ["axis=2"]),
    (lambda: dft_17(_x(5, 1)), ["axis=1", "rank 2"]),
    (lambda: dft_20(_x(2, 5, 3)), ["last dimension", "1 (real) or 2"]),
    (lambda: dft_20(_x(5)), ["rank >= 2"]),
    (lambda: dft_20(_x(2, 5, 1), np.array(0)), ["dft_length", ">= 1", "got 0"]),
    (lambda: dft_20(_x(2, 5, 1), np.array(-3)), ["dft_length", "got -3"]),
    (lambda: dft_20(_x(2, 5, 1), np.array([4, 4])), ["dft_length", "scalar"]),
    (lambda: dft_20(_x(2, 5, 1), np.array(4.0)), ["dft_length", "integer"]),
    (lambda: dft_20(_x(2, 5, 2), onesided=1), ["onesided=1", "real input"]),
    (lambda: dft_20(_x(2, 5, 1), inverse=1, onesided=1), ["onesided=1", "complex"]),
    (lambda: dft_20(_x(2, 1, 2), None, np.array(1), inverse=1, onesided=1), ["DFT length of 0"]),
    (lambda: dft_20(_x(2, 0, 1), None, np.array(1)), ["0 values", "dft_length"]),
    (lambda: dft_20(np.ones((2, 5, 1), np.int32)), ["input", "float"]),
]


@pytest.mark.parametrize(("call", "words"), DFT_ERRORS)
def test_dft_bad_arguments_fail_clearly(call: Callable[[], Any], words: list[str]) -> None:
    with pytest.raises(EvaluationError) as info:
        call()
    message = str(info.value)
    assert message.startswith("DFT: ")
    for word in words:
        assert word in message


def test_dft_zero_padding_an_empty_signal_gives_zeros() -> None:
    out = dft_20(_x(2, 0, 1), np.array(3), np.array(1))
    np.testing.assert_array_equal(out, np.zeros((2, 3, 2), np.float32))


# -- STFT ----------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(stft_cases())
def test_stft_matches_the_definition_and_onnxruntime(case: StftCase) -> None:
    out = stft(*case.inputs(), onesided=case.onesided)
    frames = (case.signal.shape[1] - case.length) // case.step + 1
    bins = case.length // 2 + 1 if case.onesided else case.length
    assert out.shape == (case.signal.shape[0], frames, bins, 2)
    assert out.dtype == case.signal.dtype
    expected = reference_stft(case.signal, case.step, case.window, case.length, bool(case.onesided))
    scale = 8.0 * case.length
    eps = 1e-6 if case.signal.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(complex_of(out), expected, rtol=eps, atol=eps * scale)
    if case.window is None and case.frame_length is None:
        # onnxruntime 1.32 fails here (negative output size) where the standard takes the
        # whole signal as the one frame; the definition above is the oracle.
        return
    ort_out = run_ort("STFT", case.inputs(), opset=17, onesided=case.onesided)
    np.testing.assert_allclose(complex_of(out), complex_of(ort_out), rtol=1e-5, atol=1e-5 * scale)


def test_stft_node_example_first_frame_by_hand() -> None:
    # Frame 0 of [0, 1, ..., 15] with a rectangular window: X[0] = 120, X[8] = -8.
    signal = np.arange(32, dtype=np.float32).reshape(1, 32, 1)
    out = stft(signal, np.array(8), None, np.array(16))
    assert out.shape == (1, 3, 9, 2)
    np.testing.assert_allclose(out[0, 0, 0], [120, 0], atol=1e-4)
    np.testing.assert_allclose(out[0, 0, 8], [-8, 0], atol=1e-4)


def test_stft_bfloat16_signal_and_window() -> None:
    rng = np.random.default_rng(3)
    signal32, window32 = rng.standard_normal((1, 20, 1)), rng.uniform(0, 1, 6)
    signal = from_float32(signal32, ElementType.BFLOAT16)
    window = from_float32(window32, ElementType.BFLOAT16)
    out = stft(signal, np.array(3), window)
    assert out.dtype == numpy_dtype(ElementType.BFLOAT16)
    expected = reference_stft(to_float32(signal), 3, to_float32(window), 6, True)
    np.testing.assert_allclose(complex_of(to_float32(out)), expected, rtol=1e-2, atol=5e-2)


STFT_ERRORS: list[tuple[Callable[[], Any], list[str]]] = [
    (lambda: stft(_x(1, 10, 1), np.array(2), None, np.array(11)), ["frame_length=11", "10"]),
    (lambda: stft(_x(1, 10, 1), np.array(2), _x(11)), ["frame_length=11", "larger"]),
    (lambda: stft(_x(1, 10, 1), np.array(2), _x(4), np.array(5)), ["window has 4", "5"]),
    (lambda: stft(_x(1, 10, 2), np.array(2), None, np.array(4)), ["onesided=1", "complex"]),
    (lambda: stft(_x(10, 1), np.array(2)), ["rank 3"]),
    (lambda: stft(_x(1, 10, 3), np.array(2)), ["last dimension"]),
    (lambda: stft(_x(1, 10, 1), np.array(0), None, np.array(4)), ["frame_step", ">= 1"]),
    (lambda: stft(_x(1, 10, 1), np.array([2, 2])), ["frame_step", "scalar"]),
    (lambda: stft(_x(1, 10, 1), np.array(2), _x(2, 2)), ["window", "1-D"]),
    (lambda: stft(_x(1, 10, 1), np.array(2), None, np.array(0)), ["frame length", ">= 1"]),
]


@pytest.mark.parametrize(("call", "words"), STFT_ERRORS)
def test_stft_bad_arguments_fail_clearly(call: Callable[[], Any], words: list[str]) -> None:
    with pytest.raises(EvaluationError) as info:
        call()
    message = str(info.value)
    assert message.startswith("STFT: ")
    for word in words:
        assert word in message


# -- windows -------------------------------------------------------------------------------------


def _bfloat16_bits(values: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, rounding to nearest even (values here are finite)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


window_cases = st.tuples(
    st.sampled_from(WINDOWS), st.integers(0, 80), st.integers(0, 1), st.sampled_from(OUTPUT_TYPES)
).filter(lambda c: (c[1], c[2]) != (1, 0))  # size 1 symmetric: NaN, tested on its own


@settings(max_examples=120, deadline=None)
@given(window_cases)
def test_windows_agree_with_their_function_bodies(case: tuple[str, int, int, int]) -> None:
    op_type, size, periodic, output_datatype = case
    out = WINDOW_KERNELS[op_type](
        np.array(size), periodic=periodic, output_datatype=output_datatype
    )
    assert out.shape == (size,)
    assert out.dtype == numpy_dtype(output_datatype)
    if output_datatype == ElementType.BFLOAT16:
        # onnxruntime cannot hand bfloat16 to numpy: take the body's float32 window and round.
        body = run_window_body(op_type, size, periodic=periodic, output_datatype=1)
        got = out.view(np.uint16).astype(np.int64)
        np.testing.assert_allclose(got, _bfloat16_bits(body), atol=1)
        return
    body = run_window_body(op_type, size, periodic=periodic, output_datatype=output_datatype)
    assert body.dtype == out.dtype
    if out.dtype.kind == "f":
        # float32 arithmetic as in the body; cos may differ by one unit in the last place.
        ulp = 2.0**-10 if out.dtype == np.float16 else 2.0**-23
        np.testing.assert_allclose(out.astype(np.float64), body, rtol=0, atol=ulp)
    else:
        np.testing.assert_array_equal(out, body)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(WINDOWS), st.integers(2, 200), st.integers(0, 1), st.sampled_from([1, 11]))
def test_float_windows_match_onnxruntime(
    op_type: str, size: int, periodic: int, output_datatype: int
) -> None:
    # Only float outputs: onnxruntime computes in double before casting, so for integer outputs
    # a peak of 0.99999994 in the body's float32 arithmetic becomes 1 there and 0 in the body.
    out = WINDOW_KERNELS[op_type](
        np.array(size), periodic=periodic, output_datatype=output_datatype
    )
    expected = run_ort(
        op_type,
        [np.array(size, np.int64)],
        opset=17,
        periodic=periodic,
        output_datatype=output_datatype,
    )
    np.testing.assert_allclose(out, expected, rtol=0, atol=5e-7)


def test_window_formulas_by_hand() -> None:
    # Symmetric Hann of 5: 0.5 - 0.5 cos(2 pi n / 4) = [0, 0.5, 1, 0.5, 0].
    np.testing.assert_allclose(hann_window(np.array(5), periodic=0), [0, 0.5, 1, 0.5, 0], atol=1e-7)
    # Periodic Hamming of 4: 25/46 - 21/46 cos(pi n / 2) = [4/46, 25/46, 1, 25/46].
    np.testing.assert_allclose(
        hamming_window(np.array(4)), np.array([4, 25, 46, 25]) / 46, atol=1e-7
    )
    # Symmetric Blackman of 3: 0.42 - 0.5 cos(pi n) + 0.08 cos(2 pi n) = [0, 1, 0].
    np.testing.assert_allclose(blackman_window(np.array(3), periodic=0), [0, 1, 0], atol=1e-7)


@pytest.mark.parametrize("op_type", WINDOWS)
def test_symmetric_window_of_one_is_nan_like_the_body_and_onnxruntime(op_type: str) -> None:
    out = WINDOW_KERNELS[op_type](np.array(1), periodic=0)
    assert np.isnan(run_window_body(op_type, 1, periodic=0, output_datatype=1)).all()
    assert np.isnan(run_ort(op_type, [np.array(1, np.int64)], opset=17, periodic=0)).all()
    assert out.shape == (1,) and np.isnan(out).all()


@pytest.mark.parametrize("op_type", WINDOWS)
def test_empty_window(op_type: str) -> None:
    out = WINDOW_KERNELS[op_type](np.array(0, np.int32), output_datatype=11)
    assert out.shape == (0,) and out.dtype == np.float64


WINDOW_ERRORS: list[tuple[dict[str, Any], list[str]]] = [
    ({"size": np.array(-1)}, ["size", ">= 0", "-1"]),
    ({"size": np.array([3, 4])}, ["size", "scalar"]),
    ({"size": np.array(3.0)}, ["size", "integer"]),
    ({"size": np.array(3), "periodic": 2}, ["periodic", "0 or 1"]),
    ({"size": np.array(3), "output_datatype": 9}, ["output_datatype=9", "allowed"]),
    ({"size": np.array(3), "output_datatype": 99}, ["output_datatype=99"]),
]


@pytest.mark.parametrize("op_type", WINDOWS)
@pytest.mark.parametrize(("arguments", "words"), WINDOW_ERRORS)
def test_window_bad_arguments_fail_clearly(
    op_type: str, arguments: dict[str, Any], words: list[str]
) -> None:
    arguments = dict(arguments)
    with pytest.raises(EvaluationError) as info:
        WINDOW_KERNELS[op_type](arguments.pop("size"), **arguments)
    assert str(info.value).startswith(f"{op_type}: ")
    for word in words:
        assert word in str(info.value)


# -- MelWeightMatrix -----------------------------------------------------------------------------


def _ort_accepts(case: MelCase) -> bool:
    """onnxruntime's own range check, in float32 as it computes it."""
    top = np.floor(np.float32(case.n + 1) * case.upper / np.float32(case.rate))
    return bool(top < case.n // 2 + 1)


def _edge_on_a_bin_boundary(case: MelCase) -> bool:
    """Whether the lower or upper edge falls exactly on a bin boundary ((n + 1) * f / rate a
    whole number). The definition, the standard's reference and the kernel put such an edge
    in the bin it starts; onnxruntime takes the edges through its float32 mel round trip
    (hertz -> mel -> hertz), which can land an ulp below and take the bin before (seen: one
    band from 325.75 to 325.75 Hz at 1303 Hz with n = 3, its corner in bin 0 instead of 1)."""
    return any(
        (Fraction(float(edge)) * (case.n + 1) / case.rate).denominator == 1
        for edge in (case.lower, case.upper)
    )


ORT_MEL_TYPES = tuple(t for t in OUTPUT_TYPES if t not in (10, 16))  # no float16 / bfloat16


@settings(max_examples=100, deadline=None)
@given(mel_cases())
def test_mel_weight_matrix_matches_the_definition_and_onnxruntime(case: MelCase) -> None:
    try:
        expected = reference_mel(
            case.bands, case.n, case.rate, float(case.lower), float(case.upper)
        )
    except IndexError:
        # A band reaches past the last bin (a degenerate range at sample_rate / 2 with an odd
        # dft_length): the definition has no value, so the kernel must refuse.
        with pytest.raises(EvaluationError, match="beyond the last"):
            mel_weight_matrix(*case.inputs(), output_datatype=case.output_datatype)
        return
    out = mel_weight_matrix(*case.inputs(), output_datatype=case.output_datatype)
    assert out.shape == (case.n // 2 + 1, case.bands)
    assert out.dtype == numpy_dtype(case.output_datatype)
    if case.output_datatype == ElementType.BFLOAT16:
        np.testing.assert_allclose(to_float32(out), expected, rtol=4e-3)
    elif out.dtype.kind == "f":
        np.testing.assert_allclose(out, expected, rtol=1e-3 if out.dtype == np.float16 else 1e-6)
    else:
        np.testing.assert_array_equal(out, np.trunc(expected))
    if (
        case.output_datatype in ORT_MEL_TYPES
        and _ort_accepts(case)
        and not _edge_on_a_bin_boundary(case)
    ):
        # onnxruntime rejects an upper edge whose own bin is the last-plus-one (odd dft_length
        # at sample_rate / 2) although every band still fits, and rounds an edge on a bin
        # boundary its own way (above): those cases rest on the definition alone.
        ort_out = run_ort(
            "MelWeightMatrix", case.inputs(), opset=17, output_datatype=case.output_datatype
        )
        np.testing.assert_allclose(out, ort_out, rtol=1e-6)


def test_mel_weight_matrix_corner_on_a_bin_boundary() -> None:
    """Corners at exactly 250 Hz fall on bin (3 + 1) * 250 / 1000 = 1: the mel round trip
    must not move them an ulp below, into bin 0 (onnxruntime gives bin 1 too)."""
    ints = (np.array(v, np.int64) for v in (1, 3, 1000))
    inputs = (*ints, np.array(250, np.float32), np.array(250, np.float32))
    out = mel_weight_matrix(*inputs, output_datatype=ElementType.UINT8)
    np.testing.assert_array_equal(out, [[0], [1]])
    ort_out = run_ort("MelWeightMatrix", inputs, opset=17, output_datatype=ElementType.UINT8)
    np.testing.assert_array_equal(out, ort_out)


def test_mel_weight_matrix_up_to_nyquist_with_an_odd_dft_length() -> None:
    out = mel_weight_matrix(
        np.array(4), np.array(15), np.array(16000), np.float32(0), np.float32(8000)
    )
    np.testing.assert_allclose(out, reference_mel(4, 15, 16000, 0.0, 8000.0), rtol=1e-6)
    assert out.shape == (8, 4)


def test_mel_weight_matrix_peaks_are_one() -> None:
    out = mel_weight_matrix(
        np.array(10),
        np.array(512),
        np.array(16000),
        np.float32(20),
        np.float32(7600),
        output_datatype=11,
    )
    np.testing.assert_array_equal(out.max(axis=0), np.ones(10))
    assert out.min() >= 0


def _mel(**changes: Any) -> np.ndarray:
    arguments: dict[str, Any] = {
        "num_mel_bins": np.array(8),
        "dft_length": np.array(16),
        "sample_rate": np.array(8192),
        "lower_edge_hertz": np.float32(0),
        "upper_edge_hertz": np.float32(4096),
    }
    output_datatype = changes.pop("output_datatype", 1)
    arguments.update(changes)
    return mel_weight_matrix(*arguments.values(), output_datatype=output_datatype)


MEL_ERRORS: list[tuple[dict[str, Any], list[str]]] = [
    ({"upper_edge_hertz": np.float32(20000)}, ["upper_edge_hertz=20000", "the 9 bins"]),
    ({"lower_edge_hertz": np.float32(-5)}, ["lower_edge_hertz=-5"]),
    ({"lower_edge_hertz": np.float32(500), "upper_edge_hertz": np.float32(100)}, ["<="]),
    ({"upper_edge_hertz": np.float32(np.nan)}, ["upper_edge_hertz=nan"]),
    ({"dft_length": np.array(0)}, ["dft_length", ">= 1"]),
    ({"sample_rate": np.array(0)}, ["sample_rate", ">= 1"]),
    ({"num_mel_bins": np.array(-1)}, ["num_mel_bins", ">= 0"]),
    ({"num_mel_bins": np.array([8, 8])}, ["num_mel_bins", "scalar"]),
    ({"output_datatype": 8}, ["output_datatype=8"]),
]


@pytest.mark.parametrize(("changes", "words"), MEL_ERRORS)
def test_mel_weight_matrix_bad_arguments_fail_clearly(
    changes: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(EvaluationError) as info:
        _mel(**changes)
    assert str(info.value).startswith("MelWeightMatrix: ")
    for word in words:
        assert word in str(info.value)


def test_mel_weight_matrix_band_centred_past_the_last_bin_fails() -> None:
    # dft_length 1 has one bin; all corners of [500, 500] Hz at 1 kHz fall on bin 1.
    with pytest.raises(EvaluationError, match="bin 1, beyond the last of the 1 bins"):
        _mel(
            num_mel_bins=np.array(1),
            dft_length=np.array(1),
            sample_rate=np.array(1000),
            lower_edge_hertz=np.float32(500),
            upper_edge_hertz=np.float32(500),
        )


def test_mel_weight_matrix_with_no_bands() -> None:
    assert _mel(num_mel_bins=np.array(0)).shape == (9, 0)
