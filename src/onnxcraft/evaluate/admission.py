"""What the evaluator checks before it runs a model: the rules of ``oc.check`` its results
depend on, with the checker's own messages.

The whole check costs several times the preparation (it also checks names, types and value
infos the evaluator never reads), so preparation applies the rules that decide whether a
result is right, each where it already looks: the model's and functions' opset versions and
the local functions (well formed, not recursive) once per model (:func:`admit_model`); a
node's arity and attributes against its operator's spec or its function's signature, and
single assignment, node by node as the plan is made (:func:`check_node`, :func:`check_call`,
:func:`defined_twice`). A model that breaks one is refused with an
:class:`~onnxcraft.errors.InvalidModelError`.
"""

from __future__ import annotations

from onnxcraft.core.check.functions import FunctionChecker
from onnxcraft.core.check.graphs import GraphChecker
from onnxcraft.core.check.operators import check_arity, check_attributes, check_function_call
from onnxcraft.core.check.problems import Problems
from onnxcraft.core.check.versions import check_opsets
from onnxcraft.core.opinfo import OpInfo
from onnxcraft.errors import InvalidModelError
from onnxcraft.ir import Function, Model, Node

__all__ = ["RULES_APPLIED", "admit_model", "check_call", "check_node", "defined_twice"]

# The checker's rules (core.check.rules.RULES) the evaluator applies before it runs a model.
RULES_APPLIED = frozenset(
    {
        "opset-import",  # an unknown opset version: which operator version runs is unknown
        "ssa",  # a value defined twice: which definition a reader sees is unknown
        "topological-order",  # (the plan refuses a value used before it is defined)
        "scope",
        "operator",  # (the plan refuses an operator it has no kernel for)
        "arity",  # inputs or outputs the operator does not have
        "attribute",  # unknown, missing or wrongly typed attributes: read as something else
        "function",  # recursive or duplicate local functions
    }
)


def _refuse(problems: Problems) -> None:
    found = [
        f"{where}: [{rule}] {what}" for where, rule, what in problems.found if rule in RULES_APPLIED
    ]
    if found:
        raise InvalidModelError(found)


def admit_model(model: Model) -> None:
    """The model-wide rules: opset versions, and the local functions (small, checked whole)."""
    problems = Problems()
    check_opsets(model.opset_imports, "model", problems)
    if model.functions:
        FunctionChecker(GraphChecker(model, problems)).run()
    _refuse(problems)


def check_node(info: OpInfo, node: Node, place: str) -> None:
    """A standard operator's node against its spec: arity and attributes."""
    problems = Problems()
    check_arity(info, node, place, problems)
    check_attributes(info, node, place, problems)
    if problems.found:
        _refuse(problems)


def check_call(node: Node, place: str, function: Function) -> None:
    """A call of a model-local function against its signature."""
    problems = Problems()
    check_function_call(node, place, function, problems)
    if problems.found:
        _refuse(problems)


def defined_twice(place: str, name: str, *, shadows: bool) -> InvalidModelError:
    """The checker's single-assignment problem for a node output ``name``."""
    what = (
        "shadows a value of an enclosing graph or function"
        if shadows
        else ("is defined more than once")
    )
    return InvalidModelError([f"{place}: [ssa] value {name!r} {what}"])
