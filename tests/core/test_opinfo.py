"""OpInfo is an immutable record; what is looked up for it is memoized by the tables."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.core.opinfo import custom_op_info, op_info
from onnxcraft.infer.rules import default_rules, rule_for
from onnxcraft.opset.ai.onnx import v21 as op


def test_op_info_is_frozen() -> None:
    info = op_info("", "Gemm", 13)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.since_version = 11  # type: ignore[misc]


def test_required_attributes_are_computed_with_the_record() -> None:
    info = op_info("", "Cast", 21)
    assert [a.name for a in info.required_attributes] == ["to"]
    assert info.required_attributes is op_info("", "Cast", 21).required_attributes
    assert custom_op_info("my.domain", "Op", 1, 1).required_attributes == ()


def test_the_rule_table_memoizes_its_lookup_per_operator_version() -> None:
    info = op_info("", "Relu", 14)
    assert rule_for(info) is default_rules().lookup("", "Relu", 14)
    assert rule_for(info) is rule_for(info)


def test_each_call_of_a_function_has_its_own_operator_record() -> None:
    @oc.function("my.domain", "Twice")
    def twice(x: oc.Var) -> oc.Var:
        return op.Add(x, x)

    a = twice(oc.arg("a", np.float32, (2,)))
    b = twice(oc.arg("b", np.float32, (3,)))
    assert a.producer is not None and b.producer is not None
    assert a.producer.op is not b.producer.op
    assert a.producer.op.function is b.producer.op.function is twice
    assert (a.shape, b.shape) == ((2,), (3,))
