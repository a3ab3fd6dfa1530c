"""A model whose value_info already says what inference finds keeps its entries as they are
(issue 17): ``oc.infer_shapes`` rewrites the main graph's value_info only when some entry's
type changes, and otherwise appends the values it adds after the entries kept.

Inferring an inferred model gives the same bytes; an entry carrying what onnxcraft's types do
not hold (a dim's denotation) keeps it when inference agrees with it; an entry inference
refines is rewritten with the refined type, as before, and the other entries with it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto import ModelProto


def _model() -> Any:
    rng = np.random.default_rng(0)
    x = oc.arg("x", np.float32, ("N", 4, 8, 8))
    y = op.Relu(op.Conv(x, rng.standard_normal((6, 4, 3, 3)).astype(np.float32)))
    y = op.MaxPool(y, kernel_shape=(2, 2), strides=(2, 2)).Y
    return oc.build([x], {"y": op.Flatten(y)})


def _entries(model: Any) -> dict[str, Any]:
    return {info.name: info for info in model.graph.value_info}


def test_inferring_an_inferred_model_gives_its_bytes() -> None:
    once = oc.infer_shapes(_model().SerializeToString())
    again = oc.infer_shapes(once.SerializeToString())
    assert again.SerializeToString() == once.SerializeToString()
    assert len(once.graph.value_info) == 3  # Conv's, Relu's and MaxPool's outputs


def test_an_entry_inference_agrees_with_is_kept_as_read() -> None:
    typed = oc.infer_shapes(_model().SerializeToString())
    entry = typed.graph.value_info[0]
    entry.type.tensor_type.shape.dim[1].denotation = "DATA_CHANNEL"
    result = oc.infer_shapes(typed.SerializeToString())
    assert result.graph.value_info[0].type.tensor_type.shape.dim[1].denotation == "DATA_CHANNEL"
    assert [i.name for i in result.graph.value_info] == [i.name for i in typed.graph.value_info]


def test_an_entry_inference_refines_is_rewritten() -> None:
    typed = oc.infer_shapes(_model().SerializeToString())
    expected = {name: info.type.SerializeToString() for name, info in _entries(typed).items()}
    loose = ModelProto.FromString(typed.SerializeToString())
    refined = loose.graph.value_info[1]
    refined.type.tensor_type.shape.dim[2].Clear()  # a dim left unknown
    refined.type.tensor_type.shape.dim[1].denotation = "DATA_CHANNEL"
    result = oc.infer_shapes(loose.SerializeToString())
    got = {name: info.type.SerializeToString() for name, info in _entries(result).items()}
    assert got == expected  # the refined entry whole again (no denotation: rewritten)


def test_values_added_come_after_the_entries_kept() -> None:
    typed = oc.infer_shapes(_model().SerializeToString())
    partial = ModelProto.FromString(typed.SerializeToString())
    dropped = partial.graph.value_info[0].name
    del partial.graph.value_info[0]
    result = oc.infer_shapes(partial.SerializeToString())
    names = [info.name for info in result.graph.value_info]
    assert names == [*(i.name for i in partial.graph.value_info), dropped]
    assert _entries(result)[dropped].type == typed.graph.value_info[0].type
