"""The FlexAttention kernel (ai.onnx.preview opset 1): attention with user-defined modifiers.

    scores = (Q sqrt(scale)) (K sqrt(scale))^T       in the input type
    scores = score_mod(scores)                       in the softmax precision
    probs  = prob_mod(Softmax(scores))               in the softmax precision
    Y      = probs V                                 in the softmax precision, cast back

The modifiers are graph attributes, called through the evaluator's ``Subgraph`` with one rank-4
tensor of the softmax precision (float32 unless the inputs are double or ``softmax_precision``
says otherwise). Each K/V head serves a contiguous group of query heads. As in the standard's
function body, a row the score modifier masks entirely (all -inf) gives NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.ops.attention.kernels import check_heads
from onnxcraft.ops.kernel_api import KernelRegistry, Subgraph
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.lowp import Precision, float_values
from onnxcraft.ops.versions import versions

__all__ = ["flex_attention", "register"]

_OP = "FlexAttention"
_DOMAIN = "ai.onnx.preview"


def _check_shapes(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> int:
    """Checks Q, K and V; returns how many query heads each key/value head serves."""
    for name, x in (("Q", q), ("K", k), ("V", v)):
        if x.ndim != 4:
            fail(
                _OP,
                f"{name} must be 4-D (batch, heads, sequence, head_size); "
                f"got shape {list(x.shape)}",
            )
        if x.dtype != q.dtype:
            fail(_OP, f"{name} must have the element type of Q ({q.dtype}); got {x.dtype}")
    return check_heads(_OP, q, k, v)


def _softmax_type(t1: Precision, softmax_precision: int | None) -> Precision:
    if softmax_precision is not None:
        return Precision.named(_OP, softmax_precision, "softmax_precision")
    return Precision(ElementType.DOUBLE if t1.elem == ElementType.DOUBLE else ElementType.FLOAT)


def _modify(body: Subgraph, name: str, work: Precision, x: np.ndarray) -> np.ndarray:
    """Run a modifier subgraph on ``x``; its one output must keep x's shape and type."""
    results = body(work.encode(x))
    if len(results) != 1:
        fail(_OP, f"{name} must produce exactly one output; it produced {len(results)}")
    out = np.asarray(results[0])
    if out.shape != x.shape:
        fail(
            _OP,
            f"{name} must keep the shape {list(x.shape)} of its input; "
            f"it produced {list(out.shape)}",
        )
    try:
        elem = element_type_of(out.dtype)
    except (TypeError, ValueError):
        elem = ElementType.UNDEFINED
    if elem != work.elem:
        fail(
            _OP,
            f"{name} must produce {work.elem.name.lower()} (the softmax precision); "
            f"it produced numpy dtype {out.dtype}",
        )
    return float_values(out).astype(work.work)


def flex_attention(
    q: Any,
    k: Any,
    v: Any,
    *,
    scale: float | None = None,
    score_mod: Subgraph | None = None,
    prob_mod: Subgraph | None = None,
    softmax_precision: int | None = None,
) -> np.ndarray:
    q_in, k_in, v_in = np.asarray(q), np.asarray(k), np.asarray(v)
    group = _check_shapes(q_in, k_in, v_in)
    t1 = Precision.of(_OP, q_in, "Q")
    work = _softmax_type(t1, softmax_precision)
    keys = np.repeat(float_values(k_in), group, axis=1)
    values = np.repeat(float_values(v_in), group, axis=1)
    # The scale is computed in float32 and applied as sqrt(scale) to Q and K, in T1.
    chosen = np.float32(1) / np.sqrt(np.float32(q_in.shape[3])) if scale is None else scale
    with np.errstate(divide="ignore"):
        factor = t1.round(np.sqrt(np.float32(chosen)))
    scaled_k = np.swapaxes(t1.round(keys * factor), -1, -2)
    scores = work.round(t1.matmul(t1.round(float_values(q_in) * factor), scaled_k))
    if score_mod is not None:
        scores = _modify(score_mod, "score_mod", work, scores)
    probs = work.softmax(scores, zero_masked_rows=False)
    if prob_mod is not None:
        probs = _modify(prob_mod, "prob_mod", work, probs)
    return t1.encode(work.matmul(probs, work.round(values)))


def register(kernels: KernelRegistry) -> None:
    kernels.add(
        "FlexAttention", flex_attention, since=versions("FlexAttention", _DOMAIN), domain=_DOMAIN
    )
