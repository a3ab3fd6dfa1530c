"""What ``run`` says about a value and how it names the files it writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper

from onnxcraft.cli.outputs import describe, write_values
from onnxcraft.dtypes import ElementType
from onnxcraft.numerics import from_float32


def test_describe() -> None:
    assert describe(np.array([1.0, np.nan, 3.0], np.float32)) == (
        "float32[3] (3 values): min 1, max 3, mean 2, 1 not finite"
    )
    bf16 = from_float32(np.array([1.5, -2.0], np.float32), ElementType.BFLOAT16)
    assert describe(bf16) == "bfloat16[2] (2 values): min -2, max 1.5, mean -0.25"
    assert describe(np.array(["a", "b"], dtype=object)) == "string[2]"
    assert describe(np.array(7, np.int64)) == "int64[]: min 7, max 7, mean 7"
    assert describe([np.zeros(2)]) == "sequence of 1"
    assert describe(None) == "none"


def test_file_names_are_safe_and_distinct(tmp_path: Path) -> None:
    values = {"a/b": np.zeros(2, np.float32), "a:b": np.ones(2, np.float32), "..x": [np.ones(1)]}
    written = write_values(values, str(tmp_path / "out"), "npy")
    assert [p.name for p in written] == ["a_b.npy", "a_b_1.npy", "x.pb"]
    np.testing.assert_array_equal(np.load(written[1]), np.ones(2, np.float32))
    sequence = onnx.SequenceProto.FromString(written[2].read_bytes())
    assert sequence.name == "..x"
    assert [onnx.numpy_helper.to_array(t).tolist() for t in sequence.tensor_values] == [[1.0]]
