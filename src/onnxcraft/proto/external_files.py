"""Which external data files a model's tensors refer to, and how much each holds."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from onnxcraft.proto.external_data import external_info
from onnxcraft.proto.onnx_pb2 import TensorProto

__all__ = ["ExternalFile", "external_files"]


@dataclass
class ExternalFile:
    location: str  # as the model writes it, relative to the model's folder
    tensors: int
    bytes: int  # the lengths the model records (a tensor without one counts 0)


def external_files(tensors: Iterable[TensorProto]) -> list[ExternalFile]:
    """The external data files of ``tensors``, in the order first referred to."""
    files: dict[str, ExternalFile] = {}
    for tensor in tensors:
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        info = external_info(tensor)
        entry = files.setdefault(info.location, ExternalFile(info.location, 0, 0))
        entry.tensors += 1
        entry.bytes += info.length or 0
    return list(files.values())
