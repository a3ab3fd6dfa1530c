"""External tensor data: reading it safely, and the locations a model may point to.

A tensor stored outside the model names a ``location`` relative to the model's folder, an
``offset`` and a ``length``. A location that is absolute, climbs with ``..`` or resolves (through
symlinks) outside the folder is refused, and so is a range beyond the end of the file: a model
file must not be able to make onnxcraft read arbitrary files. So is a location holding a NUL
byte (no path can), and one naming a FIFO, a device or a folder (reading it would hang).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

import numpy as np

from onnxcraft.errors import ExternalDataError
from onnxcraft.proto.onnx_pb2 import TensorProto
from onnxcraft.proto.regular_files import not_regular, open_regular

__all__ = [
    "ExternalInfo",
    "ExternalRange",
    "external_info",
    "external_range",
    "map_tensor_bytes",
    "read_tensor_bytes",
    "safe_location",
]


@dataclass(frozen=True)
class ExternalInfo:
    location: str
    offset: int
    length: int | None


def external_info(tensor: TensorProto) -> ExternalInfo:
    entries = {e.key: e.value for e in tensor.external_data}
    name = tensor.name or "<unnamed>"
    location = entries.get("location")
    if not location:
        raise ExternalDataError(f"tensor {name!r}: external data without a 'location' entry")
    try:
        offset = int(entries.get("offset", "0"))
        length = int(entries["length"]) if "length" in entries else None
    except ValueError as exc:
        raise ExternalDataError(f"tensor {name!r}: offset/length are not integers: {exc}") from exc
    if offset < 0 or (length is not None and length < 0):
        raise ExternalDataError(f"tensor {name!r}: negative offset {offset} or length {length}")
    return ExternalInfo(location, offset, length)


def safe_location(base_dir: str | os.PathLike[str], location: str, *, tensor: str = "") -> Path:
    """The file a relative location names inside ``base_dir``, or an ExternalDataError."""
    label = f"tensor {tensor!r}: " if tensor else ""
    if "\0" in location:
        raise ExternalDataError(
            f"{label}external data location {location!r} contains a NUL byte, which no path "
            f"may hold"
        )
    if (
        PurePosixPath(location).is_absolute()
        or PureWindowsPath(location).is_absolute()
        or PureWindowsPath(location).drive
    ):
        raise ExternalDataError(
            f"{label}external data location {location!r} is absolute; only "
            f"paths relative to the model's folder are allowed"
        )
    parts = PurePosixPath(location.replace("\\", "/")).parts
    if ".." in parts:
        raise ExternalDataError(
            f"{label}external data location {location!r} uses '..'; only "
            f"paths inside the model's folder are allowed"
        )
    base = Path(base_dir).resolve()
    target = (base / Path(*parts)).resolve()
    if target != base and base not in target.parents:
        raise ExternalDataError(
            f"{label}external data location {location!r} resolves to "
            f"{target}, outside the model's folder {base}"
        )
    return target


@dataclass(frozen=True)
class ExternalRange:
    """Where a tensor's external bytes are: a file inside the model's folder, and a range
    checked to lie within it."""

    path: Path
    offset: int
    length: int


def external_range(tensor: TensorProto, base_dir: str | os.PathLike[str]) -> ExternalRange:
    """The validated location of ``tensor``'s external bytes, or an ExternalDataError."""
    info = external_info(tensor)
    name = tensor.name or "<unnamed>"
    path = safe_location(base_dir, info.location, tensor=name)
    try:
        status = path.stat()
    except OSError as exc:
        raise ExternalDataError(
            f"tensor {name!r}: cannot read external data {path}: {exc}"
        ) from exc
    kind = not_regular(status.st_mode)
    if kind is not None:
        raise ExternalDataError(
            f"tensor {name!r}: external data {path} is {kind}, not a regular file; refusing "
            f"to read it"
        )
    size = status.st_size
    if info.offset > size:
        raise ExternalDataError(
            f"tensor {name!r}: offset {info.offset} is beyond the end of {path} ({size} bytes)"
        )
    length = size - info.offset if info.length is None else info.length
    if info.offset + length > size:
        raise ExternalDataError(
            f"tensor {name!r}: offset {info.offset} + length {length} is "
            f"beyond the end of {path} ({size} bytes)"
        )
    return ExternalRange(path, info.offset, length)


def read_tensor_bytes(tensor: TensorProto, base_dir: str | os.PathLike[str]) -> bytes:
    """The external bytes of ``tensor``, validated against the file's size."""
    where = external_range(tensor, base_dir)
    name = tensor.name or "<unnamed>"
    what = f"external data of tensor {name!r}"
    try:
        with open_regular(where.path, what, ExternalDataError) as handle:
            handle.seek(where.offset)
            return handle.read(where.length)
    except ExternalDataError:
        raise
    except OSError as exc:
        raise ExternalDataError(
            f"tensor {name!r}: cannot read external data {where.path}: {exc}"
        ) from exc


def map_tensor_bytes(where: ExternalRange) -> np.ndarray:
    """The bytes of ``where`` as a read-only array mapped from the file (nothing is read until
    used); an empty range gives an empty array, which cannot be mapped."""
    if where.length == 0:
        return np.zeros(0, np.uint8)
    try:
        with open_regular(where.path, "external data", ExternalDataError) as handle:
            mapped = np.memmap(handle, np.uint8, "r", where.offset, (where.length,))
    except ExternalDataError:
        raise
    except (OSError, ValueError) as exc:
        raise ExternalDataError(f"cannot map external data {where.path}: {exc}") from exc
    return mapped.view(np.ndarray)  # a plain array (the mapping stays alive as its base)
