"""The type check of ``oc.check(full_check=True)``: strict inference over a model's graphs.

onnx's checker with ``full_check`` runs its shape inference in strict mode after the
structural rules; this is onnxcraft's counterpart. It works on a copy of the model's
structure, so the model checked is left as it was.
"""

from __future__ import annotations

from onnxcraft import ir
from onnxcraft.errors import OnnxcraftError
from onnxcraft.infer.graph import GraphInference

__all__ = ["type_problems"]


def type_problems(model: ir.Model) -> list[str]:
    """The first inconsistency strict inference finds, as ``"where: [inference] what"``."""
    copy = ir.copy_structure(model)
    functions = {(f.domain, f.name): f for f in copy.functions}
    runner = GraphInference(functions, copy.opset_imports, strict=True)
    try:
        runner.untyped_inputs(copy.graph)
        runner.graph(copy.graph, {}, {}, copy.opset_imports)
    except OnnxcraftError as exc:  # strict inference stops at the first problem
        return [f"graph: [inference] {exc}"]
    return []
