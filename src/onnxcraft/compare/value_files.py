"""Reading values from files: ``.npy`` (numpy's format) or ``.pb`` (a serialized TensorProto,
SequenceProto, MapProto or OptionalProto, as the ONNX backend tests store them).

A folder of expected values holds one file per value, named after it (``Y.npy``, ``Y.pb``) or
after the output's position (``output_0.pb``, the layout of the backend tests' data sets).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import as_representation
from onnxcraft.errors import TensorConversionError
from onnxcraft.proto.value_files import parse_value
from onnxcraft.types import ValueType

__all__ = ["SUFFIXES", "read_expected_folder", "read_value_file"]

SUFFIXES = (".npy", ".pb")
_NPY_MAGIC = b"\x93NUMPY"


def read_value_file(path: str | os.PathLike[str], value_type: ValueType | None = None) -> Any:
    """The value in ``path``; ``value_type`` says which message a ``.pb`` file holds (a tensor
    when None). A missing or unreadable file raises OSError; a file whose content is not a
    value of its kind raises TensorConversionError."""
    path = Path(path)
    if path.suffix == ".npy":
        try:
            with path.open("rb") as handle:
                if handle.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
                    raise ValueError("it does not start with numpy's header")
                handle.seek(0)
                return as_representation(np.load(handle, allow_pickle=False))
        except (ValueError, EOFError) as exc:
            # numpy says ValueError for a bad header and for pickled objects, EOFError for
            # an empty file
            raise TensorConversionError(f"{path}: not a .npy array file ({exc})") from None
    if path.suffix == ".pb":
        return parse_value(path.read_bytes(), value_type, label=str(path))
    raise TensorConversionError(
        f"{path}: unknown kind of value file {path.suffix!r}; expected .npy or .pb"
    )


def _declared_types(model: ir.Model) -> dict[str, ValueType | None]:
    graph = model.graph
    types = {info.name: info.type for info in graph.value_info}
    types.update({info.name: info.type for info in graph.inputs})
    types.update({info.name: info.type for info in graph.outputs})
    return types


def _positional(stem: str, prefix: str, names: list[str]) -> str | None:
    """The name ``input_<i>`` or ``output_<i>`` stands for, if ``stem`` is one."""
    if stem.startswith(prefix) and stem[len(prefix) :].isdigit():
        index = int(stem[len(prefix) :])
        if index < len(names):
            return names[index]
    return None


def read_expected_folder(folder: str | os.PathLike[str], model: ir.Model) -> dict[str, Any]:
    """Values by name from the ``.npy`` and ``.pb`` files of ``folder``.

    A folder laid out as a data set of the ONNX backend tests (every file ``input_<i>`` or
    ``output_<i>``) gives the model's i-th input or output; otherwise a file's stem is the
    name of a value (what ``onnxcraft run -o`` writes)."""
    folder = Path(folder)
    types = _declared_types(model)
    initializers = {t.name for t in model.graph.initializers}
    inputs = [info.name for info in model.graph.inputs if info.name not in initializers]
    outputs = [info.name for info in model.graph.outputs]
    paths = [p for p in sorted(folder.iterdir()) if p.suffix in SUFFIXES and p.is_file()]
    if not paths:
        raise TensorConversionError(f"{folder}: holds no .npy or .pb value files")
    by_position = {
        p.stem: _positional(p.stem, "output_", outputs) or _positional(p.stem, "input_", inputs)
        for p in paths
    }
    data_set = all(by_position.values())
    values: dict[str, Any] = {}
    for path in paths:
        name = (by_position[path.stem] if data_set else None) or path.stem
        values[name] = read_value_file(path, types.get(name))
    return values
