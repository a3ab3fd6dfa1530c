"""Inference over every node test case: inferred types never contradict the expected outputs.

Each case's model has its declared output types removed, is run through ``oc.infer_shapes``,
and every inferred output type is compared with the expected output value: element type,
rank and every static dim must agree where inferred. Unknown is allowed; wrong is not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.core.types import Optional, Sequence, Tensor
from onnxcraft.dtypes import element_type_of
from onnxcraft.proto import TypeProto
from onnxcraft.proto.serde import model_from_proto
from tests.node_cases import case_names, load_case


def _contradiction(name: str, inferred: Any, value: Any) -> str | None:
    if inferred is None:
        return None
    if isinstance(inferred, Tensor):
        if not isinstance(value, np.ndarray):
            return f"{name}: inferred {inferred}, got a {type(value).__name__}"
        if inferred.elem_type is not None and element_type_of(value.dtype) != inferred.elem_type:
            return f"{name}: inferred {inferred}, got dtype {value.dtype}"
        if inferred.shape is not None:
            if len(inferred.shape) != value.ndim:
                return f"{name}: inferred {inferred}, got shape {list(value.shape)}"
            for want, got in zip(inferred.shape, value.shape):
                if isinstance(want, int) and want != got:
                    return f"{name}: inferred {inferred}, got shape {list(value.shape)}"
        return None
    if isinstance(inferred, Sequence):
        if not isinstance(value, list):
            return f"{name}: inferred {inferred}, got a {type(value).__name__}"
        for i, item in enumerate(value):
            found = _contradiction(f"{name}[{i}]", inferred.elem, item)
            if found:
                return found
        return None
    if isinstance(inferred, Optional):
        return None if value is None else _contradiction(name, inferred.elem, value)
    return None


@pytest.mark.parametrize("name", case_names())
def test_inferred_types_never_contradict_expected_outputs(name: str) -> None:
    case = load_case(name)
    model = type(case.model)()
    model.CopyFrom(case.model)
    for output in model.graph.output:
        output.type.CopyFrom(TypeProto())  # forget what the model declares
    inferred = model_from_proto(oc.infer_shapes(model))
    for info in inferred.graph.outputs:
        problem = _contradiction(info.name, info.type, case.outputs[info.name])
        assert problem is None, problem
