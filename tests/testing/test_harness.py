"""The harness finds every kind of disagreement it claims to, and nothing on correct nodes.

Faults are injected by replacing one rule or one kernel for the duration of a test; the
expectations are worked out by hand from the ONNX definitions of Relu and Add.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest

from onnxcraft.core.opinfo import op_info
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.numerics import from_float32
from onnxcraft.ops.kernel_api import KernelEntry
from onnxcraft.testing import (
    CaseFailure,
    Input,
    NodeCase,
    build_model,
    check_case,
    compare_backends,
    evaluate_case,
    infer_case,
    problems,
)
from onnxcraft.testing.harness import describe_value
from onnxcraft.types import Tensor

X = np.array([[-1.0, 2.0, 0.5], [3.0, -4.0, 0.0]], dtype=np.float32)


def tensor_input(value: Any, *, constant: bool = False, declared: Any = None) -> Input:
    """An input holding ``value`` as a tensor of its exact type."""
    array = np.asarray(value)
    return Input(array, Tensor(element_type_of(array.dtype), array.shape), constant, declared)


def relu(declared: Any = None) -> NodeCase:
    return NodeCase("", "Relu", 14, (tensor_input(X, declared=declared),))


@pytest.fixture
def relu_rule(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Replace Relu-14's inference rule with the function the test passes."""
    engine = importlib.import_module("onnxcraft.infer.engine")
    relu_14 = op_info("", "Relu", 14)
    original = engine.rule_for

    def install(rule: Any) -> None:
        def rule_for(op: Any) -> Any:
            return rule if op is relu_14 else original(op)

        monkeypatch.setattr(engine, "rule_for", rule_for)

    return install


@pytest.fixture
def relu_kernel(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Replace Relu-14's kernel with the function the test passes."""
    registry = importlib.import_module("onnxcraft.evaluate.kernels").default_registry()
    original = registry.lookup

    def install(fn: Any) -> None:
        def lookup(domain: str, op_type: str, since: int) -> KernelEntry | None:
            if (domain, op_type, since) == ("", "Relu", 14):
                return KernelEntry(domain, op_type, since, fn, False)
            return original(domain, op_type, since)

        monkeypatch.setattr(registry, "lookup", lookup)

    return install


def test_a_correct_node_has_no_problems() -> None:
    assert problems(relu()) == []
    assert evaluate_case(relu())[0].tolist() == [[0.0, 2.0, 0.5], [3.0, 0.0, 0.0]]
    assert infer_case(relu()) == [Tensor(ElementType.FLOAT, (2, 3))]


def test_a_wrong_static_dim_is_found(relu_rule: Any) -> None:
    relu_rule(lambda ctx: [Tensor(ElementType.FLOAT, (2, 4))])
    (found,) = problems(relu())
    assert found.startswith("output 0: inferred tensor(float)[2, 4], got tensor(float)[2, 3]")
    assert found.endswith("(dim 1 differs)")


def test_wrong_rank_and_element_type_are_found(relu_rule: Any) -> None:
    relu_rule(lambda ctx: [Tensor(ElementType.DOUBLE, (6,))])
    found = problems(relu())
    assert any("element type differs" in p for p in found)
    assert any("rank differs" in p for p in found)


def test_unknown_dims_are_allowed(relu_rule: Any) -> None:
    relu_rule(lambda ctx: [Tensor(ElementType.FLOAT, (None, "fresh"))])
    assert problems(relu()) == []


def test_a_symbol_bound_by_the_inputs_must_keep_its_value(relu_rule: Any) -> None:
    declared = Tensor(ElementType.FLOAT, ("rows", "cols"))
    relu_rule(lambda ctx: [Tensor(ElementType.FLOAT, ("cols", "rows"))])  # swapped
    found = problems(relu(declared))
    assert any("symbol 'cols', which the inputs bind to 3" in p for p in found)


def test_a_fresh_symbol_must_stand_for_one_value(relu_rule: Any) -> None:
    relu_rule(lambda ctx: [Tensor(ElementType.FLOAT, ("n", "n"))])  # 2 and 3: not one value
    assert any("symbol 'n' stands for 2 elsewhere" in p for p in problems(relu()))


def test_a_rule_that_raises_on_a_valid_node_is_reported(relu_rule: Any) -> None:
    def broken(ctx: Any) -> list[Any]:
        raise ctx.fail("refuses everything")

    relu_rule(broken)
    assert any(
        p.startswith("inference fails on a valid node") and "refuses everything" in p
        for p in problems(relu())
    )


def test_a_kernel_output_type_outside_the_binding_is_found(relu_kernel: Any) -> None:
    relu_kernel(lambda x: np.maximum(x, 0).astype(np.float64))
    found = problems(relu())
    assert any("the inputs bind T to tensor(float)" in p for p in found)


def test_a_crashing_kernel_is_reported_as_a_crash(relu_kernel: Any) -> None:
    def crash(x: Any) -> Any:
        return x[99]

    relu_kernel(crash)
    found = problems(relu())
    assert found and "IndexError" in found[0]


def test_an_operator_without_a_kernel_fails_clearly() -> None:
    case = NodeCase("my.domain", "Frobnicate", 1, (tensor_input(X),))
    found = problems(case)
    assert found and found[0].startswith("no kernel:") and "Frobnicate" in found[0]


def test_an_invalid_node_is_rejected_by_the_evaluator_and_the_rule() -> None:
    case = NodeCase(
        "", "Add", 14, (tensor_input(np.ones(2, np.float32)), tensor_input(np.ones(3, np.float32)))
    )
    found = problems(case)
    assert any(p.startswith("the evaluator rejects a valid node") for p in found)
    assert any(p.startswith("inference fails on a valid node") for p in found)


def test_check_case_raises_with_the_description(relu_rule: Any) -> None:
    relu_rule(lambda ctx: [Tensor(ElementType.FLOAT, (9, 3))])
    with pytest.raises(CaseFailure) as raised:
        check_case(relu())
    text = str(raised.value)
    assert text.startswith("ai.onnx::Relu-14 (opset 14)")
    assert "input 0: tensor(float)[2, 3]" in text and "dim 0 differs" in text


def test_build_model_writes_constants_omitted_inputs_and_captured_values() -> None:
    three = np.float32(3)
    case = NodeCase(
        "",
        "Clip",
        13,
        (tensor_input(X), None, tensor_input(three, constant=True)),
        outputs=(True,),
        captured=(tensor_input(X),),
    )
    model, feeds = build_model(case)
    node = model.graph.nodes[0]
    assert node.inputs == ["in0", "", "in2"]
    assert [i.name for i in model.graph.inputs] == ["in0", "cap0"]
    assert [t.name for t in model.graph.initializers] == ["in2"]
    assert set(feeds) == {"in0", "cap0"}
    assert model.graph.outputs[0].type is None  # left for inference to fill
    assert evaluate_case(case)[0].tolist() == [[-1.0, 2.0, 0.5], [3.0, -4.0, 0.0]]


def test_trailing_omitted_inputs_and_outputs_are_not_written() -> None:
    case = NodeCase("", "Clip", 13, (tensor_input(X), None, None))
    model, _ = build_model(case)
    assert model.graph.nodes[0].inputs == ["in0"]


def test_low_precision_values_are_described_by_value() -> None:
    array = from_float32(np.array([1.5, -2.0], np.float32), ElementType.BFLOAT16)
    assert describe_value(array) == "tensor(bfloat16)[2] = [ 1.5 -2. ]"


def _onnxruntime(model: Any, feeds: dict[str, Any]) -> list[Any]:
    session = ort.InferenceSession(model.SerializeToString())
    return list(session.run(None, feeds))


def test_compare_backends_agrees_with_onnxruntime_on_add() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([0.5, -1.0, 2.0], np.float32)
    compare_backends(NodeCase("", "Add", 14, (tensor_input(a), tensor_input(b))), _onnxruntime)


def test_compare_backends_reports_a_backend_that_differs() -> None:
    def off_by_one(model: Any, feeds: dict[str, Any]) -> list[Any]:
        return [out + 1 for out in _onnxruntime(model, feeds)]

    with pytest.raises(AssertionError, match="output 0"):
        compare_backends(relu(), off_by_one)


def test_compare_backends_reports_a_different_element_type() -> None:
    def widening(model: Any, feeds: dict[str, Any]) -> list[Any]:
        return [out.astype(np.float64) for out in _onnxruntime(model, feeds)]

    with pytest.raises(CaseFailure, match=r"tensor\(float\)\[2, 3\].* vs backend tensor\(double\)"):
        compare_backends(relu(), widening)
