"""Emitting a model's graphs: from the DSL's expression graph to ir.Graph and ir.Node.

Only the nodes reachable from the outputs are emitted, in topological order. Every value gets
a name (:mod:`onnxcraft.core.naming`), identical constants are stored once
(:mod:`onnxcraft.core.constants`), graph attributes become subgraphs, and values that must
appear under another name (inputs or constants given as outputs, repeated outputs) are copied
by Identity nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.core.attributes import infer_attribute_type
from onnxcraft.core.constants import ConstantKeys
from onnxcraft.core.function_ref import AttrRef
from onnxcraft.core.graphwalk import Collected, collect
from onnxcraft.core.ir_version import type_feature_ir
from onnxcraft.core.local_functions import FunctionKey, register_function
from onnxcraft.core.naming import Namer
from onnxcraft.core.opinfo import OPTIONAL
from onnxcraft.core.var import ARG, Body, OpCall, Var
from onnxcraft.core.versions import FEATURE_IR, min_ir_for_elem_type
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.errors import BuildError
from onnxcraft.ir import Attribute, Graph, Node, TensorData, ValueInfo
from onnxcraft.types import SparseTensor, Tensor, ValueType

__all__ = ["GraphEmitter", "require_complete_type"]


class GraphEmitter:
    """Emits the graphs of one model (or one function body) from the DSL's expression graph.

    It names values, stores constants once, turns each OpCall into an ir.Node and records what
    the model then needs: the calls emitted (for the opsets), the functions called, the Identity
    copies added and the IR version the graphs' features need.
    """

    def __init__(
        self,
        inputs: list[Var],
        outputs: dict[str, Var],
        keep: list[Var] | None = None,
        *,
        value_info: bool = False,
        node_names: bool = False,
    ) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.keep = keep or []  # values built although no output depends on them
        # Whether graphs declare the type of every intermediate value: on request only, as
        # onnx.helper's models do not (the file stays as small as theirs; inference recovers
        # the types).
        self.with_value_info = value_info
        # Whether nodes get names (``MatMul0``): on request only, as a node is known by its
        # outputs' names (the text format, pictures and error messages show those).
        self.node_names = node_names
        self.namer = Namer()
        self.names: dict[int, str] = {}  # id(Var) -> name
        self.cache: dict[int, Collected] = {}
        self.calls: list[OpCall] = []  # every call emitted, for the opsets
        self.feature_ir = 3
        self.constants: dict[tuple[Any, ...], str] = {}  # content key -> initializer name
        self.constant_keys = ConstantKeys()
        self.initializers: list[TensorData] = []
        self.function_defs: dict[FunctionKey, Any] = {}
        self.used_outputs: set[int] = set()  # ids of node outputs something consumes
        self.output_named: set[int] = set()  # ids of Vars named after a graph output key
        self.constants_as_nodes = False  # function bodies have no initializers
        self.constant_nodes: list[Node] = []
        self.uses_constant_node = False
        self.seen_elems: set[ElementType] = set()
        self.identity_types: list[tuple[str, ValueType | None]] = []  # (output, copied type)
        # The body being emitted (its scope, its initializers): a named constant made in a
        # body (oc.initializer(...).named(...) inside it) is an initializer of that body.
        self.body_initializers: list[tuple[int, list[TensorData]]] = []

    # -- the top-level graph ----------------------------------------------------------------------

    def top_graph(self, name: str, doc_string: str) -> Graph:
        top = collect([*self.outputs.values(), *self.keep], 0, self.cache)
        self._check_leaks(top)
        self._reserve_explicit_names(top)
        self.mark_used(top, list(self.outputs.values()))
        self._assign_output_names()
        graph = Graph(name=name, doc_string=doc_string)
        for v in self.inputs:
            require_complete_type("input", self.names[id(v)], v)
        graph.inputs = [ValueInfo(self.names[id(v)], v.type) for v in self.inputs]
        graph.nodes = self.emit_nodes(top)
        graph.outputs = self._graph_outputs(graph)
        graph.value_info = self._value_info(top.nodes, set(self.outputs))
        graph.initializers = self.initializers
        for v in self.inputs:
            self._note_type_features(v.type)
        return graph

    def _check_leaks(self, top: Collected) -> None:
        declared = {id(v) for v in self.inputs}
        for arg in top.args:
            if id(arg) not in declared:
                label = repr(arg.name) if arg.name else repr(arg)
                raise BuildError(
                    f"build: the outputs depend on input {label}, which is not listed in inputs"
                )
        if top.captures:
            raise BuildError(
                f"build: the outputs use {top.captures[0]!r}, a value created inside a subgraph "
                f"body; body values are only visible inside that body (return it from the body)"
            )

    # -- names ------------------------------------------------------------------------------------

    def _all_vars(self, top: Collected) -> list[Var]:
        found: list[Var] = list(self.inputs)
        self._add_vars(top, found)
        return found

    def _add_vars(self, collected: Collected, found: list[Var]) -> None:
        # A method, not a closure calling itself: that would be a reference cycle keeping the
        # emitter (and all it holds) alive until the next collection walks it.
        found.extend(collected.constants)
        for node in collected.nodes:
            found.extend(node.outputs)
            if node.attributes:  # only attributes hold bodies
                for body in node.bodies():
                    found.extend(body.inputs)
                    self._add_vars(self.cache[id(body)], found)

    def _reserve_explicit_names(self, top: Collected) -> None:
        owners: dict[str, Var] = {}
        # Most values have no name of their own: only the named ones and the graph's inputs
        # (which must have one) are looked at one by one.
        # (``_name``: the slot behind the ``name`` property, read directly in this hot loop)
        named = [v for v in self._all_vars(top) if v._name is not None or v.kind == ARG]
        for var in named:
            if var.name is None:
                if var.kind == ARG and var.scope == 0:
                    raise BuildError(f"build: input {var!r} has no name")
                continue
            other = owners.get(var.name)
            if other is not None and other is not var:
                raise BuildError(
                    f"build: the name {var.name!r} is given to two different values "
                    f"({other!r} and {var!r}); names must be unique in a model"
                )
            owners[var.name] = var
        for key, var in self.outputs.items():
            owner = owners.get(key)
            if owner is not None and owner is not var:
                raise BuildError(
                    f"build: output name {key!r} is already the name of another value ({owner!r})"
                )
        for name, var in owners.items():
            self.namer.claim(name)
            self.names[id(var)] = name
        for key in self.outputs:
            self.namer.claim(key)

    def name_of(self, var: Var) -> str:
        name = self.names.get(id(var))
        if name is None:
            name = self._generate_name(var)
            self.names[id(var)] = name
        return name

    def _generate_name(self, var: Var) -> str:
        node = var.producer
        if node is None:
            return self.namer.fresh("input" if var.kind == ARG else "c")
        base = node.op.op_type.lower()
        if len(node.outputs) > 1 and node.op.outputs:
            formal = node.op.outputs[min(var.index, len(node.op.outputs) - 1)]
            suffix = (
                formal.name.lower()
                if var.index < len(node.op.outputs)
                else f"{formal.name.lower()}{var.index}"
            )
            base = f"{base}_{suffix}"
        return self.namer.fresh(base)

    def mark_used(self, collected: Collected, outputs: list[Var]) -> None:
        """Note which values something consumes (an unused optional output stays unnamed)."""
        used = self.used_outputs
        used.update(map(id, outputs))
        for node in collected.nodes:
            used.update(map(id, node.inputs))  # (a left-out input adds id(None): no Var's)
            if not node.attributes:  # only attributes hold bodies
                continue
            for body in node.bodies():
                inner = self.cache[id(body)]
                self.mark_used(inner, body.outputs)
                used.update(map(id, inner.captures))

    # -- nodes ------------------------------------------------------------------------------------

    def emit_nodes(self, collected: Collected) -> list[Node]:
        result: list[Node] = []
        for var in collected.constants:
            self._constant_name(var)
        result.extend(self.constant_nodes)
        self.constant_nodes = []
        for node in collected.nodes:
            result.append(self._emit_node(node))
        return result

    def _emit_node(self, node: OpCall) -> Node:
        op = node.op
        self.calls.append(node)
        names = self.names
        inputs: list[str] = []
        for v in node.inputs:
            if v is None:
                inputs.append("")
            elif v.producer is not None:  # a node's output: named once, then looked up
                name = names.get(id(v))
                inputs.append(self.name_of(v) if name is None else name)
            else:
                name = names.get(id(v)) if v._name is None else None
                inputs.append(self._input_name(v) if name is None else name)
        outputs: list[str] = []
        formals = op.outputs
        if len(node.outputs) == 1 and formals and formals[0].option != OPTIONAL:
            # most nodes: one output, required, named here unless it has a name already
            var = node.outputs[0]
            name = names.get(id(var))
            if name is None:
                name = names[id(var)] = self._generate_name(var)
            outputs.append(name)
        else:
            for var in node.outputs:
                formal = formals[min(var.index, len(formals) - 1)] if formals else None
                unused = id(var) not in self.used_outputs and var.name is None
                if unused and formal is not None and formal.option == OPTIONAL:
                    outputs.append("")
                else:
                    outputs.append(self.name_of(var))
            while outputs and outputs[-1] == "":
                outputs.pop()
        attributes = (
            [self._emit_attribute(node, k, v) for k, v in node.attributes.items()]
            if node.attributes
            else []
        )
        if op.function is not None:
            register_function(self.function_defs, (op.domain, op.op_type), op.function)
        if not (attributes or op.domain or self.node_names):
            return Node(op.op_type, inputs, outputs)  # the defaults: ai.onnx, no name, no attribute
        return Node(
            op.op_type,
            inputs,
            outputs,
            domain=op.domain,
            name=self.node_name(op.op_type),
            attributes=attributes,
        )

    def node_name(self, op_type: str) -> str:
        """A fresh node name when nodes are named, else "" (no name)."""
        return self.namer.fresh(op_type) if self.node_names else ""

    def _input_name(self, var: Var) -> str:
        if var.value is not None and var.producer is None and var.kind != ARG:
            return self._constant_name(var)
        return self.name_of(var)

    def _constant_name(self, var: Var) -> str:
        own_name = var._name
        if own_name is None:
            known = self.names.get(id(var))
            if known is not None:
                return known
        array = var.value
        elem = var.type.elem_type  # type: ignore[union-attr]
        assert isinstance(array, np.ndarray) and elem is not None
        if own_name is not None:
            key: tuple[Any, ...] = ("named", id(var))
        else:
            key = self.constant_keys.key(array, elem)
        name = self.constants.get(key)
        if name is None:
            name = own_name or self.namer.fresh("c")
            self.constants[key] = name
            # A Constant node's tensor goes unnamed (its output is the name).
            tensor_name = "" if self.constants_as_nodes else name
            data = TensorData(tensor_name, elem, array.shape, array=array)
            if self.constants_as_nodes:
                self.constant_nodes.append(
                    Node(
                        "Constant",
                        [],
                        [name],
                        name=self.node_name("Constant"),
                        attributes=[Attribute("value", "TENSOR", data)],
                    )
                )
                self.uses_constant_node = True
            else:
                target = self.initializers
                if var.name is not None and self.body_initializers:
                    scope, own = self.body_initializers[-1]
                    if var.scope == scope:
                        target = own
                target.append(data)
                # IR 3 lists every initializer among the graph inputs; ours are not inputs.
                self.feature_ir = max(self.feature_ir, FEATURE_IR["initializer_not_input"])
            if elem not in self.seen_elems:
                self.seen_elems.add(elem)
                self.feature_ir = max(self.feature_ir, min_ir_for_elem_type(elem))
        self.names[id(var)] = name
        return name

    def _emit_attribute(self, node: OpCall, name: str, value: Any) -> Attribute:
        info = node.op.attributes.get(name)
        if isinstance(value, AttrRef):
            kind = (
                info.type
                if info is not None
                else infer_attribute_type(node.op.op_type, name, value.value)
            )
            return Attribute(name, kind, None, ref=value.name)
        if info is not None:
            attr_type = info.type
        else:
            attr_type = infer_attribute_type(node.op.op_type, name, value)
        if isinstance(value, Body):
            return Attribute(name, "GRAPH", self._body_graph(value))
        if isinstance(value, list) and value and isinstance(value[0], Body):
            return Attribute(name, "GRAPHS", [self._body_graph(b) for b in value])
        if attr_type == "TENSOR":
            array = np.asarray(value)
            return Attribute(
                name, "TENSOR", TensorData.from_array("", array, element_type_of(array.dtype))
            )
        if attr_type == "TENSORS":
            return Attribute(
                name,
                "TENSORS",
                [
                    TensorData.from_array("", np.asarray(a), element_type_of(np.asarray(a).dtype))
                    for a in value
                ],
            )
        if attr_type in ("TYPE_PROTO",):
            self._note_type_features(value)
        return Attribute(name, attr_type, list(value) if isinstance(value, tuple) else value)

    def _body_graph(self, body: Body) -> Graph:
        inner = self.cache[id(body)]
        graph = Graph(name=self.namer.fresh(body.name.replace(".", "_").lower()))
        for var in body.inputs:
            if id(var) not in self.names:
                self.names[id(var)] = self.namer.fresh(f"{graph.name}_in")
            graph.inputs.append(ValueInfo(self.names[id(var)], var.type))
        self.body_initializers.append((body.scope, graph.initializers))
        try:
            graph.nodes = self.emit_nodes(inner)
        finally:
            self.body_initializers.pop()
        inner_nodes = {id(n) for n in inner.nodes}
        seen: set[int] = set()
        for var in body.outputs:
            produced_here = var.producer is not None and id(var.producer) in inner_nodes
            if produced_here and id(var) not in seen:
                out_name = self.name_of(var)
            else:
                # A body output must be produced inside the body: route inputs, captured
                # values, constants and repeated outputs through an Identity node.
                out_name = self.namer.fresh(f"{graph.name}_out")
                graph.nodes.append(self.identity(var, out_name))
            seen.add(id(var))
            graph.outputs.append(ValueInfo(out_name, var.type))
        graph.value_info = self._value_info(inner.nodes, {o.name for o in graph.outputs})
        return graph

    def identity(self, var: Var, out_name: str) -> Node:
        """An Identity node copying ``var`` to ``out_name`` (its type decides the opset)."""
        self.identity_types.append((out_name, var.type))
        return Node(
            "Identity", [self._input_name(var)], [out_name], name=self.node_name("Identity")
        )

    def _assign_output_names(self) -> None:
        """Name each output's producing value after its key, where that is possible."""
        for key, var in self.outputs.items():
            if var.producer is None or var.kind == ARG or id(var) in self.output_named:
                continue
            if var.name is None or var.name == key:
                self.names[id(var)] = key
                self.output_named.add(id(var))

    def _graph_outputs(self, graph: Graph) -> list[ValueInfo]:
        result: list[ValueInfo] = []
        for key, var in self.outputs.items():
            if self.names.get(id(var)) != key:
                # Values named otherwise (inputs, constants, repeated outputs) need an
                # Identity node to appear under the output's name; a value of that name is
                # itself the output (IR.md lets a main graph output be an input).
                graph.nodes.append(self.identity(var, key))
            require_complete_type("output", key, var)
            self._note_type_features(var.type)
            result.append(ValueInfo(key, var.type))
        return result

    def _value_info(self, nodes: list[OpCall], exclude: set[str]) -> list[ValueInfo]:
        if not self.with_value_info:
            return []
        infos = []
        for node in nodes:
            for var in node.outputs:
                name = self.names.get(id(var))
                if name is None or name in exclude or var.type is None:
                    continue
                self._note_type_features(var.type)
                infos.append(ValueInfo(name, var.type))
        return infos

    def _note_type_features(self, value: ValueType | None) -> None:
        self.feature_ir = max(self.feature_ir, type_feature_ir(value))


def require_complete_type(role: str, name: str, var: Var) -> None:
    """IR.md: a model's inputs and outputs have a type, and a tensor an element type and rank."""
    t = var.type
    incomplete = t is None or (
        isinstance(t, (Tensor, SparseTensor)) and (t.elem_type is None or t.shape is None)
    )
    if incomplete:
        raise BuildError(
            f"{role} {name!r}: ONNX requires a model's {role}s to have a type, and a tensor an "
            f"element type and a rank, but this value's type is {t if t else 'unknown'}; give "
            f"its operator an inference rule (oc.register_rule) or state the type with "
            f"var.with_type(oc.Tensor(dtype, shape))"
        )
