"""BatchNormalization folded into the convolution before it (the evaluator's ``fuse`` option).

In inference, BatchNormalization is a per-channel affine map, y = x * k + c with
k = scale / sqrt(var + epsilon) and c = B - mean * k. A Conv whose output feeds only the
BatchNormalization can carry it: W' = W * k (each output channel's filter scaled) and
B' = (B_conv - mean) * k + B. This saves a whole pass over the activation, but rounds
differently: the products are formed with W' rounded to the weight's type instead of
rounding the Conv's sum, then the affine map. The folded parameters are computed in float64
and rounded once, so each weight is off by at most half an ulp of its type, and the output by
about that relative to the sum of |x * W'| terms: float32 rounding of the dot product, the
same order as the Conv's own. ``fuse=False`` (``oc.Evaluator``, ``oc.evaluate``) runs every
node as written.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["FOLDABLE_BATCH_NORM_VERSIONS", "fold_batch_norm", "is_inference_batch_norm"]

# Versions whose inference form is the per-channel affine map (7 and earlier have
# ``spatial`` and ``is_test`` switches: left as they are).
FOLDABLE_BATCH_NORM_VERSIONS = (9, 14, 15)
_FOLDABLE_TYPES = (np.dtype(np.float32), np.dtype(np.float64))


def is_inference_batch_norm(
    since_version: int, outputs: list[str], attributes: dict[str, Any]
) -> bool:
    """Whether a BatchNormalization node normalizes with its running statistics only.

    Version 9 trains when any statistics output is named; 14 and 15 when ``training_mode``
    is set (their extra outputs exist only then).
    """
    if since_version not in FOLDABLE_BATCH_NORM_VERSIONS:
        return False
    if any(outputs[1:]):
        return False
    return not attributes.get("training_mode", 0)


def fold_batch_norm(
    w: Any,
    b: Any | None,
    scale: Any,
    bias: Any,
    mean: Any,
    var: Any,
    epsilon: float,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The Conv weight and bias that also apply the BatchNormalization, or None when the
    operands do not allow it (other element types, per-activation parameters, shapes that
    do not match the Conv's output channels)."""
    arrays = [w, scale, bias, mean, var] + ([] if b is None else [b])
    if not all(isinstance(a, np.ndarray) for a in arrays):
        return None
    if w.dtype not in _FOLDABLE_TYPES or any(a.dtype != w.dtype for a in arrays):
        return None
    channels = w.shape[0] if w.ndim >= 3 else -1
    if any(a.shape != (channels,) for a in arrays[1:]):
        return None
    wide = [a.astype(np.float64) for a in (scale, bias, mean, var)]
    factor = wide[0] / np.sqrt(wide[3] + np.float64(epsilon))
    weight = w.astype(np.float64) * factor.reshape((-1,) + (1,) * (w.ndim - 1))
    conv_bias = np.zeros(channels) if b is None else b.astype(np.float64)
    folded_bias = (conv_bias - wide[2]) * factor + wide[1]
    return weight.astype(w.dtype), folded_bias.astype(w.dtype)
