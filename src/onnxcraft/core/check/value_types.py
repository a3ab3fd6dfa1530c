"""Rules on types and tensors: well-formed types, complete main-graph types, tensor elements.

Noting a type also records the IR version it needs (optional and sparse types, recent element
types), which the version rules check once the whole model has been seen.
"""

from __future__ import annotations

from onnxcraft.core.check.problems import Problems
from onnxcraft.core.versions import FEATURE_IR, min_ir_for_elem_type
from onnxcraft.dtypes import MAP_KEY_TYPES, ElementType
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["check_io_type", "check_tensor", "note_metadata", "note_type"]


def note_type(value: ValueType | None, place: str, problems: Problems) -> None:
    """Record the IR versions a type needs; report map keys onnx.proto does not allow."""
    if isinstance(value, (Tensor, SparseTensor)):
        if isinstance(value, SparseTensor):
            problems.need_ir(FEATURE_IR["sparse_tensor_type"], "sparse tensor types")
        if value.elem_type is not None:
            reason = f"element type {value.elem_type.name}"
            problems.need_ir(min_ir_for_elem_type(value.elem_type), reason)
    elif isinstance(value, Optional):
        problems.need_ir(FEATURE_IR["optional_type"], "optional types")
        note_type(value.elem, place, problems)
    elif isinstance(value, Sequence):
        note_type(value.elem, place, problems)
    elif isinstance(value, Map):
        if value.key not in MAP_KEY_TYPES:
            problems.report(
                place,
                "value-type",
                f"map key type {value.key.name} is not an integer type or STRING",
            )
        note_type(value.value, place, problems)


def note_metadata(metadata: dict[str, str], what: str, problems: Problems) -> None:
    if metadata:
        problems.need_ir(FEATURE_IR["metadata"], what)


def check_tensor(place: str, elem: ElementType, problems: Problems) -> None:
    """A tensor (initializer or attribute) has an element type, which the IR version knows."""
    if elem == ElementType.UNDEFINED:
        problems.report(place, "initializer", "the tensor's element type is UNDEFINED")
    else:
        problems.need_ir(min_ir_for_elem_type(elem), f"element type {elem.name}")


def check_io_type(place: str, value: ValueType | None, problems: Problems) -> None:
    """IR.md: main graph inputs and outputs have a type, tensors at least a rank."""
    problem = _incomplete(value)
    if problem:
        problems.report(place, "io-type", f"a main graph input or output needs {problem}")


def _incomplete(value: ValueType | None) -> str:
    """What a main-graph input/output type lacks ("" when complete)."""
    if value is None:
        return "a type"
    if isinstance(value, (Tensor, SparseTensor)):
        if value.elem_type is None:
            return "an element type"
        return "a shape (at least its rank)" if value.shape is None else ""
    if isinstance(value, (Sequence, Optional)):
        return "an element type" if value.elem is None else ""
    return "a value type" if value.value is None else ""
