"""Where a tensor's values go: a literal in the code, or the side file of weights.

Small tensors (at most ``inline_limit`` elements) read best as literals. Larger ones, when the
caller gives a path for the side file, are stored in one ``.npz`` that the generated module
loads from beside itself; strings always stay literals (an ``.npz`` of Python objects needs
pickle, which ``np.load`` rightly refuses by default).
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from onnxcraft.dtypes import ElementType
from onnxcraft.errors import ArgumentError
from onnxcraft.pycode.layout import Expr
from onnxcraft.pycode.values import Imports, array_expr, string_text

__all__ = ["Weights", "WEIGHTS_VARIABLE"]

WEIGHTS_VARIABLE = "weights"  # the name the generated build function binds the side file to


class Weights:
    def __init__(self, path: str | os.PathLike[str] | None, inline_limit: int) -> None:
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise ArgumentError(
                f"to_python: weights_path must be a path (str or os.PathLike) or None, "
                f"got {type(path).__name__}"
            )
        if not isinstance(inline_limit, int) or isinstance(inline_limit, bool) or inline_limit < 0:
            raise ArgumentError(
                f"to_python: inline_limit must be an int >= 0 (elements), got {inline_limit!r}"
            )
        self.path = None if path is None else Path(path)
        self.inline_limit = inline_limit
        self.stored: dict[str, np.ndarray] = {}

    def expr(self, key: str, array: np.ndarray, elem: ElementType, imports: Imports) -> Expr:
        """Source text for ``array``; ``key`` (a Python identifier) names it in the side file."""
        if self.path is None or array.size <= self.inline_limit or elem == ElementType.STRING:
            return array_expr(array, elem, imports)
        self.stored[key] = np.ascontiguousarray(array)
        # The side file keeps the dtype (structured ones too), so the array comes back as is.
        return f"{WEIGHTS_VARIABLE}[{string_text(key)}]"

    def write(self) -> None:
        if self.path is None or not self.stored:
            return
        # The .npz format itself (a zip of .npy files), written member by member: np.savez
        # would take the keys as keyword arguments, and a tensor called "file" would clash.
        with zipfile.ZipFile(self.path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
            for key, array in self.stored.items():
                with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
