"""``oc.check``: validate a model against the ONNX IR rules and the operator specs.

Every problem found is collected (not just the first) and reported in one ValidationError.
Each problem says where it is (graph path, node index and name, function) and, in brackets,
the rule broken, e.g. ``graph node 1 ('relu', Relu): [ssa] value 'h' is defined more than once``.

The rules follow docs/IR.md and onnx.proto of ONNX and the operator specs. Where onnx's own
checker is more lenient (unique node names, ``ref_attr_name`` outside functions, the outputs
and call sites of model-local functions, map key types, the IR version an opset was released
with), this checker follows the specification; where the specification leaves a point open
(a subgraph input may reuse an outer name), it follows onnx's checker.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from onnxcraft.core.graphwalk import ir_nodes
from onnxcraft.core.opinfo import SINGLE, VARIADIC, FormalInfo, OpInfo, op_info
from onnxcraft.core.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType
from onnxcraft.core.typestr import matches, type_to_string
from onnxcraft.core.versions import (
    FEATURE_IR,
    LATEST_IR_VERSION,
    min_ir_for_elem_type,
    min_ir_for_opsets,
)
from onnxcraft.dtypes import MAP_KEY_TYPES, ElementType
from onnxcraft.errors import OnnxcraftError, ValidationError
from onnxcraft.ir import Attribute, Function, Graph, Model, Node
from onnxcraft.specs import is_standard_domain, max_opset, resolve_since_version

__all__ = ["RULES", "check", "check_ir"]

# The rule names problems carry, with what each rule requires.
RULES = {
    "ir-version": "ir_version is set, known, and supports every opset and feature used",
    "opset-import": "every domain used is imported at a known version, by functions too",
    "graph-name": "every graph has a name",
    "value-name": "graph inputs, outputs, initializers and value_info have names",
    "io-type": "main graph inputs and outputs have a complete type, tensors a rank",
    "ssa": "every value is defined once; node outputs do not reuse outer names",
    "topological-order": "a node only uses values defined before it",
    "scope": "a node only uses values defined in its graph or enclosing graphs",
    "graph-output": "a graph output is defined in that graph",
    "initializer": "tensors have an element type; subgraph initializers are not inputs",
    "node": "a node has an op_type, some input or output, and a unique name",
    "operator": "the operator exists at the imported opset and is not deprecated",
    "arity": "input and output counts fit the operator's optional/variadic signature",
    "attribute": "attributes are known, typed as specified, given once, required ones set",
    "type-constraint": "input and output types satisfy the operator's type constraints",
    "value-type": "types are well formed: map keys are integers or strings",
    "function": "model-local functions are well formed, unique and not recursive",
}


def check(model: Any) -> None:
    """Raise ValidationError listing every problem of ``model`` (any ModelProto, or an IR model)."""
    # Lazy: check_ir works on the IR alone; protobuf is needed only to read a ModelProto.
    from onnxcraft.proto.serde import as_ir

    problems = check_ir(as_ir(model, what="check: model"))
    if problems:
        raise ValidationError(problems)


def check_ir(model: Model, *, skip: Collection[str] = ()) -> list[str]:
    """Every problem of ``model``, as ``"where: [rule] what"`` strings (empty when valid).

    ``skip`` names rules (keys of :data:`RULES`) to leave out, for tools that build models
    which are incomplete on purpose (a test harness declaring inputs of unknown rank).
    """
    unknown = sorted(set(skip) - set(RULES))
    if unknown:
        raise ValueError(f"check_ir: unknown rule(s) {unknown}; rules: {', '.join(RULES)}")
    checker = _Checker(model)
    checker.run()
    return [f"{where}: [{rule}] {what}" for where, rule, what in checker.found if rule not in skip]


@dataclass
class _Defined:
    """The values defined so far in one graph (or function body), and their known types."""

    names: set[str] = field(default_factory=set)
    types: dict[str, ValueType | None] = field(default_factory=dict)


@dataclass
class _Scope:
    """What a graph or function body sees: outer values, imports, function attributes."""

    chain: tuple[_Defined, ...]  # the enclosing graphs' definitions, outermost first
    opsets: dict[str, int]
    function_attrs: frozenset[str] | None = None  # None: not inside a function body
    top: bool = False

    def has(self, name: str) -> bool:
        return any(name in defined.names for defined in self.chain)

    def type_of(self, name: str) -> ValueType | None:
        for defined in reversed(self.chain):
            if name in defined.types:
                return defined.types[name]
        return None

    def inner(self, defined: _Defined) -> _Scope:
        """The scope of a subgraph of a node of the graph whose definitions are ``defined``."""
        return _Scope((*self.chain, defined), self.opsets, self.function_attrs)


def _place(where: str, index: int, node: Node) -> str:
    label = f"{node.name!r}, {node.op_type}" if node.name else node.op_type
    return f"{where} node {index} ({label})"


def _domain_label(domain: str) -> str:
    return domain or "ai.onnx"


class _Checker:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.found: list[tuple[str, str, str]] = []  # (where, rule, what)
        self.functions = {(f.domain, f.name): f for f in model.functions}
        self.ir_needs: dict[str, int] = {}  # reason -> lowest IR version it needs

    def report(self, where: str, rule: str, message: str) -> None:
        self.found.append((where, rule, message))

    def need_ir(self, version: int, reason: str) -> None:
        if version > 3 and version > self.ir_needs.get(reason, 0):
            self.ir_needs[reason] = version

    # -- the model --------------------------------------------------------------------------------

    def run(self) -> None:
        model = self.model
        self._check_ir_version_range()
        self._check_opsets(model.opset_imports, "model")
        if not model.opset_imports and model.ir_version >= 3:
            self.report("model", "opset-import", "the model imports no opset")
        scope = _Scope((), dict(model.opset_imports), top=True)
        self.graph(model.graph, scope, "graph")
        _FunctionChecker(self).run()
        self._check_ir_needs()

    def _check_ir_version_range(self) -> None:
        version = self.model.ir_version
        if version < 3:
            self.report("model", "ir-version", f"ir_version {version} is missing or < 3")
        elif version > LATEST_IR_VERSION:
            self.report(
                "model",
                "ir-version",
                f"ir_version {version} is newer than the latest known ({LATEST_IR_VERSION})",
            )

    def _check_ir_needs(self) -> None:
        version = self.model.ir_version
        opsets = self.model.opset_imports
        if opsets:
            self.need_ir(min_ir_for_opsets(opsets), f"the opsets {dict(sorted(opsets.items()))}")
        too_new = sorted((need, reason) for reason, need in self.ir_needs.items() if version < need)
        if version >= 3 and too_new:
            reasons = "; ".join(f"{reason} need >= {need}" for need, reason in too_new)
            self.report(
                "model", "ir-version", f"ir_version {version} is too old for this model: {reasons}"
            )

    def _check_opsets(self, opsets: dict[str, int], where: str) -> None:
        for domain, version in opsets.items():
            if version < 1:
                self.report(
                    where,
                    "opset-import",
                    f"opset_import of {_domain_label(domain)!r} has version {version}",
                )
                continue
            top = max_opset(domain) if is_standard_domain(domain) else None
            if top is not None and version > top:
                self.report(
                    where,
                    "opset-import",
                    f"opset_import {_domain_label(domain)!r} version {version} is newer than "
                    f"the latest known ({top})",
                )

    # -- graphs -----------------------------------------------------------------------------------

    def graph(self, graph: Graph, scope: _Scope, where: str) -> None:
        if not graph.name:
            self.report(where, "graph-name", "a graph must have a name")
        defined = _Defined()
        self._graph_inputs(graph, scope, where, defined)
        self._initializers(graph, scope, where, defined)
        for info in graph.value_info:
            place = f"{where} value_info {info.name!r}"
            if not info.name:
                self.report(place, "value-name", "a value_info has no name")
            defined.types.setdefault(info.name, info.type)
            self._note_type(info.type, place)
            self._note_metadata(info.metadata, "metadata_props on value_info")
        for info in graph.outputs:
            defined.types.setdefault(info.name, info.type)
        self._note_metadata(graph.metadata, "metadata_props on graphs")
        self._nodes(graph.nodes, scope, where, defined)
        self._graph_outputs(graph, scope, where, defined)

    def _define(
        self, name: str, place: str, scope: _Scope, defined: _Defined, *, is_node_output: bool
    ) -> None:
        if name in defined.names:
            self.report(place, "ssa", f"value {name!r} is defined more than once")
        elif is_node_output and scope.has(name):
            self.report(
                place, "ssa", f"value {name!r} shadows a value of an enclosing graph or function"
            )
        defined.names.add(name)

    def _graph_inputs(self, graph: Graph, scope: _Scope, where: str, defined: _Defined) -> None:
        for info in graph.inputs:
            place = f"{where} input {info.name!r}"
            if not info.name:
                self.report(place, "value-name", "a graph input has no name")
                continue
            self._define(info.name, place, scope, defined, is_node_output=False)
            defined.types[info.name] = info.type
            if scope.top:
                self._io_type(place, info.type)
            self._note_type(info.type, place)
            self._note_metadata(info.metadata, "metadata_props on value_info")

    def _initializers(self, graph: Graph, scope: _Scope, where: str, defined: _Defined) -> None:
        inputs = {i.name for i in graph.inputs}
        seen: set[str] = set()
        tensors = [(t, t.elem_type, t.dims) for t in graph.initializers]
        for sparse in graph.sparse_initializers:
            self.need_ir(FEATURE_IR["sparse_initializer"], "sparse initializers")
            tensors.append((sparse.values, sparse.values.elem_type, sparse.dims))
        for tensor, elem, dims in tensors:
            place = f"{where} initializer {tensor.name!r}"
            if not tensor.name:
                self.report(place, "value-name", "an initializer has no name")
                continue
            if tensor.name in seen:
                self.report(place, "ssa", f"initializer {tensor.name!r} is given twice")
                continue
            seen.add(tensor.name)
            self._tensor(place, elem)
            if tensor.name in inputs:
                self._initializer_is_input(place, tensor.name, scope)
            else:
                self.need_ir(
                    FEATURE_IR["initializer_not_input"], "initializers that are not inputs"
                )
                self._define(tensor.name, place, scope, defined, is_node_output=False)
            known = None if elem == ElementType.UNDEFINED else Tensor(elem, dims)
            defined.types[tensor.name] = known

    def _initializer_is_input(self, place: str, name: str, scope: _Scope) -> None:
        # IR.md: from IR 4 on, a nested graph's initializer may not share an input's name.
        if not scope.top and self.model.ir_version >= 4:
            self.report(
                place,
                "initializer",
                f"{name!r} is both an input and an initializer of a subgraph (IR >= 4)",
            )

    def _tensor(self, place: str, elem: ElementType) -> None:
        if elem == ElementType.UNDEFINED:
            self.report(place, "initializer", "the tensor's element type is UNDEFINED")
        else:
            self.need_ir(min_ir_for_elem_type(elem), f"element type {elem.name}")

    def _io_type(self, place: str, value: ValueType | None) -> None:
        """IR.md: main graph inputs and outputs have a type, tensors at least a rank."""
        problem = _incomplete(value)
        if problem:
            self.report(place, "io-type", f"a main graph input or output needs {problem}")

    def _graph_outputs(self, graph: Graph, scope: _Scope, where: str, defined: _Defined) -> None:
        for info in graph.outputs:
            place = f"{where} output {info.name!r}"
            if not info.name:
                self.report(place, "value-name", "a graph output has no name")
                continue
            if info.name not in defined.names:
                outer = scope.has(info.name)
                self.report(
                    place,
                    "graph-output",
                    "is a value of an enclosing graph; a subgraph output must be defined in the "
                    "subgraph (pass it through Identity)"
                    if outer
                    else "is not produced by any node, input or initializer of this graph",
                )
            if scope.top:
                self._io_type(place, info.type)
            self._note_type(info.type, place)
            self._note_metadata(info.metadata, "metadata_props on value_info")

    def _note_type(self, value: ValueType | None, place: str) -> None:
        """Record the IR versions a type needs; report map keys onnx.proto does not allow."""
        if isinstance(value, (Tensor, SparseTensor)):
            if isinstance(value, SparseTensor):
                self.need_ir(FEATURE_IR["sparse_tensor_type"], "sparse tensor types")
            if value.elem_type is not None:
                reason = f"element type {value.elem_type.name}"
                self.need_ir(min_ir_for_elem_type(value.elem_type), reason)
        elif isinstance(value, Optional):
            self.need_ir(FEATURE_IR["optional_type"], "optional types")
            self._note_type(value.elem, place)
        elif isinstance(value, Sequence):
            self._note_type(value.elem, place)
        elif isinstance(value, Map):
            if value.key not in MAP_KEY_TYPES:
                self.report(
                    place,
                    "value-type",
                    f"map key type {value.key.name} is not an integer type or STRING",
                )
            self._note_type(value.value, place)

    def _note_metadata(self, metadata: dict[str, str], what: str) -> None:
        if metadata:
            self.need_ir(FEATURE_IR["metadata"], what)

    # -- nodes ------------------------------------------------------------------------------------

    def _nodes(self, nodes: list[Node], scope: _Scope, where: str, defined: _Defined) -> None:
        later = {o for n in nodes for o in n.outputs if o}
        names: set[str] = set()
        for index, node in enumerate(nodes):
            place = _place(where, index, node)
            if node.name:
                if node.name in names:
                    self.report(place, "node", f"node name {node.name!r} is used twice")
                names.add(node.name)
            for name in node.inputs:
                if name and name not in defined.names and not scope.has(name):
                    if name in later:
                        self.report(
                            place,
                            "topological-order",
                            f"input {name!r} is produced by a later node",
                        )
                    else:
                        self.report(place, "scope", f"input {name!r} is not defined in scope")
            self.node(node, place, scope, defined)
            for name in node.outputs:
                if name:
                    self._define(name, place, scope, defined, is_node_output=True)

    def node(self, node: Node, place: str, scope: _Scope, defined: _Defined) -> None:
        self._node_shape(node, place)
        self._attributes_generic(node, place, scope, defined)
        if not node.op_type:
            return
        domain = node.domain
        if domain not in scope.opsets:
            self.report(
                place, "opset-import", f"domain {_domain_label(domain)!r} has no opset_import"
            )
            return
        function = self.functions.get((domain, node.op_type))
        if function is not None:
            self._function_call(node, place, function)
            return
        info = self._op_info(node, place, scope.opsets[domain])
        if info is None:
            return
        self._arity(info, node, place)
        self._attributes(info, node, place)
        self._types(info, node, place, scope, defined)

    def _node_shape(self, node: Node, place: str) -> None:
        if not node.op_type:
            self.report(place, "node", "a node must have an op_type")
        if not node.inputs and not node.outputs:
            self.report(place, "node", "a node must have at least one input or output")
        if node.overload:
            self.need_ir(FEATURE_IR["overload"], "the overload field")
        self._note_metadata(node.metadata, "metadata_props on nodes")

    def _op_info(self, node: Node, place: str, opset: int) -> OpInfo | None:
        """The spec of a standard operator (None for custom domains and after a problem)."""
        domain = node.domain
        if not is_standard_domain(domain):
            return None  # a custom domain: nothing is known about its operators
        since = resolve_since_version(domain, node.op_type, opset)
        if since is None:
            self.report(
                place,
                "operator",
                f"operator {node.op_type!r} does not exist in {_domain_label(domain)} "
                f"at opset {opset}",
            )
            return None
        try:
            info = op_info(domain, node.op_type, since)
        except OnnxcraftError as exc:
            self.report(place, "operator", str(exc))
            return None
        if info.spec is not None and info.spec.deprecated:
            self.report(
                place,
                "operator",
                f"{node.op_type} is deprecated at {_domain_label(domain)} opset {opset}",
            )
            return None
        return info

    def _function_call(self, node: Node, place: str, function: Function) -> None:
        if len(node.inputs) > len(function.inputs):
            self.report(
                place,
                "arity",
                f"has {len(node.inputs)} inputs, function {node.op_type} takes "
                f"{len(function.inputs)}",
            )
        if len(node.outputs) > len(function.outputs):
            self.report(
                place,
                "arity",
                f"has {len(node.outputs)} outputs, function {node.op_type} has "
                f"{len(function.outputs)}",
            )
        known = set(function.attributes) | {a.name for a in function.attribute_defaults}
        for attr in node.attributes:
            if attr.name and attr.name not in known:
                self.report(
                    place,
                    "attribute",
                    f"unknown attribute {attr.name!r} for function {node.op_type} "
                    f"(known: {', '.join(sorted(known)) or 'none'})",
                )

    # -- attributes -------------------------------------------------------------------------------

    def _attributes_generic(self, node: Node, place: str, scope: _Scope, defined: _Defined) -> None:
        """Rules for every node's attributes, whatever the operator."""
        seen: set[str] = set()
        for attr in node.attributes:
            if not attr.name:
                self.report(place, "attribute", "an attribute has no name")
            elif attr.name in seen:
                self.report(place, "attribute", f"attribute {attr.name!r} is given twice")
            seen.add(attr.name)
            if attr.ref:
                self._reference(attr, place, scope)
                continue
            if attr.type == "UNDEFINED":
                self.report(place, "attribute", f"attribute {attr.name!r} has no type or value")
            self._attribute_value(attr, place, scope.inner(defined))

    def _reference(self, attr: Attribute, place: str, scope: _Scope) -> None:
        if scope.function_attrs is None:
            self.report(
                place,
                "attribute",
                f"attribute {attr.name!r} refers to {attr.ref!r} (ref_attr_name), which only "
                f"a function body may do",
            )
        elif attr.ref not in scope.function_attrs:
            self.report(
                place,
                "attribute",
                f"attribute {attr.name!r} refers to {attr.ref!r}, which is not an attribute "
                f"of the enclosing function",
            )

    def _attribute_value(self, attr: Attribute, place: str, inner: _Scope) -> None:
        value = attr.value
        if value is None:
            return
        where = f"{place} attribute {attr.name!r}"
        if attr.type == "GRAPH":
            self.graph(value, inner, where)
        elif attr.type == "GRAPHS":
            for i, graph in enumerate(value):
                self.graph(graph, inner, f"{where}[{i}]")
        elif attr.type == "TENSOR":
            self._tensor(where, value.elem_type)
        elif attr.type == "TENSORS":
            for tensor in value:
                self._tensor(where, tensor.elem_type)
        elif attr.type in ("TYPE_PROTO", "TYPE_PROTOS"):
            for item in value if attr.type == "TYPE_PROTOS" else [value]:
                self._note_type(item, where)

    def _attributes(self, info: OpInfo, node: Node, place: str) -> None:
        """Attribute rules of the operator's spec: known names, types, required ones."""
        given = set()
        for attr in node.attributes:
            given.add(attr.name)
            spec = info.attributes.get(attr.name)
            if spec is None:
                known = ", ".join(sorted(info.attributes)) or "none"
                self.report(
                    place,
                    "attribute",
                    f"unknown attribute {attr.name!r} for {info.op_type}-{info.since_version} "
                    f"(known: {known})",
                )
            elif attr.type not in (spec.type, "UNDEFINED"):
                self.report(
                    place,
                    "attribute",
                    f"attribute {attr.name!r} has type {attr.type}, expected {spec.type}",
                )
        for name, spec in info.attributes.items():
            if spec.required and name not in given:
                self.report(place, "attribute", f"required attribute {name!r} is missing")

    # -- arity ------------------------------------------------------------------------------------

    def _arity(self, info: OpInfo, node: Node, place: str) -> None:
        label = f"{info.op_type}-{info.since_version}"
        self._arity_side(label, info.inputs, node.inputs, place, "input")
        self._arity_side(label, info.outputs, node.outputs, place, "output")

    def _arity_side(
        self,
        label: str,
        formals: tuple[FormalInfo, ...],
        actual: list[str],
        place: str,
        kind: str,
    ) -> None:
        """IR.md: trailing optional entries may be left out or empty; required ones may not."""
        variadic = bool(formals) and formals[-1].option == VARIADIC
        if not variadic and len(actual) > len(formals):
            self.report(
                place,
                "arity",
                f"has {len(actual)} {kind}s, {label} has at most {len(formals)}",
            )
        for i, formal in enumerate(formals):
            if formal.option == SINGLE and (i >= len(actual) or not actual[i]):
                state = "missing" if i >= len(actual) else "empty"
                self.report(
                    place, "arity", f"required {kind} {formal.name!r} (position {i}) is {state}"
                )
            elif formal.option == VARIADIC:
                count = sum(1 for name in actual[i:] if name)
                if count < formal.min_arity:
                    self.report(
                        place,
                        "arity",
                        f"variadic {kind} {formal.name!r} has {count} values, {label} needs "
                        f"at least {formal.min_arity}",
                    )

    # -- types ------------------------------------------------------------------------------------

    def _types(
        self, info: OpInfo, node: Node, place: str, scope: _Scope, defined: _Defined
    ) -> None:
        """Known input and output types against the constraints, bound once per parameter."""
        bound: dict[str, tuple[str, str]] = {}  # parameter -> (type string, which value)
        sides = (("input", info.inputs, node.inputs), ("output", info.outputs, node.outputs))
        for kind, formals, names in sides:
            for i, name in enumerate(names):
                if not name or not formals:
                    continue
                formal = formals[min(i, len(formals) - 1)]
                actual = defined.types[name] if name in defined.types else scope.type_of(name)
                if actual is None or not formal.allowed:
                    continue
                if not any(matches(actual, allowed) for allowed in formal.allowed):
                    allowed = ", ".join(type_to_string(t) for t in formal.allowed)
                    self.report(
                        place,
                        "type-constraint",
                        f"{kind} {formal.name!r} ({name!r}) has type {type_to_string(actual)}, "
                        f"allowed: {{{allowed}}}",
                    )
                    continue
                self._bind(formal, actual, f"{kind} {formal.name!r} ({name!r})", bound, place)

    def _bind(
        self,
        formal: FormalInfo,
        actual: ValueType,
        label: str,
        bound: dict[str, tuple[str, str]],
        place: str,
    ) -> None:
        if formal.constraint is None or not formal.homogeneous:
            return
        text = type_to_string(actual)
        if "?" in text:
            return
        first = bound.setdefault(formal.constraint, (text, label))
        if first[0] != text:
            self.report(
                place,
                "type-constraint",
                f"type parameter {formal.constraint} is bound to {first[0]} by {first[1]} "
                f"but {label} has {text}",
            )


def _incomplete(value: ValueType | None) -> str:
    """What a main-graph input/output type lacks ("" when complete)."""
    if value is None:
        return "a type"
    if isinstance(value, (Tensor, SparseTensor)):
        if value.elem_type is None:
            return "an element type"
        return "a shape (at least its rank)" if value.shape is None else ""
    if isinstance(value, (Sequence, Optional)):
        return "an element type" if value.elem is None else ""
    return "a value type" if value.value is None else ""


class _FunctionChecker:
    """The rules of model-local functions (IR.md "Functions", onnx.proto ModelProto.functions)."""

    def __init__(self, checker: _Checker) -> None:
        self.checker = checker
        self.model = checker.model

    def run(self) -> None:
        functions = self.model.functions
        if functions:
            self.checker.need_ir(FEATURE_IR["functions"], "model-local functions")
        seen: set[tuple[str, str, str]] = set()
        for function in functions:
            where = f"function {function.domain}::{function.name}"
            if function.key in seen:
                self.checker.report(where, "function", "is defined more than once")
            seen.add(function.key)
            self.function(function, where)
        self._cycles()

    def function(self, function: Function, where: str) -> None:
        report = self.checker.report
        if not function.name:
            report(where, "function", "a function must have a name")
        self.checker._check_opsets(function.opset_imports, where)
        self._signature(function, where)
        self._compatible_opsets(function, where)
        if function.attribute_defaults:
            self.checker.need_ir(FEATURE_IR["function_attribute_defaults"], "function defaults")
        if function.value_info:
            self.checker.need_ir(FEATURE_IR["metadata"], "value_info in functions")
        if function.overload:
            self.checker.need_ir(FEATURE_IR["overload"], "the overload field")
        self.checker._note_metadata(function.metadata, "metadata_props on functions")
        attrs = frozenset(function.attributes) | {a.name for a in function.attribute_defaults}
        scope = _Scope((), dict(function.opset_imports), attrs)
        defined = _Defined(set(function.inputs))
        self.checker._nodes(function.nodes, scope, where, defined)
        for name in function.outputs:
            if name not in defined.names:
                report(where, "function", f"output {name!r} is not produced by the body")

    def _signature(self, function: Function, where: str) -> None:
        defaults = [a.name for a in function.attribute_defaults]
        for what, names in (
            ("input", function.inputs),
            ("output", function.outputs),
            ("attribute", [*function.attributes, *defaults]),
        ):
            for name in _duplicates(names):
                self.checker.report(where, "function", f"{what} {name!r} is listed twice")

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
                self.checker.report(
                    where,
                    "opset-import",
                    f"imports {_domain_label(node.domain)} opset {mine}, the model {theirs}, "
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
                self.checker.report(
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
