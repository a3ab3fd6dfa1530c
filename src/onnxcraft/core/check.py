"""``oc.check``: validate a model against the ONNX IR rules and the operator specs.

Every problem found is collected (not just the first) and reported in one ValidationError,
each naming where it is (graph, node name or index, function) and the rule broken.
"""

from __future__ import annotations

from typing import Any

from onnxcraft import ir
from onnxcraft.core.opinfo import OPTIONAL, VARIADIC, OpInfo, op_info
from onnxcraft.core.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType
from onnxcraft.core.typestr import matches, type_to_string
from onnxcraft.core.versions import (
    FEATURE_IR,
    LATEST_IR_VERSION,
    min_ir_for_elem_type,
    min_ir_for_opsets,
)
from onnxcraft.errors import OnnxcraftError, ValidationError

__all__ = ["check", "check_ir"]

# The attribute value kinds, as the Python types the IR stores them in.
_ATTR_KINDS = {
    "FLOAT": "FLOAT",
    "INT": "INT",
    "STRING": "STRING",
    "TENSOR": "TENSOR",
    "GRAPH": "GRAPH",
    "SPARSE_TENSOR": "SPARSE_TENSOR",
    "TYPE_PROTO": "TYPE_PROTO",
    "FLOATS": "FLOATS",
    "INTS": "INTS",
    "STRINGS": "STRINGS",
    "TENSORS": "TENSORS",
    "GRAPHS": "GRAPHS",
    "SPARSE_TENSORS": "SPARSE_TENSORS",
    "TYPE_PROTOS": "TYPE_PROTOS",
}


def check(model: Any) -> None:
    """Raise ValidationError listing every problem of ``model`` (any ModelProto)."""
    from onnxcraft.proto.serde import model_from_proto

    problems = check_ir(model_from_proto(model))
    if problems:
        raise ValidationError(problems)


def check_ir(model: ir.Model) -> list[str]:
    checker = _Checker(model)
    checker.run()
    return checker.problems


class _Checker:
    def __init__(self, model: ir.Model) -> None:
        self.model = model
        self.problems: list[str] = []
        self.functions = {(f.domain, f.name): f for f in model.functions}
        self.needed_ir = 3
        self.used_domains: set[str] = set()

    def report(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def run(self) -> None:
        model = self.model
        if model.ir_version < 3:
            self.report("model", f"ir_version {model.ir_version} is missing or too old (need >= 3)")
        elif model.ir_version > LATEST_IR_VERSION:
            self.report(
                "model",
                f"ir_version {model.ir_version} is newer than the latest ({LATEST_IR_VERSION})",
            )
        self._check_opsets(model.opset_imports, "model")
        self.graph(model.graph, set(), model.opset_imports, "graph", top=True)
        for function in model.functions:
            self.function(function)
        if model.functions:
            self.needed_ir = max(self.needed_ir, FEATURE_IR["functions"])
        for domain in sorted(self.used_domains):
            if domain not in model.opset_imports and not any(
                f.domain == domain for f in model.functions
            ):
                self.report(
                    "model", f"domain {domain or 'ai.onnx'!r} is used but has no opset_import"
                )
        needed = max(self.needed_ir, min_ir_for_opsets(model.opset_imports))
        if 3 <= model.ir_version < needed:
            self.report(
                "model",
                f"ir_version {model.ir_version} is too old for what the model uses "
                f"(opsets {model.opset_imports} and features need >= {needed})",
            )

    def _check_opsets(self, opsets: dict[str, int], where: str) -> None:
        from onnxcraft import specs

        for domain, version in opsets.items():
            if version < 1:
                self.report(where, f"opset_import of {domain or 'ai.onnx'!r} has version {version}")
                continue
            top = specs.max_opset(domain) if specs.is_standard_domain(domain) else None
            if top is not None and version > top:
                self.report(
                    where,
                    f"opset_import {domain or 'ai.onnx'!r} version {version} is "
                    f"newer than the latest known ({top})",
                )

    # -- graphs -----------------------------------------------------------------------------------

    def graph(
        self,
        graph: ir.Graph,
        outer: set[str],
        opsets: dict[str, int],
        where: str,
        top: bool = False,
    ) -> None:
        defined: set[str] = set()
        types: dict[str, ValueType | None] = {}

        def define(name: str, place: str, value_type: ValueType | None = None) -> None:
            if not name:
                self.report(place, "a value has an empty name")
                return
            if name in defined:
                self.report(place, f"value {name!r} is defined more than once (graphs are SSA)")
            elif name in outer:
                self.report(place, f"value {name!r} shadows a value of an enclosing graph")
            defined.add(name)
            if value_type is not None:
                types[name] = value_type

        initializer_names = {t.name for t in graph.initializers}
        for info in graph.inputs:
            if info.name not in initializer_names:
                define(info.name, f"{where} input {info.name!r}", info.type)
            else:
                types[info.name] = info.type
            if top and info.type is None:
                self.report(f"{where} input {info.name!r}", "a graph input must have a type")
            self._note_type(info.type)
        for tensor in graph.initializers:
            define(
                tensor.name,
                f"{where} initializer {tensor.name!r}",
                Tensor(tensor.elem_type, tensor.dims),
            )
            self.needed_ir = max(self.needed_ir, min_ir_for_elem_type(tensor.elem_type))
        for sparse in graph.sparse_initializers:
            define(sparse.values.name, f"{where} sparse initializer", None)
            self.needed_ir = max(self.needed_ir, FEATURE_IR["sparse_initializer"])
        for info in graph.value_info:
            types.setdefault(info.name, info.type)
            self._note_type(info.type)
        produced_later = {o for n in graph.nodes for o in n.outputs if o}
        for index, node in enumerate(graph.nodes):
            place = (
                f"{where} node {index} ({node.name!r}, {node.op_type})"
                if node.name
                else f"{where} node {index} ({node.op_type})"
            )
            for name in node.inputs:
                if name and name not in defined and name not in outer:
                    if name in produced_later:
                        self.report(
                            place,
                            f"input {name!r} is produced by a later node "
                            f"(nodes must be topologically sorted)",
                        )
                    else:
                        self.report(place, f"input {name!r} is not defined in this scope")
            self.node(node, place, defined | outer, opsets, types)
            for name in node.outputs:
                if name:
                    define(name, place)
        for info in graph.outputs:
            if info.name not in defined and info.name not in outer:
                self.report(
                    f"{where} output {info.name!r}",
                    "is not produced by any node, input or initializer",
                )
            if top and info.type is None:
                self.report(f"{where} output {info.name!r}", "a graph output must have a type")
            self._note_type(info.type)

    def _note_type(self, value: ValueType | None) -> None:
        if isinstance(value, (Tensor, SparseTensor)) and value.elem_type is not None:
            self.needed_ir = max(self.needed_ir, min_ir_for_elem_type(value.elem_type))
        elif isinstance(value, Optional):
            self.needed_ir = max(self.needed_ir, FEATURE_IR["optional_type"])
            self._note_type(value.elem)
        elif isinstance(value, Sequence):
            self._note_type(value.elem)
        elif isinstance(value, Map):
            self._note_type(value.value)

    # -- nodes ------------------------------------------------------------------------------------

    def node(
        self,
        node: ir.Node,
        place: str,
        visible: set[str],
        opsets: dict[str, int],
        types: dict[str, ValueType | None],
        function_attrs: set[str] | None = None,
    ) -> None:
        from onnxcraft import specs

        domain = node.domain
        self.used_domains.add(domain)
        for attr in node.attributes:
            if attr.ref and (function_attrs is None or attr.ref not in function_attrs):
                self.report(
                    place,
                    f"attribute {attr.name!r} refers to {attr.ref!r}, which is not "
                    f"an attribute of an enclosing function",
                )
            if attr.type == "GRAPH" and attr.value is not None:
                self.graph(attr.value, visible, opsets, f"{place} attribute {attr.name!r}")
            elif attr.type == "GRAPHS" and attr.value is not None:
                for i, g in enumerate(attr.value):
                    self.graph(g, visible, opsets, f"{place} attribute {attr.name!r}[{i}]")
        if (domain, node.op_type) in self.functions:
            return
        if domain not in opsets:
            self.report(place, f"domain {domain or 'ai.onnx'!r} has no opset_import")
            return
        if not specs.is_standard_domain(domain):
            return  # a custom domain: nothing is known about its operators
        opset = opsets[domain]
        since = specs.resolve_since_version(domain, node.op_type, opset)
        if since is None:
            self.report(
                place,
                f"operator {node.op_type!r} does not exist in "
                f"{domain or 'ai.onnx'} at opset {opset}",
            )
            return
        try:
            info = op_info(domain, node.op_type, since)
        except OnnxcraftError as exc:
            self.report(place, str(exc))
            return
        if info.spec is not None and info.spec.deprecated:
            self.report(
                place, f"{node.op_type} is deprecated at {domain or 'ai.onnx'} opset {opset}"
            )
        self._arity(info, node, place)
        self._attributes(info, node, place)
        self._input_types(info, node, place, types)

    def _arity(self, info: OpInfo, node: ir.Node, place: str) -> None:
        inputs = list(node.inputs)
        while inputs and inputs[-1] == "":
            inputs.pop()
        if info.max_inputs is not None and len(inputs) > info.max_inputs:
            self.report(
                place,
                f"has {len(inputs)} inputs, {info.op_type}-{info.since_version} "
                f"takes at most {info.max_inputs}",
            )
        if len(inputs) < info.min_inputs:
            self.report(
                place,
                f"has {len(inputs)} inputs, {info.op_type}-{info.since_version} "
                f"needs at least {info.min_inputs}",
            )
        for i, name in enumerate(inputs):
            formal = info.inputs[min(i, len(info.inputs) - 1)] if info.inputs else None
            if name == "" and formal is not None and formal.option not in (OPTIONAL,):
                self.report(place, f"required input {formal.name!r} (position {i}) is empty")
        outputs = list(node.outputs)
        limit = None if info.outputs and info.outputs[-1].option == VARIADIC else len(info.outputs)
        if limit is not None and len(outputs) > limit:
            self.report(
                place,
                f"has {len(outputs)} outputs, {info.op_type}-{info.since_version} "
                f"has at most {limit}",
            )
        required = sum(1 for f in info.outputs if f.option == "single")
        if len(outputs) < required:
            self.report(place, f"has {len(outputs)} outputs, {info.op_type} needs {required}")

    def _attributes(self, info: OpInfo, node: ir.Node, place: str) -> None:
        seen: set[str] = set()
        for attr in node.attributes:
            if attr.name in seen:
                self.report(place, f"attribute {attr.name!r} is given twice")
            seen.add(attr.name)
            spec = info.attributes.get(attr.name)
            if spec is None:
                known = ", ".join(sorted(info.attributes)) or "none"
                self.report(
                    place,
                    f"unknown attribute {attr.name!r} for "
                    f"{info.op_type}-{info.since_version} (known: {known})",
                )
                continue
            if attr.type != spec.type and _ATTR_KINDS.get(attr.type) != spec.type:
                self.report(
                    place, f"attribute {attr.name!r} has type {attr.type}, expected {spec.type}"
                )
        for name, spec in info.attributes.items():
            if spec.required and name not in seen:
                self.report(place, f"required attribute {name!r} is missing")

    def _input_types(
        self, info: OpInfo, node: ir.Node, place: str, types: dict[str, ValueType | None]
    ) -> None:
        bound: dict[str, str] = {}
        for i, name in enumerate(node.inputs):
            if not name or not info.inputs:
                continue
            formal = info.inputs[min(i, len(info.inputs) - 1)]
            actual = types.get(name)
            if actual is None or not formal.allowed:
                continue
            if not any(matches(actual, allowed) for allowed in formal.allowed):
                allowed = ", ".join(type_to_string(t) for t in formal.allowed)
                self.report(
                    place,
                    f"input {formal.name!r} ({name!r}) has type "
                    f"{type_to_string(actual)}, allowed: {{{allowed}}}",
                )
                continue
            if formal.constraint is not None and formal.homogeneous:
                text = type_to_string(actual)
                if "?" in text:
                    continue
                other = bound.setdefault(formal.constraint, text)
                if other != text:
                    self.report(
                        place,
                        f"inputs bound to type parameter {formal.constraint} "
                        f"differ: {other} vs {text}",
                    )

    # -- functions --------------------------------------------------------------------------------

    def function(self, function: ir.Function) -> None:
        where = f"function {function.domain}::{function.name}"
        opsets = dict(self.model.opset_imports)
        opsets.update(function.opset_imports)
        self._check_opsets(function.opset_imports, where)
        for domain, version in function.opset_imports.items():
            model_version = self.model.opset_imports.get(domain)
            if model_version is not None and model_version != version and domain == "":
                self.report(
                    where, f"imports ai.onnx opset {version} but the model imports {model_version}"
                )
        defined: set[str] = set()
        for name in function.inputs:
            if name in defined:
                self.report(where, f"input {name!r} is listed twice")
            defined.add(name)
        attrs = set(function.attributes) | {a.name for a in function.attribute_defaults}
        types: dict[str, ValueType | None] = {}
        for index, node in enumerate(function.nodes):
            place = f"{where} node {index} ({node.op_type})"
            for name in node.inputs:
                if name and name not in defined:
                    self.report(place, f"input {name!r} is not defined in the function")
            self.node(node, place, set(defined), opsets, types, attrs)
            for name in node.outputs:
                if name:
                    if name in defined:
                        self.report(place, f"value {name!r} is defined more than once")
                    defined.add(name)
        for name in function.outputs:
            if name not in defined:
                self.report(where, f"output {name!r} is not produced by the body")
