"""``oc.infer_shapes``'s fast paths give exactly what the plain walk gives (issue 17).

The fast paths: the inference reader and writer (``proto/inference.py``) and the walker's
memory of node answers (``GraphInference.memo``). The reference is the path they replace:
the model read whole (``model_from_proto``), every node inferred anew (``memo = None``) and
the types written into a copy (``with_inferred_types``). Both must give the same bytes, the
same warnings in the same order, or the same error.

A sample of the node-test models and of their corrupted forms runs in the suite; every model
and a longer run of mutations with ``ONNXCRAFT_INFER_EQUIVALENCE=all``
(``python -m pytest tests/infer/test_fast_paths.py`` then takes a few minutes).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft import ir
from onnxcraft.core.opinfo import op_info
from onnxcraft.errors import InferenceError, OnnxcraftError
from onnxcraft.gcpause import gc_paused
from onnxcraft.infer.graph import GraphInference, InferenceWarning, _signed_zeros
from onnxcraft.io import model_proto
from onnxcraft.ops.conv.rules import general_conv_shape, static_conv_shape
from onnxcraft.ops.infer_api import InferenceContext
from onnxcraft.ops.shape.rules import general_concat, static_concat
from onnxcraft.ops.windows import static_window_output, window_attributes, window_output_shape
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto.serde import model_from_proto, model_to_proto, with_inferred_types
from onnxcraft.specs.registry import default_registry
from tests.infer._mutations import model_bytes, mutate
from tests.node_cases import case_names

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import zoo

EVERYTHING = os.environ.get("ONNXCRAFT_INFER_EQUIVALENCE") == "all"
CASES = case_names()
SAMPLE = CASES if EVERYTHING else CASES[::12]
MUTATION_SEEDS = range(3000) if EVERYTHING else range(0, 3000, 25)

Outcome = tuple[str, Any, list[str]]


def _reference(data: bytes, strict: bool) -> Any:
    """The plain path: whole model read, no node remembered, types written into a copy."""
    with gc_paused():
        proto = model_proto(data, what="infer_shapes: model")
        model = model_from_proto(proto)
        functions = {(f.domain, f.name): f for f in model.functions}
        runner = GraphInference(functions, model.opset_imports, strict)
        runner.memo = None
        if strict:
            runner.untyped_inputs(model.graph)
        runner.graph(model.graph, {}, {}, model.opset_imports)
        try:
            return with_inferred_types(proto, model) or model_to_proto(model)
        except UnicodeError as exc:  # as oc.infer_shapes reports it
            raise InferenceError(
                f"infer_shapes: model: a name is not valid UTF-8 and cannot be written back ({exc})"
            ) from None


def _outcome(infer: Any, data: bytes, strict: bool) -> Outcome:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InferenceWarning)
        try:
            result = infer(data, strict)
        except OnnxcraftError as exc:
            return ("error", f"{type(exc).__name__}: {exc}", [str(w.message) for w in caught])
    return ("ok", result.SerializeToString(), [str(w.message) for w in caught])


def _fast(data: bytes, strict: bool) -> Any:
    return oc.infer_shapes(data, strict=strict)


def assert_same(data: bytes) -> None:
    for strict in (False, True):
        expected = _outcome(_reference, data, strict)
        got = _outcome(_fast, data, strict)
        assert got[0] == expected[0], (strict, got[1], expected[1])
        assert got[2] == expected[2], strict  # the same warnings, in the same order
        assert got[1] == expected[1], strict  # the same bytes, or the same error


@pytest.mark.parametrize("case", SAMPLE)
def test_node_test_models(case: str) -> None:
    assert_same(model_bytes(case))


@pytest.mark.parametrize("seed", MUTATION_SEEDS)
def test_corrupted_models(seed: int) -> None:
    case = CASES[seed % len(CASES)]
    assert_same(mutate(case, seed) or model_bytes(case))  # None: the seed changed nothing


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_models(name: str) -> None:
    """Real models repeat blocks: most of their nodes are answered from memory."""
    model = zoo.MODELS[name](1)
    copy = oc.proto.ModelProto.FromString(model.SerializeToString())
    del copy.graph.value_info[:]
    assert_same(copy.SerializeToString())


def _chain() -> Any:
    x = oc.arg("x", np.float32, ("N", 16))
    y = x
    for i in range(50):
        y = op.Add(op.Mul(y, np.full(16, i, np.float32)), np.float32(i))
    return oc.build([x], {"y": y})


def test_repeated_nodes_are_answered_once() -> None:
    """A chain of alike nodes, each with a constant of its own: one rule call per kind."""
    model = model_from_proto(_chain())
    calls: list[str] = []
    runner = GraphInference({}, model.opset_imports, strict=False)
    original = runner._infer_node

    def counted(node: ir.Node, *args: Any) -> Any:
        calls.append(node.op_type)
        return original(node, *args)

    runner._infer_node = counted  # type: ignore[method-assign]
    runner.graph(model.graph, {}, {}, model.opset_imports)
    assert sorted(calls) == ["Add", "Mul"]
    assert model.graph.outputs[0].type == oc.Tensor(np.float32, ("N", 16))


def test_ir_models_match_without_memory() -> None:
    """An IR model (lists for list attributes) is inferred alike with and without memory."""
    model = zoo.MODELS["squeezenet"](1)
    copy = oc.proto.ModelProto.FromString(model.SerializeToString())
    del copy.graph.value_info[:]
    plain = model_from_proto(copy)
    remembered = oc.infer_shapes(plain)
    runner = GraphInference({}, plain.opset_imports, strict=False)
    runner.memo = None
    runner.graph(plain.graph, {}, {}, plain.opset_imports)
    assert (
        model_to_proto(remembered).SerializeToString() == model_to_proto(plain).SerializeToString()
    )


def test_signed_zero_attributes_are_told_apart() -> None:
    """Two Constant-free nodes differing only in the sign of a zero float attribute each get
    their own answer (equal as floats, not as values)."""
    assert _signed_zeros(0.0) != _signed_zeros(-0.0)
    assert _signed_zeros((1.0, -0.0)) != _signed_zeros((1.0, 0.0))
    assert _signed_zeros(2.5) == 2.5


def test_user_rules_are_never_remembered(tmp_path: Path) -> None:
    """A rule registered by the user is called for every node (it may count, or differ)."""
    domain = "test.fast_paths"
    folder = tmp_path / domain
    folder.mkdir()
    spec = {
        "domain": domain,
        "name": "Twice",
        "summary": "Doubles every element.",
        "versions": [
            {
                "since_version": 1,
                "inputs": [{"name": "X", "type": "T"}],
                "outputs": [{"name": "Y", "type": "T"}],
                "type_constraints": [{"name": "T", "allowed": ["tensor(float)"]}],
                "attributes": [],
            }
        ],
    }
    (folder / "Twice.json").write_text(json.dumps(spec))
    calls: list[int] = []

    def rule(types: list[Any], attributes: dict[str, Any]) -> list[Any]:
        calls.append(1)
        return [types[0]]

    try:
        ops = oc.load_opset(tmp_path)
        oc.register_rule(domain, "Twice", 1, rule)
        x = oc.arg("x", np.float32, (2,))
        model = oc.build([x], {"y": ops.Twice(ops.Twice(x))})
        calls.clear()
        oc.infer_shapes(model)
        assert len(calls) == 2
    finally:
        registry = default_registry()
        for root in registry.user_folders():
            registry.remove_folder(root)


def test_a_failing_node_warns_every_time() -> None:
    """Failures are not remembered: each alike node that fails warns, naming itself."""
    a = ir.ValueInfo("a", oc.Tensor(np.float32, (2, 3)))
    b = ir.ValueInfo("b", oc.Tensor(np.float32, (4, 5)))
    nodes = [ir.Node("Add", ["a", "b"], [f"y{i}"]) for i in range(3)]
    graph = ir.Graph(nodes=nodes, inputs=[a, b], outputs=[ir.ValueInfo("y2")])
    model = ir.Model(graph, {"": 21}, ir_version=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InferenceWarning)
        oc.infer_shapes(model)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 3
    for i, message in enumerate(messages):
        assert f"'y{i}'" in message and "cannot broadcast" in message


# -- the static window fast path ------------------------------------------------------------------

_WINDOW_OPS = [("MaxPool", 12), ("AveragePool", 19), ("Conv", 11), ("MaxPool", 8)]


@settings(max_examples=400, deadline=None)
@given(
    which=st.sampled_from(_WINDOW_OPS),
    nd=st.integers(1, 3),
    data=st.data(),
)
def test_static_windows_agree_with_the_general_path(
    which: tuple[str, int], nd: int, data: st.DataObject
) -> None:
    """Where the fast path answers, it answers what the general path answers; where the
    general path fails, the fast path never answers (it leaves the error to it)."""
    op = op_info("", *which)
    sizes = st.one_of(st.integers(0, 40), st.sampled_from(["N", None]))
    spatial = tuple(data.draw(st.lists(sizes, min_size=nd, max_size=nd)))
    kernel = tuple(data.draw(st.lists(st.integers(-1, 7), min_size=nd, max_size=nd)))
    attributes: dict[str, Any] = {}
    for name, length, low in (("strides", nd, 0), ("dilations", nd, 0), ("pads", 2 * nd, -1)):
        if data.draw(st.booleans()):
            count = data.draw(st.sampled_from([length, length, 0, length + 1]))
            attributes[name] = tuple(
                data.draw(st.lists(st.integers(low, 4), min_size=count, max_size=count))
            )
    if data.draw(st.booleans()):
        attributes["auto_pad"] = data.draw(st.sampled_from(["NOTSET", "VALID", "SAME_UPPER", "x"]))
    if data.draw(st.booleans()):
        attributes["ceil_mode"] = data.draw(st.integers(0, 1))
    ctx = InferenceContext(op, [], [], attributes, 1, 21)
    fast = static_window_output(ctx, spatial, kernel)
    try:
        general: Any = window_output_shape(ctx, spatial, kernel, window_attributes(ctx, nd))
    except InferenceError:
        general = "error"
    if fast is not None:
        assert fast == general
    elif general != "error":
        # It declines only what it does not cover: a size or kernel size that is not a known
        # int, or padding other than explicit (auto_pad NOTSET).
        plain = all(type(d) is int for d in (*spatial, *kernel))
        assert not plain or attributes.get("auto_pad", "NOTSET") != "NOTSET"


def test_answers_that_read_values_are_remembered_with_them() -> None:
    """Reshape reads its shape input: alike nodes sharing one shape constant are inferred
    once, and a node with another constant of the same type gets its own answer."""
    x = oc.arg("x", np.float32, (2, 3, 4))
    y = x
    for _ in range(3):
        y = op.Reshape(op.Relu(y), np.array([6, 4], np.int64))  # one shared constant
        y = op.Reshape(y, np.array([2, 3, 4], np.int64))
    z = op.Reshape(y, np.array([4, 6], np.int64))  # same type as [6, 4], another value
    model = model_from_proto(oc.build([x], {"z": z}))
    calls: list[str] = []
    runner = GraphInference({}, model.opset_imports, strict=False)
    original = runner._infer_node

    def counted(node: ir.Node, *args: Any) -> Any:
        calls.append(node.op_type)
        return original(node, *args)

    runner._infer_node = counted  # type: ignore[method-assign]
    runner.graph(model.graph, {}, {}, model.opset_imports)
    assert calls.count("Reshape") == 3  # [6, 4], [2, 3, 4] once each, then [4, 6]
    assert model.graph.outputs[0].type == oc.Tensor(np.float32, (4, 6))


@settings(max_examples=400, deadline=None)
@given(nd=st.integers(1, 3), data=st.data())
def test_static_convolutions_agree_with_the_general_path(nd: int, data: st.DataObject) -> None:
    """The convolution fast path answers what the general path answers (channels, groups,
    kernel_shape, windows), and declines whenever the general path fails."""
    op = op_info("", "Conv", 11)
    dims = st.one_of(st.integers(0, 12), st.sampled_from(["N", None]))
    rank = nd + 2
    x = data.draw(st.one_of(st.none(), st.lists(dims, min_size=rank, max_size=rank)))
    w_rank = data.draw(st.sampled_from([rank, rank, rank - 1]))
    w = data.draw(st.one_of(st.none(), st.lists(dims, min_size=w_rank, max_size=w_rank)))
    attributes: dict[str, Any] = {}
    if data.draw(st.booleans()):
        attributes["group"] = data.draw(st.integers(0, 4))
    if data.draw(st.booleans()):
        count = data.draw(st.sampled_from([nd, nd, nd + 1]))
        attributes["kernel_shape"] = tuple(
            data.draw(st.lists(st.integers(0, 5), min_size=count, max_size=count))
        )
    if data.draw(st.booleans()):
        attributes["pads"] = tuple(
            data.draw(st.lists(st.integers(0, 2), min_size=2 * nd, max_size=2 * nd))
        )
    if data.draw(st.booleans()):
        attributes["strides"] = tuple(
            data.draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
        )
    types = [
        None if x is None else oc.Tensor(np.float32, x),
        None if w is None else oc.Tensor(np.float32, w),
    ]
    ctx = InferenceContext(op, types, [], attributes, 1, 21)
    fast = static_conv_shape(ctx)
    try:
        general: Any = general_conv_shape(ctx)
    except InferenceError:
        general = "error"
    if fast is not None:
        assert fast == general


def test_the_convolution_fast_path_answers_the_common_case() -> None:
    """A grouped convolution with a symbolic batch and explicit pads: the fast path answers."""
    op = op_info("", "Conv", 11)
    types = [oc.Tensor(np.float32, ("N", 4, 9, 8)), oc.Tensor(np.float32, (6, 2, 3, 3))]
    attributes = {"group": 2, "pads": (1, 0, 1, 0), "strides": (2, 1)}
    ctx = InferenceContext(op, types, [], attributes, 1, 21)
    assert static_conv_shape(ctx) is not None
    assert static_conv_shape(ctx) == general_conv_shape(ctx)


@settings(max_examples=400, deadline=None)
@given(count=st.integers(1, 5), rank=st.integers(0, 3), data=st.data())
def test_static_concats_agree_with_the_general_path(
    count: int, rank: int, data: st.DataObject
) -> None:
    """The Concat fast path answers what the general path answers (element types, ranks,
    symbolic and unknown dims, negative and out-of-range axes), and declines whenever the
    general path fails."""
    op = op_info("", "Concat", 13)
    dims = st.one_of(st.integers(0, 4), st.sampled_from(["N", "M", None]))
    elems = st.sampled_from([np.float32, np.float32, np.float32, np.int64])
    types: list[Any] = []
    for _ in range(count):
        kind = data.draw(st.sampled_from(["tensor"] * 6 + ["none", "unranked", "other rank"]))
        if kind == "none":
            types.append(None)
        elif kind == "unranked":
            types.append(oc.Tensor(data.draw(elems), None))
        else:
            size = rank + 1 if kind == "other rank" else rank
            shape = data.draw(st.lists(dims, min_size=size, max_size=size))
            types.append(oc.Tensor(data.draw(elems), shape))
    attributes = {"axis": data.draw(st.integers(-4, 4))}
    ctx = InferenceContext(op, types, [], attributes, 1, 21)
    tensors = [ctx.tensor(i) for i in range(count)]
    fast = static_concat(ctx, tensors)
    try:
        general: Any = general_concat(ctx, tensors)
    except InferenceError:
        general = "error"
    if fast is not None:
        assert fast == general


def test_the_concat_fast_path_answers_the_common_case() -> None:
    """DenseNet's concats: inputs of one batch and size, channels differing; and a joined
    shape vector keeps its value (data propagation) on the fast path too."""
    concat = op_info("", "Concat", 13)
    types = [oc.Tensor(np.float32, ("N", c, 7, 7)) for c in (64, 32, 32)]
    ctx = InferenceContext(concat, types, [], {"axis": 1}, 1, 21)
    tensors = [ctx.tensor(i) for i in range(3)]
    assert static_concat(ctx, tensors) == oc.Tensor(np.float32, ("N", 128, 7, 7))
    assert static_concat(ctx, tensors) == general_concat(ctx, tensors)
    x = oc.arg("x", np.float32, ("N", 3, 4))
    target = op.Concat(op.Shape(x), np.array([1], np.int64), axis=0)  # [N, 3, 4, 1]
    model = oc.infer_shapes(oc.build([x], {"y": op.Reshape(x, target)}))
    assert model_from_proto(model).graph.outputs[0].type == oc.Tensor(np.float32, ("N", 3, 4, 1))


def test_alike_nodes_of_other_ranks_and_attributes_share_derived_facts_safely() -> None:
    """Nodes of one operator version and one attribute list share the facts rules derive
    from the attributes (InferenceContext.derived): attribute-less convolutions and poolings
    over 1-D, 2-D and 3-D inputs, alike lists with other pads, float16 and float64 inputs,
    batches above 1 and an empty input, inferred as the plain path infers them; and a
    window that no pads fit still warns at each node."""
    model = oc.parse("""
<ir_version: 10, opset_import: ["" : 21]>
g (float16[2, 3, 9] a, float[1, 3, 9, 8] b, double[4, 3, 5, 6, 7] c, float[0, 3, 4, 4] e)
    => (float16 ya, float yb, double yc, float ye, float bad1, float bad2) {
  wa = Constant <value = float16[5, 3, 3] {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6,
                 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3,
                 4, 5, 6, 7, 8, 9}> ()
  ca = Conv (a, wa)
  ya = MaxPool <kernel_shape = [2], strides = [2]> (ca)
  wb = Constant <value = float[2, 3, 2, 2] {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6,
                 7, 8, 9, 1, 2, 3, 4, 5, 6}> ()
  cb = Conv (b, wb)
  pb = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (cb)
  yb = MaxPool <kernel_shape = [2, 2], strides = [2, 2], pads = [1, 1, 1, 1]> (pb)
  yc = AveragePool <kernel_shape = [2, 2, 2]> (c)
  ye = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (e)
  bad1 = MaxPool <kernel_shape = [9, 9]> (b)
  bad2 = MaxPool <kernel_shape = [9, 9]> (b)
}""")
    for output in model.graph.outputs:  # (declared without a type: inference finds it)
        output.type = None
    data = oc.io.model_proto(model).SerializeToString()
    assert_same(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InferenceWarning)
        inferred = model_from_proto(oc.infer_shapes(data))
    warned = [str(w.message).split(":")[0] for w in caught]
    assert warned == ["node of output 'bad1' (MaxPool)", "node of output 'bad2' (MaxPool)"]
    outputs = {v.name: v.type for v in inferred.graph.outputs}
    assert outputs["ya"] == oc.Tensor(np.float16, (2, 5, 3))
    assert outputs["yb"] == oc.Tensor(np.float32, (1, 2, 3, 2))
    assert outputs["yc"] == oc.Tensor(np.float64, (4, 3, 4, 5, 6))
    assert outputs["ye"] == oc.Tensor(np.float32, (0, 3, 2, 2))
