"""If, Loop, Scan and SequenceMap with Python callables, nested, using outer-scope values.

tests/core/test_composition.py covers one level of each operator; this file covers nesting
with outer-scope use at two and three levels, what bodies may return, and the errors.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from tests.core.oracle import onnx_model, verify

F32 = np.float32
TWO = np.array(2, np.int64)


def _subgraphs(graph: onnx.GraphProto) -> list[onnx.GraphProto]:
    found = []
    for node in graph.node:
        for attr in node.attribute:
            for g in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs):
                found.append(g)
                found.extend(_subgraphs(g))
    return found


def test_outer_values_used_two_and_three_levels_down() -> None:
    X = oc.arg("X", F32, (3,))
    W = oc.arg("W", F32, (3,))
    C = oc.arg("C", np.bool_, ())
    doubled = op.Mul(X, 2.0)  # a top-level value

    def body(i: oc.Var, cond: oc.Var, acc: oc.Var) -> list[oc.Var]:
        level1 = op.Add(acc, doubled)  # top-level value, one level down

        def deeper() -> list[oc.Var]:  # level-1 value and top-level input, two levels down
            return [op.Add(level1, W)]

        def deepest() -> list[oc.Var]:  # a top-level value three levels down
            inner = op.Loop(TWO, None, level1, body=lambda j, c, v: [c, op.Add(v, doubled)])
            return [inner[0]]

        return [cond, op.If(C, then_branch=deeper, else_branch=deepest)[0]]

    (y,) = op.Loop(TWO, None, np.zeros(3, F32), body=body)
    model = oc.build([X, W, C], {"y": y})
    graphs = _subgraphs(onnx_model(model).graph)
    assert len(graphs) == 4 and len({g.name for g in graphs}) == 4 and all(g.name for g in graphs)

    def reference(x: np.ndarray, w: np.ndarray, c: bool) -> np.ndarray:
        acc = np.zeros(3, F32)
        for _ in range(2):
            level1 = acc + 2 * x
            acc = level1 + w if c else level1 + 2 * (2 * x)
        return acc

    x, w = np.array([1, 2, 3], F32), np.array([10, 20, 30], F32)
    for c in (True, False):
        verify(model, {"X": x, "W": w, "C": np.array(c)}, {"y": reference(x, w, c)})


def test_if_inside_a_scan_body_reads_an_outer_value() -> None:
    X = oc.arg("X", F32, (2, 4))  # scanned along axis 1
    limit = oc.arg("L", F32, ())

    def body(total: oc.Var, column: oc.Var) -> list[oc.Var]:
        big = op.Greater(op.ReduceSum(column, keepdims=0), limit)
        (picked,) = op.If(big, then_branch=lambda: [op.Neg(column)], else_branch=lambda: [column])
        return [op.Add(total, picked), picked]

    total, columns = op.Scan(np.zeros(2, F32), X, num_scan_inputs=1, scan_input_axes=[1], body=body)
    assert columns.shape == (4, 2)
    model = oc.build([X, limit], {"total": total, "columns": columns})
    x = np.arange(8, dtype=F32).reshape(2, 4)
    picked = np.stack([-c if c.sum() > 5 else c for c in x.T])
    verify(
        model,
        {"X": x, "L": np.array(5, F32)},
        {"total": picked.sum(0), "columns": picked},
    )


def test_while_loop_with_a_trip_limit_and_a_computed_condition() -> None:
    M = oc.arg("M", np.int64, ())
    start = oc.arg("S", F32, ())

    def body(i: oc.Var, cond: oc.Var, v: oc.Var) -> list[oc.Var]:
        nxt = op.Mul(v, 2.0)
        return [op.Less(nxt, 100.0), nxt]

    (final,) = op.Loop(M, np.array(True), start, body=body)
    model = oc.build([M, start], {"final": final})

    def reference(m: int, s: float) -> np.ndarray:
        v, i, cond = F32(s), 0, True
        while i < m and cond:
            v = F32(v * 2)
            cond = bool(v < 100)
            i += 1
        return np.array(v, F32)

    for m, s in ((10, 3.0), (2, 3.0), (0, 3.0)):
        feeds = {"M": np.array(m, np.int64), "S": np.array(s, F32)}
        verify(model, feeds, {"final": reference(m, s)})


def test_bodies_may_return_inputs_outer_values_literals_and_repeats() -> None:
    X = oc.arg("X", F32, (3,))

    def body(i: oc.Var, cond: oc.Var, a: oc.Var, b: oc.Var) -> list[object]:
        # carried: a (an input) and X (outer); scanned: a literal and a again (a repeat)
        return [cond, a, X, np.ones(3, F32), a]

    outputs = op.Loop(TWO, None, X, np.zeros(3, F32), body=body)
    model = oc.build([X], {f"o{k}": o for k, o in enumerate(outputs)})
    loop_body = _subgraphs(onnx_model(model).graph)[0]
    produced = {o for n in loop_body.node for o in n.output}
    assert all(o.name in produced for o in loop_body.output)  # each defined in the body
    x = np.array([1, 2, 3], F32)
    verify(
        model,
        {"X": x},
        {"o0": x, "o1": x, "o2": np.ones((2, 3), F32), "o3": np.stack([x, x])},
    )


def test_branches_of_different_shapes_give_an_unknown_dim() -> None:
    X = oc.arg("X", F32, (3,))
    C = oc.arg("C", np.bool_, ())
    (y,) = op.If(C, then_branch=lambda: [X[:2]], else_branch=lambda: [X])
    assert y.type == oc.Tensor(F32, (None,))
    model = oc.build([X, C], {"y": y})
    x = np.array([1, 2, 3], F32)
    verify(model, {"X": x, "C": np.array(True)}, {"y": x[:2]})
    verify(model, {"X": x, "C": np.array(False)}, {"y": x})


def test_sequence_map_with_an_extra_input_and_an_outer_value() -> None:
    S = oc.arg("S", oc.Sequence(oc.Tensor(F32, (None,))))
    bias = oc.arg("B", F32, ())
    scale = oc.arg("K", F32, (1,))
    (mapped,) = op.SequenceMap(S, scale, body=lambda t, k: [op.Add(op.Mul(t, k), bias)])
    model = oc.build([S, bias, scale], {"mapped": mapped})
    seq = [np.array([1, 2], F32), np.array([3], F32)]
    feeds = {"S": seq, "B": np.array(0.5, F32), "K": np.array([10], F32)}
    verify(model, feeds, {"mapped": [t * 10 + 0.5 for t in seq]})


def test_subgraph_gives_any_operator_a_body() -> None:
    X = oc.arg("X", F32, (2,))
    body = oc.subgraph(lambda v: [op.Neg(v)], [oc.Tensor(F32, (2,))], name="my_body")
    (y,) = oc.custom_op("Apply", X, domain="my.ops", body=body, infer=lambda t, a: [t[0]])
    proto = onnx_model(oc.build([X], {"y": y}))
    (attr,) = proto.graph.node[0].attribute
    assert attr.type == onnx.AttributeProto.GRAPH and attr.g.name
    assert [n.op_type for n in attr.g.node] == ["Neg"]
    assert attr.g.input[0].type == onnx.helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, [2])
    onnx.checker.check_model(proto, full_check=True)
    oc.check(proto)


# -- misuse -------------------------------------------------------------------------------------


def test_a_body_callable_of_the_wrong_arity_names_the_types_it_gets() -> None:
    X = oc.arg("X", F32, (3,))
    with pytest.raises(
        oc.BuildError,
        match=r"Loop.body: the body callable must take 3 argument\(s\) \(tensor\(int64\)\[\], "
        r"tensor\(bool\)\[\], tensor\(float\)\[3\]\)",
    ):
        op.Loop(TWO, None, X, body=lambda i, v: [v])


def test_a_body_must_return_vars_or_literals() -> None:
    X = oc.arg("X", F32, (3,))
    C = oc.arg("C", np.bool_, ())
    with pytest.raises(oc.BuildError, match=r"If\.then_branch: body output 0 must be a Var or a"):
        op.If(C, then_branch=lambda: [object()], else_branch=lambda: [X])
    with pytest.raises(oc.BuildError, match=r"If\.then_branch: the body must return a Var or a"):
        op.If(C, then_branch=lambda: None, else_branch=lambda: [X])


def test_branches_must_agree() -> None:
    X = oc.arg("X", F32, (3,))
    C = oc.arg("C", np.bool_, ())
    with pytest.raises(oc.InferenceError, match="If: then_branch returns 2 values but else"):
        op.If(C, then_branch=lambda: [X, X], else_branch=lambda: [X])
    with pytest.raises(
        oc.InferenceError,
        match=r"If: output 0: then_branch gives tensor\(int64\)\[3\] but else_branch gives "
        r"tensor\(float\)\[3\]",
    ):
        op.If(C, then_branch=lambda: [op.Cast(X, to=np.int64)], else_branch=lambda: [X])


def test_body_values_do_not_leak_out() -> None:
    X = oc.arg("X", F32, (3,))
    C = oc.arg("C", np.bool_, ())
    inside: dict[str, oc.Var] = {}

    def then() -> list[oc.Var]:
        inside["v"] = op.Neg(X)
        return [inside["v"]]

    (a,) = op.If(C, then_branch=then, else_branch=lambda: [X])
    (b,) = op.If(C, then_branch=lambda: [op.Add(inside["v"], 1.0)], else_branch=lambda: [X])
    message = "the outputs use Var\\(tensor\\(float\\)\\[3\\], from Neg\\), a value created inside"
    with pytest.raises(oc.BuildError, match=message):
        oc.build([X, C], {"a": a, "leaked": inside["v"]})
    with pytest.raises(oc.BuildError, match=message):
        oc.build([X, C], {"b": b})  # used in another body


def test_scan_without_num_scan_inputs_is_an_attribute_error() -> None:
    X = oc.arg("X", F32, (3,))
    with pytest.raises(oc.OpAttributeError, match="Scan: missing required attribute"):
        op.Scan(X, body=lambda s: [s])  # type: ignore[call-arg]


def test_loop_body_returning_too_few_values_says_so() -> None:
    X = oc.arg("X", F32, (3,))
    with pytest.raises(oc.BuildError, match=r"Loop.body: .*returns? 1 value"):
        op.Loop(TWO, None, X, body=lambda i, c, v: [v])


def test_python_literals_returned_by_a_body_take_the_default_types() -> None:
    # A Python 0.0 returned from a branch became double; the guide says Python floats default
    # to float32 (ints to int64), as for operator inputs; numpy values keep their type.
    X = oc.arg("X", F32, (1,))
    C = op.Greater(op.ReduceSum(X, keepdims=0), 0.0)
    (f,) = op.If(C, then_branch=lambda: [0.0], else_branch=lambda: [np.float32(2.5)])
    (i,) = op.If(C, then_branch=lambda: [3], else_branch=lambda: [np.int64(-1)])
    (h,) = op.If(C, then_branch=lambda: [np.float16(1)], else_branch=lambda: [np.float16(2)])
    assert (f.dtype, i.dtype, h.dtype) == (np.float32, np.int64, np.float16)
    model = oc.build([X], {"f": f, "i": i, "h": h})
    verify(model, {"X": np.ones(1, F32)}, {"f": F32(0), "i": np.int64(3), "h": np.float16(1)})
    verify(model, {"X": -np.ones(1, F32)}, {"f": F32(2.5), "i": np.int64(-1), "h": np.float16(2)})
    with pytest.raises(
        oc.OpInputError,
        match=r"If.then_branch: body output 0: expected a numeric .* got 1180591620717411303424",
    ):
        op.If(C, then_branch=lambda: [2**70], else_branch=lambda: [1])
