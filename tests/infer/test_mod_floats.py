"""Mod before version 28 takes the floored remainder (fmod=0) of integers only: a float input
needs fmod=1. The call and the full check refuse it; Mod-28 takes it."""

from __future__ import annotations

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v13, v28


def test_the_call_refuses_floored_floats_before_28() -> None:
    x = oc.arg("x", np.float32, (3,))
    with pytest.raises(oc.InferenceError, match=r"fmod=0 .* needs integer inputs at version 13"):
        v13.Mod(x, x)
    assert v13.Mod(x, x, fmod=1).type == oc.Tensor(np.float32, (3,))
    assert v28.Mod(x, x).type == oc.Tensor(np.float32, (3,))
    i = oc.arg("i", np.int32, (3,))
    assert v13.Mod(i, i).type == oc.Tensor(np.int32, (3,))


def test_the_full_check_refuses_a_model_from_elsewhere() -> None:
    model = oc.parse(
        '<ir_version: 10, opset_import: ["" : 13]>\n'
        "g (float[3] a, float[3] b) => (float[3] y) { y = Mod (a, b) }"
    )
    oc.check(model)  # the rules of the IR and the spec hold; the type rule needs inference
    with pytest.raises(oc.ValidationError, match="fmod=0"):
        oc.check(model, full_check=True)
