"""onnxruntime as a conformance backend (used only when asked for, and only if installed).

onnxruntime is not a dependency of onnxcraft: the module is loaded by name when a session is
made or the profile read, so importing this module costs nothing and needs nothing. Its
profile comes from the runtime itself: the newest opset of each domain its CPU kernels
implement, the element types they take, and the newest IR version it loads (probed with a
one-node model).
"""

from __future__ import annotations

import ctypes
import importlib
from functools import cache
from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.core.versions import LATEST_IR_VERSION
from onnxcraft.dtypes import (
    ElementType,
    as_representation,
    element_type_of,
    from_type_string,
    numpy_dtype,
    storage_dtype,
)
from onnxcraft.errors import OnnxcraftError
from onnxcraft.proto.serde import model_to_proto
from onnxcraft.testing.conformance.backend import Prepared
from onnxcraft.testing.profile import Profile
from onnxcraft.types import Tensor

__all__ = ["OnnxruntimeBackend", "onnxruntime_module"]

_DOMAINS = ("", "ai.onnx.ml")


def onnxruntime_module() -> Any:
    """The onnxruntime module, or an error saying how to install it."""
    try:
        return importlib.import_module("onnxruntime")
    except ImportError as exc:
        raise OnnxcraftError(
            "the onnxruntime backend needs onnxruntime: pip install onnxruntime"
        ) from exc


class OnnxruntimeBackend:
    """onnxruntime's CPU provider, one thread, graph optimizations as configured."""

    name = "onnxruntime"
    representation = "ml_dtypes"

    def __init__(self, *, profile: Profile | None = None, optimize: bool = False) -> None:
        self._profile = profile
        self.optimize = optimize

    @property
    def version(self) -> str:
        return str(onnxruntime_module().__version__)

    @property
    def profile(self) -> Profile:
        if self._profile is None:
            self._profile = runtime_profile()
        return self._profile

    def __getstate__(self) -> dict[str, Any]:
        return {"_profile": self._profile, "optimize": self.optimize}

    def prepare(self, model: bytes) -> Prepared:
        ort = onnxruntime_module()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 4
        if not self.optimize:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        output_elems = [_low_precision(o.type) for o in session.get_outputs()]

        def run(feeds: dict[str, Any]) -> list[Any]:
            lowp_feeds = any(_elem_of_ml_dtypes(v) is not None for v in feeds.values())
            if not lowp_feeds and not any(output_elems):
                return [_dense(r) for r in session.run(names, feeds)]
            # onnxruntime's Python API has no numpy type for bfloat16, float8, int4 ...:
            # such values go in and out as OrtValues holding their bits.
            values = {name: _ort_value(ort, value) for name, value in feeds.items()}
            results = session.run_with_ort_values(names, values)
            return [_from_ort_value(r, e) for r, e in zip(results, output_elems)]

        return run


# bits a value of the types onnxruntime packs several to a byte, the first in the low bits
_PACKED = {
    ElementType.INT4: 4,
    ElementType.UINT4: 4,
    ElementType.FLOAT4E2M1: 4,
    ElementType.INT2: 2,
    ElementType.UINT2: 2,
}
# the signed ones: the value of the sign bit, subtracted twice to sign-extend
_SIGN_BIT = {ElementType.INT4: 8, ElementType.INT2: 2}


def _dense(value: Any) -> Any:
    """A sparse tensor onnxruntime returns (Constant of a sparse_value) as a dense array."""
    if not hasattr(value, "dense_shape") or not hasattr(value, "get_coo_data"):
        return value
    values = np.asarray(value.values())
    dense = np.zeros(tuple(value.dense_shape()), dtype=values.dtype)
    indices = np.asarray(value.get_coo_data().indices()).astype(np.int64)
    if indices.ndim == 2:  # one row of coordinates a value
        dense[tuple(indices.T)] = values
    else:  # linear indices
        dense.reshape(-1)[indices] = values
    return dense


def _low_precision(type_text: str) -> ElementType | None:
    """The element type of an output of type ``tensor(x)`` that numpy lacks, else None."""
    if not type_text.startswith("tensor("):
        return None
    try:
        elem = from_type_string(type_text)
    except ValueError:
        return None
    return elem if numpy_dtype(elem).names is not None else None


def _elem_of_ml_dtypes(value: Any) -> ElementType | None:
    dtype = getattr(value, "dtype", None)
    if not isinstance(dtype, np.dtype) or dtype.num < 256 or dtype.names is not None:
        return None
    try:
        return element_type_of(dtype)
    except (TypeError, ValueError):
        return None


def _ort_value(ort: Any, value: Any) -> Any:
    elem = _elem_of_ml_dtypes(value)
    if elem is None:
        return ort.OrtValue.ortvalue_from_numpy(np.asarray(value, order="C"))
    bits = np.asarray(as_representation(value), order="C")
    bits = bits[bits.dtype.names[0]] if bits.dtype.names else bits
    if elem in _PACKED:
        width = _PACKED[elem]
        per_byte = 8 // width
        flat = bits.reshape(-1).astype(np.uint8) & ((1 << width) - 1)
        flat = np.append(flat, np.zeros(-flat.size % per_byte, np.uint8))
        packed = np.zeros(flat.size // per_byte, np.uint8)
        for slot in range(per_byte):
            packed |= flat[slot::per_byte] << (width * slot)
        payload = packed.tobytes()
    else:
        payload = np.asarray(bits, order="C").astype(storage_dtype(elem), copy=False).tobytes()
    # made from the shape (a 0-d array would come out of ortvalue_from_numpy as shape [1])
    holder = ort.OrtValue.ortvalue_from_shape_and_type(list(bits.shape), elem.value)
    if payload:
        ctypes.memmove(holder.data_ptr(), payload, len(payload))
    return holder


def _from_ort_value(value: Any, elem: ElementType | None) -> Any:
    if elem is None:
        return value.numpy()
    shape = tuple(value.shape())
    raw = np.frombuffer(ctypes.string_at(value.data_ptr(), value.tensor_size_in_bytes()), np.uint8)
    count = int(np.prod(shape))
    if elem in _PACKED:
        width = _PACKED[elem]
        mask = (1 << width) - 1
        slots = [(raw >> (width * slot)) & mask for slot in range(8 // width)]
        small = np.stack(slots, axis=-1).reshape(-1)[:count]
        if elem in _SIGN_BIT:
            sign = _SIGN_BIT[elem]
            small = ((small.astype(np.int8) ^ sign) - sign).astype(np.int8)
        return small.reshape(shape).view(numpy_dtype(elem))
    bits = raw.view(storage_dtype(elem))[:count]
    return bits.reshape(shape).view(numpy_dtype(elem))


@cache
def runtime_profile() -> Profile:
    """The profile of the installed onnxruntime (CPU provider)."""
    ort = onnxruntime_module()
    state = importlib.import_module("onnxruntime.capi.onnxruntime_pybind11_state")
    opsets: dict[str, int] = {}
    elements: set[ElementType] = set()
    for kernel in state.get_all_opkernel_def():
        if kernel.provider != "CPUExecutionProvider" or kernel.domain not in _DOMAINS:
            continue
        opsets[kernel.domain] = max(opsets.get(kernel.domain, 1), int(kernel.version_range[0]))
        for allowed in kernel.type_constraints.values():
            for text in allowed:
                if text.startswith("tensor("):
                    try:
                        elements.add(from_type_string(text))
                    except ValueError:
                        continue  # a type onnxcraft does not know is not drawn anyway
    return Profile(
        ir_version=_newest_ir_version(ort), opsets=opsets, element_types=frozenset(elements)
    )


def _newest_ir_version(ort: Any) -> int:
    """The newest IR version onnxruntime loads: a one-node model of each, newest first."""
    for version in range(LATEST_IR_VERSION, 3, -1):
        graph = ir.Graph(name="probe")
        graph.inputs.append(ir.ValueInfo("x", Tensor(ElementType.FLOAT, (1,))))
        graph.outputs.append(ir.ValueInfo("y", Tensor(ElementType.FLOAT, (1,))))
        graph.nodes.append(ir.Node("Identity", ["x"], ["y"], "", "probe", []))
        model = model_to_proto(ir.Model(graph, {"": 1}, ir_version=version))
        options = ort.SessionOptions()
        options.log_severity_level = 4
        try:
            session = ort.InferenceSession(
                model.SerializeToString(), options, providers=["CPUExecutionProvider"]
            )
            session.run(None, {"x": np.zeros(1, np.float32)})
        except Exception:  # any refusal means this IR version is not loaded
            continue
        return version
    return 3
