"""What an operator call leaves alive for the garbage collector to walk: a graph of 100k
nodes is built from a user's loop, where collections run, so each call keeps few tracked
objects (types are shared, not one per value)."""

from __future__ import annotations

import gc

import numpy as np

import onnxcraft as oc
from onnxcraft.dtypes import ElementType
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.types import Tensor, shared_tensor


def test_equal_types_are_one_object() -> None:
    a = shared_tensor(ElementType.FLOAT, ("N", 16))
    assert a is shared_tensor(ElementType.FLOAT, ("N", 16))
    assert a == Tensor(np.float32, ("N", 16))
    assert a is not shared_tensor(ElementType.FLOAT, ("N", 8))
    assert shared_tensor(None, None) == Tensor()


def test_a_call_keeps_its_node_its_outputs_and_its_lifted_constants_only() -> None:
    x = oc.arg("x", np.float32, ("N", 16))
    consts = [np.full(16, i, np.float32) for i in range(400)]
    y = op.Mul(x, consts[0])
    gc.collect()
    gc.disable()
    try:
        before = {id(o) for o in gc.get_objects()}
        for c in consts:
            y = op.Mul(y, c)
        kept = [o for o in gc.get_objects() if id(o) not in before]
    finally:
        gc.enable()
    # per call: the OpCall, its inputs and outputs tuples, its output Var, the constant's Var
    assert len(kept) <= 5 * len(consts) + 2, sorted({type(o).__name__ for o in kept})
    assert y.type is op.Mul(x, consts[1]).type  # equal types: one shared object
