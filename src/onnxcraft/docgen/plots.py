"""Plots of elementwise float operators of one input, drawn from the evaluator's outputs.

Which operators get one is decided from the specs and then from the evaluator itself: one
single tensor input and one output of the same type parameter, ``float`` among its types, no
required attribute, deterministic; then the evaluator must keep the shape of a vector, give
each half of it what it gives the whole (an elementwise function, not a normalisation over an
axis), and not simply return its input. The function is evaluated at float32 points over a
range chosen per operator (inside the domain, away from poles) and drawn by hand as SVG: a
frame, ticks and labels in grey that read on light and dark pages, the curve broken where the
function jumps (a step, a pole) or is not finite.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.errors import OnnxcraftError
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing.spec_examples import examples_at

__all__ = ["Plot", "function_plot", "plottable", "plot_range", "svg_of"]

POINTS = 201
_DEFAULT_RANGE = (-5.0, 5.0)
# Ranges inside each function's domain that show its shape; poles stay outside.
_RANGES: dict[str, tuple[float, float]] = {
    "Acos": (-1.0, 1.0),
    "Asin": (-1.0, 1.0),
    "Atanh": (-0.99, 0.99),
    "Acosh": (1.0, 5.0),
    "Log": (0.02, 5.0),
    "Sqrt": (0.0, 5.0),
    "Reciprocal": (-4.0, 4.0),
    "Tan": (-1.45, 1.45),
    "Exp": (-3.0, 2.0),
    "Cosh": (-3.0, 3.0),
    "Sinh": (-3.0, 3.0),
    "Round": (-3.0, 3.0),
    "Floor": (-3.0, 3.0),
    "Ceil": (-3.0, 3.0),
    "Sign": (-3.0, 3.0),
    "Shrink": (-3.0, 3.0),
    "Binarizer": (-3.0, 3.0),
    "ThresholdedRelu": (-3.0, 3.0),
    "Cos": (-2 * math.pi, 2 * math.pi),
    "Sin": (-2 * math.pi, 2 * math.pi),
}
# The y range is cut here where the function grows without bound near a pole.
_Y_LIMITS: dict[str, tuple[float, float]] = {"Reciprocal": (-10.0, 10.0)}

WIDTH, HEIGHT = 480, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 52, 16, 16, 40


@dataclass(frozen=True)
class Plot:
    """The points of one operator's plot (``ys``: the evaluator's float32 outputs, as
    float64) and the axes they are drawn on."""

    name: str
    xs: np.ndarray
    ys: np.ndarray
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    caption: str

    def to_pixel(self, x: float, y: float) -> tuple[float, float]:
        """Where (x, y) lands in the SVG, rounded as the SVG writes it."""
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        px = _LEFT + (x - x0) / (x1 - x0) * (WIDTH - _LEFT - _RIGHT)
        py = HEIGHT - _BOTTOM - (y - y0) / (y1 - y0) * (HEIGHT - _TOP - _BOTTOM)
        return round(px, 2), round(py, 2)

    def segments(self) -> list[list[tuple[float, float]]]:
        """Runs of points drawn as one line: broken at a non-finite value, a value outside
        the y range, or a jump of more than a quarter of the y range (a step or a pole)."""
        low, high = self.y_range
        runs: list[list[tuple[float, float]]] = [[]]
        previous: float | None = None
        for x, y in zip(self.xs.tolist(), self.ys.tolist()):
            inside = math.isfinite(y) and low <= y <= high
            jump = previous is not None and abs(y - previous) > (high - low) / 4
            if not inside or jump:
                runs.append([])
            if inside:
                runs[-1].append((x, y))
            previous = y if inside else None
        return [run for run in runs if len(run) > 1]


def plot_range(name: str) -> tuple[float, float]:
    return _RANGES.get(name, _DEFAULT_RANGE)


def plottable(spec: OpSpec) -> bool:
    """What the spec says: one float tensor in, one of the same type out, nothing required."""
    if len(spec.inputs) != 1 or len(spec.outputs) != 1:
        return False
    given, result = spec.inputs[0], spec.outputs[0]
    if given.option != "single" or result.option != "single" or given.type_str != result.type_str:
        return False
    allowed = {c.name: c.allowed for c in spec.type_constraints}.get(given.type_str, ())
    return (
        "tensor(float)" in allowed
        and not any(a.required for a in spec.attributes)
        and spec.deterministic
        and not spec.deprecated
    )


def _evaluate(spec: OpSpec, xs: np.ndarray) -> np.ndarray | None:
    example = {
        "title": "plot",
        "inputs": {spec.inputs[0].name: {"dtype": "float32", "values": xs.tolist()}},
    }
    prepared = dataclasses.replace(spec, examples=(example,), examples_since=spec.since_version)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            got: Any = examples_at(prepared)[0].evaluate()[spec.outputs[0].name]
    except OnnxcraftError:
        return None  # not defined on a vector (Det, the global pools): no plot
    if not isinstance(got, np.ndarray) or got.shape != xs.shape or got.dtype != np.float32:
        return None
    return got


def function_plot(spec: OpSpec) -> Plot | None:
    """The plot of ``spec``'s function, or None when it is not an elementwise function of
    one float input worth a picture (see the module's docstring)."""
    if not plottable(spec):
        return None
    x0, x1 = plot_range(spec.name)
    xs = np.linspace(x0, x1, POINTS).astype(np.float32)
    ys = _evaluate(spec, xs)
    if ys is None or np.array_equal(ys, xs, equal_nan=True):
        return None
    half = POINTS // 2
    first, second = _evaluate(spec, xs[:half]), _evaluate(spec, xs[half:])
    whole = np.concatenate([first, second]) if first is not None and second is not None else None
    if whole is None or not np.array_equal(whole, ys, equal_nan=True):
        return None  # each element depends on the others: not elementwise
    finite = ys[np.isfinite(ys)].astype(np.float64)
    if finite.size == 0:
        return None
    low, high = _Y_LIMITS.get(spec.name, (float(finite.min()), float(finite.max())))
    if high - low < 1e-6:
        low, high = low - 1.0, high + 1.0
    pad = (high - low) * 0.05
    defaults = [f"{a.name}={a.default!r}" for a in spec.attributes if a.default is not None]
    caption = (
        f"{spec.name}(x) for x from {_tick_text(x0)} to {_tick_text(x1)}"
        + (f" ({', '.join(defaults)})" if defaults else "")
        + f": onnxcraft's evaluator at {POINTS} float32 points."
    )
    return Plot(
        spec.name,
        xs.astype(np.float64),
        ys.astype(np.float64),
        (float(xs[0]), float(xs[-1])),
        (low - pad, high + pad),
        caption,
    )


def _ticks(low: float, high: float, count: int = 6) -> list[float]:
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _tick_text(value: float) -> str:
    text = f"{value:.3g}"
    return "0" if text in ("-0", "0") else text


_STYLE = (
    "<style>"
    ".frame{fill:none;stroke:#8c8c8c;stroke-width:1}"
    ".grid{stroke:#8c8c8c;stroke-opacity:.25;stroke-width:1}"
    ".zero{stroke:#8c8c8c;stroke-opacity:.7;stroke-width:1}"
    ".label{fill:#6b6b6b;font:11px sans-serif}"
    ".curve{fill:none;stroke:#2f6fd6;stroke-width:2;stroke-linejoin:round}"
    "@media (prefers-color-scheme: dark){.label{fill:#b5b5b5}.curve{stroke:#6ea8ff}}"
    "</style>"
)


def svg_of(plot: Plot, note: str = "") -> str:
    """The plot as a standalone SVG document (``note``: a comment written first)."""
    (x0, x1), (y0, y1) = plot.x_range, plot.y_range
    left, right = _LEFT, WIDTH - _RIGHT
    top, bottom = _TOP, HEIGHT - _BOTTOM
    parts = [
        note,
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{plot.caption}">',
        f"<title>{plot.caption}</title>",
        _STYLE,
    ]
    for x in _ticks(x0, x1):
        px, _ = plot.to_pixel(x, y0)
        parts.append(f'<line class="grid" x1="{px}" y1="{top}" x2="{px}" y2="{bottom}"/>')
        parts.append(
            f'<text class="label" x="{px}" y="{bottom + 16}" text-anchor="middle">'
            f"{_tick_text(x)}</text>"
        )
    for y in _ticks(y0, y1):
        _, py = plot.to_pixel(x0, y)
        parts.append(f'<line class="grid" x1="{left}" y1="{py}" x2="{right}" y2="{py}"/>')
        parts.append(
            f'<text class="label" x="{left - 6}" y="{py + 4}" text-anchor="end">'
            f"{_tick_text(y)}</text>"
        )
    if y0 < 0 < y1:
        _, py = plot.to_pixel(x0, 0.0)
        parts.append(f'<line class="zero" x1="{left}" y1="{py}" x2="{right}" y2="{py}"/>')
    if x0 < 0 < x1:
        px, _ = plot.to_pixel(0.0, y0)
        parts.append(f'<line class="zero" x1="{px}" y1="{top}" x2="{px}" y2="{bottom}"/>')
    parts.append(
        f'<rect class="frame" x="{left}" y="{top}" width="{right - left}" height="{bottom - top}"/>'
    )
    parts.append(
        f'<text class="label" x="{(left + right) / 2}" y="{HEIGHT - 6}" '
        f'text-anchor="middle">x</text>'
    )
    parts.append(
        f'<text class="label" x="14" y="{(top + bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {(top + bottom) / 2})">{plot.name}(x)</text>'
    )
    for run in plot.segments():
        points = " ".join(f"{px},{py}" for px, py in (plot.to_pixel(x, y) for x, y in run))
        parts.append(f'<polyline class="curve" points="{points}"/>')
    parts.append("</svg>")
    return "\n".join(part for part in parts if part) + "\n"
