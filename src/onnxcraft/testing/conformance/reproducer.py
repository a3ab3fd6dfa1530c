"""Reproducers in the layout of ONNX's backend node tests, ready to file with a runtime.

Each folder holds ``model.onnx`` (the one-node model, its outputs typed as the standard's
values are), ``test_data_set_0/input_N.pb`` (the feeds, as TensorProto, SequenceProto,
MapProto or OptionalProto named after the graph inputs) and ``output_N.pb`` (the standard's
answer), plus ``README.md`` saying what the backend did, as onnx's and onnxruntime's node-test
runners read them.
"""

from __future__ import annotations

import re
from pathlib import Path

from onnxcraft.io import model_ir
from onnxcraft.proto.tensor import from_value
from onnxcraft.testing.conformance.judge import Verdict
from onnxcraft.testing.examples import Example, optional_outputs, typed_model
from onnxcraft.types import Optional

__all__ = ["folder_name", "write_reproducer"]


def folder_name(label: str, cause: str) -> str:
    """A file-system-safe folder name for (operator version, cause)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", cause).strip("_").lower()[:60]
    return f"test_{re.sub(r'[^A-Za-z0-9]+', '_', label)}_{slug or 'case'}"


def write_reproducer(folder: Path, example: Example, verdict: Verdict, backend: str) -> Path:
    """Write the reproducer of ``example`` (judged ``verdict``) into ``folder``."""
    data = folder / "test_data_set_0"
    data.mkdir(parents=True, exist_ok=True)
    standard = verdict.standard if verdict.standard is not None else example.expected
    optional = optional_outputs(example.case)
    typed = typed_model(example, standard)
    (folder / "model.onnx").write_bytes(typed)
    model = model_ir(typed)
    declared = {info.name: info.type for info in model.graph.inputs}
    for index, (name, value) in enumerate(example.feeds.items()):
        message = from_value(value, name=name, optional=isinstance(declared.get(name), Optional))
        (data / f"input_{index}.pb").write_bytes(message.SerializeToString())
    if standard is not None:
        for index, (name, value) in enumerate(zip(example.outputs, standard)):
            message = from_value(value, name=name, optional=index in optional)
            (data / f"output_{index}.pb").write_bytes(message.SerializeToString())
    (folder / "README.md").write_text(_readme(example, verdict, backend), encoding="utf-8")
    return folder


def _readme(example: Example, verdict: Verdict, backend: str) -> str:
    decided = f"\nDecided by {verdict.decided_by}.\n" if verdict.decided_by else ""
    detail = f"\n    {verdict.detail}\n" if verdict.detail else ""
    answer = (
        "`output_N.pb` hold the standard's answer."
        if verdict.standard is not None or example.expected is not None
        else "No output is given: onnxcraft could not compute one."
    )
    return (
        f"# {verdict.kind}: {verdict.cause}\n\n"
        f"Backend: {backend}.\n{decided}{detail}\n"
        f"The node:\n\n```\n{example.case.describe()}\n```\n\n{answer}\n"
    )
