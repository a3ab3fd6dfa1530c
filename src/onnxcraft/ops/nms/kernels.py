"""NonMaxSuppression: greedy per-class selection of boxes by score and overlap."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.run_guard import ticker

__all__ = ["register"]


def _corners(boxes: np.ndarray, center_point_box: int) -> np.ndarray:
    """(y_min, x_min, y_max, x_max) of every box, whichever corners or centre form it uses."""
    b = boxes.astype(np.float64)
    if center_point_box:
        xc, yc, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=-1)
    y_lo = np.minimum(b[..., 0], b[..., 2])
    y_hi = np.maximum(b[..., 0], b[..., 2])
    x_lo = np.minimum(b[..., 1], b[..., 3])
    x_hi = np.maximum(b[..., 1], b[..., 3])
    return np.stack([y_lo, x_lo, y_hi, x_hi], axis=-1)


def _iou_with(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Intersection over union of one box with many; 0 when they do not overlap."""
    top = np.maximum(box[0], others[:, 0])
    left = np.maximum(box[1], others[:, 1])
    bottom = np.minimum(box[2], others[:, 2])
    right = np.minimum(box[3], others[:, 3])
    inter = np.clip(bottom - top, 0, None) * np.clip(right - left, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    union = area + areas - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.where((inter > 0) & (union > 0), inter / np.where(union > 0, union, 1), 0.0)
    return iou


def _select(
    corners: np.ndarray,
    scores: np.ndarray,
    limit: int,
    iou_threshold: float,
    score_threshold: float | None,
) -> list[int]:
    candidates = np.arange(scores.shape[0])
    if score_threshold is not None:
        candidates = candidates[scores > score_threshold]
    # Highest score first; equal scores keep their original order.
    order = candidates[np.argsort(-scores[candidates], kind="stable")]
    selected: list[int] = []
    while order.size and len(selected) < limit:
        best = int(order[0])
        selected.append(best)
        rest = order[1:]
        order = rest[_iou_with(corners[best], corners[rest]) <= iou_threshold]
    return selected


def _scalar(value: np.ndarray | None, default: float) -> float:
    if value is None or np.asarray(value).size == 0:
        return default
    return float(np.asarray(value).reshape(-1)[0])


def non_max_suppression(
    boxes: np.ndarray,
    scores: np.ndarray,
    max_output_boxes_per_class: np.ndarray | None = None,
    iou_threshold: np.ndarray | None = None,
    score_threshold: np.ndarray | None = None,
    *,
    center_point_box: int = 0,
) -> np.ndarray:
    """NonMaxSuppression-10/11: selected (batch, class, box) index triples, int64."""
    op = "NonMaxSuppression"
    if boxes.ndim != 3 or boxes.shape[2] != 4:
        fail(op, f"boxes must have shape (batches, spatial, 4), got {boxes.shape}")
    if scores.ndim != 3 or scores.shape[0] != boxes.shape[0] or scores.shape[2] != boxes.shape[1]:
        fail(
            op,
            f"scores must have shape ({boxes.shape[0]}, classes, {boxes.shape[1]}), got "
            f"{scores.shape}",
        )
    if center_point_box not in (0, 1):
        fail(op, f"center_point_box must be 0 or 1, got {center_point_box}")
    limit = int(_scalar(max_output_boxes_per_class, 0))
    iou = _scalar(iou_threshold, 0.0)
    threshold = (
        None
        if score_threshold is None or score_threshold.size == 0
        else _scalar(score_threshold, 0.0)
    )
    corners = _corners(boxes, center_point_box)
    triples: list[tuple[int, int, int]] = []
    if limit > 0:
        tick = ticker()  # many classes stop between classes when cancelled or out of time
        for b in range(scores.shape[0]):
            for c in range(scores.shape[1]):
                tick()
                chosen = _select(corners[b], scores[b, c].astype(np.float64), limit, iou, threshold)
                triples.extend((b, c, i) for i in chosen)
    return np.array(triples, np.int64).reshape(-1, 3)


def register(kernels: KernelRegistry) -> None:
    """Add NonMaxSuppression to ``kernels``."""
    kernels.add("NonMaxSuppression", non_max_suppression, since=(10, 11))
