"""The package root: what ``import onnxcraft as oc`` shows (tab completion included)."""

from __future__ import annotations

import subprocess
import sys

import onnxcraft as oc


def test_dir_lists_the_names_loaded_on_first_use() -> None:
    # `check`, `load`, `save`, `infer_shapes` ... load on first use; dir() (tab completion)
    # missed them until then.
    code = (
        "import onnxcraft as oc, sys\n"
        "names = dir(oc)\n"
        "assert 'onnxcraft.io' not in sys.modules  # dir() itself loads nothing\n"
        "print(' '.join(names))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    names = set(result.stdout.split())
    assert {"check", "load", "save", "infer_shapes", "Evaluator", "proto", "to_array"} <= names
    assert set(oc.__all__) <= names and "arg" in names


def test_every_public_name_resolves() -> None:
    assert all(getattr(oc, name) is not None for name in oc.__all__)
