"""Python statements for graphs: the main graph, subgraph bodies and local functions.

One statement per node, in the model's order. A subgraph attribute becomes a nested Python
function defined just before the node that uses it (typed with ``oc.subgraph`` when the body
has inputs, so its inputs keep the model's types); a local function becomes an
``@oc.function`` at module level. Values are referred to by Python identifiers from one
allocator for the whole module, so that no body shadows a name it reads from outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from onnxcraft.core.opinfo import OpInfo, op_info
from onnxcraft.errors import CodeGenerationError
from onnxcraft.ir import Attribute, Function, Graph, Model, Node, TensorData
from onnxcraft.pycode.attributes import attribute_expr
from onnxcraft.pycode.calls import (
    assignment,
    check_arity,
    counted,
    has_graphs,
    is_default,
    keyword,
    trim_inputs,
    variadic_outputs,
)
from onnxcraft.pycode.identifiers import Identifiers, is_plain_identifier
from onnxcraft.pycode.layout import LINE_LENGTH, Expr, Group, call, flat, layout, shortened
from onnxcraft.pycode.modules import OpsetModules
from onnxcraft.pycode.values import Imports, string_text, type_expr
from onnxcraft.pycode.walk import bodies, declared_outputs, live_nodes, referenced_names
from onnxcraft.pycode.weights import Weights
from onnxcraft.specs import is_standard_domain, resolve_since_version
from onnxcraft.types import ValueType

__all__ = ["GraphWriter", "Scope"]

_INDENT = "    "


@dataclass
class Scope:
    """What a graph being written sees: ONNX value name -> Python expression."""

    env: dict[str, str]
    opsets: dict[str, int]
    function_attributes: dict[str, str] = field(default_factory=dict)  # ref name -> parameter


class GraphWriter:
    def __init__(
        self,
        model: Model,
        identifiers: Identifiers,
        modules: OpsetModules,
        imports: Imports,
        weights: Weights,
        keep_names: bool,
    ) -> None:
        self.model = model
        self.ids = identifiers
        self.modules = modules
        self.imports = imports
        self.weights = weights
        self.keep_names = keep_names
        self.functions = {(f.domain, f.name): f for f in model.functions}
        self.function_names: dict[tuple[str, str], str] = {}
        self.graph_outputs = {o.name for o in model.graph.outputs}  # named by build's outputs
        # The types the model declares for graph (and body) outputs, which the code states with
        # with_type(): inference from the node alone may know less (a shape read from data).
        self.declared: dict[str, ValueType] = {}
        declared_outputs(model.graph, self.declared)
        self.consumed: set[str] = referenced_names(model.graph)
        for function in model.functions:
            self.consumed.update(function.outputs)
            for node in function.nodes:
                self.consumed.update(node.inputs)
                for body in bodies(node):
                    self.consumed |= referenced_names(body)

    # -- tensors ----------------------------------------------------------------------------

    def tensor(self, tensor: TensorData, key_hint: str) -> Expr:
        key = self.ids.fresh(key_hint or "tensor", "tensor")
        return self.weights.expr(key, tensor.array(), tensor.elem_type, self.imports)

    # -- nodes ------------------------------------------------------------------------------

    def nodes(self, nodes: list[Node], scope: Scope, indent: str) -> list[str]:
        lines: list[str] = []
        for node in nodes:
            for line in self.node(node, scope, indent):
                if line or (lines and lines[-1]):  # one blank line between bodies, not two
                    lines.append(line)
        return lines

    def node(self, node: Node, scope: Scope, indent: str) -> list[str]:
        where = f"node {node.name or node.op_type!r} ({node.domain or 'ai.onnx'}::{node.op_type})"
        lines: list[str] = []
        args: list[Expr] = [self.read(name, scope, where) for name in trim_inputs(node.inputs)]
        keywords: list[Expr] = []
        key = (node.domain, node.op_type)
        info: OpInfo | None = None
        if key in self.functions:
            callee = self.function_name(self.functions[key])
            declared = self.functions[key]
            if len(node.inputs) != len(declared.inputs) or len(node.outputs) != len(
                declared.outputs
            ):
                raise CodeGenerationError(
                    f"to_python: {where}: it has {len(node.inputs)} inputs and "
                    f"{len(node.outputs)} outputs, its function {len(declared.inputs)} and "
                    f"{len(declared.outputs)}"
                )
        elif is_standard_domain(node.domain):
            version = scope.opsets.get(node.domain if node.domain != "ai.onnx" else "")
            if version is None:
                raise CodeGenerationError(
                    f"to_python: {where}: its domain is not among the opset imports"
                )
            since = resolve_since_version(node.domain, node.op_type, version)
            alias, module = self.modules.alias(node.domain, version, where)
            if since is None or not hasattr(module, node.op_type):
                raise CodeGenerationError(
                    f"to_python: {where}: {node.op_type} has no function in onnxcraft's "
                    f"{node.domain or 'ai.onnx'} opset {version} module"
                )
            info = op_info(node.domain, node.op_type, since)
            callee = f"{alias}.{node.op_type}"
            check_arity(node, info, where)
        else:
            callee = "oc.custom_op"
            args.insert(0, string_text(node.op_type))
        for attr in node.attributes:
            if info is not None and is_default(attr, info):
                continue  # the DSL writes a spec default as an absent attribute, its meaning
            value, body_lines = self.attribute(node, attr, info, scope, indent, where)
            lines.extend(body_lines)
            keywords.append(value)
        if info is None and key not in self.functions:
            keywords.insert(0, f"domain={string_text(node.domain)}")
            version = scope.opsets.get(node.domain, 1)
            if version != 1:
                keywords.insert(1, f"version={version}")
            if len(node.outputs) != 1:
                keywords.append(f"outputs={len(node.outputs)}")
        targets, tuple_result = self.targets(node, info, scope, where)
        if (
            info is not None
            and variadic_outputs(info)
            and not has_graphs(info)
            and not counted(node)
        ):
            keywords.append(f"outputs_count={len(node.outputs)}")
        expr = Group(f"{callee}(", (*args, *keywords), ")")
        named = self.names_to_keep(node, info)
        typed = {
            i: type_expr(self.declared[name], self.imports)
            for i, name in enumerate(node.outputs)
            if name in self.declared
        }
        lines.extend(assignment(targets, expr, tuple_result, named, typed, indent))
        return lines

    def attribute(
        self,
        node: Node,
        attr: Attribute,
        info: OpInfo | None,
        scope: Scope,
        indent: str,
        where: str,
    ) -> tuple[Expr, list[str]]:
        """The keyword argument for ``attr`` and the lines that must come first (bodies)."""
        if not is_plain_identifier(attr.name):
            raise CodeGenerationError(
                f"to_python: {where}: attribute name {attr.name!r} is not a Python identifier"
            )
        if info is not None:
            spec = info.attributes.get(attr.name)
            if spec is None:
                raise CodeGenerationError(
                    f"to_python: {where}: attribute {attr.name!r} is not in the signature of "
                    f"{node.op_type} version {info.since_version}"
                )
            if spec.type != attr.type:
                raise CodeGenerationError(
                    f"to_python: {where}: attribute {attr.name!r} is {attr.type}, but "
                    f"{node.op_type} version {info.since_version} declares {spec.type}"
                )
        if attr.ref:
            parameter = scope.function_attributes.get(attr.ref)
            if parameter is None:
                raise CodeGenerationError(
                    f"to_python: {where}: attribute {attr.name!r} refers to {attr.ref!r}, "
                    f"which is not an attribute of the enclosing function"
                )
            return f"{attr.name}={parameter}", []
        if attr.type == "GRAPH":
            value, lines = self.body(attr.value, node, attr.name, scope, indent)
        elif attr.type == "GRAPHS":
            bodies: list[Expr] = []
            lines = []
            for graph in attr.value:
                passed, body_lines = self.body(graph, node, attr.name, scope, indent)
                bodies.append(passed)
                lines.extend(body_lines)
            value = Group("[", tuple(bodies), "]")
        else:
            lines = []
            value = attribute_expr(
                where, attr, self.imports, lambda t: self.tensor(t, f"{node.op_type}_{attr.name}")
            )
        return keyword(attr.name, value), lines

    def targets(
        self, node: Node, info: OpInfo | None, scope: Scope, where: str
    ) -> tuple[list[str], bool]:
        """The Python names the call's results are assigned to ("_" for an absent output),
        and whether the call returns a tuple to unpack."""
        outputs = list(node.outputs)
        if info is not None and not variadic_outputs(info):
            outputs += [""] * (len(info.outputs) - len(outputs))
            tuple_result = len(info.outputs) > 1
        elif info is not None:
            tuple_result = True
        elif (node.domain, node.op_type) in self.functions:
            tuple_result = len(outputs) > 1
        else:
            tuple_result = True  # custom_op returns a tuple
        targets = []
        for name in outputs:
            if not name:
                targets.append("_")
                continue
            if name in scope.env:
                raise CodeGenerationError(
                    f"to_python: {where}: its output {name!r} is already defined (the model "
                    f"is not in SSA form)"
                )
            identifier = self.ids.fresh(name)
            scope.env[name] = identifier
            targets.append(identifier)
        return targets, tuple_result

    def names_to_keep(self, node: Node, info: OpInfo | None) -> dict[int, str]:
        """Output positions to name with ``.named()``: every one with ``keep_names``, else the
        outputs nothing consumes (the DSL would leave an unnamed, unused optional output out
        of the node)."""
        result: dict[int, str] = {}
        for index, name in enumerate(node.outputs):
            if not name or name in self.graph_outputs:
                continue
            if self.keep_names or name not in self.consumed:
                result[index] = name
        return result

    def read(self, name: str, scope: Scope, where: str) -> str:
        if not name:
            return "None"
        expr = scope.env.get(name)
        if expr is None:
            raise CodeGenerationError(
                f"to_python: {where}: reads {name!r}, which is not defined before it"
            )
        return expr

    # -- graphs -----------------------------------------------------------------------------

    def body(
        self, graph: Graph, node: Node, attr_name: str, outer: Scope, indent: str
    ) -> tuple[Expr, list[str]]:
        """A nested function for a subgraph; returns what to pass and its definition lines."""
        function = self.ids.fresh(f"{node.op_type}_{attr_name}" if not graph.name else graph.name)
        scope = Scope(dict(outer.env), outer.opsets, outer.function_attributes)
        parameters = []
        for info in graph.inputs:
            identifier = self.ids.fresh(info.name or "arg")
            scope.env[info.name] = identifier
            parameters.append(identifier)
        owner = (
            f"{node.op_type} node {node.name!r}"
            if node.name
            else f"{_article(node.op_type)} {node.op_type} node"
        )
        comment = f"# subgraph {string_text(graph.name)}: {attr_name} of {owner}"
        lines = ["", indent + shortened(comment, LINE_LENGTH - len(indent))]
        lines.extend(layout(Group(f"def {function}(", tuple(parameters), "):"), indent))
        inner = indent + _INDENT
        lines.extend(self.initializers(graph, scope, inner))
        live = live_nodes(graph)
        if len(live) < len(graph.nodes):
            lines.append(
                f"{inner}# ({len(graph.nodes) - len(live)} node(s) no output of this body needs "
                f"are left out)"
            )
        lines.extend(self.nodes(live, scope, inner))
        results = tuple(self.read(o.name, scope, f"subgraph {graph.name!r}") for o in graph.outputs)
        lines.extend(layout(Group("[", results, "]"), inner, prefix="return "))
        lines.append("")
        if not graph.inputs:
            return function, lines
        types = tuple(type_expr(i.type, self.imports) for i in graph.inputs)
        return call("oc.subgraph", function, Group("[", types, "]")), lines

    def initializers(self, graph: Graph, scope: Scope, indent: str) -> list[str]:
        lines: list[str] = []
        for tensor in graph.initializers:
            identifier = self.ids.fresh(tensor.name, "w")
            scope.env[tensor.name] = identifier
            value = self.weights.expr(identifier, tensor.array(), tensor.elem_type, self.imports)
            expr = call("oc.initializer", value)
            suffix = f".named({string_text(tensor.name)})"
            lines.extend(layout(expr, indent, prefix=f"{identifier} = ", suffix=suffix))
        return lines

    # -- functions ---------------------------------------------------------------------------

    def function_name(self, function: Function) -> str:
        key = (function.domain, function.name)
        if key not in self.function_names:
            self.function_names[key] = self.ids.fresh(function.name, "function")
        return self.function_names[key]

    def function(self, function: Function) -> list[str]:
        where = f"function {function.domain}::{function.name}"
        name = self.function_name(function)
        scope = Scope({}, dict(function.opset_imports))
        parameters = []
        for input_name in function.inputs:
            if not is_plain_identifier(input_name):
                raise CodeGenerationError(
                    f"to_python: {where}: input name {input_name!r} is not a Python identifier "
                    f"(the DSL names a function's inputs after its parameters)"
                )
            self.ids.reserve(input_name)
            scope.env[input_name] = input_name
            parameters.append(input_name)
        # An attribute with a default (IR 9) becomes a parameter with that default: each call
        # then carries the value, which means the same.
        defaults: dict[str, Expr] = {a: "None" for a in function.attributes}
        for attr in function.attribute_defaults:
            defaults[attr.name] = attribute_expr(
                where, attr, self.imports, lambda t: self.tensor(t, f"{function.name}_default")
            )
        if defaults:
            parameters.append("*")
        for attribute, default in defaults.items():
            if not is_plain_identifier(attribute):
                raise CodeGenerationError(
                    f"to_python: {where}: attribute name {attribute!r} is not a Python identifier"
                )
            self.ids.reserve(attribute)
            scope.function_attributes[attribute] = attribute
            parameters.append(f"{attribute}={flat(default)}")
        version = self.model.opset_imports.get(function.domain, 1)
        decorator = f"@oc.function({string_text(function.domain)}, {string_text(function.name)}"
        decorator += f", version={version})" if version != 1 else ")"
        lines = [decorator, *layout(Group(f"def {name}(", tuple(parameters), "):"), "")]
        lines.extend(self.nodes(function.nodes, scope, _INDENT))
        results = [self.read(o, scope, where) for o in function.outputs]
        if len(results) == 1:
            lines.append(f"{_INDENT}return {results[0]}")
        else:
            lines.extend(layout(Group("[", tuple(results), "]"), _INDENT, prefix="return "))
        return lines


def _article(word: str) -> str:
    """ "an" before a vowel (an If node), else "a" (a Loop node)."""
    return "an" if word[:1].lower() in "aeiou" else "a"
