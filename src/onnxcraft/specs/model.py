"""The spec model: frozen dataclasses describing one version of one operator."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AllowedValue",
    "AttributeSpec",
    "AxisBound",
    "FormalParameter",
    "FunctionBody",
    "OpSpec",
    "TypeConstraint",
]


@dataclass(frozen=True)
class FormalParameter:
    """An input or output: name, type string ("T" or "tensor(int64)") and arity rules."""

    name: str
    type_str: str
    option: str = "single"  # "single" | "optional" | "variadic"
    homogeneous: bool = True
    min_arity: int = 1
    differentiability: str = "unknown"  # "differentiable" | "non-differentiable" | "unknown"
    description: str = ""


@dataclass(frozen=True)
class AllowedValue:
    """One value of an enumerated attribute (a mode string or an integer code) and its meaning."""

    value: str | int
    meaning: str = ""


@dataclass(frozen=True)
class AxisBound:
    """Which input's rank bounds an axis attribute, and how.

    The valid range is ``-R <= axis < R`` (``<= R`` when ``end_inclusive``), where ``R`` is the
    rank of ``input`` plus ``rank_plus``: a fixed number, ``"count"`` (the number of entries of
    the attribute itself, as Unsqueeze's axes) or the name of an INT attribute whose value
    adds (ConcatFromSequence's ``new_axis``).
    """

    input: str
    rank_plus: int | str = 0
    end_inclusive: bool = False

    def limit(self, rank: int, count: int, attributes: Mapping[str, Any]) -> int:
        """R for a node whose ``input`` has ``rank``; ``count`` entries in the attribute."""
        if isinstance(self.rank_plus, int):
            return rank + self.rank_plus
        if self.rank_plus == "count":
            return rank + count
        return rank + int(attributes.get(self.rank_plus) or 0)

    def describe(self) -> str:
        """The range as a reader sees it, e.g. ``-r … r-1`` with ``r`` the input's rank."""
        last = 0 if self.end_inclusive else -1
        if isinstance(self.rank_plus, int):
            low = "r" if self.rank_plus == 0 else f"({_rank_plus(self.rank_plus)})"
            high = _rank_plus(self.rank_plus + last)
        else:
            size = "r+len(axes)" if self.rank_plus == "count" else f"r+{self.rank_plus}"
            low, high = f"({size})", size if self.end_inclusive else f"{size}-1"
        return f"an axis of {self.input} (r = its rank): -{low} … {high}"


def _rank_plus(extra: int) -> str:
    return "r" if extra == 0 else f"r{extra:+d}"


@dataclass(frozen=True)
class AttributeSpec:
    """An attribute: its ONNX type name ("INT", "FLOATS", "GRAPH" ...) and default.

    ``values`` lists the allowed values of an enumerated attribute (each element of a list
    attribute), ``axis`` bounds an axis attribute by an input's rank.
    """

    name: str
    type: str
    required: bool = False
    default: Any = None  # a plain Python value; tensors as {"dtype", "dims", "values"}
    description: str = ""
    values: tuple[AllowedValue, ...] = ()
    axis: AxisBound | None = None

    @property
    def allowed(self) -> tuple[str | int, ...]:
        """The allowed values alone (empty when the attribute is not enumerated)."""
        return tuple(item.value for item in self.values)


@dataclass(frozen=True)
class TypeConstraint:
    name: str
    allowed: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True)
class FunctionBody:
    """The standard's definition of an operator as a graph of other operators."""

    opset: int  # the ai.onnx opset the body is written for
    opset_imports: tuple[tuple[str, int], ...]
    nodes: tuple[dict[str, Any], ...]  # {op_type, domain, inputs, outputs, attributes}


@dataclass(frozen=True)
class OpSpec:
    """One version of one operator."""

    domain: str  # "" for ai.onnx
    name: str
    since_version: int
    summary: str = ""  # in force at this version: its own, an earlier one's, or the operator's
    change: str = ""
    deprecated: bool = False
    support_level: str = "COMMON"
    deterministic: bool = True
    inputs: tuple[FormalParameter, ...] = ()
    outputs: tuple[FormalParameter, ...] = ()
    attributes: tuple[AttributeSpec, ...] = ()
    type_constraints: tuple[TypeConstraint, ...] = ()
    min_inputs: int = 0
    max_inputs: int = 0
    min_outputs: int = 0
    max_outputs: int = 0
    functions: tuple[FunctionBody, ...] = field(default=())
    context_dependent_function: bool = False
    # examples in force at this version (raw JSON, see docs/spec-format.md), written for
    # ``examples_since``: this version's own, else the latest earlier version's
    examples: tuple[dict[str, Any], ...] = ()
    examples_since: int = 0

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.domain, self.name, self.since_version)

    def function_for(self, opset: int) -> FunctionBody | None:
        """The body written for the highest opset <= ``opset`` (None if there is none)."""
        best = None
        for body in self.functions:
            if body.opset <= opset and (best is None or body.opset > best.opset):
                best = body
        return best
