"""Adapters per family, both directions: a model built at one opset, converted to another
and back, evaluates to the same values (bit for bit: these adapters do not change the math)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.convert.listing import conversions
from onnxcraft.opset.ai.onnx import v9, v11, v13, v21, v23, v28

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)


def _model(build: Callable[[oc.Var], Any], opset_module: Any = v21) -> Any:
    del opset_module
    x = oc.arg("X", np.float32, (2, 3, 4))
    return oc.build([x], {"Y": build(x)})


CASES: dict[str, tuple[Callable[[oc.Var], Any], tuple[int, ...]]] = {
    "ReduceSum axes input": (lambda x: v21.ReduceSum(x, np.array([1]), keepdims=0), (11, 13)),
    "ReduceMean axes input": (lambda x: v21.ReduceMean(x, np.array([-1])), (9, 13, 18)),
    "Squeeze/Unsqueeze": (
        lambda x: v21.Squeeze(v21.Unsqueeze(x, np.array([-1])), np.array([3])),
        (9, 11, 13),
    ),
    "Split input": (lambda x: v21.Split(x, np.array([1, 2]), axis=1)[1], (9, 11, 13)),
    "Split num_outputs": (lambda x: v21.Split(x, axis=2, num_outputs=2)[0], (11, 13, 18)),
    "Slice inputs": (
        lambda x: v21.Slice(x, np.array([0, 1]), np.array([1, 3]), np.array([0, -1])),
        (7, 10, 11, 13),
    ),
    "Pad inputs": (
        lambda x: v21.Pad(x, np.array([0, 1, 0, 0, 0, 2]), np.array(1.5, np.float32)),
        (7, 11, 13, 18),
    ),
    "Clip inputs": (
        lambda x: v21.Clip(x, np.array(-0.5, np.float32), np.array(0.5, np.float32)),
        (7, 11, 13),
    ),
    "Softmax middle axis": (lambda x: v21.Softmax(x, axis=1), (7, 11, 13)),
    "LogSoftmax last axis": (v21.LogSoftmax, (7, 11, 13)),
    "TopK k input": (lambda x: v21.TopK(x, np.array([2]), axis=-1)[0], (7, 10, 11)),
    "Resize nearest": (
        lambda x: v21.Resize(
            x,
            None,
            np.array([1, 1, 2], np.float32),
            coordinate_transformation_mode="asymmetric",
            nearest_mode="floor",
        ),
        (9, 10, 11, 13),
    ),
    "Add broadcast": (lambda x: v21.Add(x, np.ones((4,), np.float32)), (7, 13, 14)),
    "Gelu body": (v21.Gelu, (13, 20)),
    "HardSwish body": (v21.HardSwish, (7, 14)),
    "Gelu tanh body": (lambda x: v21.Gelu(x, approximate="tanh"), (9, 20)),
    "Mish body": (v21.Mish, (13, 18)),
    "LayerNormalization body": (
        lambda x: v21.LayerNormalization(x, np.full(4, 1.5, np.float32), np.ones(4, np.float32))[0],
        (9, 13, 17),
    ),
}


@pytest.mark.parametrize("label", sorted(CASES))
def test_both_directions(label: str) -> None:
    build, targets = CASES[label]
    model = _model(build)
    expected = oc.evaluate(model, {"X": X3})["Y"]
    for target in targets:
        down = oc.convert_version(model, target)
        oc.check(down)
        assert down.opset_import[0].version == target
        got = oc.evaluate(down, {"X": X3})["Y"]
        tolerance = 1e-6 if "body" in label else 0
        np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance, err_msg=label)
        back = oc.convert_version(down, 21)
        oc.check(back)
        np.testing.assert_allclose(oc.evaluate(back, {"X": X3})["Y"], expected, rtol=tolerance,
                                   atol=tolerance)  # fmt: skip


def test_softmax_upgrade_keeps_the_2d_meaning() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    model = oc.build([x], {"Y": v11.Softmax(x, axis=1)})
    old = oc.evaluate(model, {"X": X3})["Y"]
    assert np.allclose(old.reshape(2, 12).sum(axis=1), 1)  # version 11: over axes 1 and 2
    up = oc.convert_version(model, 13)
    np.testing.assert_array_equal(oc.evaluate(up, {"X": X3})["Y"], old)


def test_runtime_axes_refused_with_the_reason() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    axes = oc.arg("axes", np.int64, (1,))
    model = oc.build([x, axes], {"Y": v13.ReduceSum(x, axes)})
    with pytest.raises(oc.VersionConversionError) as info:
        oc.convert_version(model, 11)
    error = info.value
    assert (error.op_type, error.from_version, error.to_version) == ("ReduceSum", 13, 11)
    assert "run time" in error.reason and "ReduceSum node" in str(error)


def test_operator_without_older_form_refused() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    model = oc.build([x], {"Y": v21.NonZero(x)})
    with pytest.raises(oc.VersionConversionError, match="does not exist"):
        oc.convert_version(model, 7)


def test_downgrade_inserts_exact_casts() -> None:
    # Max-8 accepts float types only; Max-12 added int8: computed in int16 and cast back.
    x = oc.arg("X", np.int8, (2, 3))
    model = oc.build([x], {"Y": v21.Max(x, x)})
    down = oc.convert_version(model, 9)
    oc.check(down)
    assert [n.op_type for n in down.graph.node] == ["Cast", "Cast", "Max", "Cast"]
    feeds = {"X": np.arange(-3, 3, dtype=np.int8).reshape(2, 3)}
    np.testing.assert_array_equal(oc.evaluate(down, feeds)["Y"], oc.evaluate(model, feeds)["Y"])
    # Add rounds: computing int8 in a wider type would not wrap the same, so it is refused.
    model = oc.build([x], {"Y": v21.Add(x, x)})
    with pytest.raises(oc.VersionConversionError, match="wider type"):
        oc.convert_version(model, 9)


def test_subgraphs_and_functions_converted() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    cond = oc.arg("C", np.bool_, ())
    then = lambda: [v21.ReduceSum(x, np.array([1]))]  # noqa: E731
    other = lambda: [v21.ReduceMax(x, np.array([1]))]  # noqa: E731
    model = oc.build([x, cond], {"Y": v21.If(cond, then_branch=then, else_branch=other)[0]})
    down = oc.convert_version(model, 11)
    oc.check(down)
    for flag in (True, False):
        feeds = {"X": X3, "C": np.array(flag)}
        np.testing.assert_array_equal(oc.evaluate(down, feeds)["Y"], oc.evaluate(model, feeds)["Y"])


def test_build_target_opset_and_ir_models() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    y = v21.ReduceMean(x, np.array([1]))
    model = oc.build([x], {"Y": y}, target_opset=13)
    assert model.opset_import[0].version == 13
    assert model.ir_version == 7  # the IR of opset 13's release: older runtimes load it
    assert [a.name for a in model.graph.node[0].attribute] == ["axes"]
    ir_model = oc.build_ir([x], {"Y": y}, target_opset={"ai.onnx": 17})
    assert isinstance(oc.convert_version(ir_model, 13), oc.ir.Model)
    with pytest.raises(oc.ArgumentError, match="target opset 99"):
        oc.build([x], {"Y": y}, target_opset=99)


def test_conversions_listed_per_operator() -> None:
    listed = {(c.from_version, c.to_version) for c in conversions("ReduceSum")}
    assert {(11, 13), (13, 11)} <= listed
    scan = {(c.from_version, c.to_version) for c in conversions("Scan") if c.adapter}
    assert {(8, 9), (9, 8)} <= scan


def test_v9_module_builds_and_upgrades() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    model = oc.build([x], {"Y": v9.Upsample(x, np.array([1, 1, 2], np.float32))})
    up = oc.convert_version(model, 13)
    oc.check(up)
    assert up.graph.node[-1].op_type == "Resize"
    np.testing.assert_array_equal(
        oc.evaluate(up, {"X": X3})["Y"], oc.evaluate(model, {"X": X3})["Y"]
    )


def test_more_adapters_both_directions() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    scale = np.linspace(0.5, 1.5, 4).astype(np.float32)
    cases = {
        "Shape start/end": (v21.Shape(x, start=1, end=-1), (13, 15)),
        "RMSNormalization": (v23.RMSNormalization(x, scale), (13, 23)),
        "CastLike": (v21.CastLike(x, np.zeros((), np.float64)), (13, 15)),
        "ArgMax select_last_index": (
            v21.ArgMax(v21.Round(x), axis=1, select_last_index=1, keepdims=0),
            (11, 12),
        ),
        "ArgMin select_last_index": (
            v21.ArgMin(v21.Round(x), axis=-1, select_last_index=1),
            (11, 12),
        ),
        "Celu": (v21.Celu(x, alpha=0.7), (9, 12)),
        "Resize axes scales": (
            v21.Resize(x, None, np.array([2.0], np.float32), axes=[-1], mode="linear"),
            (13, 18),
        ),
        "Resize axes sizes": (v21.Resize(x, None, None, np.array([5]), axes=[1]), (13, 18)),
        "Reshape allowzero": (v21.Reshape(x, np.array([6, 4]), allowzero=1), (13, 14)),
        "Constant value_ints": (v21.Add(v21.Shape(x), v21.Constant(value_ints=[1, 2, 3])), (7, 11)),
    }
    for label, (y, targets) in cases.items():
        model = oc.build([x], {"Y": y})
        expected = oc.evaluate(model, {"X": X3})["Y"]
        for target in targets:
            down = oc.convert_version(model, target)
            oc.check(down)
            got = oc.evaluate(down, {"X": X3})["Y"]
            assert got.dtype == expected.dtype, label
            np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=f"{label} @ {target}")


def test_meaning_changes_refused_or_rewritten() -> None:
    x = oc.arg("X", np.float32, (1, 1, 3, 2, 2))
    grid = oc.arg("G", np.float32, (1, 2, 2, 2, 3))
    model = oc.build([x, grid], {"Y": v21.GridSample(x, grid)})
    with pytest.raises(oc.VersionConversionError, match="4-D"):
        oc.convert_version(model, 16)
    x4 = oc.arg("X", np.float32, (1, 1, 3, 3))
    grid4 = oc.arg("G", np.float32, (1, 2, 2, 2))
    model = oc.build([x4, grid4], {"Y": v21.GridSample(x4, grid4, mode="cubic")})
    down = oc.convert_version(model, 16)
    assert down.graph.node[0].attribute[0].s in (b"bicubic",) or any(
        a.s == b"bicubic" for a in down.graph.node[0].attribute
    )
    feeds = {
        "X": RNG.standard_normal((1, 1, 3, 3)).astype(np.float32),
        "G": RNG.uniform(-1, 1, (1, 2, 2, 2)).astype(np.float32),
    }
    np.testing.assert_array_equal(oc.evaluate(down, feeds)["Y"], oc.evaluate(model, feeds)["Y"])
    rois = oc.arg("R", np.float32, (1, 4))
    idx = oc.arg("I", np.int64, (1,))
    model = oc.build([x4, rois, idx], {"Y": v21.RoiAlign(x4, rois, idx)})  # half_pixel
    with pytest.raises(oc.VersionConversionError, match="output_half_pixel"):
        oc.convert_version(model, 10)


def test_onnx_model_proto_and_bad_targets() -> None:
    onnx = pytest.importorskip("onnx")
    x = oc.arg("X", np.float32, (2, 3, 4))
    model = oc.build([x], {"Y": v21.ReduceMax(x, np.array([0]))})
    theirs = onnx.load_from_string(model.SerializeToString())
    down = oc.convert_version(theirs, 13)
    onnx.checker.check_model(onnx.load_from_string(down.SerializeToString()), full_check=True)
    np.testing.assert_array_equal(
        oc.evaluate(down, {"X": X3})["Y"], oc.evaluate(model, {"X": X3})["Y"]
    )
    for target, message in ((0, "out of range"), ("13", "must be an int"), ({"x.y": 1}, "domain")):
        with pytest.raises(oc.ArgumentError, match=message):
            oc.convert_version(model, target)  # type: ignore[arg-type]


def test_local_functions_converted_with_their_call_types() -> None:
    @oc.function("my.domain", "SumRows")
    def sum_rows(x: oc.Var) -> oc.Var:
        return v21.Softmax(v21.ReduceSum(x, np.array([1]), keepdims=1), axis=2)

    x = oc.arg("X", np.float32, (2, 3, 4))
    model = oc.build([x], {"Y": v21.Relu(sum_rows(x))})
    down = oc.convert_version(model, 11)
    oc.check(down)
    assert {o.domain: o.version for o in down.functions[0].opset_import}[""] == 11
    np.testing.assert_array_equal(
        oc.evaluate(down, {"X": X3})["Y"], oc.evaluate(model, {"X": X3})["Y"]
    )


def test_mod_floored_on_floats_refused_below_28() -> None:
    """Mod-28 allows fmod=0 on floats; the versions before take it on integers only."""
    x = oc.arg("X", np.float32, (4,))
    floats = oc.build([x], {"Y": v28.Mod(x, np.float32(3.0))})
    with pytest.raises(oc.VersionConversionError, match="fmod=0"):
        oc.convert_version(floats, 27)
    n = oc.arg("N", np.int32, (4,))
    integers = oc.build([n], {"Y": v28.Mod(n, np.int32(3))})
    older = oc.convert_version(integers, 13)
    values = np.array([7, -7, 5, -5], np.int32)
    assert oc.evaluate(older, {"N": values})["Y"].tolist() == [1, 2, 2, 1]
    truncated = oc.build([x], {"Y": v28.Mod(x, np.float32(3.0), fmod=1)})
    assert oc.convert_version(truncated, 13).opset_import[0].version == 13
