"""Shared helpers for the ai.onnx.ml transform tests: run a model on onnxcraft and onnxruntime,
describe a value's type, and check an inferred type against an evaluated value."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnxruntime as ort
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.types import Map, Sequence, Tensor, ValueType

ML = "ai.onnx.ml"


def onnxruntime_run(model: Any, feeds: dict[str, Any]) -> dict[str, Any]:
    """Every output of ``model`` (a ModelProto of either library) per onnxruntime."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def evaluate_both(
    inputs: list[oc.Var], outputs: dict[str, oc.Var], feeds: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Build the DSL graph once; its outputs per onnxcraft and per onnxruntime."""
    model = oc.build(inputs=inputs, outputs=outputs)
    return oc.evaluate(model, feeds), onnxruntime_run(model, feeds)


def assert_same_tensor(ours: Any, theirs: Any, *, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Same dtype, shape and values (floats within the tolerance, NaN equal to NaN)."""
    theirs = np.asarray(theirs)
    assert isinstance(ours, np.ndarray), f"expected an array, got {type(ours).__name__}"
    assert ours.dtype == theirs.dtype, f"dtype {ours.dtype} != {theirs.dtype}"
    assert ours.shape == theirs.shape, f"shape {ours.shape} != {theirs.shape}"
    if ours.dtype.kind == "f":
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert ours.tolist() == theirs.tolist()


def strings_array(values: list[str], shape: tuple[int, ...] | None = None) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array if shape is None else array.reshape(shape)


# -- types of values ------------------------------------------------------------------------------


def _elem_of(dtype: np.dtype[Any]) -> ElementType:
    return ElementType.STRING if dtype.kind in "USO" else element_type_of(dtype)


def value_type(value: Any) -> ValueType | None:
    """The type of an evaluated value: arrays, lists (sequences) and dicts (maps)."""
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return Tensor(_elem_of(array.dtype), array.shape)
    if isinstance(value, list):
        return Sequence(value_type(value[0]) if value else None)
    if isinstance(value, dict):
        keys = list(value)
        key = ElementType.STRING if keys and isinstance(keys[0], str) else ElementType.INT64
        return Map(key, value_type(value[keys[0]]) if keys else None)
    raise TypeError(f"no value type for {type(value).__name__}")


def _check_dims(
    inferred: tuple[Any, ...], actual: tuple[int, ...], symbols: dict[str, int]
) -> None:
    assert len(inferred) == len(actual), f"rank {len(inferred)} != {len(actual)}"
    for want, got in zip(inferred, actual):
        if isinstance(want, int):
            assert want == got, f"dim {want} != {got} (shapes {inferred}, {actual})"
        elif isinstance(want, str):
            assert symbols.setdefault(want, got) == got, f"symbol {want!r} is not one size"


def assert_type_matches(
    inferred: ValueType | None, value: Any, symbols: dict[str, int] | None = None
) -> None:
    """The inferred type describes ``value``: every known part agrees, symbols consistently."""
    symbols = {} if symbols is None else symbols
    assert inferred is not None, "nothing was inferred"
    actual = value_type(value)
    if isinstance(inferred, Tensor):
        assert isinstance(actual, Tensor), f"inferred {inferred}, got {actual}"
        assert inferred.elem_type == actual.elem_type, f"inferred {inferred}, got {actual}"
        if inferred.shape is not None:
            assert actual.shape is not None
            _check_dims(inferred.shape, actual.shape, symbols)
        return
    if isinstance(inferred, Sequence):
        assert isinstance(value, list), f"inferred {inferred}, got {type(value).__name__}"
        for item in value:
            assert_type_matches(inferred.elem, item, symbols)
        return
    assert isinstance(inferred, Map), f"unexpected inferred type {inferred}"
    assert isinstance(value, dict), f"inferred {inferred}, got {type(value).__name__}"
    for key, item in value.items():
        wanted = str if inferred.key == ElementType.STRING else int
        assert isinstance(key, wanted), f"key {key!r} is not {wanted.__name__}"
        assert_type_matches(inferred.value, item, symbols)


# -- strategies -----------------------------------------------------------------------------------

# Short labels, the empty string and non-ASCII text: what string keys look like in practice.
LABELS = ("a", "b", "c", "dd", "", "é", "Z9")
label = st.sampled_from(LABELS)


def distinct(elements: st.SearchStrategy[Any], min_size: int = 1, max_size: int = 5) -> Any:
    return st.lists(elements, min_size=min_size, max_size=max_size, unique=True)


small_int = st.integers(-6, 6)
finite_float = st.floats(-100, 100, width=32, allow_nan=False)
