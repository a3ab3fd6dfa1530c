"""The plots of elementwise float operators: which operators get one, and that every point
drawn is what onnxcraft's evaluator computes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft import specs
from onnxcraft.docgen.build import generate
from onnxcraft.docgen.plots import Plot, function_plot, svg_of
from onnxcraft.opset.ai.onnx import v22 as op

SVG = "{http://www.w3.org/2000/svg}"


def _evaluated(name: str, xs: np.ndarray) -> np.ndarray:
    """The operator applied by the DSL and oc.evaluate: another path than the plot's."""
    x = oc.arg("x", np.float32, (len(xs),))
    model = oc.build(inputs=[x], outputs={"y": getattr(op, name)(x)})
    return np.asarray(oc.evaluate(model, {"x": xs.astype(np.float32)})["y"])


@pytest.mark.parametrize("name", ["Tanh", "Log", "Acosh", "Tan", "Round", "Reciprocal", "Gelu"])
def test_the_points_are_the_evaluators_outputs(name: str) -> None:
    plot = function_plot(specs.get(name, "", 22))
    assert plot is not None
    want = _evaluated(name, plot.xs.astype(np.float32))
    np.testing.assert_array_equal(plot.ys, want.astype(np.float64))
    # inside each function's domain; Reciprocal's range crosses its pole at 0 on purpose
    outside = plot.xs[~np.isfinite(plot.ys)].tolist()
    assert outside == ([0.0] if name == "Reciprocal" else []), name


def _drawn_points(svg: str) -> list[tuple[float, float]]:
    root = ET.fromstring(svg.split("-->", 1)[1] if svg.startswith("<!--") else svg)
    points = []
    for line in root.iter(f"{SVG}polyline"):
        for pair in (line.get("points") or "").split():
            x, y = pair.split(",")
            points.append((float(x), float(y)))
    return points


def _expected_points(plot: Plot) -> list[tuple[float, float]]:
    return [plot.to_pixel(x, y) for run in plot.segments() for x, y in run]


@pytest.mark.parametrize("name", ["Tanh", "Reciprocal", "Floor"])
def test_the_svg_draws_exactly_those_points(name: str) -> None:
    plot = function_plot(specs.get(name, "", 22))
    assert plot is not None
    drawn = _drawn_points(svg_of(plot))
    assert drawn == _expected_points(plot)
    # broken only at poles and steps: nearly every point is drawn
    assert len(drawn) >= 0.95 * len(plot.xs)


def test_a_pole_breaks_the_curve() -> None:
    plot = function_plot(specs.get("Reciprocal", "", 22))
    assert plot is not None
    runs = plot.segments()
    assert len(runs) == 2
    assert max(x for x, _ in runs[0]) < 0 < min(x for x, _ in runs[1])


def test_the_svg_has_axes_ticks_labels_and_a_dark_theme() -> None:
    plot = function_plot(specs.get("Sigmoid", "", 22))
    assert plot is not None
    svg = svg_of(plot)
    root = ET.fromstring(svg)
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert "x" in labels and "Sigmoid(x)" in labels
    assert {"-4", "-2", "0", "2", "4"} <= set(labels)
    assert "prefers-color-scheme: dark" in svg
    assert root.find(f"{SVG}title") is not None


def test_the_operators_with_a_plot() -> None:
    pages = generate()
    plotted = {
        m.group(1) for rel in pages if (m := re.fullmatch(r"ai\.onnx/plots/(\w+)\.svg", rel))
    }
    # activations, trigonometric, rounding and the other elementwise functions
    for name in [
        "Relu",
        "Sigmoid",
        "Tanh",
        "Elu",
        "Selu",
        "Gelu",
        "Softplus",
        "Mish",
        "Sin",
        "Cos",
        "Tan",
        "Asin",
        "Acosh",
        "Atanh",
        "Floor",
        "Ceil",
        "Round",
        "Sign",
        "Erf",
        "Exp",
        "Log",
        "Sqrt",
        "Reciprocal",
        "Abs",
        "Neg",
        "HardSwish",
    ]:
        assert name in plotted, name
        assert f"![{name}(x)](plots/{name}.svg)" in pages[f"ai.onnx/{name}.md"]
    # one input and one output of the same type, but not elementwise (or the identity)
    for name in [
        "Softmax",
        "LogSoftmax",
        "Hardmax",
        "LpNormalization",
        "Flatten",
        "Identity",
        "Transpose",
        "Det",
        "GlobalAveragePool",
        "MeanVarianceNormalization",
    ]:
        assert name not in plotted, name
    assert not any(name in plotted for name in ["Add", "Cast", "IsNaN", "Not", "Shape"])
