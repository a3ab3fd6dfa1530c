"""Preparing a graph for evaluation: kernels, attributes and subgraphs resolved once.

A :class:`GraphPlan` is a list of steps, each a kernel with its input/output names and its
attributes already decoded (spec defaults filled in, tensors as arrays, subgraphs as plans).
Running a plan is then a loop over the steps; nothing is looked up by name twice.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from onnxcraft import ir, specs
from onnxcraft.core.check.problems import node_place
from onnxcraft.core.opinfo import op_info
from onnxcraft.dtypes import from_type_string, numpy_dtype
from onnxcraft.errors import EvaluationError, MissingKernelError, OnnxcraftError
from onnxcraft.evaluate.admission import check_call, check_node, defined_twice
from onnxcraft.evaluate.fusion import fuse_steps
from onnxcraft.evaluate.run import run_plan, run_step
from onnxcraft.evaluate.spec_functions import function_from_spec
from onnxcraft.ops.kernel_api import (
    GraphPlan,
    KernelContext,
    KernelRegistry,
    Step,
    SubgraphRef,
    TypeAttr,
)
from onnxcraft.ops.run_guard import RunGuard, guarded
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["GraphPlan", "NameScope", "PlannedGraph", "Step", "Preparer", "SubgraphRef"]


@dataclass(frozen=True)
class PlannedGraph:
    """A graph's steps and constants as kernels that read their graph see them (GraphView)."""

    steps: list[Step]  # the list the plan holds: filled while the graph is prepared
    constants: dict[str, Any]
    input_names: tuple[str, ...]

    def run(self, plan: GraphPlan, env: dict[str, Any]) -> dict[str, Any]:
        return run_plan(plan, env, keep_all=True)

    def run_step(self, step: Step, args: list[Any]) -> tuple[Any, ...]:
        return run_step(step, args, {})


def type_attr(value: ValueType | None) -> TypeAttr:
    if isinstance(value, Tensor):
        return TypeAttr("tensor", int(value.elem_type or 0))
    if isinstance(value, SparseTensor):
        return TypeAttr("sparse_tensor", int(value.elem_type or 0))
    if isinstance(value, Sequence):
        return TypeAttr("sequence", 0, type_attr(value.elem))
    if isinstance(value, Optional):
        return TypeAttr("optional", 0, type_attr(value.elem))
    if isinstance(value, Map):
        return TypeAttr("map", int(value.key), type_attr(value.value))
    return TypeAttr("tensor", 0)


def spec_default(attr_type: str, default: Any) -> Any:
    """A spec default (plain JSON value) in the form kernels receive."""
    if isinstance(default, dict) and attr_type == "TENSOR":
        dtype = numpy_dtype(from_type_string(default["dtype"]))
        return np.asarray(default.get("values", []), dtype=dtype).reshape(default.get("dims", []))
    if isinstance(default, tuple):
        return list(default)
    return default


# The largest value computed while preparing: larger constants are made on every run instead,
# where the run's limits apply to them.
_FOLD_BYTES = 64 << 20


def _fold_constants(steps: list[Step], constants: dict[str, Any], inputs: set[str]) -> list[Step]:
    """Run once, now, the steps whose inputs are all constants; the steps left to run.

    A node that reads only initializers (or other such nodes) computes the same value on
    every run: a Constant, a ConstantOfShape making a weight, a Reshape of a weight. Its
    outputs join ``constants``. Graph inputs are never constant, even with an initializer
    (a feed may replace it); nor are random operators, nodes with subgraphs or function
    bodies. A step that fails, or whose value is over :data:`_FOLD_BYTES`, is left to run
    (where its error, or the run's limits, apply as before).
    """
    known = set(constants) - inputs
    kept: list[Step] = []
    # quiet IEEE arithmetic, as a run's (Evaluator.run)
    with guarded(RunGuard(max_value_bytes=_FOLD_BYTES)), np.errstate(all="ignore"):
        for step in steps:
            if not _foldable(step, known):
                kept.append(step)
                continue
            args = [constants[name] if name else None for name in step.inputs]
            try:
                results = run_step(step, args, constants)
            except OnnxcraftError:
                kept.append(step)
                continue
            if any(_bytes(value) > _FOLD_BYTES for value in results):
                kept.append(step)
                continue
            for name, value in zip(step.outputs, results):
                if name:
                    constants[name] = value
                    known.add(name)
    return kept


def _foldable(step: Step, known: set[str]) -> bool:
    if step.fn is None or step.subgraph_attributes or not _deterministic(step):
        return False
    return all(not name or name in known for name in step.inputs)


def _deterministic(step: Step) -> bool:
    """Whether the operator's spec says so (a custom operator without a spec is not folded)."""
    node = step.node
    registry = specs.default_registry()
    if not step.since_version or not registry.has(node.domain, node.op_type):
        return False
    spec = registry.resolve(node.domain, node.op_type, step.since_version)
    return spec is not None and spec.deterministic


def _bytes(value: Any) -> int:
    return int(value.nbytes) if isinstance(value, np.ndarray) else 0


class NameScope:
    """The names a graph defines, then its enclosing graphs' (through ``parent``).

    Each graph holds its own set; a lookup walks out through the (few) nesting levels, so
    preparing a graph never copies the names of the graphs around it.
    """

    __slots__ = ("names", "parent")

    def __init__(self, names: set[str], parent: NameScope | None) -> None:
        self.names = names
        self.parent = parent

    def __contains__(self, name: object) -> bool:
        scope: NameScope | None = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


class Preparer:
    """Turns IR graphs into plans for one model (its opsets and local functions)."""

    def __init__(
        self,
        opsets: dict[str, int],
        functions: dict[tuple[str, str], ir.Function],
        kernels: KernelRegistry,
        *,
        fuse: bool = True,
    ) -> None:
        self.opsets = opsets
        self.functions = functions
        self.kernels = kernels
        self.fuse = fuse  # rewrites that change rounding within tolerance (evaluate.fusion)
        # Declared element types of the values in scope (see _declared_elems), for
        # KernelContext.input_elem_types: an empty map's value type exists only there.
        self._declared: ChainMap[str, int | None] = ChainMap()
        self._standard_domains: dict[str, bool] = {}

    # -- graphs -----------------------------------------------------------------------------------

    def graph(
        self, graph: ir.Graph, outer: NameScope | None, where: str | None = "graph"
    ) -> GraphPlan:
        """The plan of ``graph``; ``outer`` holds the names its enclosing graphs define and
        ``where`` names the graph in messages, as the checker does (None: not checked)."""
        constants = {t.name: t.array() for t in graph.initializers}
        for sparse in graph.sparse_initializers:
            constants[sparse.values.name] = _densify(sparse)
        enclosing = self._declared
        self._declared = ChainMap(_declared_elems(graph), enclosing)  # inner names shadow outer
        try:
            plan = self._plan(
                graph.inputs,
                [o.name for o in graph.outputs],
                graph.nodes,
                constants,
                outer,
                self.opsets,
                where,
            )
        finally:
            self._declared = enclosing
        plan.output_types = [o.type for o in graph.outputs]
        return plan

    def _plan(
        self,
        inputs: list[ir.ValueInfo],
        outputs: list[str],
        nodes: list[ir.Node],
        constants: dict[str, Any],
        outer: NameScope | None,
        opsets: dict[str, int],
        where: str | None,
    ) -> GraphPlan:
        """The steps of ``nodes``; ``where`` is None in function bodies, whose rules were
        checked with the model (local functions) or are the standard's own."""
        steps: list[Step] = []
        free: list[str] = []
        free_set: set[str] = set()
        local = {i.name for i in inputs} | set(constants)
        # What a node's subgraphs see: this graph's names so far (``local`` grows node by
        # node; a subgraph is prepared at its node) and the enclosing graphs', not copied.
        visible = NameScope(local, outer)
        view = PlannedGraph(steps, constants, tuple(i.name for i in inputs))

        def read(name: str) -> None:
            if name and name not in local and name not in free_set:
                if outer is None or name not in outer:
                    raise EvaluationError(f"value {name!r} is used before it is defined")
                free_set.add(name)
                free.append(name)

        for index, node in enumerate(nodes):
            place = None if where is None else node_place(where, index, node)
            step = self._step(node, visible, opsets, view, place)
            for name in step.inputs:
                read(name)
            for attr in step.subgraph_attributes:
                value = step.attributes[attr]
                refs = value if isinstance(value, list) else [value]
                for ref in refs:
                    for name in ref.plan.free_names:
                        read(name)
            for name in step.outputs:
                if name and place is not None:
                    if name in local:
                        raise defined_twice(place, name, shadows=False)
                    if outer is not None and name in outer:
                        raise defined_twice(place, name, shadows=True)
                local.add(name)
            steps.append(step)
        for name in outputs:
            read(name)
        input_names = {i.name for i in inputs}
        steps = _fold_constants(steps, constants, input_names)
        if self.fuse:
            steps = fuse_steps(steps, constants, input_names, set(outputs))
        last_use: dict[str, int] = {}
        for index, step in enumerate(steps):
            for name in step.inputs:
                last_use[name] = index
            for attr in step.subgraph_attributes:
                value = step.attributes[attr]
                for ref in value if isinstance(value, list) else [value]:
                    for name in ref.plan.free_names:
                        last_use[name] = index
        return GraphPlan(inputs, outputs, constants, steps, free, last_use)

    def _is_standard(self, domain: str) -> bool:
        """Whether the specs know ``domain`` (asked once per domain: the registry's answer
        walks every spec file)."""
        known = self._standard_domains.get(domain)
        if known is None:
            known = self._standard_domains[domain] = specs.is_standard_domain(domain)
        return known

    # -- nodes ------------------------------------------------------------------------------------

    def _step(
        self,
        node: ir.Node,
        visible: NameScope,
        opsets: dict[str, int],
        view: PlannedGraph,
        place: str | None,
    ) -> Step:
        domain = node.domain
        function = self.functions.get((domain, node.op_type))
        if function is not None:
            if place is not None:
                check_call(node, place, function)
            return self._function_step(node, function, visible)
        opset = opsets.get(domain)
        if opset is None:
            raise EvaluationError(
                f"node {node.name or node.op_type!r}: domain {domain or 'ai.onnx'!r} of "
                f"{node.op_type} is not imported by the model (no opset_import entry)"
            )
        since = specs.resolve_since_version(domain, node.op_type, opset)
        if since is None:
            raise MissingKernelError(
                f"{node.op_type}: no operator of that name exists in domain "
                f"{domain or 'ai.onnx'!r} at opset {opset}"
            )
        if place is not None and self._is_standard(domain):
            check_node(op_info(domain, node.op_type, since), node, place)
        entry = self.kernels.lookup(domain, node.op_type, since)
        if entry is None:
            body = self._spec_function(domain, node.op_type, since)
            if body is not None:
                return self._function_step(node, body, visible)
            raise MissingKernelError(
                f"{node.op_type} (domain {domain or 'ai.onnx'!r}, version {since}, model opset "
                f"{opset}): the evaluator has no kernel for this operator version"
            )
        attributes, graph_attrs = self._attributes(node, domain, since, visible, place)
        if entry.prepare is not None:
            # Decoded once per model, not once per run (see KernelRegistry.add's prepare=).
            attributes = {**attributes, "prepared": entry.prepare(**attributes)}
        context = None
        if entry.context:
            context = KernelContext(
                domain,
                node.op_type,
                since,
                opset,
                len(node.outputs),
                tuple(bool(o) for o in node.outputs),
                node.name,
                tuple(self._declared.get(name) for name in node.inputs),
                graph=view,
            )
        return Step(
            node,
            entry.fn,
            context,
            list(node.inputs),
            list(node.outputs),
            attributes,
            graph_attrs,
            since_version=since,
        )

    def _attributes(
        self, node: ir.Node, domain: str, since: int, visible: NameScope, place: str | None
    ) -> tuple[dict[str, Any], list[str]]:
        info = op_info(domain, node.op_type, since)
        values: dict[str, Any] = {}
        graph_attrs: list[str] = []
        for attr in node.attributes:
            if attr.ref:
                raise EvaluationError(
                    f"{node.op_type}: attribute {attr.name!r} refers to function attribute "
                    f"{attr.ref!r} outside of a function body"
                )
            where = None if place is None else f"{place} attribute {attr.name!r}"
            values[attr.name] = self._attribute_value(attr, visible, where)
            if attr.type in ("GRAPH", "GRAPHS"):
                graph_attrs.append(attr.name)
        for name, spec_attr in info.attributes.items():
            if name not in values and spec_attr.default is not None:
                values[name] = spec_default(spec_attr.type, spec_attr.default)
        return values, graph_attrs

    def _attribute_value(self, attr: ir.Attribute, visible: NameScope, where: str | None) -> Any:
        kind, value = attr.type, attr.value
        if kind == "TENSOR":
            return value.array()
        if kind == "TENSORS":
            return [t.array() for t in value]
        if kind == "GRAPH":
            return SubgraphRef(self.graph(value, visible, where))
        if kind == "GRAPHS":
            return [
                SubgraphRef(self.graph(g, visible, where and f"{where}[{i}]"))
                for i, g in enumerate(value)
            ]
        if kind == "SPARSE_TENSOR":
            return _densify(value)
        if kind == "SPARSE_TENSORS":
            return [_densify(v) for v in value]
        if kind == "TYPE_PROTO":
            return type_attr(value)
        if kind == "TYPE_PROTOS":
            return [type_attr(v) for v in value]
        return value

    # -- functions --------------------------------------------------------------------------------

    def _spec_function(self, domain: str, op_type: str, since: int) -> ir.Function | None:
        return function_from_spec(domain, op_type, since)

    def _function_step(self, node: ir.Node, function: ir.Function, visible: NameScope) -> Step:
        """A node run through a function body, its attribute references resolved."""
        actual = {a.name: a for a in node.attributes}
        defaults = {a.name: a for a in function.attribute_defaults}
        nodes = [_substitute(n, actual, defaults) for n in function.nodes]
        # An optional input the caller omits is omitted inside the body too: a body node that
        # reads it gets no input there (ReduceSumSquare without axes passes none to ReduceSum).
        omitted = {
            name
            for index, name in enumerate(function.inputs)
            if index >= len(node.inputs) or not node.inputs[index]
        }
        if omitted:
            nodes = [_omitting(n, omitted) for n in nodes]
        inputs = [ir.ValueInfo(name) for name in function.inputs]
        opsets = dict(self.opsets)
        opsets.update(function.opset_imports)
        # A function body sees only its own inputs: it captures nothing from the caller.
        enclosing = self._declared
        self._declared = ChainMap({v.name: _elem_type(v.type) for v in function.value_info})
        try:
            plan = self._plan(inputs, list(function.outputs), nodes, {}, None, opsets, None)
        finally:
            self._declared = enclosing
        return Step(node, None, None, list(node.inputs), list(node.outputs), {}, function_plan=plan)


def _declared_elems(graph: ir.Graph) -> dict[str, int | None]:
    """Name -> the element type the graph declares for the value (see _elem_type)."""
    declared: dict[str, int | None] = {t.name: int(t.elem_type) for t in graph.initializers}
    for info in (*graph.inputs, *graph.value_info, *graph.outputs):
        if info.type is not None:
            declared[info.name] = _elem_type(info.type)
    return declared


def _elem_type(value: ValueType | None) -> int | None:
    """The element type of the tensors a value holds: a tensor's own, a sequence's or an
    optional's elements', a map's values' (None when not declared)."""
    if isinstance(value, (Tensor, SparseTensor)):
        return None if value.elem_type is None else int(value.elem_type)
    if isinstance(value, (Sequence, Optional)):
        return _elem_type(value.elem)
    if isinstance(value, Map):
        return _elem_type(value.value)
    return None


def _omitting(node: ir.Node, omitted: set[str]) -> ir.Node:
    """``node`` with the inputs named in ``omitted`` left empty."""
    if not omitted.intersection(node.inputs):
        return node
    inputs = ["" if name in omitted else name for name in node.inputs]
    return ir.Node(node.op_type, inputs, node.outputs, node.domain, node.name, node.attributes)


def _substitute(
    node: ir.Node, actual: dict[str, ir.Attribute], defaults: dict[str, ir.Attribute]
) -> ir.Node:
    """A copy of a function-body node with attribute references replaced by values.

    References inside the node's subgraphs (a branch of an If in the body) are replaced too:
    they name the function's attributes as well.
    """
    attributes: list[ir.Attribute] = []
    for attr in node.attributes:
        if attr.ref:
            source = actual.get(attr.ref) or defaults.get(attr.ref)
            if source is None:
                continue  # the caller gave no value and there is no default: leave it unset
            attributes.append(ir.Attribute(attr.name, source.type, source.value))
        elif attr.type == "GRAPH":
            body = _substitute_graph(attr.value, actual, defaults)
            attributes.append(ir.Attribute(attr.name, attr.type, body))
        elif attr.type == "GRAPHS":
            bodies = [_substitute_graph(g, actual, defaults) for g in attr.value]
            attributes.append(ir.Attribute(attr.name, attr.type, bodies))
        else:
            attributes.append(attr)
    return ir.Node(node.op_type, node.inputs, node.outputs, node.domain, node.name, attributes)


def _substitute_graph(
    graph: ir.Graph, actual: dict[str, ir.Attribute], defaults: dict[str, ir.Attribute]
) -> ir.Graph:
    nodes = [_substitute(n, actual, defaults) for n in graph.nodes]
    return replace(graph, nodes=nodes)


def _densify(sparse: ir.SparseData) -> np.ndarray:
    values = sparse.values.array()
    indices = sparse.indices.array().astype(np.int64)
    dense = np.zeros(sparse.dims, dtype=values.dtype)
    if indices.ndim == 1:  # linearized indices
        dense.reshape(-1)[indices] = values
    elif indices.size:
        dense[tuple(indices.T)] = values
    return dense
