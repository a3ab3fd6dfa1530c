"""Run one ONNX node on onnxruntime (single-threaded) as an oracle for the vision kernels."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.bool_): TensorProto.BOOL,
}


def run_node(
    op_type: str,
    inputs: list[np.ndarray | None],
    *,
    opset: int,
    outputs: int = 1,
    **attributes: Any,
) -> list[np.ndarray]:
    """Outputs of ``op_type`` on ``inputs`` (None = omitted optional input) per onnxruntime."""
    names = [f"in{i}" if value is not None else "" for i, value in enumerate(inputs)]
    node = helper.make_node(op_type, names, [f"out{i}" for i in range(outputs)], **attributes)
    graph_inputs = [
        helper.make_tensor_value_info(name, ELEM[value.dtype], value.shape)
        for name, value in zip(names, inputs)
        if value is not None
    ]
    graph_outputs = [helper.make_empty_tensor_value_info(f"out{i}") for i in range(outputs)]
    graph = helper.make_graph([node], "single", graph_inputs, graph_outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    feeds = {name: value for name, value in zip(names, inputs) if value is not None}
    return list(session.run(None, feeds))
