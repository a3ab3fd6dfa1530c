"""Data propagation: shape-like values (known or symbolic) flow into the shapes they decide.

Each case builds a model whose inputs have symbolic dims and states the type it expects; the
expectation is checked three ways: the DSL infers it while building, ``oc.infer_shapes`` infers
it for the saved model, and onnxruntime, fed concrete sizes for the symbols, computes values of
exactly that shape. A dim that is not determined (``N * 4`` has no name) must stay unknown.
The `_expanded` node tests (function bodies spelled out as graphs) are then held against
onnx's own data propagation: wherever onnx infers an output fully static, so must onnxcraft.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import shape_inference

import onnxcraft as oc
from onnxcraft.core.opinfo import op_info
from onnxcraft.infer.model import infer_through_body
from onnxcraft.ops.infer_api import SymbolicValue
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Dim, Tensor
from tests.infer._shape_oracle import bind, contradiction, inferred_output_types, is_static, run
from tests.node_cases import case_names, load_case, node_tests_root

SIZES = {"N": 3, "B": 2, "T": 5}
I64 = np.int64


@dataclass
class Case:
    inputs: list[oc.Var]
    output: oc.Var
    expected: tuple[Dim, ...]


def _arg(name: str, shape: tuple[Dim, ...], dtype: Any = np.float32) -> oc.Var:
    return oc.arg(name, dtype, shape)


def _first_dim(x: oc.Var) -> oc.Var:
    return op.Shape(x, start=0, end=1)


def reshape_keeps_symbol() -> Case:
    x = _arg("X", ("N", 4, 6))
    target = op.Concat(op.Gather(op.Shape(x), np.array([0], I64)), np.array([-1], I64), axis=0)
    return Case([x], op.Reshape(x, target), ("N", 24))


def reshape_solves_minus_one_through_symbols() -> Case:
    x = _arg("X", ("N", 4))
    target = op.Concat(
        op.Slice(op.Shape(x), np.array([1], I64), np.array([2], I64)), np.array([-1], I64), axis=0
    )
    return Case([x], op.Reshape(x, target), (4, "N"))


def reshape_copies_with_zero() -> Case:
    x = _arg("X", ("N", 4, 6))
    return Case([x], op.Reshape(x, np.array([0, -1, 2], I64)), ("N", 12, 2))


def reshape_does_not_name_a_product() -> Case:
    x = _arg("X", ("N", 4))
    return Case([x], op.Reshape(x, np.array([-1], I64)), (None,))


def range_to_symbol() -> Case:
    x = _arg("X", ("N", 2))
    limit = op.Squeeze(_first_dim(x), np.array([0], I64))
    return Case([x], op.Range(np.int64(0), limit, np.int64(1)), ("N",))


def constant_of_shape_of_shape() -> Case:
    x = _arg("X", ("B", "T", 4))
    return Case([x], op.ConstantOfShape(op.Shape(x, start=1)), ("T", 4))


def expand_to_symbol() -> Case:
    x = _arg("X", ("N", 2))
    shape = op.Concat(_first_dim(x), np.array([3], I64), axis=0)
    return Case([x], op.Expand(np.ones((1, 1), np.float32), shape), ("N", 3))


def tile_by_symbol() -> Case:
    x = _arg("X", ("N", 2))
    repeats = op.Concat(_first_dim(x), np.array([1], I64), axis=0)
    return Case([x], op.Tile(np.ones((1, 5), np.float32), repeats), ("N", 5))


def slice_to_symbolic_end() -> Case:
    x = _arg("X", ("N", 4))
    end = _first_dim(x)
    return Case([x], op.Slice(x, np.array([0], I64), end, np.array([0], I64)), ("N", 4))


def topk_k_from_shape() -> Case:
    y = _arg("Y", ("B", "T"))
    k = op.Shape(y, start=1, end=2)
    return Case([y], op.TopK(y, k)[0], ("B", "T"))


def arithmetic_identities_keep_symbols() -> Case:
    x = _arg("X", ("N", 2))
    n = _first_dim(x)
    same = op.Add(op.Mul(n, np.array([1], I64)), op.Sub(n, n))  # N * 1 + (N - N) = N
    wide = op.Cast(op.Cast(same, to=6), to=7)  # through int32 and back
    return Case([x], op.ConstantOfShape(op.Concat(wide, np.array([2], I64), axis=0)), ("N", 2))


def product_of_known_dims_is_folded() -> Case:
    x = _arg("X", ("N", 4, 6))
    inner = op.ReduceProd(op.Shape(x, start=1), keepdims=1)
    return Case([x], op.Reshape(x, op.Concat(np.array([-1], I64), inner, axis=0)), ("N", 24))


def where_and_equal_on_constants_are_folded() -> Case:
    x = _arg("X", (6, "T"))
    heads = np.array([3], I64)
    size = op.Where(op.Equal(heads, np.array([3], I64)), np.array([2], I64), np.array([1], I64))
    target = op.Concat(size, np.array([-1], I64), op.Shape(x, start=1), axis=0)
    return Case([x], op.Reshape(x, target), (2, 3, "T"))


def float_arithmetic_on_constants_is_folded() -> Case:
    x = _arg("X", (8, "T"))
    half = op.Cast(op.Floor(op.Div(np.array([8.0], np.float32), np.float32(2.0))), to=7)
    target = op.Concat(half, np.array([-1], I64), op.Shape(x, start=1), axis=0)
    return Case([x], op.Reshape(x, target), (4, 2, "T"))


def pad_with_computed_pads() -> Case:
    x = _arg("X", ("N", 3))
    one = op.Size(np.zeros(1, np.float32))  # a scalar 1 known through folding
    pads = op.Concat(
        np.array([0], I64), op.Unsqueeze(one, np.array([0], I64)), np.array([0, 2], I64), axis=0
    )
    return Case([x], op.Pad(x, pads), ("N", 6))


CASES: dict[str, Callable[[], Case]] = {
    fn.__name__: fn
    for fn in (
        reshape_keeps_symbol,
        reshape_solves_minus_one_through_symbols,
        reshape_copies_with_zero,
        reshape_does_not_name_a_product,
        range_to_symbol,
        constant_of_shape_of_shape,
        expand_to_symbol,
        tile_by_symbol,
        slice_to_symbolic_end,
        topk_k_from_shape,
        arithmetic_identities_keep_symbols,
        product_of_known_dims_is_folded,
        where_and_equal_on_constants_are_folded,
        float_arithmetic_on_constants_is_folded,
        pad_with_computed_pads,
    )
}


def _feeds(inputs: list[oc.Var]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    feeds = {}
    for var in inputs:
        assert var.shape is not None and var.dtype is not None
        shape = bind(var.shape, SIZES)
        feeds[str(var.name)] = rng.standard_normal(shape).astype(var.dtype)  # type: ignore[arg-type]
    return feeds


@pytest.mark.parametrize("name", sorted(CASES))
def test_propagated_shape(name: str) -> None:
    case = CASES[name]()
    assert case.output.shape == case.expected, f"DSL inferred {case.output.type}"
    model = oc.build(case.inputs, {"out": case.output})
    inferred = inferred_output_types(model)["out"]
    assert isinstance(inferred, Tensor) and inferred.shape == case.expected, inferred
    value = run(model, _feeds(case.inputs))["out"]
    assert contradiction("out", inferred, value, SIZES) is None
    if all(d is not None for d in case.expected):  # every dim named: the shape is exact
        assert value.shape == bind(case.expected, SIZES)


def test_symbolic_values_are_visible_on_vars() -> None:
    x = _arg("X", ("N", 4))
    shape = op.Shape(x)
    assert shape.value == SymbolicValue(("N", 4))
    assert op.Size(op.Shape(x, start=1)).value == 1  # a 1-element shape of 1 dim
    assert op.Gather(shape, np.array(1, I64)).value == 4
    # The number of outputs of Split can come from a value known only in part.
    parts = op.Split(op.Shape(x), np.array([1, 1], I64))
    assert len(parts) == 2 and parts[0].value == SymbolicValue(("N",))


def test_unknown_entries_are_never_guessed() -> None:
    x = _arg("X", ("N", None))
    dims = op.Shape(x)
    assert dims.value == SymbolicValue(("N", None))
    # -1 cannot be solved while an entry of the target is unknown: it could be 0 (a copy).
    target = op.Concat(np.array([-1], I64), op.Shape(x, start=1), axis=0)
    assert op.Reshape(x, target).shape == (None, None)
    assert op.Mul(dims, np.array([2], I64)).value is None  # 2 * N has no name


# -- function bodies ------------------------------------------------------------------------------


def test_an_operator_without_rule_is_inferred_through_its_body() -> None:
    # MeanVarianceNormalization-13 is defined by a function body: its output has X's type.
    mvn = op_info("", "MeanVarianceNormalization", 13)
    found = infer_through_body(mvn, [Tensor(np.float32, ("N", 3, 4, 5))], [None], {}, 1)
    assert found is not None
    types, _ = found
    assert types == [Tensor(np.float32, ("N", 3, 4, 5))]


def test_model_local_function_is_inferred_per_call() -> None:
    @oc.function("my.domain", "Flat")
    def flat(x: oc.Var) -> oc.Var:
        return op.Reshape(x, op.Concat(op.Shape(x, start=0, end=1), np.array([-1], I64), axis=0))

    x = _arg("X", ("N", 2, 3))
    y = _arg("Y", (4, 5))
    model = oc.build([x, y], {"a": flat(x), "b": flat(y)})
    inferred = inferred_output_types(model)
    assert inferred["a"] == Tensor(np.float32, ("N", 6))
    assert inferred["b"] == Tensor(np.float32, (4, 5))


# -- the expanded node tests against onnx's data propagation ----------------------------------


def _static_in_onnx(value_type: onnx.TypeProto) -> bool:
    if not value_type.HasField("tensor_type"):
        return False
    t = value_type.tensor_type
    dims = t.shape.dim
    return bool(t.elem_type) and t.HasField("shape") and all(d.HasField("dim_value") for d in dims)


EXPANDED = [name for name in case_names() if name.endswith("_expanded")]


def test_expanded_function_bodies_are_static_wherever_onnx_is() -> None:
    behind = []
    for name in EXPANDED:
        model = onnx.load(str(node_tests_root() / name / "model.onnx"))
        for output in model.graph.output:
            output.type.Clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = shape_inference.infer_shapes(model, data_prop=True)
        static = {o.name for o in theirs.graph.output if _static_in_onnx(o.type)}
        ours = inferred_output_types(model, strict=False)
        behind += [f"{name}: {o} is {ours[o]}" for o in static if not is_static(ours[o])]
    assert not behind, "\n".join(behind)


def test_intermediates_of_expanded_bodies_agree_with_onnxruntime() -> None:
    # Every value_info written for the inside of an expanded function body must fit the value
    # onnxruntime computes there: propagated and folded values decide many of these shapes.
    problems, checked = [], 0
    for name in EXPANDED:
        case = load_case(name)
        graph = model_from_proto(oc.infer_shapes(case.model)).graph
        inside = {v.name: v.type for v in graph.value_info if isinstance(v.type, Tensor)}
        model = onnx.load(str(node_tests_root() / name / "model.onnx"))
        declared = {o.name for o in model.graph.output}
        model.graph.output.extend(
            onnx.helper.make_empty_tensor_value_info(n) for n in inside if n not in declared
        )
        try:
            values = run(model, case.inputs)
        except Exception:  # onnxruntime lacks the operator version: nothing to compare with
            continue
        for value_name, inferred in inside.items():
            checked += 1
            found = contradiction(value_name, inferred, values.get(value_name))
            if found:
                problems.append(f"{name}: {found}")
    assert checked > 5000
    assert not problems, "\n".join(problems)
