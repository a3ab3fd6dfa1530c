"""Finding the generated module of a domain at an opset, for the core.

The Python operators on Var (``x + y``, ``x[1:]``) call the generated functions of the default
opset; the core reaches them through its ``opset_module`` hook, filled here. The package root
imports this module; the generated modules themselves load on first use.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

from onnxcraft.core import hooks

__all__ = ["opset_module"]


@cache
def opset_module(domain: str, opset: int) -> ModuleType:
    """The generated module of ``domain``'s operators at ``opset`` (imported on first use)."""
    package = "ai.onnx" if domain == "" else domain
    return importlib.import_module(f"onnxcraft.opset.{package}.v{opset}")


hooks.opset_module.fill(opset_module)
