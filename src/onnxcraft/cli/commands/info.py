"""What a model holds: IR version, opsets, producer, inputs and outputs with their types, how
many nodes of each operator (subgraphs included), parameters (initializers: values and
bytes) and the external data files its tensors are stored in.

    onnxcraft info model.onnx
    onnxcraft info model.onnx --json
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from onnxcraft import ir
from onnxcraft.cli.feeds import model_inputs
from onnxcraft.cli.models import add_json_argument, add_model_argument, print_json
from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.io import load, tensors_of
from onnxcraft.proto.external_files import external_files
from onnxcraft.proto.serde import model_from_proto

__all__ = ["add_arguments", "run"]

# Bits per element of the types stored packed (the rest take their numpy item size).
_PACKED_BITS = {
    ElementType.INT4: 4,
    ElementType.UINT4: 4,
    ElementType.FLOAT4E2M1: 4,
    ElementType.INT2: 2,
    ElementType.UINT2: 2,
    ElementType.FLOAT6E2M3: 6,
    ElementType.FLOAT6E3M2: 6,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    add_json_argument(parser)


def _graphs(graph: ir.Graph) -> Iterator[ir.Graph]:
    """``graph`` and every subgraph inside it."""
    yield graph
    for node in graph.nodes:
        for attr in node.attributes:
            if isinstance(attr.value, ir.Graph):
                yield from _graphs(attr.value)
            elif isinstance(attr.value, list):
                for value in attr.value:
                    if isinstance(value, ir.Graph):
                        yield from _graphs(value)


def _bytes(tensor: ir.TensorData) -> int | None:
    """Stored bytes of a tensor's values; None for strings (their size is in the data)."""
    count = math.prod(tensor.dims)
    if tensor.elem_type in _PACKED_BITS:
        return (count * _PACKED_BITS[tensor.elem_type] + 7) // 8
    if tensor.elem_type in (ElementType.STRING, ElementType.UNDEFINED):
        return None
    try:
        return count * numpy_dtype(tensor.elem_type).itemsize
    except ValueError:
        return None


def summary(model: ir.Model, files: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything ``info`` prints, as plain data."""
    graphs = list(_graphs(model.graph))
    operators: Counter[str] = Counter()
    for graph in graphs:
        for node in graph.nodes:
            operators[f"{node.domain}.{node.op_type}" if node.domain else node.op_type] += 1
    tensors = [t for g in graphs for t in g.initializers]
    tensors += [s.values for g in graphs for s in g.sparse_initializers]
    sizes = [_bytes(t) for t in tensors]
    inputs = model_inputs(model)
    return {
        "ir_version": model.ir_version,
        "opsets": {domain or "ai.onnx": version for domain, version in model.opset_imports.items()},
        "producer": " ".join(p for p in (model.producer_name, model.producer_version) if p),
        "graph": model.graph.name,
        "inputs": {name: str(kind) for name, kind in inputs.items()},
        "outputs": {o.name: str(o.type) for o in model.graph.outputs},
        "nodes": sum(operators.values()),
        "subgraphs": len(graphs) - 1,
        "functions": [f"{f.domain}.{f.name}" for f in model.functions],
        "operators": dict(sorted(operators.items(), key=lambda item: (-item[1], item[0]))),
        "parameters": {
            "tensors": len(tensors),
            "values": sum(math.prod(t.dims) for t in tensors),
            "bytes": sum(s for s in sizes if s is not None),
        },
        "external_data": files,
        "metadata": dict(model.metadata),
    }


def _print(path: str, info: dict[str, Any]) -> None:
    print(path)
    print(f"  IR version {info['ir_version']}, opsets: ", end="")
    print(", ".join(f"{domain} {version}" for domain, version in info["opsets"].items()))
    if info["producer"]:
        print(f"  producer: {info['producer']}")
    for heading in ("inputs", "outputs"):
        print(f"  {heading}:")
        width = max((len(name) for name in info[heading]), default=0)
        for name, kind in info[heading].items():
            print(f"    {name.ljust(width)}  {kind}")
    extra = f" in {info['subgraphs']} subgraphs too" if info["subgraphs"] else ""
    print(f"  {info['nodes']} nodes{extra}:")
    width = max((len(op) for op in info["operators"]), default=0)
    for op, count in info["operators"].items():
        print(f"    {op.ljust(width)}  {count}")
    if info["functions"]:
        print(f"  local functions: {', '.join(info['functions'])}")
    params = info["parameters"]
    print(
        f"  parameters: {params['values']:,} values in {params['tensors']} tensors, "
        f"{params['bytes']:,} bytes"
    )
    for entry in info["external_data"]:
        print(
            f"  external data: {entry['location']} ({entry['tensors']} tensors, "
            f"{entry['bytes']:,} bytes)"
        )


def run(args: argparse.Namespace) -> int:
    proto = load(args.model, load_external_data=False)
    model = model_from_proto(proto, base_dir=Path(args.model).parent, map_external=True)
    files = [vars(entry) for entry in external_files(tensors_of(proto))]
    info = summary(model, files)
    if args.json:
        print_json({"model": args.model, **info})
    else:
        _print(args.model, info)
    return 0
