"""Inference leaves nothing for the cyclic garbage collector (issue 17).

``oc.infer_shapes`` pauses the collector while it reads, walks and writes; every object it
makes must be freed by reference counting once the call returns. Garbage in reference cycles
would be collected later, inside whatever code runs next, and would grow with every call
(the walk's direct-answer contexts once referred to their own facts, and protobuf made the
encoded view's message classes again for every parse). The models cover the direct answers
(convolutions, pools, Concat, Softmax, Flatten), the encoded view of the nodes, value_info
read back (a typed model) and a model given as a message rather than bytes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op


def _small_cnn() -> Any:
    rng = np.random.default_rng(0)
    x = oc.arg("x", np.float32, ("N", 3, 32, 32))
    y = op.Relu(op.Conv(x, rng.standard_normal((8, 3, 3, 3)).astype(np.float32), strides=(2, 2)))
    y = op.MaxPool(y, kernel_shape=(3, 3), strides=(2, 2)).Y
    left = op.Conv(y, rng.standard_normal((4, 8, 1, 1)).astype(np.float32))
    right = op.Conv(y, rng.standard_normal((4, 8, 3, 3)).astype(np.float32), pads=(1, 1, 1, 1))
    y = op.Concat(left, right, axis=1)
    y = op.Flatten(op.GlobalAveragePool(y))
    return oc.build([x], {"p": op.Softmax(y)})


@contextmanager
def _collector_off() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("form", ["bytes", "typed bytes", "message"])
def test_inference_leaves_no_cyclic_garbage(form: str) -> None:
    model = _small_cnn()
    given: Any = model.SerializeToString()
    if form == "typed bytes":
        given = oc.infer_shapes(given).SerializeToString()
    elif form == "message":
        given = model
    oc.infer_shapes(given)  # (the library's own tables made once per process)
    with _collector_off():
        gc.collect()
        result = oc.infer_shapes(given)
        unreachable = gc.collect()
    assert unreachable == 0
    assert result.graph.output[0].type.tensor_type.shape.dim[1].dim_value == 8
