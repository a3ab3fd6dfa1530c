"""``oc.compare``: run a model two ways and find where the runs part ways."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from onnxcraft import ir
from onnxcraft.compare.metrics import ValueDiff, measure
from onnxcraft.compare.references import evaluate_every_value, reference_values
from onnxcraft.compare.report import CompareReport, Divergence, node_label
from onnxcraft.errors import CompareError
from onnxcraft.evaluate.limits import Limits
from onnxcraft.io import model_ir
from onnxcraft.ops.run_guard import CancelToken

__all__ = ["compare"]


def _label(model: Any, graph: ir.Graph) -> str:
    if isinstance(model, (str, os.PathLike)):
        return str(model)
    return f"model {graph.name!r}" if graph.name else "the model"


def _tolerance(value: float | None, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise CompareError(f"compare: {name} must be a number >= 0 or None, got {value!r}")
    return float(value)


def _order(graph: ir.Graph) -> list[tuple[str, str, str]]:
    """(name, kind, producer) of every value of the graph, in the order it is computed."""
    outputs = {info.name for info in graph.outputs}
    initializers = {t.name for t in graph.initializers}
    found: list[tuple[str, str, str]] = [
        (info.name, "input", "") for info in graph.inputs if info.name not in initializers
    ]
    found += [(t.name, "initializer", "") for t in graph.initializers]
    for index, node in enumerate(graph.nodes):
        producer = node_label(index, node.name, node.op_type, node.domain)
        for name in node.outputs:
            if name:
                found.append((name, "output" if name in outputs else "node output", producer))
    return found


def _first_divergence(graph: ir.Graph, diffs: dict[str, ValueDiff]) -> Divergence | None:
    """The first node with a differing output whose inputs computed by nodes all agree. An
    input or initializer that differs does not disqualify the node that reads it: the
    difference enters the computation there (a wrong weight), and the report says so."""
    computed = {name for node in graph.nodes for name in node.outputs if name}
    for index, node in enumerate(graph.nodes):
        differing = tuple(o for o in node.outputs if o in diffs and not diffs[o].agrees)
        if not differing:
            continue
        read = [i for i in node.inputs if i and i in diffs]
        if all(diffs[i].agrees for i in read if i in computed):
            sources = tuple(i for i in read if i not in computed and not diffs[i].agrees)
            inputs = tuple(i for i in node.inputs if i)
            return Divergence(
                index, node.name, node.op_type, node.domain, differing, inputs, sources
            )
    return None


def compare(
    model: Any,
    feeds: Mapping[str, Any],
    against: Any = "float64",
    *,
    rtol: float | None = None,
    atol: float | None = None,
    limits: Limits | None = None,
    cancel: CancelToken | None = None,
) -> CompareReport:
    """Run ``model`` on ``feeds`` with onnxcraft's evaluator and compare every value with the
    reference ``against`` gives.

    ``against`` is ``"float64"`` (the model with every float input, initializer, constant and
    Cast target widened to double: how much of the error is float32 rounding), ``"onnxruntime"``
    (when installed), a second model (a ModelProto, IR model, bytes or ``.onnx`` path; values
    are matched by name), expected values (a dict name -> value or a folder of ``.npy``/``.pb``
    files), or a callable ``run(model_ir, feeds) -> {name: value}``.

    ``rtol`` and ``atol`` replace every value's default tolerance (which depends on its element
    type: ``rtol=1e-4, atol=1e-5`` for float, exact for integers, ...). ``limits`` and
    ``cancel`` bound onnxcraft's runs as they bound ``oc.evaluate``.

    Returns a :class:`~onnxcraft.compare.report.CompareReport`: per value (inputs,
    initializers, every node output, the outputs) the largest absolute, relative and ULP error,
    and the first node whose output differs while its inputs agree.
    """
    tolerances = (_tolerance(rtol, "rtol"), _tolerance(atol, "atol"))
    if not isinstance(feeds, Mapping):
        raise CompareError(
            f"compare: feeds must be a dict name -> value, got {type(feeds).__name__}"
        )
    tested = model_ir(model, what="compare: model")
    graph = tested.graph
    mine = evaluate_every_value(tested, feeds, limits, cancel)
    reference = reference_values(tested, feeds, against, limits, cancel)
    known = {name for name, _, _ in _order(graph)}
    strangers = sorted(name for name in reference.values if name not in known)
    if strangers and not reference.complete:
        raise CompareError(
            f"compare: the expected values name {strangers}, which the model does not compute; "
            f"its outputs are {[o.name for o in graph.outputs]}"
        )
    diffs: dict[str, ValueDiff] = {}
    unmatched: list[str] = []
    for name, kind, producer in _order(graph):
        if name not in mine:
            continue  # a value the run did not produce (an optional output left out)
        if name not in reference.values:
            if reference.complete and kind not in ("input", "initializer"):
                unmatched.append(name)
            continue
        diffs[name] = measure(
            name,
            mine[name],
            reference.values[name],
            kind=kind,
            producer=producer,
            rtol=tolerances[0],
            atol=tolerances[1],
        )
    return CompareReport(
        model=_label(model, graph),
        against=reference.label,
        diffs=list(diffs.values()),
        outputs=[info.name for info in graph.outputs],
        first_divergence=_first_divergence(graph, diffs),
        unmatched=unmatched,
    )
