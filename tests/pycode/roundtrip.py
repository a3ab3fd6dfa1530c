"""The round trip of ``oc.to_python``: run the generated module, compare the two models.

``differences(original, rebuilt)`` lists every way the rebuilt model departs from the original
in what the round trip promises: the opset imports, IR version and model fields; the main
graph's name, input and output names and types, initializers (by name, bit for bit); the node
sequence of every graph and function (operator, domain, attributes — tensors bit for bit,
subgraphs recursively — and the dataflow between nodes, matched by position since names of
unnamed intermediates may differ); the input and output types of subgraphs; the local
functions. An empty list is an exact round trip.

One normalization: an attribute holding its operator's default is the same as the attribute
left out (the standard defines an absent attribute to mean its default), and the DSL writes it
so: a generated function cannot tell an explicit ``keepdims=1`` from the default it passes.
Two more of the same kind: an empty name among a node's last inputs is the input left out
(IR.md), and the DSL leaves it out; and a value's type may be more precise than the model
declares (inference fills in what the model left unknown: a dim, a shape, an element type),
but never contradict it. ``normalized`` counts how often each was needed.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.core.opinfo import op_info
from onnxcraft.io import model_ir
from onnxcraft.ir import Attribute, Function, Graph, Model, Node, TensorData
from onnxcraft.specs import is_standard_domain, resolve_since_version
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor

normalized = {"explicit default": 0, "trailing empty input": 0, "more precise type": 0}


def run_module(source: str, path: Path) -> Any:
    """Write ``source`` to ``path``, execute it as a module and return its build_model()."""
    path.write_text(source, encoding="utf-8")
    namespace: dict[str, Any] = {"__file__": str(path), "__name__": "generated"}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace["build_model"]()


def rebuild(model: Any, folder: Path, **options: Any) -> tuple[str, Model]:
    source = oc.to_python(model, **options)
    return source, model_ir(run_module(source, folder / "generated.py"))


def differences(original: Any, rebuilt: Any) -> list[str]:
    a, b = model_ir(original), model_ir(rebuilt)
    found: list[str] = []
    for field in (
        "ir_version",
        "producer_name",
        "producer_version",
        "domain",
        "model_version",
        "doc_string",
        "metadata",
    ):
        if getattr(a, field) != getattr(b, field):
            found.append(f"model {field}: {getattr(a, field)!r} != {getattr(b, field)!r}")
    if _opsets(a.opset_imports) != _opsets(b.opset_imports):
        found.append(f"opset imports: {a.opset_imports} != {b.opset_imports}")
    ga, gb = a.graph, b.graph
    if ga.name != gb.name:
        found.append(f"graph name: {ga.name!r} != {gb.name!r}")
    if ga.doc_string != gb.doc_string:
        found.append(f"graph doc_string: {ga.doc_string!r} != {gb.doc_string!r}")
    for role in ("inputs", "outputs"):
        left = [(v.name, str(v.type)) for v in getattr(ga, role)]
        right = [(v.name, str(v.type)) for v in getattr(gb, role)]
        names_a = [v.name for v in getattr(ga, role)]
        names_b = [v.name for v in getattr(gb, role)]
        if names_a != names_b or not _types_refine(
            [v.type for v in getattr(ga, role)], [v.type for v in getattr(gb, role)]
        ):
            found.append(f"graph {role}: {left} != {right}")
    tensors_a = {t.name: t for t in ga.initializers}
    tensors_b = {t.name: t for t in gb.initializers}
    if sorted(tensors_a) != sorted(tensors_b):
        found.append(f"initializers: {sorted(tensors_a)} != {sorted(tensors_b)}")
    for name in tensors_a.keys() & tensors_b.keys():
        found.extend(_tensor(f"initializer {name!r}", tensors_a[name], tensors_b[name]))
    if ga.sparse_initializers or gb.sparse_initializers:
        found.append("sparse initializers are not compared")
    mapping = {v.name: v.name for v in ga.inputs} | {n: n for n in tensors_a}
    found.extend(_nodes("graph", ga.nodes, gb.nodes, mapping, _opsets(a.opset_imports)))
    for v in ga.outputs:
        if mapping.get(v.name, v.name) != v.name:
            found.append(f"graph output {v.name!r} comes from {mapping[v.name]!r}")
    functions_a = {f.key: f for f in a.functions}
    functions_b = {f.key: f for f in b.functions}
    if sorted(functions_a) != sorted(functions_b):
        found.append(f"functions: {sorted(functions_a)} != {sorted(functions_b)}")
    for key in functions_a.keys() & functions_b.keys():
        found.extend(_function(functions_a[key], functions_b[key]))
    return found


def _opsets(opsets: dict[str, int]) -> dict[str, int]:
    return {("" if d == "ai.onnx" else d): v for d, v in opsets.items()}


def _function(a: Function, b: Function) -> list[str]:
    where = f"function {a.domain}::{a.name}"
    found = []
    if len(a.inputs) != len(b.inputs) or len(a.outputs) != len(b.outputs):
        found.append(
            f"{where}: arity {len(a.inputs)}->{len(a.outputs)} != {len(b.inputs)}->{len(b.outputs)}"
        )
    attrs_a = sorted([*a.attributes, *(x.name for x in a.attribute_defaults)])
    attrs_b = sorted([*b.attributes, *(x.name for x in b.attribute_defaults)])
    if attrs_a != attrs_b:
        found.append(f"{where}: attributes {attrs_a} != {attrs_b}")
    if a.attribute_defaults or b.attribute_defaults:
        defaults_a = {x.name: _plain(x) for x in a.attribute_defaults}
        defaults_b = {x.name: _plain(x) for x in b.attribute_defaults}
        if defaults_a != defaults_b:
            found.append(f"{where}: attribute defaults {defaults_a} != {defaults_b}")
    if _opsets(a.opset_imports) != _opsets(b.opset_imports):
        found.append(f"{where}: opset imports {a.opset_imports} != {b.opset_imports}")
    mapping = dict(zip(a.inputs, b.inputs))
    found.extend(_nodes(where, a.nodes, b.nodes, mapping, _opsets(a.opset_imports)))
    for x, y in zip(a.outputs, b.outputs):
        if mapping.get(x) != y:
            found.append(f"{where}: output {x!r} is {mapping.get(x)!r}, not {y!r}")
    return found


def _nodes(
    where: str, a: list[Node], b: list[Node], mapping: dict[str, str], opsets: dict[str, int]
) -> list[str]:
    sequence_a = [(n.domain or "", n.op_type) for n in a]
    sequence_b = [(n.domain or "", n.op_type) for n in b]
    if sequence_a != sequence_b:
        return [f"{where}: node sequence {sequence_a} != {sequence_b}"]
    found: list[str] = []
    for index, (x, y) in enumerate(zip(a, b)):
        label = f"{where} node {index} ({x.op_type})"
        inputs = [mapping.get(name, name) if name else "" for name in x.inputs]
        while inputs and not inputs[-1] and len(inputs) > len(y.inputs):
            inputs.pop()
            normalized["trailing empty input"] += 1
        if inputs != y.inputs:
            found.append(f"{label}: inputs {x.inputs} (as {inputs}) != {y.inputs}")
        if len(x.outputs) != len(y.outputs) or any(
            bool(p) != bool(q) for p, q in zip(x.outputs, y.outputs)
        ):
            found.append(f"{label}: outputs {x.outputs} != {y.outputs}")
        for p, q in zip(x.outputs, y.outputs):
            if p:
                mapping[p] = q
        found.extend(_attributes(label, x, y, mapping, opsets))
    return found


def _defaults(node: Node, opsets: dict[str, int]) -> dict[str, Any]:
    if not is_standard_domain(node.domain) or node.domain not in opsets:
        return {}
    since = resolve_since_version(node.domain, node.op_type, opsets[node.domain])
    if since is None:
        return {}
    return {
        name: info.default
        for name, info in op_info(node.domain, node.op_type, since).attributes.items()
        if info.default is not None
    }


def _without_defaults(node: Node, defaults: dict[str, Any]) -> dict[str, Attribute]:
    kept = {}
    for attr in node.attributes:
        default = defaults.get(attr.name)
        if (
            default is not None
            and not attr.ref
            and _plain(attr) == _plain(Attribute(attr.name, attr.type, default))
        ):
            normalized["explicit default"] += 1
            continue
        kept[attr.name] = attr
    return kept


def _attributes(
    label: str, x: Node, y: Node, mapping: dict[str, str], opsets: dict[str, int]
) -> list[str]:
    defaults = _defaults(x, opsets)
    attrs_a = _without_defaults(x, defaults)
    attrs_b = _without_defaults(y, defaults)
    if sorted(attrs_a) != sorted(attrs_b):
        return [f"{label}: attributes {sorted(attrs_a)} != {sorted(attrs_b)}"]
    found = []
    for name, p in attrs_a.items():
        q = attrs_b[name]
        where = f"{label} attribute {name!r}"
        if p.type != q.type or p.ref != q.ref:
            found.append(f"{where}: {p.type}/{p.ref!r} != {q.type}/{q.ref!r}")
        elif p.ref:
            continue  # a reference to a function attribute: no value of its own
        elif p.type == "GRAPH":
            found.extend(_graph(where, p.value, q.value, dict(mapping), opsets))
        elif p.type == "GRAPHS":
            if len(p.value) != len(q.value):
                found.append(f"{where}: {len(p.value)} graphs != {len(q.value)}")
            for g, h in zip(p.value, q.value):
                found.extend(_graph(where, g, h, dict(mapping), opsets))
        elif p.type == "TENSOR":
            found.extend(_tensor(where, p.value, q.value))
        elif p.type == "TENSORS":
            for s, t in zip(p.value, q.value, strict=False):
                found.extend(_tensor(where, s, t))
        elif _plain(p) != _plain(q):
            found.append(f"{where}: {p.value!r} != {q.value!r}")
    return found


def _plain(attr: Attribute) -> Any:
    """An attribute's value compared exactly: floats by their float32 bits."""
    if attr.type == "FLOAT":
        return struct.pack("<f", attr.value)
    if attr.type == "FLOATS":
        return [struct.pack("<f", v) for v in attr.value]
    if attr.type in ("INTS", "STRINGS"):
        return list(attr.value)
    if attr.type in ("TYPE_PROTO", "TYPE_PROTOS"):
        return str(attr.value)
    return attr.value


def _graph(
    where: str, a: Graph, b: Graph, mapping: dict[str, str], opsets: dict[str, int]
) -> list[str]:
    found = []
    if not _types_refine([v.type for v in a.inputs], [v.type for v in b.inputs]):
        types = [str(v.type) for v in a.inputs], [str(v.type) for v in b.inputs]
        found.append(f"{where}: body input types {types[0]} != {types[1]}")
    for x, y in zip(a.inputs, b.inputs):
        mapping[x.name] = y.name
    tensors_a = {t.name: t for t in a.initializers}
    tensors_b = {t.name: t for t in b.initializers}
    if len(tensors_a) != len(tensors_b):
        found.append(f"{where}: body initializers {sorted(tensors_a)} != {sorted(tensors_b)}")
    found.extend(_nodes(where, a.nodes, b.nodes, mapping, opsets))
    outputs = [mapping.get(v.name, v.name) for v in a.outputs]
    if outputs != [v.name for v in b.outputs]:
        found.append(f"{where}: body outputs {outputs} != {[v.name for v in b.outputs]}")
    if not _types_refine([v.type for v in a.outputs], [v.type for v in b.outputs]):
        types = [str(v.type) for v in a.outputs], [str(v.type) for v in b.outputs]
        found.append(f"{where}: body output types {types[0]} != {types[1]}")
    return found


def _types_refine(declared: list[Any], rebuilt: list[Any]) -> bool:
    if len(declared) != len(rebuilt):
        return False
    for a, b in zip(declared, rebuilt):
        if a == b:
            continue
        if not _refines(a, b):
            return False
        normalized["more precise type"] += 1
    return True


def _refines(declared: Any, rebuilt: Any) -> bool:
    """Whether ``rebuilt`` says everything ``declared`` says (and maybe more)."""
    if declared is None:
        return True
    if type(declared) is not type(rebuilt):
        return False
    if isinstance(declared, (Tensor, SparseTensor)):
        if declared.elem_type is not None and declared.elem_type != rebuilt.elem_type:
            return False
        if declared.shape is None:
            return True
        if rebuilt.shape is None or len(rebuilt.shape) != len(declared.shape):
            return False
        return all(d is None or d == r for d, r in zip(declared.shape, rebuilt.shape))
    if isinstance(declared, (Sequence, Optional)):
        return _refines(declared.elem, rebuilt.elem)
    if isinstance(declared, Map):
        return declared.key == rebuilt.key and _refines(declared.value, rebuilt.value)
    return bool(declared == rebuilt)


def _tensor(where: str, a: TensorData, b: TensorData) -> list[str]:
    if a.elem_type != b.elem_type or tuple(a.dims) != tuple(b.dims):
        return [f"{where}: {a.elem_type.name}{list(a.dims)} != {b.elem_type.name}{list(b.dims)}"]
    x, y = a.array(), b.array()
    if x.dtype == object:
        same = [_bytes(v) for v in x.reshape(-1)] == [_bytes(v) for v in y.reshape(-1)]
    else:
        same = np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes()
    return [] if same else [f"{where}: values differ"]


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")


def same_values(a: Any, b: Any) -> bool:
    """Whether two evaluation results are equal, bit for bit where they are arrays (NaNs of
    one pattern equal), structurally for sequences, maps and optionals."""
    if isinstance(a, np.generic) and isinstance(b, np.generic):
        a, b = np.asarray(a), np.asarray(b)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return [_bytes(v) for v in a.reshape(-1)] == [_bytes(v) for v in b.reshape(-1)]
        return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a is None and b is None)
