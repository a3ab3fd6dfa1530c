"""Operators that exist only in newer opsets, written out for the node's own types and
attributes, and the steps whose meaning changed between versions: each model converted down
(and back up where the step goes both ways) evaluates to the original's outputs, and
onnxruntime (the oracle) runs the downgraded models within its opset range to the same."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v8, v9, v13, v21, v23, v25, v27

RNG = np.random.default_rng(7)
ORT_NEWEST = 21  # the newest opset the test machine's onnxruntime runs


def _ort_outputs(model: Any, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray] | None:
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def assert_converts(
    model: Any,
    feeds: dict[str, np.ndarray],
    targets: tuple[int, ...],
    *,
    rtol: float = 1e-6,
    atol: float = 1e-7,
    ort: bool = True,
    ort_tolerance: float = 1e-5,
) -> None:
    """Each target: checked, same outputs as the original (evaluator and onnxruntime, which
    rounds float16 arithmetic its own way: ``ort_tolerance``)."""
    expected = oc.evaluate(model, feeds)
    for target in targets:
        down = oc.convert_version(model, target)
        oc.check(down)
        assert down.opset_import[0].version == target
        got = oc.evaluate(down, feeds)
        for name, value in expected.items():
            assert got[name].dtype == value.dtype, (name, target)
            np.testing.assert_allclose(
                got[name], value, rtol=rtol, atol=atol, err_msg=f"{name} @ {target}"
            )
        if ort and target <= ORT_NEWEST:
            ran = _ort_outputs(down, feeds)
            assert ran is not None
            for name, value in expected.items():
                np.testing.assert_allclose(
                    ran[name], value, rtol=max(rtol, ort_tolerance), atol=max(atol, ort_tolerance),
                    err_msg=f"onnxruntime {name} @ {target}",
                )  # fmt: skip


# -- losses (12) -----------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
def test_negative_log_likelihood_loss_below_12(reduction: str, weighted: bool) -> None:
    x = oc.arg("X", np.float32, (3, 5, 2, 2))
    target = oc.arg("T", np.int64, (3, 2, 2))
    weight = np.linspace(0.2, 1.8, 5).astype(np.float32) if weighted else None
    loss = v13.NegativeLogLikelihoodLoss(x, target, weight, ignore_index=4, reduction=reduction)
    model = oc.build([x, target], {"L": loss})
    feeds = {
        "X": RNG.standard_normal((3, 5, 2, 2)).astype(np.float32),
        "T": RNG.integers(0, 5, (3, 2, 2)).astype(np.int64),
    }
    assert_converts(model, feeds, (7, 9, 11, 12))


def test_softmax_cross_entropy_loss_below_12() -> None:
    scores = oc.arg("S", np.float32, (2, 4, 3))
    labels = oc.arg("L", np.int32, (2, 3))
    loss, log_prob = v13.SoftmaxCrossEntropyLoss(
        scores, labels, np.array([1.0, 0.5, 2.0, 1.5], np.float32), ignore_index=-1
    )
    model = oc.build([scores, labels], {"loss": loss, "log_prob": log_prob})
    feeds = {
        "S": RNG.standard_normal((2, 4, 3)).astype(np.float32),
        "L": np.array([[0, 3, -1], [2, -1, 1]], np.int32),
    }
    assert_converts(model, feeds, (7, 10, 11, 12))


def test_softmax_cross_entropy_loss_float16_computed_in_float() -> None:
    scores = oc.arg("S", np.float16, (4, 3))
    labels = oc.arg("L", np.int64, (4,))
    model = oc.build([scores, labels], {"loss": v13.SoftmaxCrossEntropyLoss(scores, labels)[0]})
    feeds = {
        "S": RNG.standard_normal((4, 3)).astype(np.float16),
        "L": np.array([0, 2, 1, 2], np.int64),
    }
    assert_converts(model, feeds, (9, 11), rtol=1e-3, atol=1e-3)


def test_loss_with_unknown_shape_refused() -> None:
    x = oc.arg("X", np.float32, ("N", 5))
    target = oc.arg("T", np.int64, ("N",))
    model = oc.build([x, target], {"L": v13.NegativeLogLikelihoodLoss(x, target)})
    with pytest.raises(oc.VersionConversionError, match="shape of input must be known"):
        oc.convert_version(model, 11)


# -- Attention (23, 24, 25) ------------------------------------------------------------------


def _floats(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def test_attention_3d_grouped_heads_with_past_mask_softcap_below_23() -> None:
    q = oc.arg("Q", np.float32, (2, 3, 8))
    k = oc.arg("K", np.float32, (2, 3, 4))
    v = oc.arg("V", np.float32, (2, 3, 6))
    mask = oc.arg("M", np.bool_, (3, 4))
    past_k = oc.arg("PK", np.float32, (2, 2, 1, 2))
    past_v = oc.arg("PV", np.float32, (2, 2, 1, 3))
    y, present_k, present_v, qk = v23.Attention(
        q, k, v, mask, past_k, past_v, q_num_heads=4, kv_num_heads=2, softcap=2.5,
        qk_matmul_output_mode=2, scale=0.3,
    )  # fmt: skip
    model = oc.build(
        [q, k, v, mask, past_k, past_v], {"Y": y, "PK2": present_k, "PV2": present_v, "QK": qk}
    )
    feeds = {
        "Q": _floats(2, 3, 8), "K": _floats(2, 3, 4), "V": _floats(2, 3, 6),
        "M": np.array([[1, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 1]], bool),  # a row fully masked
        "PK": _floats(2, 2, 1, 2), "PV": _floats(2, 2, 1, 3),
    }  # fmt: skip
    # onnxruntime's Attention-free opsets run the written-out form; the fully masked row
    # gives zeros in both
    assert_converts(model, feeds, (13, 18, 21, 22), rtol=1e-5, atol=1e-6)


def test_attention_4d_causal_float16_softmax_precision_below_23() -> None:
    q = oc.arg("Q", np.float16, (1, 2, 3, 4))
    k = oc.arg("K", np.float16, (1, 2, 5, 4))
    v = oc.arg("V", np.float16, (1, 2, 5, 4))
    y, *_ = v23.Attention(q, k, v, is_causal=1, softmax_precision=1)
    model = oc.build([q, k, v], {"Y": y})
    feeds = {
        "Q": _floats(1, 2, 3, 4, dtype=np.float16),
        "K": _floats(1, 2, 5, 4, dtype=np.float16),
        "V": _floats(1, 2, 5, 4, dtype=np.float16),
    }
    assert_converts(model, feeds, (13, 21), rtol=2e-3, atol=2e-3)


def test_attention_padding_and_windows_written_out() -> None:
    q = oc.arg("Q", np.float32, (2, 2, 2, 4))
    k = oc.arg("K", np.float32, (2, 2, 5, 4))
    v = oc.arg("V", np.float32, (2, 2, 5, 4))
    lengths = oc.arg("L", np.int64, (2,))
    padded = v25.Attention(q, k, v, None, None, None, lengths, is_causal=1, left_window_size=1)[0]
    windowed = v25.Attention(q, k, v, right_window_size=1, left_window_size=0)[0]
    model = oc.build([q, k, v, lengths], {"P": padded, "W": windowed})
    feeds = {
        "Q": _floats(2, 2, 2, 4), "K": _floats(2, 2, 5, 4), "V": _floats(2, 2, 5, 4),
        "L": np.array([5, 3], np.int64),
    }  # fmt: skip
    assert_converts(model, feeds, (24, 23, 21, 13), rtol=1e-5, atol=1e-6)


def test_attention_with_dynamic_shapes_refused() -> None:
    q = oc.arg("Q", np.float32, ("B", 2, 3, 4))
    model = oc.build([q], {"Y": v23.Attention(q, q, q)[0]})
    with pytest.raises(oc.VersionConversionError, match="shape of Q must be static"):
        oc.convert_version(model, 21)


# -- RotaryEmbedding (23) --------------------------------------------------------------------


@pytest.mark.parametrize("interleaved", [0, 1])
def test_rotary_embedding_3d_with_positions_below_23(interleaved: int) -> None:
    x = oc.arg("X", np.float32, (2, 3, 12))
    positions = oc.arg("P", np.int64, (2, 3))
    cos = np.cos(np.arange(16, dtype=np.float32).reshape(8, 2) / 3)
    sin = np.sin(np.arange(16, dtype=np.float32).reshape(8, 2) / 3)
    y = v23.RotaryEmbedding(
        x, cos, sin, positions, num_heads=2, rotary_embedding_dim=4, interleaved=interleaved
    )
    model = oc.build([x, positions], {"Y": y})
    feeds = {"X": _floats(2, 3, 12), "P": np.array([[0, 1, 2], [5, 6, 7]], np.int64)}
    assert_converts(model, feeds, (11, 13, 21, 22), rtol=0, atol=0)


def test_rotary_embedding_4d_float16_cache_per_batch() -> None:
    x = oc.arg("X", np.float16, (2, 2, 3, 4))
    cos = oc.arg("C", np.float16, (2, 3, 2))
    sin = oc.arg("S", np.float16, (2, 3, 2))
    model = oc.build([x, cos, sin], {"Y": v23.RotaryEmbedding(x, cos, sin, interleaved=1)})
    angles = RNG.uniform(0, 3, (2, 3, 2))
    feeds = {
        "X": _floats(2, 2, 3, 4, dtype=np.float16),
        "C": np.cos(angles).astype(np.float16),
        "S": np.sin(angles).astype(np.float16),
    }
    # bit for bit in onnxcraft; onnxruntime rounds float16 products differently (2 ulps)
    assert_converts(model, feeds, (7, 13, 21), rtol=0, atol=0, ort_tolerance=2e-3)


# -- changes of meaning: OneHot 9 <-> 11, PRelu 6 <-> 7, GroupNormalization 18 <-> 21 ----------


def test_one_hot_negative_indices_counted_from_the_end_at_9() -> None:
    indices = oc.arg("I", np.int64, (2, 3))
    y = v13.OneHot(indices, np.array([4], np.int64), np.array([0.5, 2.0], np.float32), axis=-2)
    model = oc.build([indices], {"Y": y})
    # -1 and -4 count from the end at 11; -5 and 4 are outside [-4, 3]: all off_value
    feeds = {"I": np.array([[0, -1, 3], [-4, -5, 4]], np.int64)}
    expected = oc.evaluate(model, feeds)["Y"]
    assert expected[1, :, 1].tolist() == [0.5] * 4 and expected[0, 3, 1] == 2.0
    assert_converts(model, feeds, (9, 10))
    down = oc.convert_version(model, 9)
    one_hot = next(n for n in down.graph.node if n.op_type == "OneHot")
    assert [a.i for a in one_hot.attribute if a.name == "axis"] == [1]


def test_one_hot_up_from_9_keeps_the_node() -> None:
    indices = oc.arg("I", np.float32, (3,))
    model = oc.build(
        [indices], {"Y": v9.OneHot(indices, np.array(3.0, np.float32), np.array([0, 1], np.int32))}
    )
    up = oc.convert_version(model, 13)
    assert [n.op_type for n in up.graph.node] == ["OneHot"]
    # onnxruntime has no OneHot kernel for float indices with int32 values
    assert_converts(model, {"I": np.array([0.0, 2.5, 1.0], np.float32)}, (11, 13), ort=False)


def test_prelu_slope_broadcast_between_6_and_7() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    model = oc.build([x], {"Y": v13.PRelu(x, np.array([[0.1], [0.2], [0.3]], np.float32))})
    feeds = {"X": _floats(2, 3, 4)}
    assert_converts(model, feeds, (7, 9), rtol=0, atol=0)
    down = oc.convert_version(model, 6)
    oc.check(down)
    slope = next(t for t in down.graph.initializer if t.name == down.graph.node[0].input[1])
    assert list(slope.dims) == [2, 3, 4]  # version 6: X's shape
    np.testing.assert_array_equal(oc.evaluate(down, feeds)["Y"], oc.evaluate(model, feeds)["Y"])
    np.testing.assert_array_equal(
        oc.evaluate(oc.convert_version(down, 13), feeds)["Y"], oc.evaluate(model, feeds)["Y"]
    )
    slope_in = oc.arg("S", np.float32, (3, 1))
    dynamic = oc.build([x, slope_in], {"Y": v13.PRelu(x, slope_in)})
    with pytest.raises(oc.VersionConversionError, match="version 6 does not"):
        oc.convert_version(dynamic, 6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_group_normalization_per_channel_below_21(dtype: Any) -> None:
    x = oc.arg("X", dtype, (2, 4, 3))
    scale = np.array([0.5, 1.5, -1.0, 2.0], dtype)
    bias = np.array([0.0, 0.25, -0.5, 1.0], dtype)
    model = oc.build([x], {"Y": v21.GroupNormalization(x, scale, bias, num_groups=2)})
    feeds = {"X": _floats(2, 4, 3, dtype=dtype)}
    tolerance = 1e-6 if dtype == np.float32 else 1e-3
    assert_converts(model, feeds, (7, 13, 18), rtol=tolerance, atol=tolerance, ort_tolerance=1e-3)


def test_group_normalization_18_below_18() -> None:
    helper = pytest.importorskip("onnx.helper")
    onnx = pytest.importorskip("onnx")
    node = helper.make_node("GroupNormalization", ["X", "scale", "bias"], ["Y"], num_groups=2)
    graph = helper.make_graph(
        [node], "gn18",
        [helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, [2, 4, 2, 2])],
        [helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, [2, 4, 2, 2])],
        [helper.make_tensor("scale", onnx.TensorProto.FLOAT, [2], [2.0, -1.0]),
         helper.make_tensor("bias", onnx.TensorProto.FLOAT, [2], [0.5, 0.0])],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    assert_converts(model, {"X": _floats(2, 4, 2, 2)}, (9, 13, 17), rtol=1e-6, atol=1e-6)


def test_resize_constant_sizes_become_scales_below_11() -> None:
    x = oc.arg("X", np.float32, (1, 1, 2, 3))
    sizes = np.array([1, 1, 4, 6], np.int64)  # scales 2 and 2: exact float32 values
    y = v13.Resize(x, None, None, sizes, mode="nearest",
                   coordinate_transformation_mode="asymmetric", nearest_mode="floor")  # fmt: skip
    model = oc.build([x], {"Y": y})
    assert_converts(model, {"X": _floats(1, 1, 2, 3)}, (9, 10, 11), rtol=0, atol=0)
    shrink = oc.build([x], {"Y": v13.Resize(x, None, None, np.array([1, 1, 1, 3]),
                                            coordinate_transformation_mode="asymmetric",
                                            nearest_mode="ceil")})  # fmt: skip
    assert_converts(shrink, {"X": _floats(1, 1, 2, 3)}, (10,), rtol=0, atol=0)
    with pytest.raises(oc.VersionConversionError, match="Upsample takes scales >= 1"):
        oc.convert_version(shrink, 9)
    odd = oc.build([x], {"Y": v13.Resize(x, None, None, np.array([1, 1, 2, 2]), mode="nearest",
                                         coordinate_transformation_mode="asymmetric",
                                         nearest_mode="floor")})  # fmt: skip
    with pytest.raises(oc.VersionConversionError, match="2/3"):
        oc.convert_version(odd, 10)


# -- CausalConvWithState and LinearAttention (27) ------------------------------------------


@pytest.mark.parametrize("activation", ["none", "silu"])
def test_causal_conv_with_state_below_27(activation: str) -> None:
    x = oc.arg("X", np.float32, (2, 3, 5))
    past = oc.arg("P", np.float32, (2, 3, 2))
    weight = _floats(3, 1, 3)
    y, state = v27.CausalConvWithState(
        x, weight, np.array([0.1, -0.2, 0.3], np.float32), past, activation=activation
    )
    model = oc.build([x, past], {"Y": y, "S": state})
    feeds = {"X": _floats(2, 3, 5), "P": _floats(2, 3, 2)}
    assert_converts(model, feeds, (7, 13, 21, 26), rtol=1e-6, atol=1e-6)


def test_causal_conv_with_state_float16_without_past() -> None:
    x = oc.arg("X", np.float16, (1, 2, 4))
    y, state = v27.CausalConvWithState(x, _floats(2, 1, 2, dtype=np.float16))
    model = oc.build([x], {"Y": y, "S": state})
    assert_converts(model, {"X": _floats(1, 2, 4, dtype=np.float16)}, (13, 21), rtol=1e-3,
                    atol=1e-3)  # fmt: skip


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
def test_linear_attention_below_27(rule: str) -> None:
    q = oc.arg("Q", np.float32, (2, 3, 8))  # 4 query heads of 2
    k = oc.arg("K", np.float32, (2, 3, 4))  # 2 key/value heads
    v = oc.arg("V", np.float32, (2, 3, 6))
    past = oc.arg("S0", np.float32, (2, 2, 2, 3))
    decay = oc.arg("D", np.float32, (2, 3, 2)) if "gated" in rule else None
    beta = oc.arg("B", np.float32, (2, 3, 1)) if "delta" in rule else None
    y, state = v27.LinearAttention(
        q, k, v, past, decay, beta, q_num_heads=4, kv_num_heads=2, update_rule=rule
    )
    inputs = [a for a in (q, k, v, past, decay, beta) if a is not None]
    model = oc.build(inputs, {"Y": y, "S": state})
    feeds = {
        "Q": _floats(2, 3, 8), "K": _floats(2, 3, 4) / 2, "V": _floats(2, 3, 6),
        "S0": _floats(2, 2, 2, 3), "D": -np.abs(_floats(2, 3, 2)),
        "B": RNG.uniform(0, 1, (2, 3, 1)).astype(np.float32),
    }  # fmt: skip
    feeds = {name: feeds[name] for name in ("Q", "K", "V", "S0", "D", "B") if
             name in {a.name for a in inputs}}  # fmt: skip
    assert_converts(model, feeds, (7, 13, 21, 26), rtol=1e-5, atol=1e-6)


# -- Range (11, a body holding a Loop) and ConstantOfShape (9) --------------------------------


@pytest.mark.parametrize(
    ("dtype", "start", "limit", "delta"),
    [
        (np.int32, 10, -3, -4),
        (np.float32, 0.5, 3.2, 0.3),
        (np.float64, 1.0, 1.0, 0.5),  # empty
        (np.int64, 3, 9, 2),
    ],
)
def test_range_as_a_loop_below_11(dtype: Any, start: float, limit: float, delta: float) -> None:
    args = [oc.arg(name, dtype, ()) for name in ("S", "L", "D")]
    model = oc.build(args, {"Y": v13.Range(*args)})
    feeds = {n: np.asarray(v, dtype) for n, v in zip("SLD", (start, limit, delta))}
    assert_converts(model, feeds, (7, 9, 10), rtol=0, atol=0)


def test_constant_of_shape_below_9() -> None:
    x = oc.arg("X", np.float32, (2, 3))
    shape = oc.arg("N", np.int64, (2,))
    value = np.array([7], np.int32)
    model = oc.build(
        [x, shape],
        {
            "K": v13.ConstantOfShape(v13.Shape(x), value=value),
            "R": v13.ConstantOfShape(shape, value=value),
        },
    )
    feeds = {"X": _floats(2, 3), "N": np.array([3, 1], np.int64)}
    assert_converts(model, feeds, (8,), rtol=0, atol=0)
    with pytest.raises(oc.VersionConversionError, match="Expand"):
        oc.convert_version(model, 7)


# -- Scan 8 <-> 9 -----------------------------------------------------------------------------


def test_scan_8_batch_scanned_by_an_outer_scan() -> None:
    state = oc.arg("S", np.float32, (2, 3))
    seq = oc.arg("X", np.float32, (2, 4, 3))

    def body(total: oc.Var, item: oc.Var) -> list[oc.Var]:
        grown = v8.Add(v8.Mul(total, np.float32(0.5)), item)
        return [grown, grown]

    final, stacked = v8.Scan(
        np.array([4, 4], np.int64), state, seq, body=body, num_scan_inputs=1, directions=[1]
    )
    model = oc.build([state, seq], {"F": final, "Y": stacked})
    feeds = {"S": _floats(2, 3), "X": _floats(2, 4, 3)}
    assert_converts(model, feeds, (9, 11, 16, 21), rtol=0, atol=0)
    back = oc.convert_version(oc.convert_version(model, 11), 8)
    oc.check(back)
    got, expected = oc.evaluate(back, feeds), oc.evaluate(model, feeds)
    for name in ("F", "Y"):
        np.testing.assert_array_equal(got[name], expected[name])


def test_scan_8_with_shorter_sequences_refused() -> None:
    state = oc.arg("S", np.float32, (2, 3))
    seq = oc.arg("X", np.float32, (2, 4, 3))
    final, _ = v8.Scan(
        np.array([4, 2], np.int64), state, seq, body=lambda s, x: [v8.Add(s, x), x],
        num_scan_inputs=1,
    )  # fmt: skip
    model = oc.build([state, seq], {"F": final})
    with pytest.raises(oc.VersionConversionError, match="sequence_lens"):
        oc.convert_version(model, 9)


def test_scan_9_as_a_batch_of_one_at_8() -> None:
    state = oc.arg("S", np.float32, (3,))
    seq = oc.arg("X", np.float32, (4, 3))
    final, stacked = v13.Scan(
        state, seq, body=lambda s, x: [v13.Add(s, x), v13.Mul(s, x)], num_scan_inputs=1,
        scan_input_directions=[1],
    )  # fmt: skip
    model = oc.build([state, seq], {"F": final, "Y": stacked})
    assert_converts(model, {"S": _floats(3), "X": _floats(4, 3)}, (8,), rtol=0, atol=0)
    sideways = v13.Scan(
        state, seq, body=lambda s, x: [s, x], num_scan_inputs=1, scan_output_axes=[1]
    )[1]
    axes = oc.build([state, seq], {"F": sideways})
    with pytest.raises(oc.VersionConversionError, match="scan_output_axes"):
        oc.convert_version(axes, 8)


# -- GatherElements (11) ----------------------------------------------------------------------


def test_gather_elements_as_a_flat_gather_below_11() -> None:
    data = oc.arg("D", np.float32, (3, 4))
    indices = oc.arg("I", np.int64, (2, 4))
    model = oc.build(
        [data, indices],
        {
            "R": v13.GatherElements(data, indices, axis=0),
            "K": v13.GatherElements(data, np.array([[3, -1], [0, -4], [2, 2]]), axis=-1),
        },
    )
    feeds = {"D": _floats(3, 4), "I": np.array([[0, -1, 2, 1], [-3, 2, 0, 0]], np.int64)}
    assert_converts(model, feeds, (9, 10), rtol=0, atol=0)
    with pytest.raises(oc.VersionConversionError, match="Less"):
        oc.convert_version(model, 8)  # negative indices at run time need Less on int64 (9)


def test_trilu_as_a_where_below_14() -> None:
    x = oc.arg("X", np.float32, (2, 3, 4))
    k = oc.arg("K", np.int64, ())
    model = oc.build(
        [x, k],
        {"U": v21.Trilu(x, k), "L": v21.Trilu(x, np.array(-1, np.int64), upper=0)},
    )
    values = _floats(2, 3, 4)
    values[0, 2, 0], values[1, 0, 3] = np.inf, np.nan  # kept or zeroed exactly
    for shift in (-1, 2):
        feeds = {"X": values, "K": np.array(shift, np.int64)}
        assert_converts(model, feeds, (9, 13), rtol=0, atol=0)
