"""``build``: from output Vars to a serialized, typed ModelProto.

Only nodes reachable from the outputs are kept, in topological order; every value gets a
unique, deterministic, readable name; identical constant arrays are stored once; opset imports
come from the operators used and the IR version is the lowest that supports them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from onnxcraft.core.attributes import infer_attribute_type
from onnxcraft.core.function_ref import AttrRef
from onnxcraft.core.graphwalk import Collected, collect, ir_nodes
from onnxcraft.core.opinfo import OPTIONAL, OpInfo, op_info
from onnxcraft.core.types import Map, SparseTensor, Tensor, ValueType
from onnxcraft.core.types import Optional as OptionalType
from onnxcraft.core.types import Sequence as SequenceType
from onnxcraft.core.typestr import matches
from onnxcraft.core.var import ARG, Body, OpCall, Var
from onnxcraft.core.versions import (
    FEATURE_IR,
    LATEST_IR_VERSION,
    min_ir_for_elem_type,
    min_ir_for_opsets,
)
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.errors import BuildError
from onnxcraft.ir import Attribute, Function, Graph, Model, Node, TensorData, ValueInfo
from onnxcraft.version import __version__

__all__ = ["build", "build_ir"]

_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]")


def build(
    inputs: Sequence[Var],
    outputs: Mapping[str, Var] | Sequence[Var] | Var,
    *,
    name: str = "main_graph",
    doc_string: str = "",
    opset: int | Mapping[str, int] | None = None,
    ir_version: int | None = None,
    metadata: Mapping[str, str] | None = None,
    producer_name: str = "onnxcraft",
    producer_version: str | None = None,
    model_version: int = 0,
    domain: str = "",
) -> Any:
    """Build a ModelProto computing ``outputs`` from ``inputs``.

    ``outputs`` maps graph output names to Vars (a list or a single Var uses the Vars' own
    names). ``opset`` overrides the ai.onnx opset (an int) or any domain's (a mapping).
    """
    model = build_ir(
        inputs,
        outputs,
        name=name,
        doc_string=doc_string,
        opset=opset,
        ir_version=ir_version,
        metadata=metadata,
        producer_name=producer_name,
        producer_version=producer_version,
        model_version=model_version,
        domain=domain,
    )
    # Lazy: protobuf is imported when a ModelProto is first made, not by `import onnxcraft`.
    from onnxcraft.proto.serde import model_to_proto

    return model_to_proto(model)


def build_ir(
    inputs: Sequence[Var],
    outputs: Mapping[str, Var] | Sequence[Var] | Var,
    *,
    name: str = "main_graph",
    doc_string: str = "",
    opset: int | Mapping[str, int] | None = None,
    ir_version: int | None = None,
    metadata: Mapping[str, str] | None = None,
    producer_name: str = "onnxcraft",
    producer_version: str | None = None,
    model_version: int = 0,
    domain: str = "",
) -> Model:
    """Like :func:`build`, returning an :class:`onnxcraft.ir.Model` instead of a ModelProto.

    The IR model holds the arrays given as constants by reference, not copied: saving it
    (``oc.save``) writes them straight from their memory, so a model with gigabytes of weights
    never needs a second copy of them. ``check``, ``infer_shapes``, ``evaluate``, ``inline``
    and ``save`` take it like a ModelProto; ``SerializeToString()`` gives its encoding.
    Arrays changed after the build are saved as they are then.
    """
    output_map = _output_map(outputs)
    input_list = _input_list(inputs)
    _check_options(name, metadata)
    builder = _ModelBuilder(input_list, output_map)
    graph = builder.top_graph(name, doc_string)
    opsets = builder.opsets(opset)
    functions = builder.functions()
    _merge_function_opsets(opsets, functions)
    opsets = dict(sorted(opsets.items()))
    required_ir = max(
        min_ir_for_opsets(opsets),
        builder.feature_ir,
        *(_function_feature_ir(f) for f in functions),
    )
    if ir_version is None:
        ir_version = required_ir
    elif ir_version < required_ir:
        raise BuildError(
            f"build: ir_version={ir_version} is too old for this model, which needs at least "
            f"{required_ir} (for its opsets {opsets} and the features it uses)"
        )
    elif ir_version > LATEST_IR_VERSION:
        raise BuildError(
            f"build: ir_version={ir_version} is newer than the latest ({LATEST_IR_VERSION})"
        )
    if producer_version is None:
        producer_version = __version__
    return Model(
        graph=graph,
        opset_imports=opsets,
        ir_version=ir_version,
        producer_name=producer_name,
        producer_version=producer_version,
        domain=domain,
        model_version=model_version,
        doc_string=doc_string,
        metadata=dict(metadata or {}),
        functions=functions,
    )


def _check_options(name: str, metadata: Mapping[str, str] | None) -> None:
    if not isinstance(name, str) or not name:
        raise BuildError(
            f"build: name must be a non-empty str (IR.md: every graph has a name), got {name!r}"
        )
    for key, value in (metadata or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise BuildError(
                f"build: metadata maps str to str, got {key!r}: {value!r} "
                f"({type(key).__name__}: {type(value).__name__})"
            )


def _merge_function_opsets(opsets: dict[str, int], functions: list[Function]) -> None:
    """The model imports every domain its functions use, at one version per domain."""
    # Lazy: the spec registry is imported on first use, not by `import onnxcraft`.
    from onnxcraft.specs import resolve_since_version

    for function in functions:
        for domain, version in function.opset_imports.items():
            model_version = opsets.setdefault(domain, version)
            if model_version == version:
                continue
            for node in function.nodes:
                if node.domain != domain:
                    continue
                at_function = resolve_since_version(domain, node.op_type, version)
                at_model = resolve_since_version(domain, node.op_type, model_version)
                if at_function != at_model:
                    raise BuildError(
                        f"build: function {function.name!r} uses {node.op_type} version "
                        f"{at_function} ({domain or 'ai.onnx'} opset {version}) but the model's "
                        f"opset {model_version} has version {at_model}; build the function and "
                        f"the model from the same opset module"
                    )
            function.opset_imports[domain] = model_version


def _function_feature_ir(function: Function) -> int:
    """The IR version a FunctionProto's own features need (onnx.proto's Version enum).

    Functions carried over by inline may have attribute defaults, value_info or overloads;
    constants in any function body may be of recent element types.
    """
    needed = FEATURE_IR["functions"]
    if function.attribute_defaults:
        needed = max(needed, FEATURE_IR["function_attribute_defaults"])
    if function.value_info or function.overload or function.metadata:
        needed = max(needed, FEATURE_IR["metadata"])
    for node in ir_nodes(function.nodes):
        if node.overload or node.metadata:
            needed = max(needed, FEATURE_IR["metadata"])
        for attr in node.attributes:
            tensors = [attr.value] if attr.type == "TENSOR" else []
            tensors += list(attr.value or []) if attr.type == "TENSORS" else []
            for tensor in tensors:
                needed = max(needed, min_ir_for_elem_type(tensor.elem_type))
    return needed


def _output_map(outputs: Mapping[str, Var] | Sequence[Var] | Var) -> dict[str, Var]:
    if isinstance(outputs, Var):
        outputs = [outputs]
    if isinstance(outputs, Mapping):
        result = dict(outputs)
    else:
        result = {}
        for i, var in enumerate(outputs):
            if not isinstance(var, Var):
                raise BuildError(f"build: output {i} must be a Var, got {type(var).__name__}")
            if var.name is None:
                raise BuildError(
                    f"build: output {i} has no name; pass outputs as a dict {{name: var}} "
                    f"or name it with var.named(...)"
                )
            result[var.name] = var
    if not result:
        raise BuildError("build: a model needs at least one output")
    for key, var in result.items():
        if not isinstance(key, str) or not key:
            raise BuildError(f"build: output names must be non-empty strings, got {key!r}")
        if not isinstance(var, Var):
            raise BuildError(f"build: output {key!r} must be a Var, got {type(var).__name__}")
    return result


def _input_list(inputs: Sequence[Var]) -> list[Var]:
    if isinstance(inputs, Var):
        inputs = [inputs]
    result = list(inputs)
    for i, var in enumerate(result):
        if not isinstance(var, Var) or var.kind != ARG or var.scope != 0:
            raise BuildError(
                f"build: input {i} must be a graph input made with oc.arg, got {var!r}"
            )
    seen: set[int] = set()
    for var in result:
        if id(var) in seen:
            raise BuildError(f"build: input {var.name!r} is listed twice")
        seen.add(id(var))
    return result


class _Namer:
    """Unique names across the whole model (subgraphs included), deterministic and readable."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.counters: dict[str, int] = {}

    def claim(self, name: str) -> bool:
        if name in self.used:
            return False
        self.used.add(name)
        return True

    def fresh(self, base: str) -> str:
        base = _IDENTIFIER.sub("_", base) or "v"
        if base[0].isdigit():
            base = "_" + base
        n = self.counters.get(base, 0)
        while True:
            candidate = f"{base}_{n}"
            n += 1
            if candidate not in self.used:
                self.counters[base] = n
                self.used.add(candidate)
                return candidate


class _ModelBuilder:
    def __init__(self, inputs: list[Var], outputs: dict[str, Var]) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.namer = _Namer()
        self.names: dict[int, str] = {}  # id(Var) -> name
        self.cache: dict[int, Collected] = {}
        self.used_ops: list[tuple[OpCall, OpInfo]] = []
        self.feature_ir = 3
        self.constants: dict[tuple[Any, ...], str] = {}  # content key -> initializer name
        self.large_constants: dict[tuple[Any, ...], list[np.ndarray]] = {}  # sample key -> arrays
        self.initializers: list[TensorData] = []
        self.function_defs: dict[tuple[str, str], Any] = {}
        self.used_outputs: set[int] = set()  # ids of node outputs something consumes
        self.output_named: set[int] = set()  # ids of Vars named after a graph output key
        self.constants_as_nodes = False  # function bodies have no initializers
        self.constant_nodes: list[Node] = []
        self.uses_constant_node = False
        self.seen_elems: set[ElementType] = set()
        self.identity_types: list[tuple[str, ValueType | None]] = []  # (output, copied type)

    # -- the top-level graph ----------------------------------------------------------------------

    def top_graph(self, name: str, doc_string: str) -> Graph:
        top = collect(list(self.outputs.values()), 0, self.cache)
        self._check_leaks(top)
        self._reserve_explicit_names(top)
        self._mark_used(top, list(self.outputs.values()))
        self._assign_output_names()
        graph = Graph(name=name, doc_string=doc_string)
        for v in self.inputs:
            _require_complete_type("input", self.names[id(v)], v)
        graph.inputs = [ValueInfo(self.names[id(v)], v.type) for v in self.inputs]
        graph.nodes = self._emit_nodes(top)
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

        def walk(collected: Collected) -> None:
            found.extend(collected.constants)
            for node in collected.nodes:
                found.extend(node.outputs)
                for body in node.bodies():
                    inner = self.cache[id(body)]
                    found.extend(body.inputs)
                    walk(inner)

        walk(top)
        return found

    def _reserve_explicit_names(self, top: Collected) -> None:
        owners: dict[str, Var] = {}
        for var in self._all_vars(top):
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
            return self.namer.fresh("input" if var.kind == ARG else "const")
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

    def _mark_used(self, collected: Collected, outputs: list[Var]) -> None:
        for var in outputs:
            self.used_outputs.add(id(var))
        for node in collected.nodes:
            for operand in node.inputs:
                if operand is not None:
                    self.used_outputs.add(id(operand))
            for body in node.bodies():
                inner = self.cache[id(body)]
                self._mark_used(inner, body.outputs)
                for var in inner.captures:
                    self.used_outputs.add(id(var))

    # -- nodes ------------------------------------------------------------------------------------

    def _emit_nodes(self, collected: Collected) -> list[Node]:
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
        self.used_ops.append((node, op))
        inputs = ["" if v is None else self._input_name(v) for v in node.inputs]
        outputs: list[str] = []
        for var in node.outputs:
            formal = op.outputs[min(var.index, len(op.outputs) - 1)] if op.outputs else None
            unused = id(var) not in self.used_outputs and var.name is None
            if unused and formal is not None and formal.option == OPTIONAL:
                outputs.append("")
            else:
                outputs.append(self.name_of(var))
        while outputs and outputs[-1] == "":
            outputs.pop()
        node.name = node.name or self.namer.fresh(op.op_type)
        attributes = [self._emit_attribute(node, k, v) for k, v in node.attributes.items()]
        if op.function is not None:
            _register_function(self.function_defs, (op.domain, op.op_type), op.function)
        return Node(
            op.op_type, inputs, outputs, domain=op.domain, name=node.name, attributes=attributes
        )

    def _input_name(self, var: Var) -> str:
        if var.value is not None and var.producer is None and var.kind != ARG:
            return self._constant_name(var)
        return self.name_of(var)

    def _large_constant_key(self, array: np.ndarray, elem: ElementType) -> tuple[Any, ...]:
        """A key equal for large arrays of identical type, shape and bytes.

        Hashing every byte of gigabytes of weights would cost more than the rest of the build:
        a sample of the bytes tells distinct arrays apart, and arrays with the same sample are
        compared whole (which only identical weights ever need).
        """
        sample = (elem, array.shape, _sample_digest(array))
        seen = self.large_constants.setdefault(sample, [])
        for index, other in enumerate(seen):
            if _same_bits(other, array):
                return (*sample, index)
        seen.append(array)
        return (*sample, len(seen) - 1)

    def _constant_name(self, var: Var) -> str:
        if id(var) in self.names and var.name is None:
            return self.names[id(var)]
        array = var.value
        assert isinstance(array, np.ndarray) and var.elem_type is not None
        if var.name is not None:
            key: tuple[Any, ...] = ("named", id(var))
        elif array.dtype != object and array.nbytes > _SAMPLED_ABOVE:
            key = self._large_constant_key(array, var.elem_type)
        else:
            key = _content_key(array, var.elem_type)
        name = self.constants.get(key)
        if name is None:
            name = var.name or self.namer.fresh("const")
            self.constants[key] = name
            data = TensorData.from_array("", array, var.elem_type)
            if self.constants_as_nodes:
                self.constant_nodes.append(
                    Node(
                        "Constant",
                        [],
                        [name],
                        name=self.namer.fresh("Constant"),
                        attributes=[Attribute("value", "TENSOR", data)],
                    )
                )
                self.uses_constant_node = True
            else:
                data.name = name
                self.initializers.append(data)
                # IR 3 lists every initializer among the graph inputs; ours are not inputs.
                self.feature_ir = max(self.feature_ir, FEATURE_IR["initializer_not_input"])
            if var.elem_type not in self.seen_elems:
                self.seen_elems.add(var.elem_type)
                self.feature_ir = max(self.feature_ir, min_ir_for_elem_type(var.elem_type))
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
        graph.nodes = self._emit_nodes(inner)
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
                graph.nodes.append(self._identity(var, out_name))
            seen.add(id(var))
            graph.outputs.append(ValueInfo(out_name, var.type))
        graph.value_info = self._value_info(inner.nodes, {o.name for o in graph.outputs})
        return graph

    def _identity(self, var: Var, out_name: str) -> Node:
        """An Identity node copying ``var`` to ``out_name`` (its type decides the opset)."""
        self.identity_types.append((out_name, var.type))
        return Node(
            "Identity", [self._input_name(var)], [out_name], name=self.namer.fresh("Identity")
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
                graph.nodes.append(self._identity(var, key))
            _require_complete_type("output", key, var)
            self._note_type_features(var.type)
            result.append(ValueInfo(key, var.type))
        return result

    def _value_info(self, nodes: list[OpCall], exclude: set[str]) -> list[ValueInfo]:
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
        if isinstance(value, (Tensor, SparseTensor)):
            if value.elem_type is not None:
                self.feature_ir = max(self.feature_ir, min_ir_for_elem_type(value.elem_type))
        elif isinstance(value, OptionalType):
            self.feature_ir = max(self.feature_ir, FEATURE_IR["optional_type"])
            self._note_type_features(value.elem)
        elif isinstance(value, SequenceType):
            self._note_type_features(value.elem)
        elif isinstance(value, Map):
            self._note_type_features(value.value)

    # -- opsets and functions ---------------------------------------------------------------------

    def opsets(self, override: int | Mapping[str, int] | None) -> dict[str, int]:
        # Lazy: the spec registry is imported on first use, not by `import onnxcraft`.
        from onnxcraft.specs import resolve_since_version

        requested: dict[str, int] = {}
        for node, op in self.used_ops:
            domain = op.domain
            requested[domain] = max(requested.get(domain, 0), node.opset)
        if (self.uses_constant_node or not requested) and "" not in requested:
            requested[""] = 1  # IR.md: a model imports at least one opset
        if self.identity_types:
            # The copies take the lowest opset that carries their types, unless the nodes
            # already chose one (checked below, after any override).
            needed = max(_identity_opset(label, t) for label, t in self.identity_types)
            requested.setdefault("", needed)
        if isinstance(override, int):
            override = {"": override}
        for domain, version in (override or {}).items():
            requested["" if domain == "ai.onnx" else domain] = int(version)
        for node, op in self.used_ops:
            if op.custom or op.function is not None:
                continue
            chosen = requested[op.domain]
            in_force = resolve_since_version(op.domain, op.op_type, chosen)
            if in_force != op.since_version:
                raise BuildError(
                    f"build: node {node.name!r} ({op.op_type}) was built with version "
                    f"{op.since_version} (from an opset {node.opset} module), but at the model's "
                    f"{op.domain or 'ai.onnx'} opset {chosen} {op.op_type} is "
                    f"{'not available' if in_force is None else f'version {in_force}'}; build "
                    f"every node of one domain from opset modules that agree on its version"
                )
        if self.function_defs:
            self.feature_ir = max(self.feature_ir, FEATURE_IR["functions"])
        for label, value_type in self.identity_types:
            _check_identity_at(label, value_type, requested[""])
        return dict(sorted(requested.items()))

    def functions(self) -> list[Function]:
        """The FunctionProtos the model needs, those called by other functions included."""
        done: dict[tuple[str, str], Function] = {}
        every = dict(self.function_defs)  # what each key stands for, to catch clashes
        pending = dict(self.function_defs)
        while pending:
            key = min(pending)
            function, nested = pending.pop(key).to_ir()
            done[key] = function
            for nested_key, nested_def in nested.items():
                _register_function(every, nested_key, nested_def)
                if nested_key not in done:
                    pending[nested_key] = every[nested_key]
        return [done[k] for k in sorted(done)]


def _register_function(
    known: dict[tuple[str, str], Any], key: tuple[str, str], definition: Any
) -> None:
    """Record the definition of function ``key``; two different bodies of one key clash."""
    first = known.setdefault(key, definition)
    if first is definition:
        return
    if _definition_key(first, key) != _definition_key(definition, key):
        raise BuildError(
            f"build: two different functions are named {key[0]}::{key[1]} (from @oc.function "
            f"or inlined models; their bodies or the functions they call differ); a model "
            f"holds one function per domain and name: rename one"
        )


def _definition_key(
    definition: Any, key: tuple[str, str], visiting: frozenset[tuple[str, str]] = frozenset()
) -> tuple[Any, ...]:
    """The content of a function definition and of the functions it calls (computed once).

    The callees count: two models may carry the same body calling different helpers.
    """
    cached: tuple[Any, ...] | None = getattr(definition, "content_key", None)
    if cached is not None:
        return cached
    function, nested = definition.to_ir()
    inner = visiting | {key}
    callees = tuple(
        (k, ("recursive",) if k in inner else _definition_key(d, k, inner))
        for k, d in sorted(nested.items())
    )
    cached = (
        tuple(function.inputs),
        tuple(function.outputs),
        tuple(function.attributes),
        tuple(_ir_key(a) for a in function.attribute_defaults),
        tuple(_ir_key(n) for n in function.nodes),
        callees,
    )
    definition.content_key = cached
    return cached


def _identity_accepts(since: int, value_type: ValueType | None) -> bool:
    formal = op_info("", "Identity", since).inputs[0]
    return any(matches(value_type, allowed) for allowed in formal.allowed)


def _identity_opset(label: str, value_type: ValueType | None) -> int:
    """The lowest ai.onnx opset whose Identity can copy a value of ``value_type``."""
    # Lazy: the spec registry is imported on first use, not by `import onnxcraft`.
    from onnxcraft.specs import versions as spec_versions

    for since in spec_versions("Identity"):
        if _identity_accepts(since, value_type):
            return since
    raise BuildError(
        f"build: {label!r} needs a copy of a value of type {value_type}, and no Identity "
        f"version accepts that type; make the value itself the output (an input is an "
        f"output when the output has its name)"
    )


def _check_identity_at(label: str, value_type: ValueType | None, opset: int) -> None:
    # Lazy: the spec registry is imported on first use, not by `import onnxcraft`.
    from onnxcraft.specs import resolve_since_version

    since = resolve_since_version("", "Identity", opset)
    if since is None or not _identity_accepts(since, value_type):
        raise BuildError(
            f"build: {label!r} needs an Identity copying a value of type {value_type}, which "
            f"Identity at ai.onnx opset {opset} does not accept; use opset >= "
            f"{_identity_opset(label, value_type)}"
        )


_SAMPLED_ABOVE = 1 << 20  # bytes; larger constants are told apart by a sample of their values
_SAMPLE_WINDOWS = 64
_SAMPLE_WINDOW = 16  # values


def _bytes_of(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def _sample_digest(array: np.ndarray) -> bytes:
    """A digest of the values at both ends of ``array`` and of evenly spaced windows between.

    Only the sampled values are read (``flat`` indexing), whatever the array's layout.
    """
    size = array.size
    step = max(size // _SAMPLE_WINDOWS, 1)
    starts = np.arange(0, size, step)[:_SAMPLE_WINDOWS]
    picks = np.concatenate(
        [
            np.arange(min(size, 1024)),
            np.arange(max(size - 1024, 0), size),
            (starts[:, None] + np.arange(_SAMPLE_WINDOW)).reshape(-1).clip(0, size - 1),
        ]
    )
    return hashlib.blake2b(array.flat[picks].tobytes(), digest_size=20).digest()


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and bool(np.array_equal(_bytes_of(a), _bytes_of(b)))


def _content_key(array: np.ndarray, elem: ElementType) -> tuple[Any, ...]:
    """A key equal for arrays of identical type, shape and bytes."""
    if array.dtype == object:
        return (elem, array.shape, tuple(array.reshape(-1).tolist()))
    contiguous = np.ascontiguousarray(array)
    if contiguous.nbytes <= 64:
        return (elem, array.shape, contiguous.tobytes())
    digest = hashlib.blake2b(contiguous.data.cast("B"), digest_size=20).digest()
    return (elem, array.shape, digest)


def function_ir(
    definition: Any, body: Body | None = None
) -> tuple[Function, dict[tuple[str, str], Any]]:
    """The FunctionProto of an ``@oc.function`` and the functions its body calls.

    ``body`` defaults to the body traced at the function's first call.
    """
    if body is None:
        body = definition.body
    assert body is not None
    builder = _ModelBuilder([], {})
    builder.constants_as_nodes = True
    inner = collect(body.outputs, body.scope, builder.cache)
    if inner.captures:
        raise BuildError(
            f"function {definition.name}: its body uses {inner.captures[0]!r} from outside; a "
            f"function sees only its inputs (make the value an input)"
        )
    for var in body.inputs:
        name = var.name or builder.namer.fresh("input")
        builder.namer.claim(name)
        builder.names[id(var)] = name
    builder._mark_used(inner, body.outputs)
    nodes = builder._emit_nodes(inner)
    inner_nodes = {id(n) for n in inner.nodes}
    outputs: list[str] = []
    for var in body.outputs:
        if (
            var.producer is not None
            and id(var.producer) in inner_nodes
            and builder.name_of(var) not in outputs
        ):
            outputs.append(builder.name_of(var))
        else:
            name = builder.namer.fresh("output")
            nodes.append(builder._identity(var, name))
            outputs.append(name)
    opsets = builder.opsets(None)
    function = Function(
        domain=definition.domain,
        name=definition.name,
        inputs=[builder.names[id(v)] for v in body.inputs],
        outputs=outputs,
        nodes=nodes,
        attributes=list(definition.attribute_names),
        opset_imports=opsets,
    )
    return function, dict(builder.function_defs)


def function_body_key(definition: Any, body: Body) -> tuple[Any, ...]:
    """A value equal for two traced bodies exactly when they give the same FunctionProto."""
    function, _ = function_ir(definition, body)
    return (
        tuple(function.inputs),
        tuple(function.outputs),
        tuple(_ir_key(n) for n in function.nodes),
    )


def _ir_key(value: Any) -> Any:
    """A hashable, comparable rendering of an IR value (nodes, attributes, graphs, tensors)."""
    if isinstance(value, Node):
        attributes = tuple(_ir_key(a) for a in value.attributes)
        return (value.op_type, value.domain, tuple(value.inputs), tuple(value.outputs), attributes)
    if isinstance(value, Attribute):
        return (value.name, value.type, value.ref, _ir_key(value.value))
    if isinstance(value, Graph):
        infos = [*value.inputs, *value.outputs, *value.value_info]
        return (
            value.name,
            tuple((i.name, str(i.type)) for i in infos),
            tuple(_ir_key(n) for n in value.nodes),
            tuple(_ir_key(t) for t in value.initializers),
        )
    if isinstance(value, TensorData):
        array = value.array()
        return (value.name, value.elem_type, value.dims, _content_key(array, value.elem_type))
    if isinstance(value, (list, tuple)):
        return tuple(_ir_key(v) for v in value)
    return repr(value)


def _require_complete_type(role: str, name: str, var: Var) -> None:
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
