"""The rules of model-local functions (IR.md "Functions", onnx.proto ModelProto.functions):
each is named, defined once, with a well-formed signature and body, imports opsets that agree
with the model's for every operator it uses, and no function calls itself."""

from __future__ import annotations

from collections.abc import Iterable

from onnxcraft.core.check.graphs import GraphChecker
from onnxcraft.core.check.problems import domain_label
from onnxcraft.core.check.scope import Defined, Scope
from onnxcraft.core.check.value_types import note_metadata
from onnxcraft.core.check.versions import check_opsets
from onnxcraft.core.graphwalk import ir_nodes
from onnxcraft.core.versions import FEATURE_IR
from onnxcraft.ir import Function
from onnxcraft.specs import is_standard_domain, resolve_since_version

__all__ = ["FunctionChecker"]


class FunctionChecker:
    """Checks the functions of the model that ``graphs`` checks, reporting to its problems."""

    def __init__(self, graphs: GraphChecker) -> None:
        self.graphs = graphs
        self.model = graphs.model
        self.problems = graphs.problems

    def run(self) -> None:
        functions = self.model.functions
        if functions:
            self.problems.need_ir(FEATURE_IR["functions"], "model-local functions")
        seen: set[tuple[str, str, str]] = set()
        for function in functions:
            where = f"function {function.domain}::{function.name}"
            if function.key in seen:
                self.problems.report(where, "function", "is defined more than once")
            seen.add(function.key)
            self.function(function, where)
        self._cycles()

    def function(self, function: Function, where: str) -> None:
        problems = self.problems
        if not function.name:
            problems.report(where, "function", "a function must have a name")
        check_opsets(function.opset_imports, where, problems)
        self._signature(function, where)
        self._compatible_opsets(function, where)
        if function.attribute_defaults:
            problems.need_ir(FEATURE_IR["function_attribute_defaults"], "function defaults")
        if function.value_info:
            problems.need_ir(FEATURE_IR["metadata"], "value_info in functions")
        if function.overload:
            problems.need_ir(FEATURE_IR["overload"], "the overload field")
        note_metadata(function.metadata, "metadata_props on functions", problems)
        attrs = frozenset(function.attributes) | {a.name for a in function.attribute_defaults}
        scope = Scope((), dict(function.opset_imports), attrs)
        defined = Defined(set(function.inputs))
        self.graphs.nodes(function.nodes, scope, where, defined)
        for name in function.outputs:
            if name not in defined.names:
                problems.report(where, "function", f"output {name!r} is not produced by the body")

    def _signature(self, function: Function, where: str) -> None:
        defaults = [a.name for a in function.attribute_defaults]
        for what, names in (
            ("input", function.inputs),
            ("output", function.outputs),
            ("attribute", [*function.attributes, *defaults]),
        ):
            for name in _duplicates(names):
                self.problems.report(where, "function", f"{what} {name!r} is listed twice")

    def _compatible_opsets(self, function: Function, where: str) -> None:
        """onnx.proto: versions may differ from the model's if every operator resolves the same."""
        model_opsets = self.model.opset_imports
        for index, node in enumerate(ir_nodes(function.nodes)):
            mine = function.opset_imports.get(node.domain)
            theirs = model_opsets.get(node.domain)
            if mine is None or theirs is None or mine == theirs:
                continue
            if not is_standard_domain(node.domain):
                continue
            at_function = resolve_since_version(node.domain, node.op_type, mine)
            at_model = resolve_since_version(node.domain, node.op_type, theirs)
            if at_function != at_model:
                self.problems.report(
                    where,
                    "opset-import",
                    f"imports {domain_label(node.domain)} opset {mine}, the model {theirs}, "
                    f"and {node.op_type} differs between them (version {at_function} vs "
                    f"{at_model}; node {index})",
                )

    def _cycles(self) -> None:
        calls: dict[tuple[str, str], set[tuple[str, str]]] = {}
        keys = {(f.domain, f.name) for f in self.model.functions}
        for function in self.model.functions:
            calls[(function.domain, function.name)] = {
                (n.domain, n.op_type) for n in ir_nodes(function.nodes)
            } & keys
        for start in sorted(calls):
            if _reaches(calls, start):
                self.problems.report(
                    f"function {start[0]}::{start[1]}",
                    "function",
                    "calls itself (directly or through other functions); functions may not "
                    "be recursive",
                )


def _duplicates(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    found: list[str] = []
    for name in names:
        if name in seen and name not in found:
            found.append(name)
        seen.add(name)
    return found


def _reaches(calls: dict[tuple[str, str], set[tuple[str, str]]], start: tuple[str, str]) -> bool:
    """True if ``start`` calls itself through the call graph ``calls``."""
    pending = list(calls.get(start, ()))
    seen: set[tuple[str, str]] = set()
    while pending:
        key = pending.pop()
        if key == start:
            return True
        if key not in seen:
            seen.add(key)
            pending.extend(calls.get(key, ()))
    return False
