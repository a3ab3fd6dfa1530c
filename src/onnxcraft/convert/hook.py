"""Fills ``core.hooks.convert_model``, through which ``oc.build(..., target_opset=N)`` converts
the model it built (core sits below this layer and cannot import it)."""

from __future__ import annotations

from typing import Any

from onnxcraft import ir
from onnxcraft.core import hooks

__all__ = ["convert_for_build"]


def convert_for_build(model: ir.Model, target: Any) -> ir.Model:
    """``model`` converted to ``target`` (an ai.onnx opset, or a mapping domain -> opset)."""
    # Lazy: the engine loads protobuf and the specs; `import onnxcraft` fills this hook cheaply.
    from onnxcraft.convert import engine  # noqa: PLC0415

    return engine.convert_model(model, engine.target_opsets(target, "ai.onnx", "build"))


hooks.convert_model.fill(convert_for_build)
