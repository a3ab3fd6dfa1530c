"""Hostile model files through the whole pipeline: load, check, infer_shapes, evaluate, save.

Each case takes a node-test model and damages it, either by one field the way a corrupted or
hostile file would (`tests/infer/_mutations.py`) or by overwriting a few random bytes, then
runs every stage a user would. Only onnxcraft's errors may come out; a stage that hangs (per
case: 10 s) or raises anything else fails the test, naming the model, the seed and the stage.
Evaluation runs with limits (a timeout, a value-size budget), as one would for an untrusted
model. `ONNXCRAFT_PIPELINE_FUZZ_EXAMPLES=N` runs a longer exploration.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.errors import OnnxcraftError
from onnxcraft.proto import TensorProto
from tests.infer._mutations import model_bytes, mutate
from tests.node_cases import case_names, node_tests_root

EXAMPLES = int(os.environ.get("ONNXCRAFT_PIPELINE_FUZZ_EXAMPLES", "60"))
CASE_SECONDS = 10
LIMITS = oc.Limits(timeout=3.0, max_value_bytes=1 << 28)


class _Hang(Exception):
    pass


def _alarm(*_: Any) -> None:
    raise _Hang


def _damaged(seed: int) -> tuple[str, bytes | None]:
    rng = random.Random(seed)
    name = rng.choice(sorted(case_names()))
    if rng.random() < 0.7:
        return name, mutate(name, seed)
    data = bytearray(model_bytes(name))
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return name, bytes(data)


def _feeds(name: str, evaluator: oc.Evaluator) -> dict[str, Any] | None:
    folder = node_tests_root() / name / "test_data_set_0"
    feeds = {}
    for input_name, path in zip(evaluator.input_names, sorted(folder.glob("input_*.pb"))):
        try:
            feeds[input_name] = oc.to_array(TensorProto.FromString(path.read_bytes()))
        except OnnxcraftError:
            return None  # an input the suite cannot read (a sequence, say): evaluate nothing
    return feeds if len(feeds) == len(evaluator.input_names) else None


def _pipeline(name: str, data: bytes, folder: Path) -> None:
    model = oc.load(data)
    for stage in (oc.check, oc.infer_shapes):
        with contextlib.suppress(OnnxcraftError):
            stage(model)
    try:
        evaluator = oc.Evaluator(model, limits=LIMITS)
        feeds = _feeds(name, evaluator)
        if feeds is not None:
            evaluator.run(feeds)
    except OnnxcraftError:
        pass
    oc.save(model, folder / "saved.onnx")


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="the per-case timeout needs SIGALRM")
@settings(
    max_examples=EXAMPLES,
    derandomize=EXAMPLES <= 60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**31))
def test_damaged_models_raise_only_onnxcraft_errors(seed: int, tmp_path: Path) -> None:
    name, data = _damaged(seed)
    if data is None:
        return  # the mutation found nothing to change in this model
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _pipeline(name, data, tmp_path)
    except OnnxcraftError:
        pass
    except _Hang:
        pytest.fail(f"{name}, seed {seed}: a stage ran over {CASE_SECONDS} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
