"""``oc.to_python`` on damaged models: node-test models with one field broken the way a
corrupted or hostile file would be, or a few random bytes overwritten
(``tests/test_pipeline_fuzz.py`` makes them). Only onnxcraft's errors may come out of
``to_python`` and of running the module it writes, and what it writes always compiles.
``ONNXCRAFT_PYCODE_FUZZ_EXAMPLES=N`` runs a longer exploration.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from tests.pycode.roundtrip import run_module
from tests.test_pipeline_fuzz import _damaged

EXAMPLES = int(os.environ.get("ONNXCRAFT_PYCODE_FUZZ_EXAMPLES", "60"))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**31))
def test_damaged_models_raise_only_onnxcraft_errors(seed: int, tmp_path: Path) -> None:
    name, data = _damaged(seed)
    if data is None:
        return
    try:
        source = oc.to_python(data)
    except oc.OnnxcraftError:
        return
    compile(source, f"{name} (seed {seed})", "exec")
    with warnings.catch_warnings(), contextlib.suppress(oc.OnnxcraftError):
        warnings.simplefilter("ignore")
        run_module(source, tmp_path / "generated.py")
