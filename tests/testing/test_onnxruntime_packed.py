"""onnxruntime's packed types (several values a byte) handed over by the conformance backend:
onnxruntime's own Cast decodes what the backend packed, and encodes what the backend unpacks.
"""

from __future__ import annotations

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft import ir
from onnxcraft.dtypes import ElementType as E
from onnxcraft.proto.serde import model_to_proto
from onnxcraft.testing.conformance.onnxruntime_backend import OnnxruntimeBackend
from onnxcraft.testing.examples import backend_value
from onnxcraft.types import Tensor

pytest.importorskip("onnxruntime")

# every value of each type, an odd count so that the last byte is partly filled
VALUES = {
    E.INT2: [-2, -1, 0, 1, 1, 0, -2],
    E.UINT2: [0, 1, 2, 3, 3, 2, 1],
    E.INT4: [-8, -1, 0, 7, 3, -5, 6],
    E.UINT4: [0, 15, 7, 8, 1, 2, 9],
}


def _model(elem: E) -> bytes:
    graph = ir.Graph(name="packed")
    graph.inputs.append(ir.ValueInfo("x", Tensor(elem, (7,))))
    graph.outputs.append(ir.ValueInfo("same", Tensor(elem, (7,))))
    graph.outputs.append(ir.ValueInfo("as_float", Tensor(E.FLOAT, (7,))))
    to_float = ir.Attribute("to", "INT", int(E.FLOAT))
    graph.nodes.append(ir.Node("Cast", ["x"], ["as_float"], "", "decode", [to_float]))
    back = ir.Attribute("to", "INT", int(elem))
    graph.nodes.append(ir.Node("Cast", ["as_float"], ["same"], "", "encode", [back]))
    return model_to_proto(ir.Model(graph, {"": 25}, ir_version=13)).SerializeToString()


@pytest.mark.parametrize("elem", list(VALUES), ids=lambda e: e.name)
def test_packed_values_round_trip_through_onnxruntime(elem: E) -> None:
    values = np.array(VALUES[elem], np.float32)
    encoded = oc.numerics.from_float32(values, elem)
    run = OnnxruntimeBackend().prepare(_model(elem))
    same, as_float = run({"x": backend_value(encoded)})
    assert as_float.tolist() == values.tolist()
    assert oc.numerics.to_float32(np.asarray(same)).tolist() == values.tolist()
