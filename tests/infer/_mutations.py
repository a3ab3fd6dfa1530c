"""Corrupted node-test models for the inference fuzz test: one seeded mutation of one model.

Each mutation changes one field the way a damaged or hostile file would (a dim, an attribute's
value or type, a name, the number of a node's inputs or outputs, an element type, an opset
version, bytes of a name that are not UTF-8); ``mutate`` picks one from a ``random.Random``,
so a case is reproduced by its model name and seed.

    python -m tests.infer._mutations [cases]     # a longer run; prints the counts
"""

from __future__ import annotations

import contextlib
import random
import resource
import sys
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from functools import cache

import onnxcraft as oc
from onnxcraft.errors import OnnxcraftError
from onnxcraft.infer.model import InferenceWarning
from onnxcraft.proto import AttributeProto, ModelProto, NodeProto
from tests.node_cases import case_names, node_tests_root

HOSTILE_INTS = [0, -1, -2, 1, 2, 3, 7, 2**31, 2**31 - 1, -(2**31), 2**62, 2**63 - 1, -(2**63)]
HOSTILE_FLOATS = [0.0, -1.0, 1e30, -1e30, float("inf"), float("nan"), 0.5]
ELEM_TYPES = list(range(0, 27))


@cache
def model_bytes(name: str) -> bytes:
    return (node_tests_root() / name / "model.onnx").read_bytes()


def _nodes(model: ModelProto) -> list[NodeProto]:
    found: list[NodeProto] = []

    def walk(nodes: list[NodeProto]) -> None:
        for node in nodes:
            found.append(node)
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(list(attr.g.node))
                for g in attr.graphs:
                    walk(list(g.node))

    walk(list(model.graph.node))
    for function in model.functions:
        walk(list(function.node))
    return found


def _dims(model: ModelProto) -> list[object]:
    """Every shape dim of the graph's inputs, outputs and value_info."""
    dims = []
    for info in [*model.graph.input, *model.graph.output, *model.graph.value_info]:
        if info.type.HasField("tensor_type"):
            dims.extend(info.type.tensor_type.shape.dim)
    return dims


def _mutate_dim(model: ModelProto, rng: random.Random) -> bool:
    dims = _dims(model)
    initializers = list(model.graph.initializer)
    if initializers and (not dims or rng.random() < 0.3):
        tensor = rng.choice(initializers)
        if tensor.dims:
            tensor.dims[rng.randrange(len(tensor.dims))] = rng.choice(HOSTILE_INTS)
        else:
            tensor.dims.append(rng.choice(HOSTILE_INTS))
        return True
    if not dims:
        return False
    dim = rng.choice(dims)
    if rng.random() < 0.2:
        dim.dim_param = rng.choice(["N", "", "x y"])
    else:
        dim.dim_value = rng.choice(HOSTILE_INTS)
    return True


def _mutate_attribute_value(model: ModelProto, rng: random.Random) -> bool:
    attrs = [a for n in _nodes(model) for a in n.attribute]
    if not attrs:
        return False
    attr = rng.choice(attrs)
    kind = attr.type
    if kind == AttributeProto.INT:
        attr.i = rng.choice(HOSTILE_INTS)
    elif kind == AttributeProto.FLOAT:
        attr.f = rng.choice(HOSTILE_FLOATS)
    elif kind == AttributeProto.INTS:
        values = [rng.choice(HOSTILE_INTS) for _ in range(rng.randrange(0, 5))]
        del attr.ints[:]
        attr.ints.extend(values)
    elif kind == AttributeProto.FLOATS:
        del attr.floats[:]
        attr.floats.extend(rng.choice(HOSTILE_FLOATS) for _ in range(rng.randrange(0, 5)))
    elif kind == AttributeProto.STRING:
        attr.s = rng.choice([b"", b"\xff\xfe", b"NOTSET", b"x" * 3])
    elif kind == AttributeProto.TENSOR:
        attr.t.data_type = rng.choice(ELEM_TYPES)
    else:
        attr.type = rng.choice(list(range(0, 15)))
    return True


def _mutate_attribute_type(model: ModelProto, rng: random.Random) -> bool:
    nodes = _nodes(model)
    if not nodes:
        return False
    node = rng.choice(nodes)
    if node.attribute and rng.random() < 0.7:
        attr = rng.choice(list(node.attribute))
        attr.type = rng.choice(list(range(0, 15)))
    else:  # an attribute the operator does not expect, or one of its names with a wrong type
        attr = node.attribute.add()
        attr.name = rng.choice(["axis", "axes", "perm", "to", "mode", "direction", "zzz"])
        attr.type = rng.choice(list(range(1, 15)))
        attr.i = rng.choice(HOSTILE_INTS)
    return True


def _mutate_names(model: ModelProto, rng: random.Random) -> bool:
    nodes = _nodes(model)
    if not nodes:
        return False
    node = rng.choice(nodes)
    choice = rng.randrange(6)
    all_names = [n for x in nodes for n in [*x.input, *x.output]] + [
        i.name for i in model.graph.input
    ]
    if choice == 0 and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice([*all_names, "", "nowhere"])
    elif choice == 1 and node.output:
        node.output[rng.randrange(len(node.output))] = rng.choice([*all_names, ""])
    elif choice == 2:
        node.input.append(rng.choice([*all_names, "", "nowhere"]))
    elif choice == 3 and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif choice == 4:
        node.output.append(f"extra_{rng.randrange(100)}")
    elif choice == 5 and node.output:
        del node.output[rng.randrange(len(node.output))]
    else:
        return False
    return True


def _mutate_elem_type(model: ModelProto, rng: random.Random) -> bool:
    infos = [
        i
        for i in [*model.graph.input, *model.graph.output, *model.graph.value_info]
        if i.type.HasField("tensor_type")
    ]
    initializers = list(model.graph.initializer)
    if initializers and (not infos or rng.random() < 0.3):
        rng.choice(initializers).data_type = rng.choice(ELEM_TYPES)
        return True
    if not infos:
        return False
    rng.choice(infos).type.tensor_type.elem_type = rng.choice(ELEM_TYPES)
    return True


def _mutate_opset(model: ModelProto, rng: random.Random) -> bool:
    if not model.opset_import:
        return False
    rng.choice(list(model.opset_import)).version = rng.choice([0, 1, 5, 7, 11, 13, 999, -1])
    return True


def _mutate_name_bytes(model: ModelProto, rng: random.Random) -> bytes | None:
    """The serialized model with one name's bytes made invalid UTF-8 (protobuf would refuse
    such a string field, so the bytes are changed after serializing)."""
    nodes = _nodes(model)
    names = sorted({n for x in nodes for n in [*x.input, *x.output, x.op_type, x.name] if n})
    if not names:
        return None
    name = rng.choice(names).encode()
    data = model.SerializeToString()
    if len(name) > 127:
        return None
    hostile = bytes([0xFF]) + name[1:]
    return data.replace(bytes([len(name)]) + name, bytes([len(name)]) + hostile)


MUTATIONS: list[Callable[[ModelProto, random.Random], bool]] = [
    _mutate_dim,
    _mutate_attribute_value,
    _mutate_attribute_type,
    _mutate_names,
    _mutate_elem_type,
    _mutate_opset,
]


def mutate(name: str, seed: int) -> bytes | None:
    """The bytes of node-test model ``name`` after one to three mutations drawn from ``seed``."""
    rng = random.Random(seed)
    model = ModelProto.FromString(model_bytes(name))
    if rng.random() < 0.12:
        return _mutate_name_bytes(model, rng)
    changed = False
    for _ in range(rng.randint(1, 3)):
        changed |= rng.choice(MUTATIONS)(model, rng)
    return model.SerializeToString() if changed else None


def infer_both_ways(data: bytes) -> str:
    """Infer ``data`` strict and non-strict: "ok", "error" (an onnxcraft error), "unchecked
    error" (one a rule raised without checking, reported by the walker) or raises."""
    outcome = "ok"
    try:
        oc.infer_shapes(data, strict=True)
    except OnnxcraftError as exc:
        # A rule that tripped (the walker's catch-all) rather than one that checked.
        outcome = "unchecked error" if "cannot infer this node's outputs" in str(exc) else "error"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferenceWarning)
        with contextlib.suppress(OnnxcraftError):  # an unreadable model fails non-strict too
            oc.infer_shapes(data)
    return outcome


def main(count: int) -> int:
    # A runaway allocation becomes a MemoryError, counted, instead of the process being killed.
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    names = case_names()
    outcomes: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    start = time.perf_counter()
    for seed in range(count):
        name = names[seed % len(names)]
        data = mutate(name, seed)
        if data is None:
            outcomes["unchanged"] += 1
            continue
        try:
            outcomes[infer_both_ways(data)] += 1
        except Exception as exc:  # counting what escapes is the point
            outcomes["other exception"] += 1
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            key = f"{type(exc).__name__} at {frame.filename}:{frame.lineno}"
            if key not in failures:
                print(f"{key}: {name} seed {seed}: {exc}"[:300], file=sys.stderr)
            failures[key] += 1
    elapsed = time.perf_counter() - start
    print(f"{count} cases in {elapsed:.0f} s: {dict(outcomes)}")
    for key, n in failures.most_common():
        print(f"  {n:5d}  {key}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000))
