"""The small floating-point formats of ONNX, described by their bit layout.

Every format here has at most 8 bits, so a codec is a 256-entry decode table plus a rounding
search over the representable values (see :mod:`onnxcraft.numerics.minifloat`).
"""

from __future__ import annotations

from dataclasses import dataclass

from onnxcraft.dtypes import ElementType

__all__ = ["FORMATS", "MiniFloat"]


@dataclass(frozen=True)
class MiniFloat:
    """Sign bit, ``exponent_bits`` exponent bits with ``bias``, ``mantissa_bits`` mantissa bits."""

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    has_inf: bool  # all-ones exponent with zero mantissa is infinity (IEEE style)
    ieee_nan: bool  # all-ones exponent with non-zero mantissa is NaN (IEEE style)
    fn_nan: bool  # only the all-ones code (per sign) is NaN: the "fn" formats
    uz: bool  # no negative zero: the code 1000...0 is the only NaN ("fnuz" formats)

    @property
    def bits(self) -> int:
        return 1 + self.exponent_bits + self.mantissa_bits


FORMATS: dict[ElementType, MiniFloat] = {
    ElementType.FLOAT8E4M3FN: MiniFloat("float8e4m3fn", 4, 3, 7, False, False, True, False),
    ElementType.FLOAT8E4M3FNUZ: MiniFloat("float8e4m3fnuz", 4, 3, 8, False, False, False, True),
    ElementType.FLOAT8E5M2: MiniFloat("float8e5m2", 5, 2, 15, True, True, False, False),
    ElementType.FLOAT8E5M2FNUZ: MiniFloat("float8e5m2fnuz", 5, 2, 16, False, False, False, True),
    ElementType.FLOAT4E2M1: MiniFloat("float4e2m1", 2, 1, 1, False, False, False, False),
    ElementType.FLOAT6E2M3: MiniFloat("float6e2m3", 2, 3, 1, False, False, False, False),
    ElementType.FLOAT6E3M2: MiniFloat("float6e3m2", 3, 2, 3, False, False, False, False),
}
