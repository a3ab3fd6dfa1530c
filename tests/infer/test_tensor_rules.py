"""Inference rules of the tensor operators, checked against onnxruntime.

Each case builds a small model with static input shapes and runs it with onnxruntime: the type
the DSL infers while building, and the type ``oc.infer_shapes`` infers for the saved model
(declared outputs erased), must both be exactly the type of the value onnxruntime computes.
Cases whose output size depends on input data not known at build time check instead that the
inferred type is consistent with the value, with the data-dependent dim left unknown.
Inconsistent inputs must fail at the call, naming the operator and what clashed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.errors import InferenceError
from onnxcraft.opset.ai.onnx import v7, v11, v13, v18, v19, v21
from onnxcraft.types import Optional, Tensor
from tests.infer._shape_oracle import (
    contradiction,
    exact_type,
    inferred_output_types,
    is_static,
    run,
)

RNG = np.random.default_rng(7)


@dataclass
class Case:
    """Outputs built from graph inputs, the feeds, and which outputs must come out static."""

    inputs: list[oc.Var]
    outputs: dict[str, oc.Var]
    feeds: dict[str, np.ndarray]
    dynamic: set[str] = field(default_factory=set)  # outputs with a data-dependent dim


def _x(shape: tuple[int, ...], dtype: Any = np.float32, name: str = "x") -> tuple[oc.Var, Any]:
    value = RNG.standard_normal(shape).astype(dtype) if shape else np.asarray(1.5, dtype)
    return oc.arg(name, dtype, shape), value


def _case(outputs: dict[str, oc.Var], *args: tuple[oc.Var, Any], dynamic: Any = ()) -> Case:
    return Case(
        [a for a, _ in args],
        outputs,
        {str(a.name): v for a, v in args},
        set(dynamic),
    )


# -- Pad ------------------------------------------------------------------------------------------


def pad_2_attribute() -> Case:
    x = _x((2, 3))
    return _case({"y": v7.Pad(x[0], pads=[1, 0, 2, 1], value=1.5)}, x)


def pad_11_reflect() -> Case:
    x = _x((3, 4))
    return _case({"y": v11.Pad(x[0], np.array([1, 2, 1, 0], np.int64), mode="reflect")}, x)


def pad_13_edge_negative() -> Case:
    x = _x((4, 5))
    pads = np.array([-1, 2, 0, -2], np.int64)  # crops one row at the start, two columns at the end
    return _case({"y": v13.Pad(x[0], pads, np.float32(0.5), mode="edge")}, x)


def pad_18_axes() -> Case:
    x = _x((2, 3, 4))
    pads = np.array([1, 0, 3, 2], np.int64)
    return _case({"y": v18.Pad(x[0], pads, None, np.array([-1, 0], np.int64))}, x)


def pad_19_wrap() -> Case:
    x = _x((3, 4))
    return _case({"y": v19.Pad(x[0], np.array([0, 2, 1, 3], np.int64), mode="wrap")}, x)


# -- Tile, Range ----------------------------------------------------------------------------------


def tile_6() -> Case:
    x = _x((2, 3))
    return _case({"y": v7.Tile(x[0], np.array([3, 2], np.int64))}, x)


def tile_13_int() -> Case:
    x = _x((2, 1, 3), np.int32)
    x = (x[0], (x[1] * 10).astype(np.int32))
    return _case({"y": v13.Tile(x[0], np.array([1, 4, 2], np.int64))}, x)


def range_int32_negative_delta() -> Case:
    return _case({"y": v21.Range(np.int32(10), np.int32(-3), np.int32(-4))})


def range_float() -> Case:
    return _case({"y": v21.Range(np.float32(0.5), np.float32(3.7), np.float32(0.3))})


def range_from_shape() -> Case:
    x = _x((5, 2))
    limit = v21.Squeeze(v21.Shape(x[0], start=0, end=1), np.array([0], np.int64))
    return _case({"y": v21.Range(np.int64(1), limit, np.int64(2))}, x)


def range_from_input() -> Case:
    limit = (oc.arg("limit", np.int64, ()), np.asarray(6, np.int64))
    return _case({"y": v21.Range(np.int64(0), limit[0], np.int64(1))}, limit, dynamic={"y"})


# -- NonZero, Compress, Unique --------------------------------------------------------------------


def non_zero_constant() -> Case:
    data = np.array([[1, 0, 3], [0, 0, 2]], np.int64)
    return _case({"y": v13.NonZero(data)})


def non_zero_input() -> Case:
    x = (oc.arg("x", np.int64, (2, 3)), np.array([[1, 0, 3], [0, 0, 2]], np.int64))
    return _case({"y": v13.NonZero(x[0])}, x, dynamic={"y"})


def compress_axis() -> Case:
    x = _x((3, 4))
    condition = np.array([True, False, True], bool)
    return _case({"y": v11.Compress(x[0], condition, axis=0)}, x)


def compress_flat_short_condition() -> Case:
    x = _x((2, 3))
    condition = np.array([False, True, True, False], bool)  # shorter than the 6 elements
    return _case({"y": v11.Compress(x[0], condition)}, x)


def compress_condition_input() -> Case:
    x = _x((3, 4))
    condition = (oc.arg("c", np.bool_, (4,)), np.array([True, False, True, True]))
    return _case({"y": v11.Compress(x[0], condition[0], axis=-1)}, x, condition, dynamic={"y"})


def unique_constant_axis() -> Case:
    data = np.array([[1, 2], [3, 4], [1, 2], [5, 6]], np.int64)
    y, indices, inverse, counts = v11.Unique(data, axis=0)
    return _case({"y": y, "indices": indices, "inverse": inverse, "counts": counts})


def unique_input_flat() -> Case:
    x = (oc.arg("x", np.int64, (2, 3)), np.array([[2, 1, 2], [3, 1, 2]], np.int64))
    y, indices, inverse, counts = v11.Unique(x[0])
    return _case(
        {"y": y, "indices": indices, "inverse": inverse, "counts": counts},
        x,
        dynamic={"y", "indices", "counts"},
    )


# -- DepthToSpace, SpaceToDepth, Det, Einsum ------------------------------------------------------


def depth_to_space_dcr() -> Case:
    x = _x((1, 8, 2, 3))
    return _case({"y": v13.DepthToSpace(x[0], blocksize=2)}, x)


def depth_to_space_crd() -> Case:
    x = _x((2, 18, 1, 2))
    return _case({"y": v13.DepthToSpace(x[0], blocksize=3, mode="CRD")}, x)


def space_to_depth() -> Case:
    x = _x((1, 2, 4, 6))
    return _case({"y": v13.SpaceToDepth(x[0], blocksize=2)}, x)


def det_2d() -> Case:
    x = _x((3, 3))
    return _case({"y": v13.Det(x[0])}, x)


def det_batched() -> Case:
    x = _x((2, 4, 3, 3))
    return _case({"y": v13.Det(x[0])}, x)


def einsum_inner_product() -> Case:
    a, b = _x((5,), name="a"), _x((5,), name="b")
    return _case({"y": v13.Einsum(a[0], b[0], equation="i,i")}, a, b)


def einsum_batch_diagonal() -> Case:
    x = _x((2, 3, 4, 4))
    return _case({"y": v13.Einsum(x[0], equation="...ii->...i")}, x)


def einsum_implicit_transpose() -> Case:
    x = _x((2, 3))
    return _case({"y": v13.Einsum(x[0], equation="ba")}, x)


def einsum_broadcast_ellipsis() -> Case:
    a, b = _x((2, 1, 3, 4), name="a"), _x((1, 5, 4, 6), name="b")
    return _case({"y": v13.Einsum(a[0], b[0], equation="...ij,...jk->...ik")}, a, b)


CASES: dict[str, Callable[[], Case]] = {
    fn.__name__: fn
    for fn in (
        pad_2_attribute,
        pad_11_reflect,
        pad_13_edge_negative,
        pad_18_axes,
        pad_19_wrap,
        tile_6,
        tile_13_int,
        range_int32_negative_delta,
        range_float,
        range_from_shape,
        range_from_input,
        non_zero_constant,
        non_zero_input,
        compress_axis,
        compress_flat_short_condition,
        compress_condition_input,
        unique_constant_axis,
        unique_input_flat,
        depth_to_space_dcr,
        depth_to_space_crd,
        space_to_depth,
        det_2d,
        det_batched,
        einsum_inner_product,
        einsum_batch_diagonal,
        einsum_implicit_transpose,
        einsum_broadcast_ellipsis,
    )
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_inferred_type_is_the_computed_type(name: str) -> None:
    case = CASES[name]()
    model = oc.build(case.inputs, case.outputs)
    results = run(model, case.feeds)
    from_model = inferred_output_types(model)
    for out, var in case.outputs.items():
        value = results[out]
        if out in case.dynamic:
            for inferred in (var.type, from_model[out]):
                assert contradiction(out, inferred, value) is None
                assert not is_static(inferred), f"{out}: {inferred} claims a data-dependent size"
        else:
            assert var.type == exact_type(value), f"{out}: DSL inferred {var.type}"
            assert from_model[out] == exact_type(value), f"{out}: model inferred {from_model[out]}"


def test_data_dependent_dims_are_the_only_unknowns() -> None:
    # Unique without an axis on a graph input: how many values are unique is unknown, but the
    # inverse indices have one entry per input element.
    case = unique_input_flat()
    assert case.outputs["y"].type == Tensor(np.int64, (None,))
    assert case.outputs["inverse"].type == Tensor(np.int64, (6,))
    assert non_zero_input().outputs["y"].type == Tensor(np.int64, (2, None))
    assert compress_condition_input().outputs["y"].type == Tensor(np.float32, (3, None))


# -- Optional -------------------------------------------------------------------------------------


def test_optional_types_follow_their_input() -> None:
    x, value = _x((2, 3))
    wrapped = v18.Optional(x)
    assert wrapped.type == Optional(Tensor(np.float32, (2, 3)))
    has = v18.OptionalHasElement(wrapped)
    got = v18.OptionalGetElement(wrapped)
    empty = v18.Optional(type=Tensor(np.int64, (4,)))
    assert empty.type == Optional(Tensor(np.int64, (4,)))
    empty_has = v18.OptionalHasElement(empty)
    model = oc.build([x], {"has": has, "got": got, "empty_has": empty_has})
    results = run(model, {"x": value})
    from_model = inferred_output_types(model)
    for name, var in (("has", has), ("got", got), ("empty_has", empty_has)):
        assert var.type == exact_type(results[name])
        assert from_model[name] == exact_type(results[name])


def test_optional_get_element_of_a_tensor_passes_it_through() -> None:
    x, _ = _x((4,))
    assert v18.OptionalGetElement(x).type == Tensor(np.float32, (4,))


# -- errors at the call ---------------------------------------------------------------------------


def _fails(call: Callable[[], Any], *fragments: str) -> None:
    with pytest.raises(InferenceError) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_pad_errors_name_the_clash() -> None:
    x = oc.arg("x", np.float32, (2, 3))
    _fails(lambda: v13.Pad(x, np.array([1, 1, 1], np.int64)), "Pad", "pads", "3 entries")
    _fails(lambda: v13.Pad(x, np.array([-2, 0, -1, 0], np.int64)), "Pad", "dimension 0")
    with pytest.raises(oc.OpAttributeError, match="'mode' must be one of 'constant', 'reflect'"):
        v13.Pad(x, np.array([0, 0, 0, 0], np.int64), mode="mirror")  # type: ignore[arg-type]
    _fails(
        lambda: v18.Pad(x, np.array([1, 1], np.int64), None, np.array([1, 1], np.int64)),
        "Pad",
        "axes",
        "repeated",
    )


def test_tile_repeats_must_cover_every_axis() -> None:
    x = oc.arg("x", np.float32, (2, 3))
    _fails(lambda: v13.Tile(x, np.array([2], np.int64)), "Tile", "repeats", "rank 2")


def test_block_rearrangements_need_divisible_dims() -> None:
    x = oc.arg("x", np.float32, (1, 6, 4, 4))
    _fails(lambda: v13.DepthToSpace(x, blocksize=2), "DepthToSpace", "channels (6)")
    _fails(lambda: v13.SpaceToDepth(x, blocksize=3), "SpaceToDepth", "height (4)")
    flat = oc.arg("flat", np.float32, (6, 4))
    _fails(lambda: v13.DepthToSpace(flat, blocksize=2), "DepthToSpace", "4-D")


def test_det_needs_square_matrices() -> None:
    _fails(lambda: v13.Det(oc.arg("x", np.float32, (2, 3))), "Det", "square", "[2, 3]")
    _fails(lambda: v13.Det(oc.arg("v", np.float32, (3,))), "Det", "rank >= 2")


def test_range_needs_scalars_and_a_step() -> None:
    _fails(lambda: v21.Range(np.zeros(2, np.int64), np.int64(3), np.int64(1)), "Range", "start")
    _fails(lambda: v21.Range(np.int64(0), np.int64(3), np.int64(0)), "Range", "delta")


def test_compress_condition_is_one_dimensional() -> None:
    x = oc.arg("x", np.float32, (2, 3))
    _fails(lambda: v11.Compress(x, np.ones((2, 3), bool)), "Compress", "condition", "[2, 3]")


def test_einsum_terms_must_fit_the_inputs() -> None:
    x = oc.arg("x", np.float32, (2, 3))
    _fails(lambda: v13.Einsum(x, equation="ijk->i"), "Einsum", "'ijk'", "rank 2")
    _fails(lambda: v13.Einsum(x, x, equation="ij,ij->ik"), "Einsum", "'k'")
    y = oc.arg("y", np.float32, (4, 3))
    _fails(lambda: v13.Einsum(x, y, equation="ij,ij->i"), "Einsum", "'i'", "2 and 4")
