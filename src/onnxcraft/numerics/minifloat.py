"""Decoding and encoding the small float formats, vectorised over arrays.

Decoding is a table lookup. Encoding rounds to nearest, ties to even (the even code is the one
whose lowest mantissa bit is 0), by searching the sorted table of representable magnitudes.
Values beyond the largest finite one become infinity, NaN or that largest value as the Cast
specification says for each format and for ``saturate``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from onnxcraft.numerics.formats import MiniFloat

__all__ = ["decode", "encode", "decode_table"]


@cache
def decode_table(fmt: MiniFloat) -> np.ndarray:
    """float64 value of every code of the format (NaN for the NaN codes)."""
    codes = np.arange(1 << fmt.bits, dtype=np.int64)
    sign_bit = 1 << (fmt.bits - 1)
    exponent = (codes >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    mantissa = codes & ((1 << fmt.mantissa_bits) - 1)
    scale = 2.0**fmt.mantissa_bits
    normal = (1 + mantissa / scale) * np.exp2(exponent.astype(np.float64) - fmt.bias)
    subnormal = (mantissa / scale) * 2.0 ** (1 - fmt.bias)
    values = np.where(exponent == 0, subnormal, normal)
    values = np.where(codes & sign_bit, -values, values)
    top = (1 << fmt.exponent_bits) - 1
    if fmt.has_inf:
        values = np.where((exponent == top) & (mantissa == 0), np.copysign(np.inf, values), values)
    if fmt.ieee_nan:
        values = np.where((exponent == top) & (mantissa != 0), np.nan, values)
    if fmt.fn_nan:
        values = np.where(
            (exponent == top) & (mantissa == (1 << fmt.mantissa_bits) - 1), np.nan, values
        )
    if fmt.uz:
        values = np.where(codes == sign_bit, np.nan, values)
    return values


@cache
def _positive(fmt: MiniFloat) -> tuple[np.ndarray, np.ndarray]:
    """(magnitudes, codes) of the non-negative finite codes, sorted by magnitude."""
    table = decode_table(fmt)
    codes = np.arange(1 << (fmt.bits - 1))
    keep = np.isfinite(table[codes])
    return table[codes][keep], codes[keep]


def decode(bits: np.ndarray, fmt: MiniFloat) -> np.ndarray:
    return decode_table(fmt)[bits.astype(np.int64)].astype(np.float32)


def _nan_code(fmt: MiniFloat) -> int:
    """The code a NaN (or, without saturation, an overflow) encodes to, sign bit clear."""
    if fmt.uz:
        return 1 << (fmt.bits - 1)
    if fmt.fn_nan:
        return (1 << (fmt.bits - 1)) - 1  # the only NaN: all exponent and mantissa bits set
    if fmt.ieee_nan:
        # The canonical quiet NaN: only the top mantissa bit set (float32's 0x7FC00000
        # narrowed), what the standard's test data holds for float8e5m2 (0x7E).
        top = (1 << fmt.exponent_bits) - 1
        return (top << fmt.mantissa_bits) | (1 << (fmt.mantissa_bits - 1))
    # No NaN in the format: the standard's test data (Cast to float4e2m1) maps NaN to -0.
    return 1 << (fmt.bits - 1)


def _sign_bits(x: np.ndarray, fmt: MiniFloat) -> np.ndarray:
    """The sign bit of each value, placed where the format keeps it."""
    return np.where(np.signbit(x), 1 << (fmt.bits - 1), 0)


def encode(values: np.ndarray, fmt: MiniFloat, *, saturate: bool) -> np.ndarray:
    """Codes (uint8) nearest to ``values`` (float32/float64)."""
    x = np.asarray(values, dtype=np.float64)
    magnitudes, codes = _positive(fmt)
    largest = magnitudes[-1]
    no_specials = not (fmt.has_inf or fmt.fn_nan or fmt.ieee_nan or fmt.uz)
    if saturate or no_specials:
        x = np.clip(x, -largest, largest)  # saturation, as the Cast spec defines it (NaN kept)
    magnitude = np.abs(x)
    finite = np.isfinite(magnitude)
    safe = np.where(finite, magnitude, 0.0)
    index = np.clip(np.searchsorted(magnitudes, safe), 1, len(magnitudes) - 1)
    low, high = magnitudes[index - 1], magnitudes[index]
    low_code, high_code = codes[index - 1], codes[index]
    choose_high = (safe - low > high - safe) | ((safe - low == high - safe) & (high_code % 2 == 0))
    result = np.where(choose_high, high_code, low_code)
    # Beyond the largest value: round to it below the midpoint to the next (unrepresentable) step.
    step = largest - magnitudes[-2]
    midpoint = largest + step / 2
    largest_code = codes[-1]
    overflow = (safe > midpoint) | ((safe == midpoint) & (largest_code % 2 == 1))
    result = np.where(safe >= largest, largest_code, result)
    sign = np.signbit(x) & (result != 0) if fmt.uz else np.signbit(x)
    result = result | np.where(sign, 1 << (fmt.bits - 1), 0)
    if fmt.has_inf:
        inf_code = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
        result = np.where(overflow | ~finite, inf_code | _sign_bits(x, fmt), result)
    elif not no_specials:
        # Without saturation an overflow or infinity is NaN; the fn formats have a NaN of
        # each sign and keep the value's (-inf to 0xFF for float8e4m3fn, as the standard's
        # table and onnxruntime do); the fnuz formats have a single NaN.
        nan_code = _nan_code(fmt) if fmt.uz else _nan_code(fmt) | _sign_bits(x, fmt)
        result = np.where(overflow | ~finite, nan_code, result)
    nan = np.isnan(x)
    if nan.any():
        keeps_sign = not fmt.uz and not no_specials
        sign_bits = _sign_bits(x, fmt) if keeps_sign else 0
        result = np.where(nan, _nan_code(fmt) | sign_bits, result)
    return result.astype(np.uint8)
