"""The inference rule table: (domain, op_type, since_version) -> rule.

A rule receives an :class:`InferenceContext` and returns one value type (or None when nothing
is known) per output. Rules are registered explicitly by the family modules listed in
:mod:`onnxcraft.infer.rules` (each exposes ``register(rules)``), mirroring the evaluator's
kernel families file for file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from onnxcraft.core.opinfo import OpInfo
from onnxcraft.core.types import Shape, SparseTensor, Tensor, ValueType
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError

__all__ = ["ALL_VERSIONS", "InferenceContext", "Rule", "RuleRegistry"]

# Register a rule with since=ALL_VERSIONS when it handles every version of the operator.
ALL_VERSIONS = 0


class InferenceContext:
    """What a rule knows about one node: input types, known input values, attributes."""

    __slots__ = (
        "attributes",
        "bodies",
        "input_types",
        "input_values",
        "num_outputs",
        "op",
        "opset",
        "output_values",
    )

    def __init__(
        self,
        op: OpInfo,
        input_types: Sequence[ValueType | None],
        input_values: Sequence[Any],
        attributes: dict[str, Any],
        num_outputs: int,
        opset: int,
        bodies: dict[str, Any] | None = None,
    ) -> None:
        self.op = op
        self.input_types = input_types
        self.input_values = input_values
        self.attributes = attributes
        self.num_outputs = num_outputs
        self.opset = opset
        self.output_values: dict[int, np.ndarray] = {}
        self.bodies = bodies or {}  # graph attribute name -> the body's output types

    # -- attributes -----------------------------------------------------------------------------

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute's value, else the spec's default, else ``default``."""
        if name in self.attributes:
            return self.attributes[name]
        info = self.op.attributes.get(name)
        if info is not None and info.default is not None:
            return info.default
        return default

    # -- inputs ---------------------------------------------------------------------------------

    def has_input(self, index: int) -> bool:
        return index < len(self.input_types) and self.input_types[index] is not None

    def tensor(self, index: int) -> Tensor | None:
        """Input ``index`` as a tensor type (None when absent or unknown)."""
        if index >= len(self.input_types):
            return None
        t = self.input_types[index]
        return t if isinstance(t, (Tensor, SparseTensor)) else None  # type: ignore[return-value]

    def elem(self, index: int) -> ElementType | None:
        t = self.tensor(index)
        return None if t is None else t.elem_type

    def shape(self, index: int) -> Shape:
        t = self.tensor(index)
        return None if t is None else t.shape

    def rank(self, index: int) -> int | None:
        shape = self.shape(index)
        return None if shape is None else len(shape)

    def value(self, index: int) -> np.ndarray | None:
        """The known constant value of input ``index``, if any."""
        if index >= len(self.input_values):
            return None
        v = self.input_values[index]
        if hasattr(v, "array") and not isinstance(v, np.ndarray):  # a lazily decoded tensor
            v = v.array()
        return v if isinstance(v, np.ndarray) else None

    def int_values(self, index: int) -> list[int] | None:
        """A known 0-D/1-D integer input as a list of ints (e.g. a shape or axes)."""
        v = self.value(index)
        if v is None or v.dtype.kind not in "iu" or v.ndim > 1:
            return None
        return [int(x) for x in v.reshape(-1)]

    def set_value(self, index: int, value: np.ndarray) -> None:
        """Record a known value of output ``index`` (data propagation)."""
        self.output_values[index] = value

    # -- errors ---------------------------------------------------------------------------------

    def fail(self, message: str) -> InferenceError:
        return InferenceError(f"{self.op.op_type}: {message}")


Rule = Callable[[InferenceContext], Sequence[ValueType | None]]


class RuleRegistry:
    """Rules keyed by the operator identifier (domain, op_type, since_version)."""

    def __init__(self) -> None:
        self._rules: dict[tuple[str, str, int], Rule] = {}

    def add(
        self, op_type: str, rule: Rule, *, since: int | Iterable[int], domain: str = ""
    ) -> None:
        versions = (since,) if isinstance(since, int) else tuple(since)
        for version in versions:
            key = (domain, op_type, version)
            if key in self._rules:
                raise ValueError(
                    f"rule for {domain or 'ai.onnx'}::{op_type}@{version} registered twice"
                )
            self._rules[key] = rule

    def lookup(self, domain: str, op_type: str, since_version: int) -> Rule | None:
        rule = self._rules.get((domain, op_type, since_version))
        if rule is None:
            rule = self._rules.get((domain, op_type, ALL_VERSIONS))
        return rule

    def keys(self) -> list[tuple[str, str, int]]:
        return sorted(self._rules)

    def __len__(self) -> int:
        return len(self._rules)
