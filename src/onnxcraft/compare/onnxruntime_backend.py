"""onnxruntime as the reference of ``oc.compare(..., against="onnxruntime")``: an optional
backend, loaded by name only when asked for (nothing else in onnxcraft imports this module, so
onnxcraft needs onnxruntime neither to install nor to import).

To see every intermediate value, each value the top-level graph computes is added to the
model's outputs, typed as shape inference finds it, before onnxruntime runs the model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import onnxruntime

from onnxcraft import ir
from onnxcraft.errors import CompareError
from onnxcraft.infer.model import infer_shapes

__all__ = ["run"]


def _with_every_value_as_output(model: ir.Model) -> ir.Model:
    inferred = infer_shapes(model)
    types = {info.name: info.type for info in inferred.graph.value_info}
    declared = {info.name for info in model.graph.outputs}
    extra = [
        ir.ValueInfo(name, types.get(name))
        for node in model.graph.nodes
        for name in node.outputs
        if name and name not in declared and types.get(name) is not None
    ]
    graph = replace(model.graph, outputs=[*model.graph.outputs, *extra])
    return replace(model, graph=graph)


def run(model: ir.Model, feeds: dict[str, Any]) -> dict[str, Any]:
    """Every value onnxruntime computes for ``model`` on ``feeds``, by name."""
    traced = _with_every_value_as_output(model)
    options = onnxruntime.SessionOptions()
    # fatal only: its errors come back as the CompareError, and would otherwise print twice
    options.log_severity_level = 4
    try:
        session = onnxruntime.InferenceSession(
            traced.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        names = [o.name for o in session.get_outputs()]
        results = session.run(names, dict(feeds))
    except Exception as exc:  # onnxruntime raises its own exception types, not exported stably
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CompareError(f"compare: onnxruntime cannot run the model: {message}") from None
    return dict(zip(names, results))
