"""GRU version 1 spells its default direction "foward" (sic) in the standard: a node that leaves
``direction`` out runs forward, computed here from the standard's GRU equations."""

from __future__ import annotations

import numpy as np

from onnxcraft.testing import Input, NodeCase, evaluate_case
from onnxcraft.types import Tensor


def _float_input(values: list[list[list[float]]]) -> Input:
    array = np.asarray(values, np.float32)
    return Input(array, Tensor(np.float32, array.shape))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + np.exp(-x))


def test_gru_1_without_direction_runs_forward() -> None:
    x = [[[1.0]], [[-2.0]]]  # [seq_length, batch, input_size]
    w = [[[0.5], [1.0], [2.0]]]  # update (z), reset (r), hidden (h) rows
    r = [[[0.25], [0.5], [1.0]]]
    case = NodeCase(
        "",
        "GRU",
        1,
        (_float_input(x), _float_input(w), _float_input(r)),
        {"hidden_size": 1},
        outputs=(True, True),
    )
    y, y_h = evaluate_case(case)
    h = 0.0
    expected = []
    for step in (1.0, -2.0):  # forward: first time step first
        z = _sigmoid(0.5 * step + 0.25 * h)
        reset = _sigmoid(1.0 * step + 0.5 * h)
        candidate = np.tanh(2.0 * step + 1.0 * (reset * h))
        h = (1 - z) * candidate + z * h
        expected.append(h)
    np.testing.assert_allclose(y.reshape(-1), expected, rtol=1e-6)
    np.testing.assert_allclose(y_h.reshape(-1), expected[-1:], rtol=1e-6)
