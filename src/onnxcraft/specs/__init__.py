"""Operator specs: every version of every operator of the standard, as data.

from onnxcraft import specs
specs.get("Add", opset=21)          # the OpSpec in force at ai.onnx opset 21
specs.resolve_since_version("", "Add", 21)   # 14
[s.key for s in specs.schemas()]    # every (domain, op_type, since_version)

Importing this package is cheap: the registry (with the spec model, json and the spec files)
loads on the first question asked of it, so `import onnxcraft` does not pay for it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from onnxcraft.specs.model import (
        AttributeSpec,
        FormalParameter,
        FunctionBody,
        OpSpec,
        TypeConstraint,
    )
    from onnxcraft.specs.registry import SpecRegistry

__all__ = [
    "AttributeSpec",
    "FormalParameter",
    "FunctionBody",
    "OpSpec",
    "SpecRegistry",
    "TypeConstraint",
    "add_folder",
    "remove_folder",
    "get",
    "is_standard_domain",
    "max_opset",
    "ops_at",
    "resolve_since_version",
    "schemas",
    "versions",
]

# The classes this package names, by the submodule that defines them (loaded on first use).
_CLASSES = {
    "AttributeSpec": "model",
    "FormalParameter": "model",
    "FunctionBody": "model",
    "OpSpec": "model",
    "TypeConstraint": "model",
    "SpecRegistry": "registry",
}


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        module = importlib.import_module(f"{__name__}.{_CLASSES[name]}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_registry() -> SpecRegistry:
    """The registry of the standard's specs and the user folders added, built on first use."""
    # Lazy: the registry and the spec model load on first use, not by `import onnxcraft`.
    from onnxcraft.specs.registry import default_registry as registry  # noqa: PLC0415

    return registry()


def schemas() -> Iterator[OpSpec]:
    """Every OpSpec (every version of every operator), in (domain, name, version) order."""
    return default_registry().schemas()


def get(op_type: str, domain: str = "", opset: int | None = None) -> OpSpec:
    """The version of ``op_type`` in force at ``opset`` (the newest when None)."""
    return default_registry().get(op_type, domain, opset)


def versions(op_type: str, domain: str = "") -> tuple[int, ...]:
    """The since_versions of an operator, oldest first."""
    return tuple(s.since_version for s in default_registry().versions_of(domain, op_type))


def resolve_since_version(domain: str, op_type: str, opset: int) -> int | None:
    """The since_version in force at ``opset``, or None if the operator is unknown or newer."""
    registry = default_registry()
    if not registry.has(domain, op_type):
        return None
    spec = registry.resolve(domain, op_type, opset)
    return None if spec is None else spec.since_version


def ops_at(domain: str, opset: int) -> list[str]:
    """Names of the operators valid at ``opset``: existing there and not deprecated."""
    return default_registry().ops_at(domain, opset)


def max_opset(domain: str) -> int:
    return default_registry().max_opset(domain)


def is_standard_domain(domain: str) -> bool:
    """True for the domains whose specs ship with onnxcraft (or were added as user specs)."""
    return default_registry().is_standard_domain(domain)


def add_folder(path: str | os.PathLike[str]) -> list[str]:
    """Make the spec files of a user folder known (one sub-folder per domain)."""
    return default_registry().add_folder(path)


def remove_folder(path: str | os.PathLike[str]) -> list[str]:
    """Forget the operators of a user folder added earlier (returns their domains)."""
    return default_registry().remove_folder(path)
