"""Arrays of the ml_dtypes package (what onnx's numpy_helper returns for bfloat16, float8 ...)
read as onnxcraft's representation of the same element type, value for value."""

from __future__ import annotations

import numpy as np
import pytest

from onnxcraft.dtypes import ElementType, as_representation, element_type_of, numpy_dtype
from onnxcraft.numerics import to_float32

ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes comes with onnx, a test oracle")

TYPES = {
    "bfloat16": ElementType.BFLOAT16,
    "float8_e4m3fn": ElementType.FLOAT8E4M3FN,
    "float8_e4m3fnuz": ElementType.FLOAT8E4M3FNUZ,
    "float8_e5m2": ElementType.FLOAT8E5M2,
    "float8_e5m2fnuz": ElementType.FLOAT8E5M2FNUZ,
    "float8_e8m0fnu": ElementType.FLOAT8E8M0,
    "float4_e2m1fn": ElementType.FLOAT4E2M1,
    "float6_e2m3fn": ElementType.FLOAT6E2M3,
    "float6_e3m2fn": ElementType.FLOAT6E3M2,
    "int4": ElementType.INT4,
    "uint4": ElementType.UINT4,
    "int2": ElementType.INT2,
    "uint2": ElementType.UINT2,
}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_every_value_reads_the_same(name: str) -> None:
    dtype = np.dtype(getattr(ml_dtypes, name))
    # Every code of the type: its bits, as ml_dtypes stores them.
    codes = np.arange(2 ** (8 * dtype.itemsize), dtype=f"u{dtype.itemsize}")
    if "int" in name or name.startswith(("float4", "float6")):
        codes = codes[: 2 ** (int(name[-1]) if "int" in name else int(name[5]))]
    values = codes.view(dtype)
    ours = as_representation(values)
    assert element_type_of(values) == TYPES[name]
    assert ours.dtype == numpy_dtype(TYPES[name])
    np.testing.assert_array_equal(to_float32(ours), values.astype(np.float32))


def test_a_scalar_and_other_arrays() -> None:
    scalar = ml_dtypes.bfloat16(1.5)
    assert to_float32(as_representation(scalar)).tolist() == 1.5
    plain = np.arange(3, dtype=np.float32)
    assert as_representation(plain) is plain


def test_arrays_of_ml_dtypes_are_taken_as_literals_and_tensors() -> None:
    import onnxcraft as oc
    from onnxcraft.opset.ai.onnx import v21 as op

    weights = np.array([1.5, -2.0, 0.25], dtype=ml_dtypes.float8_e5m2)
    tensor = oc.from_array(weights)
    assert tensor.data_type == ElementType.FLOAT8E5M2
    np.testing.assert_array_equal(to_float32(oc.to_array(tensor)), [1.5, -2.0, 0.25])
    x = oc.arg("X", np.float32, (3,))
    model = oc.build([x], {"Y": op.Add(x, op.Cast(weights, to=np.float32))})
    out = oc.evaluate(model, {"X": np.ones(3, np.float32)})["Y"]
    np.testing.assert_array_equal(out, [2.5, -1.0, 1.25])


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "int4"])
def test_feeds_of_ml_dtypes_evaluate_like_onnxcrafts_own(name: str) -> None:
    import onnxcraft as oc
    from onnxcraft.opset.ai.onnx import v21 as op

    elem = TYPES[name]
    values = np.array([1.0, -2.0, 3.0], dtype=np.float32).astype(getattr(ml_dtypes, name))
    x = oc.arg("X", elem, (3,))
    model = oc.build([x], {"Y": op.Cast(x, to=np.float32), "Z": op.Identity(x)})
    out = oc.evaluate(model, {"X": values})
    np.testing.assert_array_equal(out["Y"], values.astype(np.float32))
    assert out["Z"].dtype == numpy_dtype(elem)  # results come in onnxcraft's representation
