"""Rules against the evaluator: an inferred type must describe the value that is computed.

Shared by the rule tests of the random, text and training families. A model is built from
onnxcraft Vars (their types come from the rules while the expression is built), evaluated, and
every output value is checked against its inferred type: element type, rank, static dims, and
named dims (a symbol stands for one size wherever it appears, inputs included). The model's
output types are then forgotten and inferred again with ``oc.infer_shapes``, which must agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.dtypes import element_type_of
from onnxcraft.proto import TypeProto
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Tensor


def assert_describes(
    inferred: Any, value: Any, symbols: dict[str, int], name: str = "output"
) -> None:
    """``inferred`` is a tensor type of ``value``; named dims bind consistently in ``symbols``."""
    assert isinstance(inferred, Tensor), f"{name}: expected a tensor type, got {inferred!r}"
    array = np.asarray(value)
    assert inferred.elem_type is not None, f"{name}: the element type was not inferred"
    assert element_type_of(array.dtype) == inferred.elem_type, (
        f"{name}: inferred {inferred}, computed dtype {array.dtype}"
    )
    assert inferred.shape is not None, f"{name}: the rank was not inferred"
    assert len(inferred.shape) == array.ndim, (
        f"{name}: inferred {inferred}, computed shape {list(array.shape)}"
    )
    for dim, size in zip(inferred.shape, array.shape):
        if isinstance(dim, int):
            assert dim == size, f"{name}: inferred {inferred}, computed shape {list(array.shape)}"
        elif isinstance(dim, str):
            bound = symbols.setdefault(dim, size)
            assert bound == size, f"{name}: symbol {dim!r} is {bound} elsewhere but {size} here"


def _bind_inputs(inputs: Sequence[oc.Var], feeds: Mapping[str, Any]) -> dict[str, int]:
    symbols: dict[str, int] = {}
    for var in inputs:
        shape = var.type.shape if isinstance(var.type, Tensor) else None
        value = np.asarray(feeds[var.name])
        for dim, size in zip(shape or (), value.shape):
            if isinstance(dim, str):
                symbols.setdefault(dim, size)
    return symbols


def evaluate_and_check(
    inputs: Sequence[oc.Var], outputs: Mapping[str, oc.Var], feeds: Mapping[str, Any]
) -> dict[str, Any]:
    """Build and evaluate; assert each output's inferred type (DSL and infer_shapes) fits."""
    model = oc.build(inputs=list(inputs), outputs=dict(outputs))
    results = oc.evaluate(model, dict(feeds))
    symbols = _bind_inputs(inputs, feeds)
    for key, var in outputs.items():
        assert_describes(var.type, results[key], symbols, key)
    for info in _reinferred_outputs(model):
        assert_describes(info.type, results[info.name], dict(symbols), f"infer_shapes {info.name}")
    return dict(results)


def _reinferred_outputs(model: Any) -> list[Any]:
    """The output types ``oc.infer_shapes`` finds once the declared ones are removed."""
    copy = type(model)()
    copy.CopyFrom(model)
    for output in copy.graph.output:
        output.type.CopyFrom(TypeProto())
    return list(model_from_proto(oc.infer_shapes(copy)).graph.outputs)
