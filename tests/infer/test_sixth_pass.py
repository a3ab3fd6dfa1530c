"""The sixth pass: Conv answered before its key in a walk whose initializers seldom share a
type (decided once per walk from the reader's count of distinct types), else after it.

Whichever way a walk goes, it must give the plain path's bytes, warnings and errors."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.infer import graph as walk
from onnxcraft.infer.graph import GraphInference
from onnxcraft.proto import ModelProto
from onnxcraft.proto.inference import read_for_inference
from tests.infer.test_direct import _empty_model, _input, _ints, _weight
from tests.infer.test_fast_paths import assert_same


@st.composite
def _convs(draw: st.DrawFn) -> bytes:
    """A chain of convolutions, repeating (the same weight dims and input each time: their
    keys hit) or not (channel counts drawn), sometimes inconsistent (a weight's or a bias's
    channels off by one), with a declared type right or wrong."""
    model = _empty_model()
    graph = model.graph
    channels = draw(st.integers(1, 4))
    size = draw(st.integers(3, 9))
    _input(graph, "x", (draw(st.sampled_from([1, "N"])), channels, size, size))
    repeating = draw(st.booleans())
    current = "x"
    for block in range(draw(st.integers(1, 12))):
        out = channels if repeating else draw(st.integers(1, 5))
        given = draw(st.sampled_from([channels] * 9 + [channels + 1]))
        kernel = draw(st.sampled_from([1, 3])) if not repeating else 3
        _weight(graph, f"w{block}", (out, given, kernel, kernel))
        inputs = [current, f"w{block}"]
        if draw(st.booleans()):
            _weight(graph, f"b{block}", (draw(st.sampled_from([out] * 9 + [out + 1])),))
            inputs.append(f"b{block}")
        conv = graph.node.add(op_type="Conv", input=inputs, output=[f"v{block}"])
        _ints(conv, "pads", (kernel // 2,) * 4)
        if draw(st.booleans()):
            _ints(conv, "strides", (draw(st.sampled_from([1, 1, 2])),) * 2)
        if draw(st.booleans()):
            relu = graph.node.add(op_type="Relu", input=[f"v{block}"], output=[f"r{block}"])
            current = relu.output[0]
        else:
            current = f"v{block}"
        channels = out
    graph.output.add(name=current)
    if draw(st.booleans()):  # a declared type, right or wrong
        info = graph.value_info.add(name="v0")
        info.type.tensor_type.elem_type = 1
        info.type.tensor_type.shape.dim.add(dim_value=draw(st.integers(1, 2)))
    return model.SerializeToString()


def _conv_first(data: bytes) -> bool:
    """Whether the walk answers Conv before its key for this model."""
    model, _, typed = read_for_inference(ModelProto.FromString(data), values_up_to=64)
    runner = GraphInference({}, model.opset_imports, False)
    runner.graph(model.graph, {}, {}, model.opset_imports, added=[], typed_initializers=typed)
    return runner._conv_first


@settings(max_examples=200, deadline=None)
@given(data=_convs())
def test_drawn_convolutions_answer_as_the_plain_path(data: bytes) -> None:
    assert_same(data)


def _chain(blocks: int, repeating: bool) -> bytes:
    model = _empty_model()
    graph = model.graph
    _input(graph, "x", ("N", 4, 8, 8))
    current, channels = "x", 4
    for block in range(blocks):
        out = 4 if repeating else 5 + block
        _weight(graph, f"w{block}", (out, channels, 3, 3))
        conv = graph.node.add(op_type="Conv", input=[current, f"w{block}"], output=[f"v{block}"])
        _ints(conv, "pads", (1, 1, 1, 1))
        current, channels = f"v{block}", out
    graph.output.add(name=current)
    return model.SerializeToString()


def test_both_choices_give_the_plain_path() -> None:
    """Repeated blocks keep their keys (their convolutions are remembered); distinct ones
    are answered first; both as the plain path, strict and not."""
    repeated, distinct = _chain(walk._CONV_FIRST_SHARING + 2, True), _chain(8, False)
    assert not _conv_first(repeated)
    assert _conv_first(distinct)
    assert_same(repeated)
    assert_same(distinct)


def test_the_reader_counts_distinct_types() -> None:
    data = _chain(5, True)
    typed: Any = read_for_inference(ModelProto.FromString(data), values_up_to=64).typed
    assert typed is not None
    assert typed[2] == len({id(t) for t in typed[0].values()}) == 1
