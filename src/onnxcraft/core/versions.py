"""The DSL's default opset, and which IR version a model needs (per opset and per feature).

``build`` picks the lowest IR version that supports everything the model uses, so that older
runtimes can load it; users may ask for a higher one.
"""

from __future__ import annotations

from onnxcraft.dtypes import ElementType

__all__ = [
    "DEFAULT_OPSET",
    "FEATURE_IR",
    "LATEST_IR_VERSION",
    "min_ir_for_elem_type",
    "min_ir_for_opsets",
]

# The ai.onnx opset of the Python operators on Var (``x + y``, ``x[1:]``) and of oc.const.
DEFAULT_OPSET = 21

LATEST_IR_VERSION = 14

# First IR version released with each opset (ONNX release table).
_AI_ONNX_IR = {
    **dict.fromkeys(range(1, 9), 3),
    9: 4,
    10: 5,
    11: 6,
    12: 7,
    13: 7,
    14: 7,
    15: 8,
    16: 8,
    17: 8,
    18: 8,
    19: 9,
    20: 9,
    21: 10,
    22: 10,
    23: 11,
    24: 12,
    25: 13,
    26: 13,
    27: 13,
    28: 14,
}
_AI_ONNX_ML_IR = {1: 3, 2: 6, 3: 8, 4: 9, 5: 10}
_TRAINING_IR = {1: 7}

# IR versions that introduced model features (the Version enum of onnx.proto).
FEATURE_IR = {
    "initializer_not_input": 4,  # IR 3 wants every initializer listed as a graph input
    "sparse_initializer": 6,
    "training_info": 7,
    "functions": 8,
    "optional_type": 8,
    "sparse_tensor_type": 8,
    "function_attribute_defaults": 9,
    "overload": 10,
    "metadata": 10,  # metadata_props on nodes, graphs, functions, value_info; function value_info
}

_ELEM_IR = {
    ElementType.BFLOAT16: 4,
    ElementType.FLOAT8E4M3FN: 9,
    ElementType.FLOAT8E4M3FNUZ: 9,
    ElementType.FLOAT8E5M2: 9,
    ElementType.FLOAT8E5M2FNUZ: 9,
    ElementType.UINT4: 10,
    ElementType.INT4: 10,
    ElementType.FLOAT4E2M1: 11,
    ElementType.FLOAT8E8M0: 12,
    ElementType.UINT2: 13,
    ElementType.INT2: 13,
    ElementType.FLOAT6E2M3: 14,
    ElementType.FLOAT6E3M2: 14,
}


def min_ir_for_opsets(opsets: dict[str, int]) -> int:
    """The lowest IR version whose release includes every imported opset."""
    needed = 3
    for domain, version in opsets.items():
        if domain in ("", "ai.onnx"):
            table = _AI_ONNX_IR
        elif domain == "ai.onnx.ml":
            table = _AI_ONNX_ML_IR
        elif domain == "ai.onnx.preview.training":
            table = _TRAINING_IR
        else:
            continue  # custom domains carry no IR requirement
        needed = max(needed, table.get(version, LATEST_IR_VERSION))
    return needed


def min_ir_for_elem_type(elem: ElementType) -> int:
    return _ELEM_IR.get(elem, 3)
