"""OneHot's values input declared with a symbolic length is inferred (it may hold two), found
by the conformance runner's recipe change (OneHot-9 with non-negative indices)."""

from __future__ import annotations

import numpy as np

import onnxcraft as oc
from onnxcraft.testing import Input, NodeCase, check_case, infer_case


def test_one_hot_values_of_a_symbolic_length_are_inferred() -> None:
    values = np.array([2, 4], np.uint16)
    case = NodeCase(
        "",
        "OneHot",
        9,
        (
            Input(np.array([0], np.uint16), oc.Tensor(np.uint16, (1,)), constant=True),
            Input(np.array(1, np.uint32), oc.Tensor(np.uint32, ()), constant=True),
            Input(values, oc.Tensor(np.uint16, (2,)), declared=oc.Tensor(np.uint16, ("d2",))),
        ),
        {"axis": 0},
    )
    check_case(case)
    (inferred,) = infer_case(case)
    assert inferred == oc.Tensor(np.uint16, (1, 1))
