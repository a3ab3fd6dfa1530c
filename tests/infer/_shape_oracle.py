"""Helpers shared by the inference tests: run a model with onnxruntime and hold the inferred
types against what actually came out.

An inferred type must never contradict a real value: element type, rank and every static dim
must agree where inferred. A symbolic dim ``"N"`` must agree with the value the test fed for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.dtypes import element_type_of
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Dim, Optional, Sequence, Tensor, ValueType
from tests.core.oracle import run_ort


def contradiction(
    name: str, inferred: ValueType | None, value: Any, symbols: Mapping[str, int] | None = None
) -> str | None:
    """What ``inferred`` gets wrong about ``value`` (None when it is consistent)."""
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
                if isinstance(want, str) and symbols is not None and want in symbols:
                    want = symbols[want]
                if isinstance(want, int) and want != got:
                    return f"{name}: inferred {inferred}, got shape {list(value.shape)}"
        return None
    if isinstance(inferred, Sequence):
        if not isinstance(value, list):
            return f"{name}: inferred {inferred}, got a {type(value).__name__}"
        for i, item in enumerate(value):
            found = contradiction(f"{name}[{i}]", inferred.elem, item, symbols)
            if found:
                return found
        return None
    if isinstance(inferred, Optional):
        return None if value is None else contradiction(name, inferred.elem, value, symbols)
    return None


def is_static(t: ValueType | None) -> bool:
    """Element type and every dim known."""
    return (
        isinstance(t, Tensor)
        and t.elem_type is not None
        and t.shape is not None
        and all(isinstance(d, int) for d in t.shape)
    )


def exact_type(value: np.ndarray) -> Tensor:
    """The fully static type of a concrete value."""
    return Tensor(value.dtype, value.shape)


def bind(shape: tuple[Dim, ...], symbols: Mapping[str, int]) -> tuple[Dim, ...]:
    """``shape`` with its symbols replaced by the values the test feeds for them."""
    return tuple(symbols.get(d, d) if isinstance(d, str) else d for d in shape)


def inferred_output_types(model: Any, *, strict: bool = True) -> dict[str, ValueType | None]:
    """The output types ``oc.infer_shapes`` gives a model whose declared outputs are erased."""
    stripped = oc.proto.ModelProto.FromString(model.SerializeToString())
    for output in stripped.graph.output:
        output.type.Clear()
    inferred = model_from_proto(oc.infer_shapes(stripped, strict=strict))
    return {info.name: info.type for info in inferred.graph.outputs}


def run(model: Any, feeds: dict[str, Any]) -> dict[str, Any]:
    """Outputs computed by onnxruntime (the oracle of the shapes)."""
    return run_ort(model, feeds)
