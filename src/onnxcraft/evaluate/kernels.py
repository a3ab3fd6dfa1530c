"""Builds the default kernel table from the family modules, listed explicitly."""

from __future__ import annotations

import importlib
from functools import cache

from onnxcraft.evaluate.registry import KernelRegistry

__all__ = ["FAMILY_MODULES", "default_registry"]

# Each module `onnxcraft.evaluate.<name>` exposes `register(kernels: KernelRegistry) -> None`.
FAMILY_MODULES: tuple[str, ...] = ()


@cache
def default_registry() -> KernelRegistry:
    """The kernel table of every family, built once on first use."""
    kernels = KernelRegistry()
    for name in FAMILY_MODULES:
        module = importlib.import_module(f"onnxcraft.evaluate.{name}")
        module.register(kernels)
    return kernels
