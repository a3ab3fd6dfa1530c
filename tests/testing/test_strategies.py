"""The generic strategies of onnxcraft.testing.strategies draw what they promise."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from onnxcraft import specs
from onnxcraft.dtypes import ElementType, element_type_of, numpy_dtype, type_string
from onnxcraft.numerics import to_float32
from onnxcraft.specs.model import AttributeSpec
from onnxcraft.testing import strategies as ocst
from onnxcraft.types import Map, Optional, Sequence, Tensor

ALL_TYPES = [e for e in ElementType if e != ElementType.UNDEFINED]
FAST = settings(max_examples=40, deadline=None, derandomize=True, database=None)


def _values(array: np.ndarray) -> np.ndarray:
    """Numeric values of an array of any element type, as float64."""
    with np.errstate(invalid="ignore"):  # NaN codes decode loudly
        return to_float32(array).astype(np.float64) if array.dtype.names else array.astype(float)


# -- element types --------------------------------------------------------------------------------


def test_element_types_of_a_type_parameter_are_exactly_the_allowed_tensor_types() -> None:
    spec = specs.get("Add", opset=14)
    allowed = {element_type_of(s) for s in spec.type_constraints[0].allowed}
    drawn = {find(ocst.element_types("T", spec=spec), lambda e, w=w: e == w) for w in allowed}
    assert drawn == allowed


@FAST
@given(ocst.element_types("V", spec=specs.get("Identity", opset=25), exclude=["tensor(float)"]))
def test_element_types_skip_non_tensor_types_and_excluded_ones(elem: ElementType) -> None:
    allowed = specs.get("Identity", opset=25).type_constraints[0].allowed
    assert f"tensor({type_string(elem)})" in allowed
    assert elem != ElementType.FLOAT


def test_element_types_arguments_are_checked() -> None:
    with pytest.raises(InvalidArgument, match="type parameter"):
        ocst.element_types("T")
    with pytest.raises(InvalidArgument, match="no type constraint 'X'"):
        ocst.element_types("X", spec=specs.get("Add"))
    with pytest.raises(InvalidArgument, match="no tensor element type left"):
        ocst.element_types(["tensor(float)"], exclude=[np.float32])


def test_parse_type_reads_every_kind_including_the_ml_map_form() -> None:
    assert ocst.parse_type("tensor(int64)") == Tensor(ElementType.INT64)
    assert ocst.parse_type("seq(map(int64, float))") == Sequence(
        Map(ElementType.INT64, Tensor(ElementType.FLOAT, ()))
    )
    assert ocst.parse_type("optional(seq(tensor(bool)))") == Optional(
        Sequence(Tensor(ElementType.BOOL))
    )
    with pytest.raises(InvalidArgument, match="unknown kind"):
        ocst.parse_type("list(float)")


# -- arrays ---------------------------------------------------------------------------------------


@FAST
@given(st.data())
def test_arrays_of_every_element_type_have_its_dtype_shape_and_bounds(data: st.DataObject) -> None:
    elem = data.draw(st.sampled_from(ALL_TYPES))
    shape = data.draw(ocst.array_shapes(max_dims=3))
    array = data.draw(ocst.arrays(elem, shape, min_value=-2, max_value=3))
    assert array.dtype == numpy_dtype(elem)
    assert array.shape == shape
    if elem in (ElementType.STRING,):
        assert all(isinstance(v, str) for v in array.reshape(-1))
    elif elem in (ElementType.COMPLEX64, ElementType.COMPLEX128):
        assert np.all(np.abs(array) <= 3 + 1e-6)
    else:
        values = _values(array)
        assert not np.isnan(values).any()
        assert np.all((values >= -2) & (values <= 3)) or elem == ElementType.BOOL


@pytest.mark.parametrize(
    "elem",
    [ElementType.FLOAT8E4M3FN, ElementType.FLOAT8E5M2, ElementType.BFLOAT16, ElementType.FLOAT],
)
def test_arrays_give_nan_only_when_allowed(elem: ElementType) -> None:
    found = find(
        ocst.arrays(elem, (4,), allow_nan=True), lambda a: bool(np.isnan(_values(a)).any())
    )
    assert np.isnan(_values(found)).any()


def test_low_precision_arrays_hold_exactly_representable_values() -> None:
    array = find(
        ocst.arrays(ElementType.FLOAT4E2M1, (6,), min_value=0, max_value=6),
        lambda a: len(set(_values(a))) >= 3,
    )
    assert set(_values(array)) <= {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}


def test_arrays_accept_strategies_for_type_and_shape() -> None:
    strategy = ocst.arrays(st.sampled_from([ElementType.INT4, ElementType.UINT2]), st.just((2,)))
    array = find(strategy, lambda a: element_type_of(a.dtype) == ElementType.INT4)
    assert array.shape == (2,)
    assert set(_values(array)) <= set(range(-8, 8))


def test_arrays_arguments_are_checked() -> None:
    with pytest.raises(InvalidArgument, match="min_value=3 must not exceed max_value=1"):
        ocst.arrays(ElementType.FLOAT, (2,), min_value=3, max_value=1)
    with pytest.raises(InvalidArgument, match="shape"):
        ocst.arrays(ElementType.FLOAT, (2, -1))
    with pytest.raises(InvalidArgument, match="elem_type"):
        ocst.arrays("not-a-type", (2,))
    with pytest.raises(InvalidArgument, match="no uint8 value"):
        ocst.elements(ElementType.UINT8, min_value=-5, max_value=-1)


def test_float_bounds_that_a_narrow_type_cannot_hold_are_rounded_inward() -> None:
    drawn = find(
        ocst.arrays(ElementType.FLOAT16, (8,), min_value=0.1, max_value=0.3),
        lambda a: a.size == 8,
    )
    assert np.all((drawn.astype(np.float64) >= 0.1) & (drawn.astype(np.float64) <= 0.3))


# -- shapes and axes ------------------------------------------------------------------------------


@FAST
@given(ocst.broadcastable_shapes(3))
def test_broadcastable_shapes_broadcast_to_their_result(found: ocst.BroadcastableShapes) -> None:
    assert np.broadcast_shapes(*found.input_shapes) == found.result_shape


@FAST
@given(st.integers(1, 5).flatmap(lambda r: st.tuples(st.just(r), ocst.valid_axes(r, min_size=1))))
def test_valid_axes_are_distinct_and_in_range(case: tuple[int, tuple[int, ...]]) -> None:
    rank, axes = case
    normalized = [a % rank for a in axes]
    assert len(set(normalized)) == len(axes) >= 1
    assert all(-rank <= a < rank for a in axes)


def test_valid_axes_include_negative_axes_and_respect_the_flag() -> None:
    assert find(ocst.valid_axes(3, min_size=1), lambda axes: any(a < 0 for a in axes))
    with pytest.raises(InvalidArgument, match="exceeds the rank"):
        ocst.valid_axes(2, min_size=3)


@FAST
@given(ocst.valid_axes(4, allow_negative=False))
def test_valid_axes_without_negatives(axes: tuple[int, ...]) -> None:
    assert all(a >= 0 for a in axes)


# -- attributes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("INT", lambda v: isinstance(v, int) and -3 <= v <= 3),
        ("FLOAT", lambda v: isinstance(v, float) and -3 <= v <= 3),
        ("STRING", lambda v: isinstance(v, str)),
        ("INTS", lambda v: isinstance(v, list) and all(isinstance(i, int) for i in v)),
        ("FLOATS", lambda v: isinstance(v, list) and all(isinstance(f, float) for f in v)),
        ("STRINGS", lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v)),
        ("TENSOR", lambda v: isinstance(v, np.ndarray) and v.dtype in (np.float32, np.int64)),
        ("TYPE_PROTO", lambda v: isinstance(v, Tensor)),
    ],
)
def test_attribute_values_have_the_attribute_type(kind: str, check: object) -> None:
    strategy = ocst.attribute_values(AttributeSpec("a", kind), min_value=-3, max_value=3)

    @FAST
    @given(strategy)
    def run(value: object) -> None:
        assert check(value)  # type: ignore[operator]

    run()


def test_graph_attributes_have_no_generic_values() -> None:
    with pytest.raises(InvalidArgument, match="GRAPH"):
        ocst.attribute_values(AttributeSpec("body", "GRAPH"))


# -- values of any type ---------------------------------------------------------------------------


@FAST
@given(ocst.values(Sequence(Tensor(ElementType.INT32, (2, None)))))
def test_sequence_values_are_lists_of_tensors_of_the_element_type(value: list[np.ndarray]) -> None:
    assert isinstance(value, list)
    for item in value:
        assert item.dtype == np.int32 and item.ndim == 2 and item.shape[0] == 2


def test_sequences_of_unknown_element_type_share_one_type() -> None:
    found = find(ocst.values(Sequence(Tensor(None, (1,)))), lambda v: len(v) >= 2)
    assert len({item.dtype for item in found}) == 1


def test_optional_values_are_empty_or_hold_a_value() -> None:
    strategy = ocst.values(Optional(Tensor(ElementType.BOOL, ())))
    assert find(strategy, lambda v: v is None) is None
    present = find(strategy, lambda v: v is not None)
    assert present.dtype == np.bool_ and present.shape == ()


def test_map_values_are_dicts_keyed_by_the_key_type() -> None:
    found = find(
        ocst.values(Map(ElementType.STRING, Tensor(ElementType.FLOAT, ()))), lambda m: len(m) >= 2
    )
    assert all(isinstance(k, str) and v.dtype == np.float32 for k, v in found.items())
    with pytest.raises(InvalidArgument, match="map keys"):
        find(ocst.values(Map(ElementType.BOOL, Tensor(ElementType.FLOAT, ()))), lambda m: True)


def test_value_types_of_a_type_parameter_parse_every_allowed_type() -> None:
    spec = specs.get("Optional", opset=18)
    drawn = find(ocst.value_types("V", spec=spec), lambda t: isinstance(t, Sequence))
    assert isinstance(drawn, Sequence) and isinstance(drawn.elem, Tensor)
    assert drawn.elem.elem_type is not None
