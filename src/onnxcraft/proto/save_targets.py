"""The files one save writes or leaves referenced, checked before anything is written.

A save writes the model file and its data files, and keeps the external references a model
already holds. Two of those naming the same file lose data: a data location that is the
model file is overwritten by the model; a data file that a kept reference points to is
replaced under it. Paths are compared as the file system will see them: resolved (``.``,
symlinks), with case folded when the folder's file system ignores case.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path

from onnxcraft.errors import ExternalDataError, ModelFileError
from onnxcraft.proto.external_data import external_info, safe_location
from onnxcraft.proto.onnx_pb2 import TensorProto

__all__ = ["SaveTargets"]


class _Role(Enum):
    MODEL = "the model file itself"
    KEPT = "a data file the model already refers to (external data kept as it is)"
    WRITTEN = "a data file this save writes"


def _ignores_case(folder: Path) -> bool:
    """Whether the file system of ``folder`` treats names differing in case as one name,
    told by looking the folder up under its own name in the other case."""
    swapped = folder.name.swapcase()
    if swapped == folder.name:  # no letters to tell by: assume the platform's usual
        return sys.platform in ("win32", "darwin")
    try:
        return os.path.samefile(folder, folder.with_name(swapped))
    except (OSError, ValueError):
        return False


class SaveTargets:
    """Every file of one save, by a key equal for two paths naming the same file."""

    def __init__(self, folder: Path, model_name: str, label: str) -> None:
        self.folder = folder.resolve()
        self.model = self.folder / model_name  # renamed over: a symlink there is replaced
        self.label = label
        self._fold_case = _ignores_case(self.folder)
        self._roles: dict[str, tuple[_Role, str]] = {self._key(self.model): (_Role.MODEL, "")}
        if os.path.isdir(self.model):  # a rename cannot replace a folder: say so now
            raise ModelFileError(f"{label}: cannot save: {self.model} is a folder")

    def _key(self, path: Path) -> str:
        return str(path).casefold() if self._fold_case else str(path)

    def keep(self, tensor: TensorProto) -> None:
        """Check an external reference the model holds, which the save writes as it is: it
        must stay inside the folder and name neither the model file nor a file written."""
        name = tensor.name or "<unnamed>"
        try:
            location = external_info(tensor).location
            path = safe_location(self.folder, location, tensor=name)
        except ExternalDataError as exc:
            raise ExternalDataError(f"{self.label}: cannot save: {exc}") from exc
        self._claim(path, location, name, _Role.KEPT)

    def write(self, location: str, tensor: str = "") -> Path:
        """The file a data ``location`` names, claimed for writing; refused (before anything
        is written to it) when it is the model file or a file a kept reference points to."""
        try:
            path = safe_location(self.folder, location, tensor=tensor)
        except ExternalDataError as exc:
            raise ExternalDataError(f"{self.label}: cannot save: {exc}") from exc
        self._claim(path, location, tensor, _Role.WRITTEN)
        if os.path.isdir(path):
            raise ExternalDataError(
                f"{self.label}: cannot save: external data location {location!r} is {path}, "
                f"a folder"
            )
        return path

    def is_free(self, path: Path) -> bool:
        """Whether ``path`` (in the resolved folder) is none of the save's files: a temporary
        file must not be created under a name the save renames something to."""
        return self._key(path) not in self._roles

    def _claim(self, path: Path, location: str, tensor: str, role: _Role) -> None:
        key = self._key(path)
        previous = self._roles.setdefault(key, (role, tensor))
        if previous[0] == role and role != _Role.MODEL:
            return  # several tensors in one data file, written or kept: nothing is lost
        owner = previous[0].value
        if previous[0] == _Role.KEPT:
            owner = f"the data file of tensor {previous[1]!r}, which the model refers to"
        whose = f" (tensor {tensor!r})" if tensor else ""
        raise ExternalDataError(
            f"{self.label}: cannot save: external data location {location!r}{whose} is "
            f"{path}, {owner}; saving would overwrite data the model needs. Choose another "
            f"location (nothing was written)"
        )
