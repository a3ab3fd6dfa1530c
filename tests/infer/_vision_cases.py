"""Shared helpers for the vision / normalization / detection inference tests.

- which ONNX node-test cases use these operators, and how to run one through ``infer_shapes``
  with its shape-giving inputs (Resize's scales, MaxUnpool's output_shape, ...) made constant;
- numpy-side facts the property tests need: the static type a Var was inferred with, compared
  with the value the evaluator computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import numpy_helper

import onnxcraft as oc
from onnxcraft.dtypes import element_type_of
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Tensor, ValueType
from tests.node_cases import case_names, load_case, manifest, node_tests_root

VISION_OPS = frozenset(
    {
        "Conv", "ConvInteger", "QLinearConv", "ConvTranspose", "Col2Im", "DeformConv",
        "CausalConvWithState", "AveragePool", "MaxPool", "LpPool", "GlobalAveragePool",
        "GlobalMaxPool", "GlobalLpPool", "MaxUnpool", "MaxRoiPool", "RoiAlign",
        "BatchNormalization", "InstanceNormalization", "LayerNormalization",
        "GroupNormalization", "RMSNormalization", "LRN", "LpNormalization",
        "MeanVarianceNormalization", "Dropout", "NegativeLogLikelihoodLoss",
        "SoftmaxCrossEntropyLoss", "Resize", "Upsample", "GridSample", "AffineGrid",
        "CenterCropPad", "NonMaxSuppression", "ImageDecoder",
    }
)  # fmt: skip

# Inputs whose *values* decide an output shape: in a real model they are constants, in the
# node tests they are graph inputs fed with data. The table test makes them initializers.
SHAPE_GIVING_INPUTS: dict[str, tuple[int, ...]] = {
    "Resize": (1, 2, 3),
    "Upsample": (1,),
    "MaxUnpool": (2,),
    "Col2Im": (1, 2),
    "AffineGrid": (1,),
    "CenterCropPad": (1,),
}

# Outputs whose size depends on the data itself: (op_type, output index) -> the dims that are
# static whatever the data (None where the data decides).
DATA_DEPENDENT: dict[tuple[str, int], str] = {
    ("NonMaxSuppression", 0): "number of selected boxes",
    ("ImageDecoder", 0): "image height and width",
}


def _ops_of(name: str) -> set[str]:
    return {
        op.split("::")[1] for op in manifest()[name]["ops"] if op.split("::")[0] in ("", "ai.onnx")
    }


def vision_case_names() -> list[str]:
    """Node-test cases with at least one operator of the family (read at collection time)."""
    names = case_names()
    if names == ["<node tests missing>"]:
        return names
    return [n for n in names if _ops_of(n) & VISION_OPS]


@dataclass
class CheckedOutput:
    """One output of a vision node: what inference said and the value a run produced."""

    case: str
    op_type: str
    index: int
    name: str
    inferred: ValueType | None
    expected: Any


def _fold_shape_inputs(model: onnx.ModelProto, inputs: dict[str, Any]) -> None:
    """Turn the graph inputs read at shape-giving slots into initializers with the test data."""
    graph = model.graph
    graph_inputs = {i.name for i in graph.input}
    folded: set[str] = set()
    for node in graph.node:
        if node.domain not in ("", "ai.onnx"):
            continue
        for slot in SHAPE_GIVING_INPUTS.get(node.op_type, ()):
            if slot < len(node.input) and node.input[slot] in graph_inputs:
                name = node.input[slot]
                if name in inputs and name not in folded:
                    graph.initializer.append(numpy_helper.from_array(inputs[name], name))
                    folded.add(name)
    kept = [i for i in graph.input if i.name not in folded]
    del graph.input[:]
    graph.input.extend(kept)


@cache
def checked_outputs(name: str) -> tuple[CheckedOutput, ...]:
    """Every output of every vision node of case ``name``, inferred with the declared output
    types removed and the shape-giving inputs made constant, next to its actual value."""
    case = load_case(name)
    model = onnx.load(str(node_tests_root() / name / "model.onnx"))
    for output in model.graph.output:
        output.type.CopyFrom(onnx.TypeProto())
    _fold_shape_inputs(model, case.inputs)
    inferred_model = model_from_proto(oc.infer_shapes(model))
    graph = inferred_model.graph
    types = {v.name: v.type for v in (*graph.value_info, *graph.outputs)}
    nodes = [n for n in model.graph.node if n.domain in ("", "ai.onnx") and n.op_type in VISION_OPS]
    values: dict[str, Any] = dict(case.outputs)
    wanted = {out for n in nodes for out in n.output if out}
    if not wanted <= values.keys():  # an intermediate: run the original model to see it
        values.update(oc.evaluate(case.model, case.inputs, intermediates=True))
    return tuple(
        CheckedOutput(name, node.op_type, i, out, types.get(out), values[out])
        for node in nodes
        for i, out in enumerate(node.output)
        if out
    )


def static_type_of(value: np.ndarray) -> Tensor:
    """The fully static tensor type of a numpy value."""
    return Tensor(element_type_of(value.dtype), value.shape)


def assert_type_matches_value(inferred: ValueType | None, value: np.ndarray, where: str) -> None:
    """The inferred type must be fully static and equal to the value's dtype and shape."""
    expected = static_type_of(np.asarray(value))
    assert inferred == expected, f"{where}: inferred {inferred}, the value is {expected}"


# -- hypothesis strategies: attribute and shape combinations that are valid by construction ----

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


@dataclass(frozen=True)
class Window:
    """A drawn sliding-window setup: input spatial sizes and the node's attributes."""

    sizes: tuple[int, ...]
    kernel: tuple[int, ...]
    attributes: dict[str, Any]


def _span(kernel: int, dilation: int) -> int:
    return (kernel - 1) * dilation + 1


@st.composite
def windows(
    draw: st.DrawFn,
    *,
    max_nd: int = 3,
    dilations: bool = True,
    ceil_mode: bool = False,
    auto_pads: tuple[str, ...] = AUTO_PADS,
) -> Window:
    """Kernel, strides, dilations, padding and input sizes for which every window fits.

    The only arithmetic here is the extent of a dilated kernel and the padded size, so that a
    drawn setup is valid; the output size itself is left to the evaluator to produce.
    """
    nd = draw(st.integers(1, max_nd))
    axis = st.integers(1, 3)
    kernel = tuple(draw(axis) for _ in range(nd))
    strides = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) if dilations else 1 for _ in range(nd))
    mode = draw(st.sampled_from(auto_pads))
    attributes: dict[str, Any] = {"kernel_shape": list(kernel), "strides": list(strides)}
    if dilations:
        attributes["dilations"] = list(dilation)
    if mode != "NOTSET":
        attributes["auto_pad"] = mode
    begin = [0] * nd
    end = [0] * nd
    if mode == "NOTSET":
        begin = [draw(st.integers(0, 2)) for _ in range(nd)]
        end = [draw(st.integers(0, 2)) for _ in range(nd)]
        attributes["pads"] = begin + end
    sizes = []
    for i in range(nd):
        least = 1 if mode.startswith("SAME") else _span(kernel[i], dilation[i]) - begin[i] - end[i]
        sizes.append(draw(st.integers(max(1, least), max(1, least) + 5)))
    if ceil_mode:
        attributes["ceil_mode"] = draw(st.integers(0, 1))
    return Window(tuple(sizes), kernel, attributes)


@dataclass(frozen=True)
class ResizeSetup:
    """A drawn Resize node: input shape, which factor input is given, and attributes."""

    shape: tuple[int, ...]
    scales: np.ndarray | None
    sizes: np.ndarray | None
    attributes: dict[str, Any]


SCALES = (0.25, 0.5, 0.6, 0.75, 0.8, 1.0, 1.25, 1.3, 1.5, 1.7, 2.0, 2.5, 3.0)


@st.composite
def resize_setups(draw: st.DrawFn, *, with_axes: bool) -> ResizeSetup:
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 6)) for _ in range(rank))
    axes = list(range(rank))
    attributes: dict[str, Any] = {"mode": draw(st.sampled_from(("nearest", "linear")))}
    if with_axes and draw(st.booleans()):
        axes = draw(st.permutations(range(rank)).map(list))[: draw(st.integers(1, rank))]
        attributes["axes"] = [a - rank if draw(st.booleans()) else a for a in axes]
    if draw(st.booleans()):
        scales = np.array([draw(st.sampled_from(SCALES)) for _ in axes], np.float32)
        return ResizeSetup(shape, scales, None, attributes)
    sizes = np.array([draw(st.integers(1, 9)) for _ in axes], np.int64)
    if with_axes:
        policies = ("stretch", "not_larger", "not_smaller")
        attributes["keep_aspect_ratio_policy"] = draw(st.sampled_from(policies))
    return ResizeSetup(shape, None, sizes, attributes)


# -- one small valid node for every (operator, since_version) of the family ---------------------


@dataclass(frozen=True)
class NodeCase:
    """A one-node model: inputs (None = omitted), which of them are constants, outputs."""

    op_type: str
    inputs: tuple[np.ndarray | None, ...]
    outputs: int
    attributes: dict[str, Any]
    constants: frozenset[int] = frozenset()


def _f(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape).astype(np.float32)


def _pnm_image() -> np.ndarray:
    """A 3 x 2 RGB PPM (P6) image as the uint8 stream ImageDecoder reads."""
    pixels = bytes(range(18))
    stream: np.ndarray = np.frombuffer(b"P6\n2 3\n255\n" + pixels, np.uint8).copy()
    return stream


def _pool_attributes(op_type: str, since: int) -> dict[str, Any]:
    attributes: dict[str, Any] = {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1]}
    ceil_since = {"MaxPool": 10, "AveragePool": 10, "LpPool": 18}[op_type]
    dilation_since = {"MaxPool": 10, "AveragePool": 19, "LpPool": 18}[op_type]
    if since >= ceil_since:
        attributes["ceil_mode"] = 1
    if since >= dilation_since:
        attributes["dilations"] = [1, 2]
    return attributes


def _batch_norm_cases(since: int) -> list[NodeCase]:
    x, c = _f(2, 3, 4, 5), _f(3)
    var = np.abs(c) + 0.5
    inputs = (x, c, c, c, var)
    if since >= 14:
        return [
            NodeCase("BatchNormalization", inputs, 1, {}),
            NodeCase("BatchNormalization", inputs, 3, {"training_mode": 1}),
        ]
    # Version 1 requires consumed_inputs (a legacy in-place hint: mean and var are updated).
    legacy: dict[str, Any] = {"consumed_inputs": [0, 0, 0, 1, 1]} if since < 6 else {}
    extra: dict[str, Any] = {"is_test": 1, **legacy} if since < 7 else {}
    return [
        NodeCase("BatchNormalization", inputs, 1, extra),
        NodeCase("BatchNormalization", inputs, 5, legacy),
    ]


def _resize_cases(since: int) -> list[NodeCase]:
    x = _f(1, 2, 4, 5)
    scales = np.array([1, 1, 0.6, 1.5], np.float32)
    sizes = np.array([1, 2, 3, 7], np.int64)
    empty = np.zeros(0, np.float32)
    if since == 10:
        return [NodeCase("Resize", (x, scales), 1, {}, frozenset({1}))]
    cases = [
        NodeCase("Resize", (x, empty, scales), 1, {}, frozenset({1, 2})),
        NodeCase("Resize", (x, empty, empty, sizes), 1, {}, frozenset({1, 2, 3})),
    ]
    if since >= 18:
        policy = {"axes": [3, 2], "keep_aspect_ratio_policy": "not_smaller"}
        cases.append(NodeCase("Resize", (x, None, None, sizes[2:]), 1, policy, frozenset({3})))
    return cases


def _upsample_case(since: int) -> NodeCase:
    x = _f(1, 2, 3, 4)
    if since == 1:
        return NodeCase("Upsample", (x,), 1, {"height_scale": 2.0, "width_scale": 1.5})
    scales = np.array([1, 1, 2, 1.5], np.float32)
    if since == 7:
        return NodeCase("Upsample", (x,), 1, {"scales": scales.tolist()})
    return NodeCase("Upsample", (x, scales), 1, {}, frozenset({1}))


def _dropout_case(since: int) -> NodeCase:
    x = _f(3, 4)
    if since >= 12:
        return NodeCase("Dropout", (x, np.array(0.25, np.float32), np.array(False)), 2, {})
    return NodeCase("Dropout", (x,), 2, {"is_test": 1} if since < 7 else {})


def _fixed_cases(op_type: str, since: int) -> list[NodeCase]:
    """Nodes whose inputs are the same for every version of the operator."""
    x4 = _f(1, 2, 5, 5)
    unpool = (_f(1, 1, 2, 2), np.array([[[[5, 2], [13, 15]]]], np.int64))
    rois = np.array([[0, 0, 3, 3], [1, 1, 5, 5], [0, 2, 1, 4]], np.float32)
    table: dict[str, list[NodeCase]] = {
        "Conv": [NodeCase("Conv", (x4, _f(3, 2, 3, 3), _f(3)), 1,
                          {"pads": [1, 0, 1, 0], "strides": [2, 1]})],
        "ConvInteger": [NodeCase("ConvInteger", (x4.astype(np.uint8),
                                 np.ones((3, 2, 2, 2), np.uint8)), 1, {})],
        "QLinearConv": [NodeCase("QLinearConv", (
            x4.astype(np.uint8), np.array(0.5, np.float32), np.array(1, np.uint8),
            np.ones((3, 2, 2, 2), np.uint8), np.array(0.5, np.float32), np.array(0, np.uint8),
            np.array(2.0, np.float32), np.array(3, np.uint8)), 1, {})],
        "ConvTranspose": [NodeCase("ConvTranspose", (_f(1, 2, 3, 3), _f(2, 3, 3, 3)), 1,
                                   {"strides": [2, 2], "output_padding": [1, 0]})],
        "Col2Im": [NodeCase("Col2Im", (_f(1, 8, 16), np.array([5, 5]), np.array([2, 2])), 1, {},
                            frozenset({1, 2}))],
        "DeformConv": [NodeCase("DeformConv", (x4, _f(4, 2, 3, 3), _f(1, 18, 3, 3) * 0.1), 1, {})],
        "CausalConvWithState": [NodeCase("CausalConvWithState",
                                         (_f(2, 4, 10), _f(4, 1, 3), _f(4), _f(2, 4, 2)), 2, {})],
        "GlobalAveragePool": [NodeCase("GlobalAveragePool", (_f(1, 2, 4, 5),), 1, {})],
        "GlobalMaxPool": [NodeCase("GlobalMaxPool", (_f(1, 2, 4, 5),), 1, {})],
        "GlobalLpPool": [NodeCase("GlobalLpPool", (_f(1, 2, 4, 5),), 1, {})],
        "MaxUnpool": [
            NodeCase("MaxUnpool", unpool, 1, {"kernel_shape": [2, 2], "strides": [2, 2]}),
            NodeCase("MaxUnpool", (*unpool, np.array([1, 1, 5, 5])), 1,
                     {"kernel_shape": [2, 2], "strides": [2, 2]}, frozenset({2})),
        ],
        "MaxRoiPool": [NodeCase("MaxRoiPool", (_f(1, 2, 6, 6), np.array(
            [[0, 0, 0, 3, 3], [0, 1, 1, 5, 5]], np.float32)), 1, {"pooled_shape": [2, 2]})],
        "RoiAlign": [NodeCase("RoiAlign", (_f(2, 2, 6, 6), rois, np.array([0, 1, 0])), 1,
                              {"output_height": 2, "output_width": 3})],
        "InstanceNormalization": [NodeCase("InstanceNormalization",
                                           (_f(2, 3, 4), _f(3), _f(3)), 1, {})],
        "LayerNormalization": [NodeCase("LayerNormalization", (_f(2, 3, 4), _f(3, 4), _f(4)), 3,
                                        {"axis": 1})],
        "GroupNormalization": [NodeCase("GroupNormalization", (
            _f(2, 4, 3), *((_f(2), _f(2)) if since < 21 else (_f(4), _f(4)))), 1,
            {"num_groups": 2})],
        "RMSNormalization": [NodeCase("RMSNormalization", (_f(2, 3, 4), _f(4)), 1, {})],
        "LRN": [NodeCase("LRN", (_f(1, 5, 3, 3),), 1, {"size": 3})],
        "LpNormalization": [NodeCase("LpNormalization", (_f(2, 5),), 1, {"axis": 0, "p": 1})],
        "MeanVarianceNormalization": [NodeCase("MeanVarianceNormalization",
                                               (_f(2, 3, 4, 5),), 1, {})],
        "NegativeLogLikelihoodLoss": [NodeCase("NegativeLogLikelihoodLoss",
                                               (_f(3, 5, 2), np.array([[1, 4], [0, 2], [3, 3]])),
                                               1, {"reduction": "none"})],
        "SoftmaxCrossEntropyLoss": [NodeCase("SoftmaxCrossEntropyLoss",
                                             (_f(3, 5), np.array([1, 4, 0]), _f(5)), 2, {})],
        "GridSample": [NodeCase("GridSample", (_f(1, 2, 4, 5), _f(1, 3, 6, 2) * 0.5), 1, {})],
        "AffineGrid": [NodeCase("AffineGrid", (_f(2, 2, 3), np.array([2, 1, 3, 4])), 1, {},
                                frozenset({1}))],
        "CenterCropPad": [NodeCase("CenterCropPad", (_f(5, 6, 3), np.array([3, 8])), 1,
                                   {"axes": [0, 1]}, frozenset({1}))],
        "NonMaxSuppression": [NodeCase("NonMaxSuppression", (
            np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3], [0, 5, 1, 6]]], np.float32),
            np.array([[[0.9, 0.8, 0.7, 0.1]]], np.float32), np.array([3]),
            np.array([0.5], np.float32), np.array([0.0], np.float32)), 1, {},
            frozenset({2, 3, 4}))],
        "ImageDecoder": [NodeCase("ImageDecoder", (_pnm_image(),), 1, {"pixel_format": "BGR"})],
    }  # fmt: skip
    return table[op_type]


def version_cases(op_type: str, since: int) -> list[NodeCase]:
    """Small valid nodes of ``op_type`` at version ``since`` (every output requested)."""
    if op_type in ("MaxPool", "AveragePool", "LpPool"):
        outputs = 2 if op_type == "MaxPool" and since >= 8 else 1
        return [NodeCase(op_type, (_f(1, 2, 6, 7),), outputs, _pool_attributes(op_type, since))]
    if op_type == "BatchNormalization":
        return _batch_norm_cases(since)
    if op_type == "Resize":
        return _resize_cases(since)
    if op_type == "Upsample":
        return [_upsample_case(since)]
    if op_type == "Dropout":
        return [_dropout_case(since)]
    return _fixed_cases(op_type, since)


def node_model(case: NodeCase, opset: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The one-node model of ``case`` and its feeds (constants become initializers)."""
    from onnx import helper

    names = ["" if v is None else f"in{i}" for i, v in enumerate(case.inputs)]
    graph_inputs, initializers, feeds = [], [], {}
    for i, (name, value) in enumerate(zip(names, case.inputs)):
        if value is None:
            continue
        if i in case.constants:
            initializers.append(numpy_helper.from_array(value, name))
            continue
        elem = helper.np_dtype_to_tensor_dtype(value.dtype)
        graph_inputs.append(helper.make_tensor_value_info(name, elem, value.shape))
        feeds[name] = value
    outputs = [f"out{i}" for i in range(case.outputs)]
    node = helper.make_node(case.op_type, names, outputs, **case.attributes)
    graph = helper.make_graph(
        [node],
        f"{case.op_type}_{opset}",
        graph_inputs,
        [helper.make_empty_tensor_value_info(name) for name in outputs],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return model, feeds
