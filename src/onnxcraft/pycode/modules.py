"""The opset modules a generated module imports, each once, under a short alias.

A model imports one version per domain; its nodes are typed calls of that version's module
(``from onnxcraft.opset.ai.onnx import v21 as op``). A local function may import another
version of a domain, which then gets an alias of its own (``op18``).
"""

from __future__ import annotations

from types import ModuleType

from onnxcraft.errors import CodeGenerationError
from onnxcraft.opset._modules import opset_module
from onnxcraft.pycode.identifiers import Identifiers

__all__ = ["MAIN_ALIASES", "OpsetModules"]

_ALIASES = {
    "": "op",
    "ai.onnx": "op",
    "ai.onnx.ml": "ml",
    "ai.onnx.preview": "preview",
    "ai.onnx.preview.training": "training",
}

MAIN_ALIASES = frozenset(_ALIASES.values())


class OpsetModules:
    def __init__(self, main: dict[str, int], identifiers: Identifiers) -> None:
        self.main = {("" if d == "ai.onnx" else d): v for d, v in main.items()}
        self.identifiers = identifiers
        self.aliases: dict[tuple[str, int], str] = {}
        self.modules: dict[tuple[str, int], ModuleType] = {}

    def alias(self, domain: str, version: int, where: str) -> tuple[str, ModuleType]:
        """The alias of ``domain``'s module at ``version`` (imported on first use)."""
        domain = "" if domain == "ai.onnx" else domain
        key = (domain, version)
        if key not in self.aliases:
            try:
                module = opset_module(domain, version)
            except ImportError:
                raise CodeGenerationError(
                    f"to_python: {where}: onnxcraft has no operator module for "
                    f"{domain or 'ai.onnx'} opset {version}"
                ) from None
            base = _ALIASES[domain]
            if self.main.get(domain) == version:
                alias = base  # reserved for it (MAIN_ALIASES): no value takes these names
            else:
                alias = self.identifiers.fresh(f"{base}{version}")
            self.aliases[key] = alias
            self.modules[key] = module
        return self.aliases[key], self.modules[key]

    def import_lines(self) -> list[str]:
        lines = []
        for (domain, version), alias in self.aliases.items():
            package = "onnxcraft.opset.ai.onnx" + (
                "" if domain == "" else "." + domain.removeprefix("ai.onnx.")
            )
            lines.append(f"from {package} import v{version} as {alias}")
        return sorted(lines)
