"""gc_paused: the collector is off inside, its state restored after (errors included), and
build pauses it while it makes the model."""

from __future__ import annotations

import gc
import traceback

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.gcpause import gc_paused
from onnxcraft.opset.ai.onnx import v21 as op


def test_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: still off, and the outer pause restores
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), gc_paused():
        _ = 1 / 0
    assert gc.isenabled()


def test_a_caller_that_turned_it_off_keeps_it_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_build_pauses_the_collector_and_restores_it() -> None:
    """No collection runs while build makes the model (one may run as it returns)."""
    during: list[str] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            files = [frame.filename for frame in traceback.extract_stack()]
            during.extend(f for f in files if f.endswith(("emit_graph.py", "serde.py")))

    x = oc.arg("x", np.float32, (4,))
    y = x
    for _ in range(3000):  # enough allocations to trigger collections if it were on
        y = op.Add(y, np.ones(4, np.float32))
    gc.callbacks.append(note)
    try:
        oc.build([x], {"y": y})
    finally:
        gc.callbacks.remove(note)
    assert during == [] and gc.isenabled()
