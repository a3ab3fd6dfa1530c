"""``oc.convert_version``: every node stepped, version by version, to the target opset.

The model is read once into the IR and inferred (the element types decide which type steps
are possible). Each graph is walked in order, subgraphs before the node that holds them, and
each local function's body with its own opsets. A node of a converted domain is stepped from
the version in force at the opset it is written for to the version in force at the target,
one since_version at a time: the step's adapter when one is registered
(:mod:`onnxcraft.ops.adapter_api`), else the step the specs describe
(:mod:`~onnxcraft.convert.schema_step`), then the element types
(:mod:`~onnxcraft.convert.type_step`). Nodes the adapters emit are written for an opset of
their own and converted the same way. An operator that does not exist at the target is
replaced by its adapter's subgraph or by its function body (:mod:`~onnxcraft.convert.bodies`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from onnxcraft import ir, ops, specs
from onnxcraft.convert.bodies import expand_body
from onnxcraft.convert.context import (
    Emitted,
    ModelFacts,
    Scope,
    StepContext,
    constant_of_node,
    label,
)
from onnxcraft.convert.schema_step import generic_step
from onnxcraft.convert.type_step import check_types
from onnxcraft.core.check import required_ir_version
from onnxcraft.errors import ArgumentError, OnnxcraftError, SpecError, VersionConversionError
from onnxcraft.infer.graph import GraphInference, InferenceWarning
from onnxcraft.io import model_ir
from onnxcraft.ops.adapter_api import ABSENT, AdapterRegistry
from onnxcraft.proto.serde import model_to_proto
from onnxcraft.specs.model import OpSpec
from onnxcraft.specs.registry import normalize_domain
from onnxcraft.types import Tensor

__all__ = ["convert_model", "convert_version", "default_adapters", "target_opsets"]

_MAX_DEPTH = 16  # nodes emitted by adapters for nodes emitted by adapters ...


@cache
def default_adapters() -> AdapterRegistry:
    """The table of every family's adapters (``ops/<family>/adapters.py``), filled once."""
    table = AdapterRegistry()
    ops.load("adapters", table)
    return table


def convert_version(model: Any, target: int | Mapping[str, int], *, domain: str = "ai.onnx") -> Any:
    """A copy of ``model`` whose nodes all use operator versions valid at ``target``.

    ``target`` is the opset of ``domain`` (ai.onnx by default), or a mapping of domain to
    opset (``{"ai.onnx": 13, "ai.onnx.ml": 3}``). The model may be an IR model (an IR model
    comes back), or anything else a model API takes (onnxcraft's ModelProto comes back).
    Upward and downward; through subgraphs and local functions. A node that cannot be
    expressed at the target raises :class:`~onnxcraft.errors.VersionConversionError` naming
    the node, its operator, the two versions and why.
    """
    targets = target_opsets(target, domain, "convert_version")
    source = model_ir(model, what="convert_version: model")
    converted = convert_model(source, targets)
    if isinstance(model, ir.Model):
        return converted
    return model_to_proto(converted)


def target_opsets(target: Any, domain: Any, what: str) -> dict[str, int]:
    """``target`` (an opset of ``domain``, or a mapping domain -> opset) checked, as a mapping
    of normalized domains; ``what`` names the caller in errors."""
    if isinstance(target, Mapping):
        pairs = list(target.items())
    else:
        if not isinstance(domain, str):
            raise ArgumentError(f"{what}: domain must be a str, got {type(domain).__name__}")
        pairs = [(domain, target)]
    targets: dict[str, int] = {}
    for name, version in pairs:
        if not isinstance(name, str):
            raise ArgumentError(f"{what}: target domains must be str, got {type(name).__name__}")
        key = normalize_domain(name)
        try:
            newest = specs.max_opset(key)
        except SpecError:
            raise ArgumentError(
                f"{what}: target domain {name!r} is not a domain whose operators onnxcraft knows"
            ) from None
        if isinstance(version, bool) or not isinstance(version, (int, np.integer)):
            raise ArgumentError(
                f"{what}: target opset of {name or 'ai.onnx'!r} must be an int, "
                f"got {type(version).__name__}"
            )
        if not 1 <= int(version) <= newest:
            raise ArgumentError(
                f"{what}: target opset {version} of {name or 'ai.onnx'!r} is out of "
                f"range: expected 1 to {newest}"
            )
        targets[key] = int(version)
    return targets


def convert_model(source: ir.Model, targets: dict[str, int]) -> ir.Model:
    """The conversion on the IR: ``source`` is not changed (its tensors are shared)."""
    model = ir.copy_structure(source)
    facts = _facts(model)
    converter = _Converter(model, targets, facts)
    opsets = {normalize_domain(k): v for k, v in model.opset_imports.items()}
    for domain, version in targets.items():
        if domain not in opsets and _uses(model, domain):
            raise VersionConversionError(
                "model", domain or "ai.onnx", 0, version,
                f"the model uses {domain or 'ai.onnx'} operators without importing the domain",
            )  # fmt: skip
    model.graph.nodes = converter.nodes(model.graph.nodes, opsets, Scope(model.graph))
    for function in model.functions:
        own = {normalize_domain(k): v for k, v in function.opset_imports.items()} or opsets
        # A body has names of its own: its types, not the main graph's, judge its steps.
        body_types = dict(facts.functions.get((function.domain, function.name), {}))
        converter.facts = ModelFacts(body_types, {}, facts.names)
        function.nodes = converter.nodes(function.nodes, own, Scope(None))
        converter.facts = facts
        for domain, version in targets.items():
            if domain in own:
                function.opset_imports[_key_of(function.opset_imports, domain)] = version
    for domain, version in targets.items():
        if domain in opsets:
            model.opset_imports[_key_of(model.opset_imports, domain)] = version
    needed = required_ir_version(model)
    if any(targets[d] < opsets[d] for d in targets if d in opsets):
        # Shipped to an older opset, the model declares the oldest IR that holds it, so that
        # runtimes of that age load it (what build does for the models it writes).
        model.ir_version = min(model.ir_version, needed) if model.ir_version >= 3 else needed
    model.ir_version = max(model.ir_version, needed)
    return model


def _key_of(opsets: dict[str, int], domain: str) -> str:
    return next((k for k in opsets if normalize_domain(k) == domain), domain)


def _uses(model: ir.Model, domain: str) -> bool:
    return any(normalize_domain(n.domain) == domain for n in _all_nodes(model.graph.nodes))


def _all_nodes(nodes: list[ir.Node]) -> list[ir.Node]:
    found: list[ir.Node] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        found.append(node)
        for graph in _subgraphs(node):
            stack.extend(reversed(graph.nodes))
    return found


def _subgraphs(node: ir.Node) -> list[ir.Graph]:
    graphs: list[ir.Graph] = []
    for attr in node.attributes:
        if attr.type == "GRAPH" and isinstance(attr.value, ir.Graph):
            graphs.append(attr.value)
        elif attr.type == "GRAPHS":
            graphs.extend(g for g in attr.value or [] if isinstance(g, ir.Graph))
    return graphs


def _facts(model: ir.Model) -> ModelFacts:
    """Types and known values from inference on a copy (the output keeps its value_info)."""
    inferred = ir.copy_structure(model)
    functions = {(f.domain, f.name): f for f in inferred.functions}
    runner = GraphInference(functions, inferred.opset_imports, False)
    values: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferenceWarning)
        try:
            _, values = runner.graph(inferred.graph, {}, {}, inferred.opset_imports)
        except OnnxcraftError:
            # A model inference cannot follow: the declared types are what is known, and the
            # steps that need more refuse with their reason.
            inferred = ir.copy_structure(model)
    types: dict[str, Any] = {}
    names: set[str] = set()
    graphs = [inferred.graph]
    while graphs:
        graph = graphs.pop()
        for info in (*graph.inputs, *graph.outputs, *graph.value_info):
            types.setdefault(info.name, info.type)
        for tensor in graph.initializers:
            types.setdefault(tensor.name, Tensor(tensor.elem_type, tensor.dims))
        for node in graph.nodes:
            names.update(node.outputs)
            graphs.extend(_subgraphs(node))
    names.update(types)
    for function in model.functions:
        names.update(function.inputs)
        names.update(function.outputs)
        for node in _all_nodes(function.nodes):
            names.update(node.outputs)
            names.update(node.inputs)
    known = {k: v for k, v in values.items() if isinstance(v, (np.ndarray, ir.TensorData))}
    facts = ModelFacts(types, known, names)
    for key, body_types in _function_types(inferred, runner, types).items():
        facts.functions[key] = body_types
    return facts


def _function_types(
    inferred: ir.Model, runner: GraphInference, types: dict[str, Any]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The types inside each local function, inferred from the input types of its calls in the
    main graph (none for a function called with different types, or not called there)."""
    functions = {(f.domain, f.name): f for f in inferred.functions}
    calls: dict[tuple[str, str], set[tuple[str, ...]]] = {}
    signatures: dict[tuple[str, str], list[Any]] = {}
    for node in _all_nodes(inferred.graph.nodes):
        key = (node.domain, node.op_type)
        if key in functions:
            found = [types.get(name) for name in node.inputs]
            calls.setdefault(key, set()).add(tuple(str(t) for t in found))
            signatures[key] = found
    result: dict[tuple[str, str], dict[str, Any]] = {}
    for key, seen in calls.items():
        if len(seen) != 1:
            continue
        function = functions[key]
        graph = ir.Graph(
            name=function.name,
            nodes=function.nodes,
            inputs=[ir.ValueInfo(n, t) for n, t in zip(function.inputs, signatures[key])],
            outputs=[ir.ValueInfo(n) for n in function.outputs],
        )
        opsets = function.opset_imports or inferred.opset_imports
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InferenceWarning)
            try:
                runner.graph(graph, {}, {}, opsets)
            except OnnxcraftError:
                continue
        result[key] = {
            info.name: info.type for info in (*graph.inputs, *graph.outputs, *graph.value_info)
        }
    return result


class _Converter:
    def __init__(self, model: ir.Model, targets: dict[str, int], facts: ModelFacts) -> None:
        self.targets = targets
        self.facts = facts
        self.adapters = default_adapters()
        self.local = {(normalize_domain(f.domain), f.name) for f in model.functions}
        self.runner = GraphInference(
            {(f.domain, f.name): f for f in model.functions}, model.opset_imports, False
        )

    def nodes(self, nodes: list[ir.Node], opsets: dict[str, int], scope: Scope) -> list[ir.Node]:
        if scope.graph is not None:
            for tensor in scope.graph.initializers:
                scope.constants[tensor.name] = tensor
        result: list[ir.Node] = []
        for node in nodes:
            result.extend(self.node(node, opsets, scope, 0))
        return result

    def node(
        self, node: ir.Node, opsets: dict[str, int], scope: Scope, depth: int
    ) -> list[ir.Node]:
        for graph in _subgraphs(node):
            graph.nodes = self.nodes(graph.nodes, opsets, Scope(graph, scope))
        converted = self._step_all(node, opsets, scope, depth)
        for item in converted:
            value = constant_of_node(item)
            if value is not None and item.outputs:
                scope.constants[item.outputs[0]] = value
        return converted

    def _step_all(
        self, node: ir.Node, opsets: dict[str, int], scope: Scope, depth: int
    ) -> list[ir.Node]:
        domain = normalize_domain(node.domain)
        if domain not in self.targets or (domain, node.op_type) in self.local:
            return [node]
        if depth > _MAX_DEPTH:
            raise VersionConversionError(
                label(node), node.op_type, 0, 0, "adapters keep emitting nodes that need adapting"
            )
        written = opsets.get(domain)
        if written is None:
            raise VersionConversionError(
                label(node), node.op_type, 0, self.targets[domain],
                f"the graph does not import the domain {domain or 'ai.onnx'}",
            )  # fmt: skip
        target = self.targets[domain]
        try:
            versions = specs.default_registry().versions_of(domain, node.op_type)
        except SpecError as exc:
            raise VersionConversionError(label(node), node.op_type, 0, target, str(exc)) from None
        current = _resolve(versions, written)
        if current is None:
            raise VersionConversionError(
                label(node), node.op_type, 0, target,
                f"the operator does not exist at {domain or 'ai.onnx'} opset {written}",
            )  # fmt: skip
        before: list[ir.Node] = []
        after: list[ir.Node] = []
        for step_to in _path(versions, current, target):
            to_version = ABSENT if step_to is None else step_to.since_version
            ctx = StepContext(node, current.since_version, to_version, self.facts, scope, opsets)
            ctx.target_opset = target
            entry = self.adapters.lookup(domain, node.op_type, current.since_version, to_version)
            if entry is not None:
                entry.adapt(ctx)
                if not ctx.removed and step_to is not None:
                    upward = to_version > current.since_version
                    older, newer = (current, step_to) if upward else (step_to, current)
                    generic_step(ctx, older, newer, upward, adapted=True)
            elif step_to is None:
                expand_body(ctx, current, domain)
            else:
                reason = self.adapters.change_between(
                    domain, node.op_type, current.since_version, to_version
                )
                if reason is not None:
                    ctx.fail(f"no adapter for this direction: {reason}")
                upward = to_version > current.since_version
                if upward and step_to.deprecated:
                    ctx.fail(
                        f"the operator is deprecated at version {to_version}, and no "
                        f"adapter replaces it"
                    )
                older, newer = (current, step_to) if upward else (step_to, current)
                generic_step(ctx, older, newer, upward)
            if not ctx.removed and step_to is not None:
                check_types(ctx, current, step_to)
            before.extend(self._emitted(ctx.before, scope, depth))
            after[:0] = self._emitted(ctx.after, scope, depth)
            if ctx.removed:
                return before + after
            if step_to is None:
                break
            current = step_to
        return [*before, node, *after]

    def _emitted(self, emitted: list[Emitted], scope: Scope, depth: int) -> list[ir.Node]:
        result: list[ir.Node] = []
        for item in emitted:
            self._infer(item)
            result.extend(self.node(item.node, item.opsets, scope, depth + 1))
        return result

    def _infer(self, item: Emitted) -> None:
        node = item.node
        if all(self.facts.types.get(o) is not None for o in node.outputs if o):
            return
        types = self.facts.types
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InferenceWarning)
            self.runner.node(node, types, {}, {}, item.opsets, False)


def _resolve(versions: tuple[OpSpec, ...], opset: int) -> OpSpec | None:
    best = None
    for spec in versions:
        if spec.since_version <= opset:
            best = spec
    return best


def _path(versions: tuple[OpSpec, ...], current: OpSpec, target: int) -> list[OpSpec | None]:
    """The versions to step through from ``current`` to the one in force at ``target`` (None
    at the end: the operator does not exist there)."""
    end = _resolve(versions, target)
    if end is not None and end.since_version >= current.since_version:
        return [s for s in versions if current.since_version < s.since_version <= end.since_version]
    down: list[OpSpec | None] = [
        s
        for s in reversed(versions)
        if s.since_version < current.since_version
        and (end is None or s.since_version >= end.since_version)
    ]
    if end is None:
        down.append(None)
    return down
