"""The ONNX backend node test cases: where they are and how to read one.

The folder comes from one setting, the environment variable ONNXCRAFT_NODE_TESTS, defaulting
to ``../shared/onnx-node-tests`` beside the repository. A missing folder fails loudly: missing
conformance data must never look like a passing suite.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
ENV_VAR = "ONNXCRAFT_NODE_TESTS"


def node_tests_root() -> Path:
    root = Path(os.environ.get(ENV_VAR, REPO.parent / "shared" / "onnx-node-tests"))
    if not (root / "MANIFEST.json").is_file():
        pytest.fail(
            f"ONNX node tests not found at {root} (no MANIFEST.json): set {ENV_VAR} to the "
            f"folder of the backend node test cases",
            pytrace=False,
        )
    return root


@cache
def manifest() -> dict[str, Any]:
    return dict(json.loads((node_tests_root() / "MANIFEST.json").read_text()))


def case_names() -> list[str]:
    """Every case name, sorted; read at collection time (fails clearly when missing)."""
    root = Path(os.environ.get(ENV_VAR, REPO.parent / "shared" / "onnx-node-tests"))
    path = root / "MANIFEST.json"
    if not path.is_file():
        return ["<node tests missing>"]
    return sorted(json.loads(path.read_text()))


@dataclass
class Case:
    name: str
    model: Any  # onnxcraft ModelProto
    inputs: dict[str, Any]
    outputs: dict[str, Any]


def load_case(name: str) -> Case:
    """The case's model and its first data set, read with onnxcraft only."""
    import onnxcraft as oc
    from onnxcraft.proto import MapProto, OptionalProto, SequenceProto, TensorProto
    from onnxcraft.proto.serde import model_from_proto

    if name == "<node tests missing>":
        node_tests_root()
    folder = node_tests_root() / name
    model = oc.load(folder / "model.onnx")
    graph = model_from_proto(model).graph
    data = folder / "test_data_set_0"
    kinds = {
        "tensor": TensorProto,
        "sequence": SequenceProto,
        "map": MapProto,
        "optional": OptionalProto,
    }

    def read(path: Path, value_type: Any) -> Any:
        from onnxcraft.types import Map, Optional, Sequence

        if isinstance(value_type, Sequence):
            message = kinds["sequence"]()
        elif isinstance(value_type, Map):
            message = kinds["map"]()
        elif isinstance(value_type, Optional):
            message = kinds["optional"]()
        else:
            message = kinds["tensor"]()
        message.ParseFromString(path.read_bytes())
        return oc.to_value(message)

    inputs = {}
    for index, info in enumerate(graph.inputs):
        path = data / f"input_{index}.pb"
        if path.exists():
            inputs[info.name] = read(path, info.type)
    outputs = {
        info.name: read(data / f"output_{index}.pb", info.type)
        for index, info in enumerate(graph.outputs)
    }
    return Case(name, model, inputs, outputs)
