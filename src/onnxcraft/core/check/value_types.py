"""Rules on types and tensors: well-formed types, complete main-graph types, tensor elements.

Noting a type also records the IR version it needs (optional and sparse types, recent element
types), which the version rules check once the whole model has been seen.
"""

from __future__ import annotations

import math

import numpy as np

from onnxcraft.core.check.problems import Problems
from onnxcraft.core.versions import FEATURE_IR, min_ir_for_elem_type
from onnxcraft.dtypes import MAP_KEY_TYPES, ElementType
from onnxcraft.ir import SparseData, TensorData
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["check_io_type", "check_sparse", "check_tensor", "note_metadata", "note_type"]


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


def check_tensor(place: str, tensor: TensorData, problems: Problems) -> bool:
    """A tensor (initializer or attribute) has an element type the IR version knows, and data
    stored as onnx.proto says (one field, as many values as its dims hold); True when its
    type and dims can be trusted."""
    elem = tensor.elem_type
    if elem == ElementType.UNDEFINED:
        problems.report(place, "initializer", "the tensor's element type is UNDEFINED or unknown")
    else:
        problems.need_ir(min_ir_for_elem_type(elem), f"element type {elem.name}")
    if tensor.malformed:
        problems.report(place, "tensor-data", f"tensor {tensor.name!r} {tensor.malformed}")
    elif any(d < 0 for d in tensor.dims):
        problems.report(
            place, "tensor-data", f"tensor {tensor.name!r} has negative dims {list(tensor.dims)}"
        )
    else:
        return elem != ElementType.UNDEFINED
    return False


def check_sparse(place: str, sparse: SparseData, problems: Problems) -> bool:
    """onnx.proto SparseTensorProto: 1-D values; INT64 indices of shape [NNZ] (linear,
    increasing) or [NNZ, rank] (coordinates, in lexicographic order), all inside ``dims``."""
    values, indices, dims = sparse.values, sparse.indices, sparse.dims
    if not (check_tensor(place, values, problems) and check_tensor(place, indices, problems)):
        return False
    label = f"sparse tensor {values.name!r}"
    if any(d < 0 for d in dims):
        problems.report(place, "sparse-tensor", f"{label} has dims {list(dims)}; each must be >= 0")
        return False
    if len(values.dims) != 1:
        problems.report(
            place, "sparse-tensor", f"{label}: values must be 1-D, got dims {list(values.dims)}"
        )
        return False
    nnz = values.dims[0]
    if indices.elem_type != ElementType.INT64:
        problems.report(
            place, "sparse-tensor", f"{label}: indices must be INT64, got {indices.elem_type.name}"
        )
        return False
    if indices.dims not in ((nnz,), (nnz, len(dims))):
        problems.report(
            place,
            "sparse-tensor",
            f"{label}: indices have dims {list(indices.dims)}, expected [{nnz}] or "
            f"[{nnz}, {len(dims)}]",
        )
        return False
    return _sparse_indices(place, label, indices.array(), dims, problems)


def _sparse_indices(
    place: str, label: str, indices: np.ndarray, dims: tuple[int, ...], problems: Problems
) -> bool:
    if indices.ndim == 2:  # coordinates: in range per axis, then linearized for the order
        bad = np.argwhere((indices < 0) | (indices >= np.asarray(dims)))
        if bad.size:
            row, axis = (int(v) for v in bad[0])
            problems.report(
                place,
                "sparse-tensor",
                f"{label}: index {indices[row].tolist()} (entry {row}) is outside dims "
                f"{list(dims)} on axis {axis}",
            )
            return False
        indices = np.ravel_multi_index(tuple(indices.T), dims) if indices.size else indices[:, 0]
    size = math.prod(dims)
    outside = np.flatnonzero((indices < 0) | (indices >= size))
    if outside.size:
        at = int(outside[0])
        problems.report(
            place,
            "sparse-tensor",
            f"{label}: index {int(indices[at])} (entry {at}) is outside [0, {size - 1}]",
        )
        return False
    unordered = np.flatnonzero(np.diff(indices) <= 0)
    if unordered.size:
        at = int(unordered[0]) + 1
        problems.report(
            place,
            "sparse-tensor",
            f"{label}: indices must be strictly increasing; entry {at} ({int(indices[at])}) "
            f"follows {int(indices[at - 1])}",
        )
        return False
    return True


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
