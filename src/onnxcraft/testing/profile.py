"""What a runtime accepts: the IR version it loads, the opset of each domain, the element types.

Drawing for a runtime (:func:`onnxcraft.testing.examples`, the conformance runner) keeps to its
profile: operator versions past the profile's opset are not drawn, type parameters are bound
within its element types where the operator allows one, cases that still need another type or
a higher IR version are left out, and every model carries the profile's IR version.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from onnxcraft.core.versions import LATEST_IR_VERSION, min_ir_for_elem_type, min_ir_for_opsets
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.ops.node_case import NodeCase

__all__ = ["Profile"]


@dataclass(frozen=True)
class Profile:
    """A runtime's limits: ``ir_version``, ``opsets`` (domain -> newest opset it implements;
    a domain missing from it is not drawn) and ``element_types`` (None: every type)."""

    ir_version: int = LATEST_IR_VERSION
    opsets: Mapping[str, int] = field(default_factory=lambda: {"": 28, "ai.onnx.ml": 5})
    element_types: frozenset[ElementType] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.ir_version, int) or not 3 <= self.ir_version <= LATEST_IR_VERSION:
            raise ValueError(
                f"Profile: ir_version must be an int in [3, {LATEST_IR_VERSION}], "
                f"got {self.ir_version!r}"
            )
        for domain, version in self.opsets.items():
            if not isinstance(domain, str) or not isinstance(version, int) or version < 1:
                raise ValueError(
                    f"Profile: opsets must map a domain (str) to an opset >= 1, "
                    f"got {domain!r}: {version!r}"
                )
        object.__setattr__(self, "opsets", dict(self.opsets))
        if self.element_types is not None:
            object.__setattr__(
                self, "element_types", frozenset(ElementType(e) for e in self.element_types)
            )

    def allows_operator(self, domain: str, since_version: int) -> bool:
        """True if the profile's opset of ``domain`` includes this operator version."""
        newest = self.opsets.get("" if domain == "ai.onnx" else domain)
        return newest is not None and since_version <= newest

    def refusal(self, case: NodeCase) -> str | None:
        """Why ``case`` is outside the profile (None: it is inside)."""
        if not self.allows_operator(case.domain, case.model_opset):
            return f"opset {case.model_opset} of {case.domain or 'ai.onnx'} is past the profile"
        elems = set(_element_types(case))
        if self.element_types is not None:
            outside = sorted(e.name for e in elems - self.element_types)
            if outside:
                return f"element types outside the profile: {', '.join(outside)}"
        needed = max(
            [min_ir_for_opsets({case.domain: case.model_opset})]
            + [min_ir_for_elem_type(e) for e in elems]
        )
        if needed > self.ir_version:
            return f"needs IR version {needed}, the profile allows {self.ir_version}"
        return None


def _element_types(case: NodeCase) -> Iterable[ElementType]:
    for item in (*case.inputs, *case.captured):
        if item is not None:
            yield from _value_elements(item.value)
    for value in case.attributes.values():
        if isinstance(value, np.ndarray):
            yield element_type_of(value.dtype)


def _value_elements(value: Any) -> Iterable[ElementType]:
    if isinstance(value, list):
        for item in value:
            yield from _value_elements(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _value_elements(item)
    elif isinstance(value, (np.ndarray, np.generic)):
        yield element_type_of(value.dtype)
