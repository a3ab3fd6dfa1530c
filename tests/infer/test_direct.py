"""The walk's direct answers (``infer/direct.py``: Conv, BatchNormalization, Concat, the
windowed pools) are their rules' answers (issue 17).

Each direct answer is compared with its rule run through the engine on drawn input types and
attributes: whenever it answers, the rule gives the same output types, raises nothing and
gives no output value; it never raises (it declines instead). Drawn models of these nodes,
consistent or not, give what the plain path gives (the same bytes, the same warnings in the
same order, or the same error).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft import specs
from onnxcraft.core.opinfo import OpInfo, op_info
from onnxcraft.infer import graph as walk
from onnxcraft.infer.direct import DIRECT, direct_answer
from onnxcraft.infer.engine import infer_node
from onnxcraft.infer.graph import GraphInference
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto import ModelProto
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import SparseTensor, Tensor, ValueType
from tests.infer.test_fast_paths import assert_same

FLOAT, DOUBLE = 1, 11
_F32, _F64 = oc.Tensor(np.float32).elem_type, oc.Tensor(np.float64).elem_type


def _empty_model(opset: int = 21) -> ModelProto:
    """A model of ai.onnx ``opset`` whose graph ``g`` is still empty."""
    model = ModelProto()
    model.ir_version = 10
    model.opset_import.add(domain="", version=opset)
    model.graph.name = "g"
    return model


def _op_info(name: str, opset: int = 21) -> OpInfo:
    since = specs.resolve_since_version("", name, opset)
    assert since is not None
    return op_info("", name, since)


def _compare(
    op: OpInfo, types: list[ValueType | None], attributes: dict[str, Any], outputs: int
) -> list[ValueType | None] | None:
    """The direct answer, checked against the rule's; returns it."""
    direct = direct_answer(DIRECT[op.op_type], op, attributes, {}, types, outputs)
    if direct is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a rule's warning would fail here
        ruled, values, read = infer_node(
            op, types, [None] * len(types), attributes, outputs, 21, None, [True] * len(types), {}
        )
    assert (ruled, values, read) == (direct, {}, False)
    return direct


_dims = st.integers(1, 9)


def _shape(draw: st.DrawFn, rank: int, odd: bool) -> tuple[Any, ...]:
    """A shape of ``rank`` dims; when ``odd``, now and then a symbolic or unknown one."""
    choices = st.one_of(_dims, _dims, st.sampled_from(["S", None])) if odd else _dims
    return tuple(draw(choices) for _ in range(rank))


def _tensor(draw: st.DrawFn, shape: Any, odd: bool) -> ValueType | None:
    """A tensor type of ``shape``; when ``odd``, now and then replaced: another element type,
    a sparse tensor, an unknown rank or type."""
    if not odd:
        return Tensor(_F32, shape)
    kind = draw(st.sampled_from(["tensor"] * 4 + ["double", "sparse", "rankless", "none"]))
    if kind == "none":
        return None
    if kind == "sparse":
        return SparseTensor(_F32, shape)
    return Tensor(_F64 if kind == "double" else _F32, None if kind == "rankless" else shape)


@st.composite
def _window_attributes(draw: st.DrawFn, nd: int, kernel: bool, odd: bool) -> dict[str, Any]:
    """Window attributes for ``nd`` axes; when ``odd``, of wrong lengths and values too."""
    lengths = (lambda n: st.sampled_from([n, n, 0, n + 1])) if odd else st.just
    attributes: dict[str, Any] = {}
    if kernel or draw(st.booleans()):
        low = 0 if odd else 1
        attributes["kernel_shape"] = tuple(
            draw(st.integers(low, 4)) for _ in range(draw(lengths(nd)))
        )
    for name, length, low in (("strides", nd, 1), ("dilations", nd, 1), ("pads", 2 * nd, 0)):
        if draw(st.booleans()):
            low = low - 1 if odd else low
            attributes[name] = tuple(
                draw(st.integers(low, 3)) for _ in range(draw(lengths(length)))
            )
    if odd and draw(st.booleans()):
        attributes["auto_pad"] = draw(st.sampled_from(["NOTSET", "SAME_UPPER", "VALID", "BAD"]))
    if draw(st.booleans()):
        attributes["ceil_mode"] = draw(st.integers(0, 1))
    return attributes


@settings(max_examples=400, deadline=None)
@given(nd=st.integers(1, 3), odd=st.booleans(), data=st.data())
def test_direct_convolutions_are_the_rule(nd: int, odd: bool, data: st.DataObject) -> None:
    draw = data.draw
    group = draw(st.integers(1, 3))
    c = group * draw(st.integers(1, 3))
    per_group = c // group
    m = group * draw(st.integers(1, 3))
    if odd:  # channel counts that may not fit the group
        c, per_group, m = draw(_dims), draw(st.sampled_from([per_group, draw(_dims)])), draw(_dims)
    x = (draw(st.sampled_from([1, "N"])), c, *(d + 4 for d in _shape(draw, nd, False)))
    if odd:
        x = (x[0], *_shape(draw, nd + 1, odd))
    w = (m, per_group, *(draw(st.integers(1, 4)) for _ in range(nd)))
    if odd and draw(st.booleans()):
        w = w[: draw(st.integers(0, len(w)))]  # another rank
    types = [_tensor(draw, x, odd), _tensor(draw, w, odd)]
    bias = draw(st.sampled_from(["none", "vector", "vector", "long", "matrix", "symbol"]))
    if bias != "none":
        b = {"vector": (m,), "long": (m + 1,), "matrix": (m, 1), "symbol": ("M",)}[bias]
        types.append(_tensor(draw, b, odd))
    attributes = draw(_window_attributes(nd, kernel=False, odd=odd))
    if group > 1 or draw(st.booleans()):
        attributes["group"] = group
    _compare(_op_info("Conv"), types, attributes, 1)


def test_direct_convolutions_answer_the_common_case() -> None:
    x, w, b = Tensor(_F32, ("N", 16, 56, 56)), Tensor(_F32, (32, 8, 3, 3)), Tensor(_F32, (32,))
    attributes = {"group": 2, "pads": (1, 1, 1, 1), "strides": (2, 2)}
    assert _compare(_op_info("Conv"), [x, w, b], attributes, 1) == [Tensor(_F32, ("N", 32, 28, 28))]
    assert _compare(_op_info("Conv"), [x, w], attributes, 1) == [Tensor(_F32, ("N", 32, 28, 28))]


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(["MaxPool", "AveragePool", "LpPool"]),
    nd=st.integers(1, 3),
    odd=st.booleans(),
    data=st.data(),
)
def test_direct_pools_are_the_rule(name: str, nd: int, odd: bool, data: st.DataObject) -> None:
    draw = data.draw
    x = (draw(st.sampled_from([1, "N"])), draw(_dims), *_shape(draw, nd, odd))
    attributes = draw(_window_attributes(nd, kernel=not odd or draw(st.booleans()), odd=odd))
    if name != "MaxPool":
        attributes.pop("dilations", None)
    if name == "LpPool":
        attributes.pop("ceil_mode", None)
    outputs = 2 if name == "MaxPool" and draw(st.booleans()) else 1
    _compare(_op_info(name), [_tensor(draw, x, odd)], attributes, outputs)


def test_direct_pools_answer_the_common_case() -> None:
    x = Tensor(_F32, ("N", 64, 112, 112))
    attributes = {"kernel_shape": (3, 3), "strides": (2, 2), "pads": (1, 1, 1, 1)}
    expected = [Tensor(_F32, ("N", 64, 56, 56))]
    assert _compare(_op_info("MaxPool"), [x], attributes, 1) == expected
    assert _compare(_op_info("AveragePool"), [x], attributes, 1) == expected
    assert _compare(_op_info("MaxPool"), [x], attributes, 2) is None  # (Indices: the rule)


@settings(max_examples=300, deadline=None)
@given(opset=st.sampled_from([6, 7, 9, 15, 21]), odd=st.booleans(), data=st.data())
def test_direct_batch_norms_are_the_rule(opset: int, odd: bool, data: st.DataObject) -> None:
    draw = data.draw
    x = _shape(draw, draw(st.integers(0, 4) if odd else st.integers(2, 4)), odd)
    c = x[1] if len(x) > 1 else draw(_dims)
    shared = _tensor(draw, (c,), odd)
    choices = [shared, shared, _tensor(draw, (c,), odd)]
    if odd:
        choices.append(_tensor(draw, _shape(draw, draw(st.integers(0, 2)), odd), odd))
    types = [_tensor(draw, x, odd), *(draw(st.sampled_from(choices)) for _ in range(4))]
    if odd and draw(st.booleans()):
        types = types[:4]
    norm = _op_info("BatchNormalization", opset)
    attributes: dict[str, Any] = {"epsilon": 1e-5}
    if "spatial" in norm.attributes and draw(st.booleans()):
        attributes["spatial"] = draw(st.integers(0, 1))
    outputs = draw(st.sampled_from([1, 1, 1, 3, 5]) if odd else st.just(1))
    _compare(norm, types, attributes, outputs)


def test_direct_batch_norms_answer_the_common_case() -> None:
    x, p = Tensor(_F32, ("N", 64, 28, 28)), Tensor(_F32, (64,))
    params = [p, p, Tensor(_F32, (64,)), p]  # (a parameter of an object of its own too)
    norm = _op_info("BatchNormalization")
    assert _compare(norm, [x, *params], {}, 1) == [x]
    assert _compare(_op_info("BatchNormalization", 7), [x, *params], {"spatial": 0}, 1) is None


@settings(max_examples=300, deadline=None)
@given(count=st.integers(1, 5), rank=st.integers(0, 4), odd=st.booleans(), data=st.data())
def test_direct_concats_are_the_rule(count: int, rank: int, odd: bool, data: st.DataObject) -> None:
    draw = data.draw
    axis = draw(st.integers(-rank - 1, rank) if odd else st.integers(-rank, max(rank - 1, 0)))
    base = _shape(draw, rank, odd)
    types = []
    for _ in range(count):
        shape = list(base)
        if rank and draw(st.booleans()):
            where = axis % rank if not odd else draw(st.integers(0, rank - 1))
            shape[where] = draw(_dims)
        types.append(_tensor(draw, tuple(shape), odd))
    _compare(_op_info("Concat"), types, {"axis": axis}, 1)


def test_direct_concats_answer_the_common_case() -> None:
    joined = [Tensor(_F32, ("N", c, 7, 7)) for c in (64, 32, 32)]
    assert _compare(_op_info("Concat"), joined, {"axis": 1}, 1) == [Tensor(_F32, ("N", 128, 7, 7))]
    vectors = [Tensor(_F32, (2,)), Tensor(_F32, (3,))]
    assert _compare(_op_info("Concat"), vectors, {"axis": 0}, 1) is None  # (may carry a value)


# -- whole models -----------------------------------------------------------------------------


def _ints(node: Any, name: str, values: tuple[int, ...]) -> None:
    attribute = node.attribute.add(name=name, type=7)
    attribute.ints.extend(values)


def _input(graph: Any, name: str, shape: tuple[Any, ...]) -> None:
    info = graph.input.add(name=name)
    info.type.tensor_type.elem_type = FLOAT
    for d in shape:
        dim = info.type.tensor_type.shape.dim.add()
        if isinstance(d, str):
            dim.dim_param = d
        else:
            dim.dim_value = d


def _weight(graph: Any, name: str, dims: tuple[int, ...]) -> None:
    tensor = graph.initializer.add(name=name, data_type=FLOAT)
    tensor.dims.extend(dims)
    count = int(np.prod(dims))
    if count <= 64:
        tensor.float_data.extend([1.0] * count)
    else:  # (external and unwritten, as the benchmark's weights)
        tensor.data_location = 1
        tensor.external_data.add(key="location", value="weights.bin")


@st.composite
def _cnn(draw: st.DrawFn) -> bytes:
    """A few blocks of Conv (+ BatchNormalization) (+ a pool), alike or not, joined now and
    then by a Concat; channel counts, kernels and pads drawn, sometimes inconsistent."""
    model = _empty_model()
    graph = model.graph
    channels = draw(st.integers(1, 4))
    size = draw(st.integers(4, 12))
    _input(graph, "x", (draw(st.sampled_from([1, "N"])), channels, size, size))
    current, names = "x", 0
    for block in range(draw(st.integers(1, 5))):
        out = draw(st.sampled_from([channels, 2 * channels, draw(st.integers(1, 6))]))
        kernel = draw(st.integers(1, 3))
        given = draw(st.sampled_from([channels, channels, channels, channels + 1]))
        _weight(graph, f"w{block}", (out, given, kernel, kernel))
        inputs = [current, f"w{block}"]
        if draw(st.booleans()):
            _weight(graph, f"b{block}", (draw(st.sampled_from([out, out, out, out + 1])),))
            inputs.append(f"b{block}")
        names += 1
        conv = graph.node.add(op_type="Conv", input=inputs, output=[f"v{names}"])
        pad = draw(st.integers(0, 1))
        _ints(conv, "pads", (pad,) * 4)
        if draw(st.booleans()):
            _ints(conv, "kernel_shape", (draw(st.sampled_from([kernel, kernel, kernel + 1])),) * 2)
        current, channels = f"v{names}", out
        if draw(st.booleans()):
            for p in ("s", "c", "m", "v"):
                _weight(graph, f"{p}{block}", (draw(st.sampled_from([out] * 5 + [out + 1])),))
            names += 1
            graph.node.add(
                op_type="BatchNormalization",
                input=[current, f"s{block}", f"c{block}", f"m{block}", f"v{block}"],
                output=[f"v{names}"],
            )
            current = f"v{names}"
        if draw(st.booleans()):
            names += 1
            pool = graph.node.add(
                op_type=draw(st.sampled_from(["MaxPool", "AveragePool"])),
                input=[current],
                output=[f"v{names}"],
            )
            _ints(pool, "kernel_shape", (draw(st.integers(1, 4)),) * 2)
            _ints(pool, "strides", (2, 2))
            current = f"v{names}"
        if draw(st.booleans()):
            names += 1
            graph.node.add(op_type="Concat", input=[current, current], output=[f"v{names}"])
            graph.node[-1].attribute.add(name="axis", type=2, i=draw(st.sampled_from([1, 1, -3])))
            current, channels = f"v{names}", 2 * channels
    graph.output.add(name=current)
    if draw(st.booleans()):  # a declared type, right or wrong
        info = graph.value_info.add(name="v1")
        info.type.tensor_type.elem_type = FLOAT
        info.type.tensor_type.shape.dim.add(dim_value=draw(st.integers(1, 2)))
    return model.SerializeToString()


@settings(max_examples=150, deadline=None)
@given(data=_cnn())
def test_drawn_models_answer_as_the_plain_path(data: bytes) -> None:
    assert_same(data)


def test_nodes_are_answered_directly() -> None:
    """Three alike blocks of Conv, BatchNormalization, MaxPool: not one rule runs after the
    first node of each kind (each block's weights of their own channel count)."""
    x = oc.arg("x", np.float32, ("N", 3, 32, 32))
    y, rng = x, np.random.default_rng(0)
    for c_in, c_out in ((3, 8), (8, 16), (16, 24)):
        w = rng.standard_normal((c_out, c_in, 3, 3)).astype(np.float32)
        p = np.ones(c_out, np.float32)
        y = op.BatchNormalization(op.Conv(y, w, pads=(1, 1, 1, 1)), p, p, p, p).Y
        y = op.MaxPool(y, kernel_shape=(2, 2), strides=(2, 2)).Y
    model = model_from_proto(oc.build([x], {"y": y}))
    runner = GraphInference({}, model.opset_imports, strict=True)
    ruled: list[str] = []
    original = infer_node

    def counted(info: OpInfo, *args: Any, **kwargs: Any) -> Any:
        ruled.append(info.op_type)
        return original(info, *args, **kwargs)

    walk.infer_node = counted  # type: ignore[assignment]
    try:
        runner.graph(model.graph, {}, {}, model.opset_imports)
    finally:
        walk.infer_node = original  # type: ignore[assignment]
    assert ruled == []  # every Conv, BatchNormalization and MaxPool answered directly
    assert model.graph.outputs[0].type == oc.Tensor(np.float32, ("N", 24, 4, 4))


def test_direct_answers_never_raise() -> None:
    """Odd attribute values make the direct answers decline, never fail."""
    x, w = Tensor(_F32, (1, 4, 8, 8)), Tensor(_F32, (4, 4, 3, 3))
    for attributes in (
        {"group": "two"},
        {"group": 0},
        {"strides": ("a",)},
        {"pads": (1, 1)},
        {"kernel_shape": (5, 5)},
        {"auto_pad": "SAME_UPPER"},
    ):
        assert direct_answer(DIRECT["Conv"], _op_info("Conv"), attributes, {}, [x, w], 1) is None
    for attributes in ({}, {"kernel_shape": ("a",)}, {"kernel_shape": (0, 1)}):
        assert direct_answer(DIRECT["MaxPool"], _op_info("MaxPool"), attributes, {}, [x], 1) is None
    assert direct_answer(DIRECT["Concat"], _op_info("Concat"), {"axis": "x"}, {}, [x, w], 1) is None
