"""What the engine knows while converting: the model's types, constants and names, and the
:class:`~onnxcraft.ops.adapter_api.AdapterContext` of one step."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import element_type_of
from onnxcraft.errors import VersionConversionError
from onnxcraft.ops.adapter_api import AdapterContext
from onnxcraft.types import Tensor, ValueType

__all__ = ["Emitted", "ModelFacts", "Scope", "StepContext", "label"]


def label(node: ir.Node) -> str:
    if node.name:
        return f"{node.op_type} node {node.name!r}"
    first = next((o for o in node.outputs if o), "")
    return f"{node.op_type} node (output {first!r})" if first else f"{node.op_type} node"


@dataclass
class ModelFacts:
    """Types and known values of the model's values (from inference before the conversion,
    and from the nodes the conversion adds), and every name in use."""

    types: dict[str, ValueType | None]
    values: dict[str, Any]
    names: set[str]
    _counter: int = 0
    # the types inside each local function, by (domain, name), where its calls tell them
    functions: dict[tuple[str, str], dict[str, ValueType | None]] = field(default_factory=dict)

    def fresh(self, base: str) -> str:
        base = base or "v"
        while True:
            self._counter += 1
            name = f"{base}_cv{self._counter}"
            if name not in self.names:
                self.names.add(name)
                return name


@dataclass
class Scope:
    """One graph (or function body) being converted: where its constants are."""

    graph: ir.Graph | None  # None for a function body: constants become Constant nodes
    parent: Scope | None = None
    constants: dict[str, Any] = field(default_factory=dict)  # name -> TensorData / array

    def constant(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.constants:
                return scope.constants[name]
            scope = scope.parent
        return None


def constant_of_node(node: ir.Node) -> np.ndarray | None:
    """The value of a Constant node (its dense forms)."""
    if node.op_type != "Constant" or node.domain not in ("", "ai.onnx") or not node.attributes:
        return None
    attr = node.attributes[0]
    if attr.ref:
        return None
    kinds = {
        "value_int": np.int64,
        "value_ints": np.int64,
        "value_float": np.float32,
        "value_floats": np.float32,
    }
    if attr.name == "value" and isinstance(attr.value, ir.TensorData):
        return attr.value.array()
    if attr.name in kinds:
        return np.asarray(attr.value, dtype=kinds[attr.name])
    return None


@dataclass
class Emitted:
    node: ir.Node
    opsets: dict[str, int]


class StepContext(AdapterContext):
    """The engine's side of one step of one node."""

    def __init__(
        self,
        node: ir.Node,
        from_version: int,
        to_version: int,
        facts: ModelFacts,
        scope: Scope,
        opsets: Mapping[str, int],
    ) -> None:
        self.node = node
        self.from_version = from_version
        self.to_version = to_version
        self.facts = facts
        self.scope = scope
        self.opsets = dict(opsets)
        self.before: list[Emitted] = []
        self.after: list[Emitted] = []
        self.removed = False
        self.label = label(node)
        self.target_opset = 0  # set by the engine

    def value_type(self, name: str) -> ValueType | None:
        return self.facts.types.get(name)

    def constant(self, name: str) -> np.ndarray | None:
        found = self.scope.constant(name)
        if found is None:
            found = self.facts.values.get(name)
        if isinstance(found, ir.TensorData):
            return found.array()
        if isinstance(found, np.ndarray):
            return found
        return None

    def add_constant(self, array: np.ndarray, base: str) -> str:
        name = self.facts.fresh(base)
        elem = element_type_of(array)
        data = ir.TensorData.from_array(name, array, elem)
        if self.scope.graph is not None:
            self.scope.graph.initializers.append(data)
        else:
            self.before.append(
                Emitted(
                    ir.Node(
                        "Constant", [], [name], attributes=[ir.Attribute("value", "TENSOR", data)]
                    ),
                    {**self.opsets, "": max(self.opsets.get("", 9), 9)},
                )
            )
        self.scope.constants[name] = data
        self.facts.types[name] = Tensor(elem, array.shape)
        return name

    def add_initializer(self, array: np.ndarray, name: str) -> bool:
        if self.scope.graph is None:
            return False
        elem = element_type_of(array)
        data = ir.TensorData.from_array(name, array, elem)
        self.scope.graph.initializers.append(data)
        self.scope.constants[name] = data
        self.facts.types[name] = Tensor(elem, array.shape)
        return True

    def declare_type(self, name: str, value_type: ValueType | None) -> None:
        self.facts.types[name] = value_type

    def fresh_name(self, base: str) -> str:
        return self.facts.fresh(base)

    def emit(
        self,
        op_type: str,
        inputs: Sequence[str],
        outputs: Sequence[str] | int,
        attributes: Mapping[str, tuple[str, Any]] | None = None,
        *,
        opset: int,
        domain: str = "",
        after: bool = False,
    ) -> list[str]:
        names = (
            [self.facts.fresh(f"{op_type.lower()}") for _ in range(outputs)]
            if isinstance(outputs, int)
            else list(outputs)
        )
        node = ir.Node(
            op_type,
            list(inputs),
            names,
            domain=domain,
            attributes=[ir.Attribute(k, kind, v) for k, (kind, v) in (attributes or {}).items()],
        )
        emitted = Emitted(node, {**self.opsets, domain: opset})
        (self.after if after else self.before).append(emitted)
        return names

    def remove(self) -> None:
        self.removed = True

    def fail(self, reason: str) -> NoReturn:
        raise VersionConversionError(
            self.label, self.node.op_type, self.from_version, self.to_version, reason
        )
