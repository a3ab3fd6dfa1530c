"""The VJP rule table: (domain, op_type, since_version) -> vector-Jacobian product rule.

Reverse-mode differentiation (the ``Gradient`` operator) walks a graph backwards; at every node
it knows the cotangent of each output (the derivative of the differentiated value ``y`` with
respect to that output) and asks the node's rule for the cotangents of its inputs. A rule is
called with one :class:`VjpCall` and returns one entry per input of the node: an array of the
input's shape, or ``None`` where the input gets no gradient (integer shapes, indices, inputs
the caller does not want). Rules are registered explicitly, by the ``vjp.py`` of each operator
family that has gradients (``ops/<family>/vjp.py`` exposes ``register(rules)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from onnxcraft.ops import load
from onnxcraft.optable import ALL_VERSIONS, OpTable

__all__ = ["ALL_VERSIONS", "VjpCall", "VjpRegistry", "VjpRule", "default_vjp_rules"]


@dataclass(frozen=True)
class VjpCall:
    """One node seen by its rule: forward values, attributes and output cotangents."""

    op_type: str
    since_version: int
    inputs: tuple[Any, ...]  # forward input values; None for an omitted optional input
    outputs: tuple[Any, ...]  # forward output values
    attributes: Mapping[str, Any]  # as the kernel received them (spec defaults filled in)
    cotangents: tuple[np.ndarray | None, ...]  # per output; None when nothing flows back
    wanted: tuple[bool, ...]  # per input: whether its gradient is needed
    # Runs the node's own kernel on other inputs: data-movement rules trace where each
    # output element came from by feeding element ids through it.
    rerun: Callable[..., tuple[Any, ...]]

    @property
    def g(self) -> np.ndarray:
        """The cotangent of the first output (zeros when nothing flows into it)."""
        first = self.cotangents[0]
        return np.zeros_like(self.outputs[0]) if first is None else first

    def input(self, index: int) -> Any:
        """Input ``index``, or None when the node omits it."""
        return self.inputs[index] if index < len(self.inputs) else None

    def wants(self, index: int) -> bool:
        return index < len(self.wanted) and self.wanted[index]

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attributes.get(name, default)


VjpRule = Callable[[VjpCall], Sequence[np.ndarray | None]]


class VjpRegistry(OpTable[VjpRule]):
    """VJP rules keyed by the operator identifier (domain, op_type, since_version)."""

    what = "VJP rule"

    def add(
        self,
        op_type: str,
        rule: VjpRule,
        *,
        since: int | Iterable[int] = ALL_VERSIONS,
        domain: str = "",
    ) -> None:
        self._put(domain, op_type, since, rule)


@cache
def default_vjp_rules() -> VjpRegistry:
    """The VJP table of every family (their ``vjp`` parts), built once on first use."""
    rules = VjpRegistry()
    load("vjp", rules)
    return rules
