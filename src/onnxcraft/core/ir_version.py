"""The IR version a built model declares: the lowest that supports everything it uses.

Opsets (through ONNX's release table), element types, optional types, initializers that are
not inputs and model-local functions each need some IR version (:mod:`onnxcraft.core.versions`
holds the tables); older runtimes can load the model so written. Users may ask for a higher one.
"""

from __future__ import annotations

from onnxcraft.core.graphwalk import ir_nodes
from onnxcraft.core.versions import (
    FEATURE_IR,
    LATEST_IR_VERSION,
    min_ir_for_elem_type,
    min_ir_for_opsets,
)
from onnxcraft.errors import BuildError
from onnxcraft.ir import Function
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["function_feature_ir", "model_ir_version", "type_feature_ir"]


def type_feature_ir(value: ValueType | None) -> int:
    """The IR version a value type needs (its element types, optional types)."""
    if isinstance(value, (Tensor, SparseTensor)):
        return 3 if value.elem_type is None else min_ir_for_elem_type(value.elem_type)
    if isinstance(value, Optional):
        return max(FEATURE_IR["optional_type"], type_feature_ir(value.elem))
    if isinstance(value, Sequence):
        return type_feature_ir(value.elem)
    if isinstance(value, Map):
        return type_feature_ir(value.value)
    return 3


def function_feature_ir(function: Function) -> int:
    """The IR version a FunctionProto's own features need (onnx.proto's Version enum).

    Functions carried over by inline may have attribute defaults, value_info or overloads;
    constants in any function body may be of recent element types.
    """
    needed = FEATURE_IR["functions"]
    if function.attribute_defaults:
        needed = max(needed, FEATURE_IR["function_attribute_defaults"])
    if function.value_info or function.overload or function.metadata:
        needed = max(needed, FEATURE_IR["metadata"])
    for node in ir_nodes(function.nodes):
        if node.overload or node.metadata:
            needed = max(needed, FEATURE_IR["metadata"])
        for attr in node.attributes:
            tensors = [attr.value] if attr.type == "TENSOR" else []
            tensors += list(attr.value or []) if attr.type == "TENSORS" else []
            for tensor in tensors:
                needed = max(needed, min_ir_for_elem_type(tensor.elem_type))
    return needed


def model_ir_version(
    requested: int | None, opsets: dict[str, int], feature_ir: int, functions: list[Function]
) -> int:
    """The IR version to write: ``requested``, checked, or the lowest the model allows.

    ``feature_ir`` is what the main graph's features need.
    """
    required_ir = max(
        min_ir_for_opsets(opsets),
        feature_ir,
        *(function_feature_ir(f) for f in functions),
    )
    if requested is None:
        return required_ir
    if requested < required_ir:
        raise BuildError(
            f"build: ir_version={requested} is too old for this model, which needs at least "
            f"{required_ir} (for its opsets {opsets} and the features it uses)"
        )
    if requested > LATEST_IR_VERSION:
        raise BuildError(
            f"build: ir_version={requested} is newer than the latest ({LATEST_IR_VERSION})"
        )
    return requested
