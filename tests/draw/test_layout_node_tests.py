"""The layout of 200 ONNX node-test models (every ninth, so every kind of operator, If, Loop,
Scan and the expanded function bodies included): no two boxes of a graph overlap, every body
sits inside its node's box, and every edge leaves its source's box from the bottom side and
ends on the top side of its target's box. The geometry comes from the drawing's layout object.

ONNXCRAFT_DRAW_ALL_NODE_TESTS=1 checks all of them (about a minute and a half).
"""

from __future__ import annotations

import os

import pytest

import onnxcraft as oc
from tests.draw.geometry import problems
from tests.node_cases import case_names, node_tests_root

ALL = case_names()
SAMPLE = ALL if os.environ.get("ONNXCRAFT_DRAW_ALL_NODE_TESTS") else ALL[::9][:200]


def test_the_sample_is_two_hundred_models_with_bodies() -> None:
    assert len(SAMPLE) >= 200 or len(ALL) < 1800
    assert any("loop" in name or "_if" in name or "scan" in name for name in SAMPLE)


@pytest.mark.parametrize("name", SAMPLE)
def test_boxes_do_not_overlap_and_edges_end_at_their_boxes(name: str) -> None:
    drawing = oc.draw(node_tests_root() / name / "model.onnx")
    assert drawing.boxes(), name
    assert problems(drawing) == []
