"""Merging two descriptions of one value's type: what was declared and what was inferred.

``Var.with_type`` merges the type a user states with the inferred one, and ``infer_shapes``
merges a model's value_info with what inference finds; both keep what either knows and
reject a contradiction.
"""

from __future__ import annotations

from onnxcraft.errors import InferenceError
from onnxcraft.types import Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["refine"]


def refine(declared: ValueType | None, inferred: ValueType | None, where: str) -> ValueType | None:
    """The type knowing what both know; raises InferenceError when they contradict."""
    if declared is None:
        return inferred
    if inferred is None or declared == inferred:
        return declared
    if (isinstance(declared, Tensor) and isinstance(inferred, Tensor)) or (
        isinstance(declared, SparseTensor) and isinstance(inferred, SparseTensor)
    ):
        a, b = declared, inferred
        if a.elem_type and b.elem_type and a.elem_type != b.elem_type:
            raise InferenceError(f"{where}: declared {a} but inferred {b}")
        elem = a.elem_type or b.elem_type
        if a.shape is None or b.shape is None:
            shape = a.shape if b.shape is None else b.shape
        else:
            if len(a.shape) != len(b.shape):
                raise InferenceError(f"{where}: declared {a} but inferred {b} (rank differs)")
            dims = []
            for x, y in zip(a.shape, b.shape):
                if isinstance(x, int) and isinstance(y, int) and x != y:
                    raise InferenceError(f"{where}: declared {a} but inferred {b}")
                dims.append(x if isinstance(x, int) else (y if y is not None else x))
            shape = tuple(dims)
        return type(a)(elem, shape)
    if isinstance(declared, Sequence) and isinstance(inferred, Sequence):
        return Sequence(refine(declared.elem, inferred.elem, where))
    if isinstance(declared, Optional) and isinstance(inferred, Optional):
        return Optional(refine(declared.elem, inferred.elem, where))
    if type(declared) is not type(inferred):
        raise InferenceError(f"{where}: declared {declared} but inferred {inferred}")
    return declared
