"""Hypothesis strategies for ONNX values, drawn from what the operator specs allow.

The strategies are written in :mod:`onnxcraft.ops.strategies` (the operator recipes draw with
them, and nothing in ``onnxcraft.ops`` may import ``onnxcraft.testing``); this is their public
name. In the style of ``hypothesis.extra.numpy``: values or strategies accepted, keyword-only
options, arguments validated when the strategy is created.

    element_types("T", spec=spec)        the element types a type constraint allows
    arrays(ElementType.FLOAT8E4M3FN, (2, 3), min_value=-4, max_value=4)
    broadcastable_shapes(3)              shapes that broadcast together, and their result
    valid_axes(rank, min_size=1)         distinct axes, some negative
    attribute_values(attr_spec)          a value of an AttributeSpec's type
    values(oc.Sequence(oc.Tensor(np.float32, None)))   tensors, sequences, optionals, maps
"""

from __future__ import annotations

from onnxcraft.ops.strategies import (
    ALL_ELEMENT_TYPES,
    BroadcastableShapes,
    allowed_types,
    array_shapes,
    arrays,
    attribute_values,
    broadcastable_shapes,
    element_types,
    elements,
    parse_type,
    valid_axes,
    valid_axis,
    value_types,
    values,
)

__all__ = [
    "ALL_ELEMENT_TYPES",
    "BroadcastableShapes",
    "allowed_types",
    "array_shapes",
    "arrays",
    "attribute_values",
    "broadcastable_shapes",
    "element_types",
    "elements",
    "parse_type",
    "valid_axes",
    "valid_axis",
    "value_types",
    "values",
]
