"""The default rule table, filled by the ``rules`` part of every family of :mod:`onnxcraft.ops`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from onnxcraft import ops
from onnxcraft.core.opinfo import OpInfo
from onnxcraft.errors import InferenceError
from onnxcraft.ops.infer_api import InferenceContext, Rule, RuleRegistry
from onnxcraft.types import ValueType

__all__ = ["default_rules", "has_user_rule", "register_rule", "rule_for"]


@cache
def default_rules() -> RuleRegistry:
    """The rule table of every family, built once on first use."""
    rules = RuleRegistry()
    ops.load("rules", rules)
    return rules


# The rule of each standard operator version met, looked up in the table once.
_rules_of: dict[OpInfo, Rule | None] = {}


def rule_for(op: OpInfo) -> Rule | None:
    """The rule of the standard operator version ``op`` (None: it has none)."""
    try:
        return _rules_of[op]
    except KeyError:
        rule = _rules_of[op] = default_rules().lookup(op.domain, op.op_type, op.since_version)
        return rule


# Operators (domain, op_type) given a rule by register_rule: code of the user's, which
# inference may not assume to answer alike for alike nodes (infer/graph.py remembers answers).
_user_ruled: set[tuple[str, str]] = set()


def has_user_rule(domain: str, op_type: str) -> bool:
    """Whether some version of the operator has a rule registered by :func:`register_rule`."""
    return (domain, op_type) in _user_ruled


UserRule = Callable[[Sequence[ValueType | None], dict[str, Any]], Sequence[ValueType | None]]


def register_rule(
    domain: str, op_type: str, since_version: int | tuple[int, ...], rule: UserRule
) -> None:
    """Give an operator of your own (or one without a rule) a shape and type inference rule.

    ``rule(input_types, attributes)`` returns one type per output (None: unknown); the
    attributes include the spec's defaults. It is used while expressions are built and by
    ``oc.infer_shapes``. Registering a rule twice for one version is an error.
    """
    if not callable(rule):
        raise InferenceError(f"register_rule: rule must be callable, got {type(rule).__name__}")
    domain = "" if domain == "ai.onnx" else domain

    def adapted(ctx: InferenceContext) -> list[ValueType | None]:
        attributes = {n: a.default for n, a in ctx.op.attributes.items() if a.default is not None}
        attributes.update(ctx.attributes)
        return list(rule(list(ctx.input_types), attributes))

    versions = (since_version,) if isinstance(since_version, int) else tuple(since_version)
    try:
        default_rules().add(op_type, adapted, since=versions, domain=domain)
    except ValueError as exc:
        raise InferenceError(f"register_rule: {exc}") from exc
    _user_ruled.add((domain, op_type))
    # Operators met before looked their rule up then: make them look it up again.
    _rules_of.clear()
