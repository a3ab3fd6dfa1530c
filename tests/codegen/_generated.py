"""The generated opset modules read as source text, the way an IDE or a type checker reads them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache

from onnxcraft import specs
from onnxcraft.codegen.standard import OPSET_PACKAGE_DIR, STANDARD_DOMAINS, module_path


def modules() -> Iterator[tuple[str, int]]:
    """(domain, opset) of every generated standard module."""
    for domain in STANDARD_DOMAINS:
        for opset in range(1, specs.max_opset(domain) + 1):
            yield domain, opset


@cache
def parsed(domain: str, opset: int) -> ast.Module:
    path = OPSET_PACKAGE_DIR / module_path(domain) / f"v{opset}.py"
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def definitions(domain: str, opset: int) -> dict[str, ast.FunctionDef]:
    """The module's top-level function definitions by name."""
    tree = parsed(domain, opset)
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
