"""The shape formulas that an inference rule and its kernel share (``ops/windows.py`` and
``ops/<family>/shapes.py``), checked against values worked out by hand from the ONNX formulas."""

from __future__ import annotations

import pytest

from onnxcraft.ops.resize import shapes as resize_shapes

# --- Resize: floor(size * scale); one common scale, rounded half up, for kept aspect ratios ---


@pytest.mark.parametrize(
    ("size", "scale", "expected"),
    [
        (4, 2.0, 8),
        (5, 0.5, 2),  # 2.5 floors to 2
        (3, 1.5, 4),  # 4.5 floors to 4
        (7, 0.3, 2),  # 2.1
        (10, 0.29, 2),  # 2.9 floors, never rounds
        (0, 3.0, 0),
        (6, 1.0, 6),
    ],
)
def test_resize_scaled_size(size: int, scale: float, expected: int) -> None:
    assert resize_shapes.scaled_size(size, scale) == expected


def test_resize_size_ratio() -> None:
    assert resize_shapes.size_ratio(6, 4) == 1.5
    assert resize_shapes.size_ratio(2, 8) == 0.25
    assert resize_shapes.size_ratio(5, 0) == 1.0  # an empty axis has no ratio to keep


def test_resize_kept_aspect_not_larger() -> None:
    # ratios 20/10 = 2 and 30/20 = 1.5: the smaller one, so neither axis exceeds its request.
    scale, sizes = resize_shapes.kept_aspect_sizes([10, 20], [20, 30], "not_larger")
    assert scale == 1.5
    assert sizes == [15, 30]


def test_resize_kept_aspect_not_smaller() -> None:
    scale, sizes = resize_shapes.kept_aspect_sizes([10, 20], [20, 30], "not_smaller")
    assert scale == 2.0
    assert sizes == [20, 40]


def test_resize_kept_aspect_rounds_half_up() -> None:
    # ratios 5/4 = 1.25 and 3/3 = 1: not_smaller takes 1.25, and 3 * 1.25 = 3.75 -> 4;
    # not_larger takes 1, and 4 * 1 = 4, 3 * 1 = 3.
    assert resize_shapes.kept_aspect_sizes([4, 3], [5, 3], "not_smaller") == (1.25, [5, 4])
    assert resize_shapes.kept_aspect_sizes([4, 3], [5, 3], "not_larger") == (1.0, [4, 3])
    # 2 * 1.25 = 2.5 rounds half up to 3 (not to the even 2).
    assert resize_shapes.kept_aspect_sizes([4, 2], [5, 2], "not_smaller") == (1.25, [5, 3])
