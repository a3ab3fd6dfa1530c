"""What a check collects: the problems found, and the IR versions the model's features need."""

from __future__ import annotations

from onnxcraft.ir import Node

__all__ = ["Problems", "domain_label", "node_place"]


class Problems:
    """The problems found so far, as (where, rule, what), and the IR each feature needs."""

    def __init__(self) -> None:
        self.found: list[tuple[str, str, str]] = []  # (where, rule, what)
        self.ir_needs: dict[str, int] = {}  # reason -> lowest IR version it needs

    def report(self, where: str, rule: str, message: str) -> None:
        self.found.append((where, rule, message))

    def need_ir(self, version: int, reason: str) -> None:
        """Note that the model needs IR ``version`` for ``reason`` (checked at the end)."""
        if version > 3 and version > self.ir_needs.get(reason, 0):
            self.ir_needs[reason] = version


def node_place(where: str, index: int, node: Node) -> str:
    """Where a node is, for messages: ``graph node 1 ('relu', Relu)``."""
    label = f"{node.name!r}, {node.op_type}" if node.name else node.op_type
    return f"{where} node {index} ({label})"


def domain_label(domain: str) -> str:
    return domain or "ai.onnx"
