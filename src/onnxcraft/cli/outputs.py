"""What a command says about the values it computed: a one-line summary of each, and the values
written to a folder: ``NAME.npy`` for arrays, ``NAME.pb`` for the rest (or for all
with ``--format pb``). Names are made safe for file systems (characters other than letters,
digits, ``.``, ``_`` and ``-`` become ``_``; a clash gets ``_1``, ``_2`` ...)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from onnxcraft.dtypes import element_type_of, type_string
from onnxcraft.errors import CommandLineError
from onnxcraft.numerics import to_float32
from onnxcraft.proto.value_files import serialize_value

__all__ = ["describe", "write_values"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def _stem(name: str, used: set[str]) -> str:
    stem = _UNSAFE.sub("_", name).lstrip(".") or "value"
    candidate, index = stem, 0
    while candidate.lower() in used:
        index += 1
        candidate = f"{stem}_{index}"
    used.add(candidate.lower())
    return candidate


def write_values(values: Mapping[str, Any], folder: str, form: str) -> list[Path]:
    """Write each value to ``folder`` (created if needed); returns the files written."""
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise CommandLineError(f"-o {folder}: exists and is not a folder")
    target.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    written = []
    for name, value in values.items():
        stem = _stem(name, used)
        if form == "npy" and isinstance(value, np.ndarray) and value.dtype != object:
            path = target / f"{stem}.npy"
            with path.open("wb") as handle:
                np.save(handle, value, allow_pickle=False)
        else:
            path = target / f"{stem}.pb"
            path.write_bytes(serialize_value(value, name=name))
        written.append(path)
    return written


def describe(value: Any) -> str:
    """A short description of a value for a summary: type, shape and range."""
    if isinstance(value, list):
        return f"sequence of {len(value)}"
    if isinstance(value, dict):
        return f"map of {len(value)}"
    if value is None:
        return "none"
    array = np.asarray(value)
    shape = f"[{', '.join(str(d) for d in array.shape)}]"
    low_precision = array.dtype.names is not None  # bfloat16, float8 ... held as their bits
    name = type_string(element_type_of(array.dtype)) if low_precision else array.dtype.name
    name = "string" if array.dtype == object else name  # onnxcraft holds strings as objects
    if array.size == 0 or (array.dtype.kind not in "biuf" and not low_precision):
        return f"{name}{shape}"
    data = (to_float32(array) if low_precision else array).astype(np.float64)
    finite = data[np.isfinite(data)]
    stats = (
        f"min {finite.min():.6g}, max {finite.max():.6g}, mean {finite.mean():.6g}"
        if finite.size
        else "no finite values"
    )
    extra = f", {data.size - finite.size} not finite" if finite.size != data.size else ""
    count = f" ({math.prod(array.shape)} values)" if array.ndim else ""
    return f"{name}{shape}{count}: {stats}{extra}"
