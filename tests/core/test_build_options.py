"""``oc.build``: its options, what the model holds, naming, determinism and the errors.

tests/core/test_build.py covers the basics; the oracles here are onnx's own shape inference
(for value_info), ``onnx.helper.find_min_ir_version_for`` (for the IR version of an opset)
and onnx.proto's Version enum (for the IR version of a feature).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onnxcraft as oc
from onnxcraft.core.versions import DEFAULT_OPSET
from onnxcraft.opset.ai.onnx import v8, v13, v17, v21
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v3 as ml3
from onnxcraft.opset.ai.onnx.ml import v5 as ml5
from tests.core.oracle import onnx_model, verify

F32 = np.float32
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _rich_model(*, node_names: bool = False) -> Any:
    """A model with an initializer, a named value, a subgraph and a function."""

    @oc.function("my.fn", "Double")
    def double(x: oc.Var) -> oc.Var:
        return op.Add(x, x)

    X = oc.arg("X", F32, ("N", 3))
    C = oc.arg("C", np.bool_, ())
    hidden = op.Relu(op.MatMul(X, np.ones((3, 3), F32))).named("hidden")

    def then() -> list[oc.Var]:
        t = op.Add(op.Neg(hidden), 1.0).named("inner")
        return [op.Mul(t, t)]

    (y,) = op.If(C, then_branch=then, else_branch=lambda: [op.Sigmoid(hidden)])
    return oc.build(
        [X, C],
        {"z": double(op.Add(y, op.Tanh(y)))},
        name="rich",
        value_info=True,
        node_names=node_names,
    )


def _graphs(graph: onnx.GraphProto) -> list[onnx.GraphProto]:
    found = [graph]
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                found.extend(_graphs(attr.g))
    return found


def test_every_option_is_written() -> None:
    X = oc.arg("X", F32, (2,))
    proto = onnx_model(
        oc.build(
            [X],
            {"y": v13.Neg(X)},  # Neg-13 is also the Neg of opset 14
            name="g",
            doc_string="what it does",
            opset={"ai.onnx": 14},  # "ai.onnx" is the default domain
            ir_version=9,
            metadata={"author": "me", "license": "MIT"},
            producer_name="converter",
            producer_version="2.1",
            model_version=7,
            domain="org.example",
        )
    )
    assert proto.graph.name == "g" and proto.doc_string == "what it does"
    assert [(o.domain, o.version) for o in proto.opset_import] == [("", 14)]
    assert proto.ir_version == 9 and proto.model_version == 7 and proto.domain == "org.example"
    assert (proto.producer_name, proto.producer_version) == ("converter", "2.1")
    assert {p.key: p.value for p in proto.metadata_props} == {"author": "me", "license": "MIT"}
    onnx.checker.check_model(proto, full_check=True)


def test_defaults() -> None:
    X = oc.arg("X", F32, (2,))
    proto = onnx_model(oc.build([X], {"y": op.Relu(X)}))
    assert proto.graph.name == "main_graph" and proto.producer_name == "onnxcraft"
    assert proto.producer_version == oc.__version__ and proto.model_version == 0
    assert not proto.metadata_props and proto.domain == ""


def test_opset_mapping_sets_other_domains() -> None:
    X = oc.arg("X", F32, (2,))
    model = oc.build([X], {"y": ml3.Binarizer(v17.Relu(X))}, opset={"ai.onnx.ml": 4, "": 18})
    proto = onnx_model(model)
    assert {(o.domain, o.version) for o in proto.opset_import} == {("", 18), ("ai.onnx.ml", 4)}
    assert proto.ir_version == onnx.helper.find_min_ir_version_for(list(proto.opset_import))
    verify(model, {"X": np.array([-1, 2], F32)}, {"y": np.array([0, 1], F32)})


@pytest.mark.parametrize("module", [v8, v13, v17, v21], ids=lambda m: m.__name__[-3:])
def test_lowest_ir_version_follows_onnx_release_table(module: Any) -> None:
    X = oc.arg("X", F32, (2,))
    proto = onnx_model(oc.build([X], {"y": module.Add(X, 1.0)}))  # an initializer too
    lowest = onnx.helper.find_min_ir_version_for(list(proto.opset_import))
    assert proto.ir_version == max(lowest, 4)  # IR 3 lists initializers among the inputs
    onnx.checker.check_model(proto, full_check=True)


@pytest.mark.parametrize(
    ("value_type", "ir_version"),
    [
        (oc.Tensor(oc.ElementType.BFLOAT16, (2,)), 4),
        (oc.Optional(oc.Tensor(F32, (2,))), 8),
        (oc.Tensor(oc.ElementType.FLOAT8E4M3FN, (2,)), 9),
        (oc.Tensor(oc.ElementType.INT4, (2,)), 10),
        (oc.Tensor(oc.ElementType.FLOAT4E2M1, (2,)), 11),
        (oc.Tensor(oc.ElementType.FLOAT8E8M0, (2,)), 12),
        (oc.Tensor(oc.ElementType.INT2, (2,)), 13),
    ],
    ids=["bfloat16", "optional", "float8e4m3fn", "int4", "float4e2m1", "float8e8m0", "int2"],
)
def test_types_raise_the_ir_version(value_type: Any, ir_version: int) -> None:
    """The IR versions of onnx.proto's Version enum; a custom operator adds no opset needs."""
    X = oc.arg("X", value_type)
    (y,) = oc.custom_op("Copy", X, domain="my.ext", infer=lambda types, attrs: [types[0]])
    proto = onnx_model(oc.build([X], {"y": y}))
    assert proto.ir_version == ir_version
    onnx.checker.check_model(proto, full_check=True)
    oc.check(proto)


def test_functions_need_ir_8() -> None:
    @oc.function("my.fn", "Neg")
    def neg(x: oc.Var) -> oc.Var:
        return v13.Neg(x)

    X = oc.arg("X", F32, (2,))
    proto = onnx_model(oc.build([X], {"y": neg(X)}))
    assert [(o.domain, o.version) for o in proto.opset_import] == [("", 13), ("my.fn", 1)]
    assert proto.ir_version == 8  # opset 13 alone needs 7


def test_a_model_without_nodes_still_imports_an_opset() -> None:
    X = oc.arg("X", F32, (2,))
    model = oc.build([X], {"X": X})
    assert onnx_model(model).opset_import  # IR.md: at least one opset import
    verify(model, {"X": np.ones(2, F32)}, {"X": np.ones(2, F32)})


def test_ir_version_errors() -> None:
    X = oc.arg("X", F32, (2,))
    with pytest.raises(oc.BuildError, match=r"ir_version=7 is too old .* needs at least 10"):
        oc.build([X], {"y": op.Relu(X)}, ir_version=7)
    with pytest.raises(oc.BuildError, match=r"ir_version=99 is newer than the latest \(14\)"):
        oc.build([X], {"y": op.Relu(X)}, ir_version=99)


def test_an_opset_override_that_changes_an_operator_is_an_error() -> None:
    X = oc.arg("X", F32, (2,))
    with pytest.raises(
        oc.BuildError,
        match=r"a Neg node was built with version 13 .* at the model's ai.onnx "
        r"opset 10 Neg is version 6",
    ):
        oc.build([X], {"y": op.Neg(X)}, opset=10)


def test_mixing_in_an_operator_that_a_newer_opset_removes_says_so() -> None:
    # ai.onnx.ml 5 deprecates TreeEnsembleRegressor (for TreeEnsemble): the error says it is
    # removed there, not that it "is version 5".
    X = oc.arg("X", F32, ("N", 1))
    old = ml3.TreeEnsembleRegressor(
        X,
        n_targets=1,
        nodes_treeids=[0],
        nodes_nodeids=[0],
        nodes_modes=["LEAF"],
        target_treeids=[0],
        target_nodeids=[0],
        target_ids=[0],
        target_weights=[1.0],
    )
    scaled = ml5.Scaler(X, scale=[2.0])
    with pytest.raises(
        oc.BuildError,
        match=r"ai.onnx.ml opset 5 TreeEnsembleRegressor is deprecated \(removed by version 5; "
        r"keep ai.onnx.ml below opset 5\)",
    ):
        oc.build([X], {"old": old, "scaled": scaled})


# -- what the graph holds --------------------------------------------------------------------------


def test_value_info_matches_onnx_shape_inference() -> None:
    proto = onnx_model(_rich_model())
    stripped = onnx.ModelProto()
    stripped.CopyFrom(proto)
    for graph in _graphs(stripped.graph):
        del graph.value_info[:]
    inferred = onnx.shape_inference.infer_shapes(stripped, strict_mode=True)
    for ours, theirs in zip(_graphs(proto.graph), _graphs(inferred.graph)):
        assert {v.name: v.type for v in ours.value_info} == {
            v.name: v.type for v in theirs.value_info
        }, ours.name
    assert {v.name for v in proto.graph.value_info} >= {"hidden"}


def test_nodes_are_topologically_sorted_and_only_reachable_ones_kept() -> None:
    X = oc.arg("X", F32, (2,))
    a = op.Relu(X)
    b = op.Neg(X)
    unused = op.Exp(a)  # reachable from nothing
    top = op.Add(op.Mul(b, a), op.Sub(a, b))  # a diamond, built out of order
    del unused
    graph = onnx_model(oc.build([X], {"y": top})).graph
    assert sorted(n.op_type for n in graph.node) == ["Add", "Mul", "Neg", "Relu", "Sub"]
    defined = {"X"}
    for node in graph.node:
        assert all(i in defined for i in node.input), node.name
        defined.update(node.output)


def test_names_are_unique_readable_c_identifiers_everywhere() -> None:
    proto = onnx_model(_rich_model(node_names=True))
    values: list[str] = []
    nodes: list[str] = []
    graphs = _graphs(proto.graph)
    for graph in graphs:
        values += [i.name for i in graph.input] + [t.name for t in graph.initializer]
        values += [o for n in graph.node for o in n.output]
        nodes += [n.name for n in graph.node]
    # A function body is a namespace apart, its nodes unnamed (node_names is the graphs').
    function_nodes = [n.name for f in proto.functions for n in f.node]
    assert function_nodes and not any(function_nodes)
    for name in values + nodes + [g.name for g in graphs]:
        assert IDENTIFIER.fullmatch(name), name
    assert len(set(values)) == len(values) and len(set(nodes)) == len(nodes)
    assert len({g.name for g in graphs}) == len(graphs)
    assert {"hidden", "inner", "z"} <= set(values)


def test_rebuilding_gives_identical_bytes() -> None:
    assert _rich_model().SerializeToString() == _rich_model().SerializeToString()


def test_outputs_as_a_list_or_a_single_var_use_the_vars_names() -> None:
    X = oc.arg("X", F32, (2,))
    single = onnx_model(oc.build([X], op.Neg(X).named("neg")))
    listed = onnx_model(oc.build([X], [op.Neg(X).named("a"), op.Relu(X).named("b")]))
    assert [o.name for o in single.graph.output] == ["neg"]
    assert [o.name for o in listed.graph.output] == ["a", "b"]


def test_one_value_under_two_output_names() -> None:
    X = oc.arg("X", F32, (2,))
    r = op.Relu(X).named("h")
    model = oc.build([X], {"h": r, "y": r})
    expected = np.array([0, 1], F32)
    verify(model, {"X": np.array([-1, 1], F32)}, {"h": expected, "y": expected})


# -- misuse -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda x: oc.build([x], {}), r"a model needs at least one output"),
        (lambda x: oc.build([x], {"y": 1.0}), r"output 'y' must be a Var, got float"),
        (lambda x: oc.build([x], [op.Neg(x)]), r"output 0 has no name; pass outputs as a dict"),
        (lambda x: oc.build([x, x], {"y": op.Neg(x)}), r"input 'X' is listed twice"),
        (
            lambda x: oc.build([op.Neg(x)], {"y": op.Neg(x)}),
            r"input 0 must be a graph input made with oc.arg, got "
            r"Var\(tensor\(float\)\[2\], from Neg\)",
        ),
        (lambda x: oc.build([x], {"": op.Neg(x)}), r"output names must be non-empty strings"),
        (
            lambda x: oc.build([x], {"X": op.Neg(x)}),
            r"output name 'X' is already the name of another value \(Var\(X",
        ),
        (
            lambda x: oc.build([x], {"h": op.Neg(x), "y": op.Relu(x).named("h")}),
            r"output name 'h' is already the name of another value \(Var\(h",
        ),
        (
            lambda x: oc.build([x], {"y": op.Add(op.Neg(x).named("s"), op.Relu(x).named("s"))}),
            r"the name 's' is given to two different values",
        ),
        (lambda x: oc.build([x], {"y": op.Neg(x)}, name=""), r"name must be a non-empty str"),
        (
            lambda x: oc.build([x], {"y": op.Neg(x)}, metadata={"a": 1}),
            r"metadata maps str to str, got 'a': 1 \(str: int\)",
        ),
        (
            lambda x: oc.build([x], {"y": op.Add(x, oc.arg("Z", F32, (2,)))}),
            r"the outputs depend on input 'Z', which is not listed in inputs",
        ),
    ],
    ids=[
        "no outputs",
        "output not a Var",
        "unnamed listed output",
        "input twice",
        "input not an arg",
        "empty output name",
        "output named like an input",
        "output named like a named value",
        "one name for two values",
        "empty graph name",
        "metadata not str",
        "unlisted input",
    ],
)
def test_build_errors(call: Any, message: str) -> None:
    with pytest.raises(oc.BuildError, match=message):
        call(oc.arg("X", F32, (2,)))


def test_named_errors() -> None:
    X = oc.arg("X", F32, (2,))
    with pytest.raises(oc.BuildError, match=r"named\(\): expected a non-empty str, got ''"):
        op.Neg(X).named("")
    with pytest.raises(oc.BuildError, match=r"named\(\): the input 'X' cannot be renamed"):
        X.named("Y")


def test_onnx_helper_reads_the_model() -> None:
    """The model is a plain ModelProto for onnx's tools too."""
    proto = onnx_model(_rich_model())
    text = onnx.printer.to_text(proto)
    assert "my.fn" in text and "hidden" in text
    assert onnx.parser.parse_model(text).graph.name == "rich"


def test_a_model_with_no_operator_gets_the_default_opset_and_its_ir_version() -> None:
    # It got opset 1 and IR version 3, which onnxruntime warns about.
    X = oc.arg("X", np.float32, (2,))
    for outputs in ({"X": X}, {"Y": X}):
        proto = onnx_model(oc.build([X], outputs))
        assert [(o.domain, o.version) for o in proto.opset_import] == [("", DEFAULT_OPSET)]
        assert proto.ir_version == 10  # the IR version released with opset 21
        session = ort.InferenceSession(proto.SerializeToString())
        x = np.array([1.0, 2.0], np.float32)
        np.testing.assert_array_equal(session.run(None, {"X": x})[0], x)
