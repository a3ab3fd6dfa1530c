"""What a recipe draws: a :class:`NodeCase`, one node to test, and its :class:`Input` values.

These are plain data (no hypothesis): the recipes of :mod:`onnxcraft.ops` build them, and
:mod:`onnxcraft.testing.harness` runs them as one-node models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import element_type_of, type_string
from onnxcraft.numerics import to_float32
from onnxcraft.types import ValueType

__all__ = ["Input", "NodeCase", "describe_value"]


@dataclass(frozen=True)
class Input:
    """One input of a drawn node.

    ``type`` is the value's exact type; ``declared`` is what the graph input declares (dims may
    be symbols or None, the rank unknown), defaulting to ``type``. A ``constant`` input is an
    initializer, so inference sees its value (only tensors can be constants).
    """

    value: Any
    type: ValueType
    constant: bool = False
    declared: ValueType | None = None

    @property
    def declared_type(self) -> ValueType:
        return self.type if self.declared is None else self.declared


@dataclass(frozen=True, repr=False)
class NodeCase:
    """A node to test: operator, inputs (None: an omitted optional one), attributes, outputs.

    ``attributes`` hold plain values: int, float, str, lists of those, numpy arrays for tensors,
    :class:`onnxcraft.ir.Graph` for graphs, value types for TYPE_PROTO. ``outputs`` says which
    outputs the node names (False: an omitted optional output). ``opset`` defaults to the
    operator's since_version. ``captured`` are graph inputs that the node's bodies read by name
    (``cap0``, ``cap1`` ...) from the enclosing scope without being inputs of the node.
    """

    domain: str
    op_type: str
    since_version: int
    inputs: tuple[Input | None, ...]
    attributes: Mapping[str, Any] = field(default_factory=dict)
    outputs: tuple[bool, ...] = (True,)
    opset: int | None = None
    captured: tuple[Input, ...] = ()

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.domain, self.op_type, self.since_version)

    def __repr__(self) -> str:
        return f"<NodeCase {self.describe()}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # hypothesis prints falsifying examples with this: the summary, not every field
        printer.text(repr(self))

    def describe(self) -> str:
        """A readable summary: operator, each input's value type, attributes, outputs."""
        domain = self.domain or "ai.onnx"
        lines = [f"{domain}::{self.op_type}-{self.since_version} (opset {self.model_opset})"]
        for index, item in enumerate(self.inputs):
            where = "omitted" if item is None else _describe_input(item)
            lines.append(f"  input {index}: {where}")
        for index, item in enumerate(self.captured):
            lines.append(f"  captured cap{index}: {_describe_input(item)}")
        for name, value in sorted(self.attributes.items()):
            lines.append(f"  attribute {name} = {_describe_attribute(value)}")
        lines.append(f"  outputs requested: {list(self.outputs)}")
        return "\n".join(lines)

    @property
    def model_opset(self) -> int:
        """The opset of the operator's domain the one-node model imports."""
        return self.since_version if self.opset is None else self.opset


def _describe_input(item: Input) -> str:
    declared = "" if item.declared is None else f", declared {item.declared}"
    kind = "initializer" if item.constant else "graph input"
    return f"{describe_value(item.value)} ({kind}{declared})"


def describe_value(value: Any) -> str:
    """``tensor(float)[2, 3] = [...]`` (short), ``seq[...]``, ``map{...}`` or ``None``."""
    if value is None:
        return "None"
    if isinstance(value, list):
        return "seq[" + ", ".join(describe_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{k!r}: {describe_value(v)}" for k, v in value.items())
        return "map{" + items + "}"
    array = np.asarray(value)
    try:
        elem = type_string(element_type_of(array.dtype))
    except (TypeError, ValueError):
        elem = str(array.dtype)
    if array.dtype.names is not None:  # low-precision types: show the values, not the bits
        with np.errstate(all="ignore"):
            array = to_float32(array)
    text = np.array2string(array.reshape(-1)[:8], threshold=8, precision=4)
    more = " ..." if array.size > 8 else ""
    return f"tensor({elem}){list(array.shape)} = {text}{more}"


def _describe_attribute(value: Any) -> str:
    if isinstance(value, ir.Graph):
        ops = [n.op_type for n in value.nodes]
        return (
            f"graph({[i.name for i in value.inputs]} -> {[o.name for o in value.outputs]}: {ops})"
        )
    if isinstance(value, np.ndarray):
        return describe_value(value)
    return repr(value)
