"""oc.draw as a user meets it: what the picture says, the files it writes, the notebook
pictures of a model, an IR model and a Var."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.draw.api import Drawing
from onnxcraft.opset.ai.onnx import v21 as op
from tests.draw.geometry import problems


def _linear() -> tuple[oc.Var, object]:
    x = oc.arg("X", np.float32, ("N", 4))
    y = op.Relu(op.Add(op.MatMul(x, np.ones((4, 3), np.float32)), 0.5)).named("hidden")
    return y, oc.build([x], {"Y": op.Neg(y)}, name="linear")


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_boxes_say_operator_name_and_initializers_edges_say_types() -> None:
    _, model = _linear()
    texts = _texts(oc.draw(model).svg)
    assert {"MatMul", "Add", "Relu", "Neg"} <= set(texts)
    # the weight is summarised in the box of the node reading it: name, type, shape, size
    assert any(re.fullmatch(r"c\d+: float\[4,3\] 48 B", t) for t in texts), texts
    assert texts.count("float[N,3]") >= 3  # the values between the nodes
    assert "X" in texts and "float[N,4]" in texts and "Y" in texts


def test_types_missing_from_value_info_are_inferred() -> None:
    _, model = _linear()
    stripped = oc.proto.ModelProto.FromString(model.SerializeToString())
    del stripped.graph.value_info[:]
    assert _texts(oc.draw(stripped).svg).count("float[N,3]") >= 3


def test_inputs_outputs_and_operators_are_told_apart() -> None:
    _, model = _linear()
    root = ET.fromstring(oc.draw(model).svg)
    boxes = [
        (g.get("data-name"), g.get("class"))
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if (g.get("class") or "").startswith("node")
    ]
    kinds = dict(boxes)
    assert kinds["X"] == "node input" and kinds["Y"] == "node output"
    # MatMul, Add, Relu, Neg (unnamed nodes: a box each all the same)
    assert [kind for _, kind in boxes].count("node op") == 4


def test_subgraphs_are_drawn_inside_their_node() -> None:
    x = oc.arg("x", np.float32, (3,))
    cond = oc.arg("c", np.bool_, ())
    (y,) = op.If(cond, then_branch=lambda: [op.Neg(x)], else_branch=lambda: [op.Abs(x)])
    drawing = oc.draw(oc.build([x, cond], {"y": y}))
    (node,) = [b for b in drawing.layout.boxes if b.item.op == "If"]
    assert sorted(body.scene.title for body in node.bodies) == ["else_branch", "then_branch"]
    inner = {b.item.op for body in node.bodies for b in body.boxes}
    assert {"Neg", "Abs"} <= inner
    # the body takes x from the graph around it: drawn as a value from outside, linked to If
    outer = [b for body in node.bodies for b in body.boxes if b.item.kind == "outer"]
    assert {b.item.name for b in outer} == {"x"}
    assert problems(drawing) == []


def test_function_calls_are_drawn_with_their_body() -> None:
    @oc.function("my.domain", "Swish")
    def swish(v: oc.Var) -> oc.Var:
        return op.Mul(v, op.Sigmoid(v))

    x = oc.arg("x", np.float32, (2, 3))
    drawing = oc.draw(oc.build([x], {"y": swish(swish(x))}))
    calls = [b for b in drawing.layout.boxes if b.item.op == "Swish"]
    assert len(calls) == 2
    for call in calls:
        (body,) = call.bodies
        assert {b.item.op for b in body.boxes} >= {"Mul", "Sigmoid"}
        assert "float[2,3]" in {b.item.title for b in body.boxes}  # types at the call
    assert problems(drawing) == []


def test_path_suffix_chooses_the_format_and_the_write_is_atomic(tmp_path: Path) -> None:
    _, model = _linear()
    drawing = oc.draw(model, tmp_path / "g.svg")
    assert (tmp_path / "g.svg").read_text(encoding="utf-8") == drawing.svg
    oc.draw(model, str(tmp_path / "g.html"))
    page = (tmp_path / "g.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and drawing.svg[:60] in page
    (tmp_path / "old.svg").write_text("old")
    os.chmod(tmp_path / "old.svg", 0o640)
    drawing.save(tmp_path / "old.svg")
    assert (tmp_path / "old.svg").read_text() == drawing.svg
    assert oct(os.stat(tmp_path / "old.svg").st_mode & 0o777) == oct(0o640)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.html", "g.svg", "old.svg"]


@pytest.mark.parametrize("path", ["g.png", "g", 3])
def test_a_path_without_a_picture_suffix_is_refused_before_any_work(path: object) -> None:
    with pytest.raises(oc.ArgumentError, match=r"draw: path must .*\.svg or \.html"):
        oc.draw(b"not even a model", path)  # type: ignore[arg-type]


def test_what_is_not_a_model_is_an_onnxcraft_error() -> None:
    with pytest.raises(oc.ModelFileError, match="not a valid ONNX model"):
        oc.draw(b"\x08garbage")
    with pytest.raises(oc.OnnxcraftError, match="draw: model"):
        oc.draw(42)


def test_the_html_page_needs_nothing_from_the_network() -> None:
    _, model = _linear()
    page = oc.draw(model).html
    without_namespace = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not re.search(r"https?://|<link|src=|@import|url\((?!#)", without_namespace)
    assert "<script>" in page and "<style>" in page


def test_same_model_same_picture() -> None:
    _, first = _linear()
    _, second = _linear()
    assert oc.draw(first).svg == oc.draw(second).svg
    assert oc.draw(first).html == oc.draw(second).html


def test_notebook_pictures_of_model_ir_model_var_and_drawing() -> None:
    var, model = _linear()
    assert model._repr_svg_() == oc.draw(model).svg  # type: ignore[attr-defined]
    a = oc.arg("a", np.float32, (2,))
    ir_model = oc.build_ir([a], {"b": op.Neg(a)})
    assert ir_model._repr_svg_() == oc.draw(ir_model).svg
    svg = var._repr_svg_()
    assert svg is not None and "Relu" in _texts(svg) and "Neg" not in _texts(svg)
    html = var._repr_html_()
    assert html is not None and html.startswith('<div class="oc-draw"')
    drawing = oc.draw(model)
    assert isinstance(drawing, Drawing)
    assert drawing._repr_svg_() == drawing.svg
    # each notebook display gets its own element ids: many pictures share a notebook
    assert drawing._repr_html_() != drawing._repr_html_()


def test_a_var_that_cannot_be_drawn_shows_as_text() -> None:
    captured: list[oc.Var] = []

    x = oc.arg("x", np.float32, (2,))

    def body() -> list[oc.Var]:
        inner = op.Neg(x)
        captured.append(inner)
        return [inner]

    op.If(oc.arg("c", np.bool_, ()), then_branch=body, else_branch=lambda: [x])
    # a value traced inside a body, using the graph around it, is not a graph of its own:
    # no picture (the notebook shows its text), not an exception
    assert captured[0]._repr_svg_() is None


def test_a_broken_model_with_a_cycle_is_still_drawn_with_edges_reversed() -> None:
    graph = oc.ir.Graph(
        name="cycle",
        nodes=[
            oc.ir.Node("Neg", ["b"], ["a"], name="first"),
            oc.ir.Node("Abs", ["a"], ["b"], name="second"),
        ],
        outputs=[oc.ir.ValueInfo("a")],
    )
    drawing = oc.draw(oc.ir.Model(graph, opset_imports={"": 21}, ir_version=10))
    assert {b.item.name for b in drawing.boxes()} >= {"first", "second"}
    assert any(route.flipped for route in drawing.layout.routes)
    assert problems(drawing) == []


def test_a_graph_without_nodes_is_drawn() -> None:
    graph = oc.ir.Graph(
        name="empty",
        inputs=[oc.ir.ValueInfo("x", oc.Tensor(np.float32, (2,)))],
        outputs=[oc.ir.ValueInfo("x", oc.Tensor(np.float32, (2,)))],
    )
    drawing = oc.draw(oc.ir.Model(graph, opset_imports={"": 21}, ir_version=10))
    assert [b.item.kind for b in drawing.boxes()] == ["input", "output"]
    assert problems(drawing) == []
    assert "<svg" in drawing.svg
