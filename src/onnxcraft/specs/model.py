"""The spec model: frozen dataclasses describing one version of one operator."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["AttributeSpec", "FormalParameter", "FunctionBody", "OpSpec", "TypeConstraint"]


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
class AttributeSpec:
    """An attribute: its ONNX type name ("INT", "FLOATS", "GRAPH" ...) and default."""

    name: str
    type: str
    required: bool = False
    default: Any = None  # a plain Python value; tensors as {"dtype", "dims", "values"}
    description: str = ""


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
