"""A standing BatchNormalization -> Relu -> Conv made one clamp and a Conv with scaled
weights (``fuse=True``): DenseNet's layers after each Concat.

In inference, the BatchNormalization is y = a x + b per channel, so the Relu gives
max(a x + b, 0). Where every factor a is positive, that is a (max(x, -c) + c) with
c = b / a: the factor a goes into the Conv's weights (each input channel's taps scaled),
and the constant c, since the Conv is linear and has no padding (a padded zero would miss
its c), into its bias: bias + sum of the scaled taps times c. What is left to do over the
activation is one ``np.maximum`` against the per-channel bound -c, instead of a multiply,
an add and a clamp (three passes): the same function, NaN and infinities included (an
input of -inf is held at -c, whose c the bias takes back out).

It rounds differently: the products use the scaled weights, rounded once to their type, and
a channel the Relu zeroes sums its -c against the bias's +c instead of adding nothing; both
errors are float rounding of the Conv's dot product, relative to its terms. The fused
parameters are computed in float64 and rounded once.

Taken when the statistics and the Conv's weight and bias are constants of one float type,
every factor is positive and finite (otherwise the nodes run as written), the Relu alone
reads the BatchNormalization and the Conv alone reads the Relu (group 1, no padding). An
input of another type (a graph whose types do not match) takes the written
BatchNormalization and Relu and is then mapped back, x' = relu(...) / a - c, for the
scaled Conv: the written values up to the same rounding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft.evaluate.step_links import sole_readers, with_replacements
from onnxcraft.ops.conv.ones_channel import OnesChannel
from onnxcraft.ops.kernel_api import Step
from onnxcraft.ops.normalization.folding import is_inference_batch_norm

__all__ = ["ChannelClamp", "clamp_into_conv"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def clamp_into_conv(
    steps: list[Step],
    constants: dict[str, Any],
    fixed: set[str],
    kept: set[str],
    readers: Counter[str],
    is_library_step: Callable[[Step, str], bool],
) -> list[Step]:
    """``steps`` with each BatchNormalization -> Relu -> Conv rewritten as above.

    ``fixed`` are the constants no feed can replace, ``kept`` the names the graph must
    produce, ``readers`` how many steps read each name, ``is_library_step(step, op_type)``
    whether a step runs onnxcraft's own kernel of a standard operator. The scaled weights
    and biases join ``constants`` under names no graph can use (they start with NUL).
    """
    sole = sole_readers(steps, readers, kept)
    replaced: dict[int, Step] = {}
    dropped: set[int] = set()
    for index, norm in enumerate(steps):
        chain = _chain_after(index, steps, sole, fixed, is_library_step)
        if chain is None or dropped.intersection(chain) or set(chain) & set(replaced):
            continue
        relu, conv = steps[chain[0]], steps[chain[1]]
        weight = constants[conv.inputs[1]]
        bias = constants[conv.inputs[2]] if len(conv.inputs) > 2 and conv.inputs[2] else None
        epsilon = float(norm.attributes.get("epsilon", 1e-5))
        statistics = [constants[name] for name in norm.inputs[1:]]
        fused = _fused(weight, bias, statistics, epsilon)
        if fused is None:
            continue
        factor, bound, new_weight, new_bias = fused
        assert norm.fn is not None and relu.fn is not None
        # The clamp sits where the BatchNormalization was and names the Relu's output.
        replaced[index] = replace(
            norm,
            fn=ChannelClamp(norm.fn, relu.fn, statistics, factor, bound, norm.context is not None),
            inputs=[norm.inputs[0]],
            outputs=[relu.outputs[0]],
        )
        weight_name = f"\0scaled weight of {conv.outputs[0]}"
        bias_name = f"\0scaled bias of {conv.outputs[0]}"
        constants[weight_name], constants[bias_name] = new_weight, new_bias
        replaced[chain[1]] = replace(conv, inputs=[conv.inputs[0], weight_name, bias_name])
        dropped.add(chain[0])
    return with_replacements(steps, replaced, dropped)


def _chain_after(
    index: int,
    steps: list[Step],
    sole: dict[str, int],
    fixed: set[str],
    is_library_step: Callable[[Step, str], bool],
) -> tuple[int, int] | None:
    """(the Relu's index, the Conv's index) when steps[index] starts the pattern."""
    norm = steps[index]
    if not is_library_step(norm, "BatchNormalization") or len(norm.inputs) != 5:
        return None
    if not is_inference_batch_norm(norm.since_version, norm.outputs, norm.attributes):
        return None
    if not norm.inputs[0] or not all(name in fixed for name in norm.inputs[1:]):
        return None

    def sole_reader(name: str, op_type: str) -> int | None:
        at = sole.get(name)
        return at if at is not None and is_library_step(steps[at], op_type) else None

    relu_at = sole_reader(norm.outputs[0], "Relu")
    if relu_at is None or steps[relu_at].since_version < 6 or steps[relu_at].context:
        return None
    relu = steps[relu_at]
    conv_at = sole_reader(relu.outputs[0], "Conv")
    if conv_at is None:
        return None
    conv = steps[conv_at]
    if len(conv.outputs) != 1 or not 2 <= len(conv.inputs) <= 3:
        return None
    if conv.inputs[0] != relu.outputs[0] or relu.outputs[0] in conv.inputs[1:]:
        return None
    if conv.inputs[1] not in fixed or (len(conv.inputs) > 2 and conv.inputs[2] not in fixed):
        return None
    attributes = conv.attributes
    if attributes.get("group", 1) != 1 or attributes.get("auto_pad", "NOTSET") not in (
        "NOTSET",
        "VALID",
    ):
        return None
    if any(attributes.get("pads") or ()):
        return None  # a padded zero of the Relu's output would lose its c
    return relu_at, conv_at


def _fused(
    weight: Any, bias: Any, statistics: list[Any], epsilon: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(factor a, bound -c, scaled weight, bias with the c's) in the weight's type, or None
    when the operands do not allow the rewrite."""
    if not isinstance(weight, np.ndarray) or weight.dtype not in _FLOATS or weight.ndim < 3:
        return None
    dtype = weight.dtype
    arrays = statistics + ([] if bias is None else [bias])
    if not all(isinstance(a, np.ndarray) and a.dtype == dtype for a in arrays):
        return None
    channels = weight.shape[1]
    if any(a.shape != (channels,) for a in statistics):
        return None
    if bias is not None and bias.shape != (weight.shape[0],):
        return None
    scale, shift, mean, var = (a.astype(np.float64) for a in statistics)
    with np.errstate(all="ignore"):
        factor = scale / np.sqrt(var + np.float64(epsilon))
        offset = (shift - mean * factor) / factor  # c = b / a
    if not (np.all(np.isfinite(factor)) and np.all(factor > 0) and np.all(np.isfinite(offset))):
        return None  # a <= 0 clamps the other way, or not at all: left as written
    bound = (-offset).astype(dtype)
    wide = weight.astype(np.float64) * factor.reshape((1, -1) + (1,) * (weight.ndim - 2))
    scaled = wide.astype(dtype)
    # The bias takes back the c each channel's clamp added: sum over taps of W' c, with the
    # bound as rounded (so that a clamped channel's terms cancel as closely as they can).
    taps = scaled.astype(np.float64).reshape(weight.shape[0], channels, -1).sum(axis=2)
    new_bias = (np.zeros(weight.shape[0]) if bias is None else bias.astype(np.float64)) - (
        taps @ bound.astype(np.float64)
    )
    if not (np.all(np.isfinite(scaled)) and np.all(np.isfinite(new_bias))):
        return None
    return factor.astype(dtype), bound, scaled, new_bias.astype(dtype)


class ChannelClamp:
    """The clamp step's kernel: max(x, -c) per channel (axis 1) for an x of the weights'
    type; other inputs through the written kernels, mapped back for the scaled Conv."""

    def __init__(
        self,
        norm: Callable[..., Any],
        relu: Callable[..., Any],
        statistics: list[Any],
        factor: np.ndarray,
        bound: np.ndarray,
        has_context: bool,
    ) -> None:
        self.norm, self.relu, self.statistics = norm, relu, statistics
        self.factor, self.bound, self.has_context = factor, bound, has_context
        self.spare: OnesChannel | None = None  # see onnxcraft.evaluate.ones_channels

    def fits(self, x: Any) -> bool:
        """Whether ``x`` takes the clamp itself (see :meth:`clamp`)."""
        return (
            isinstance(x, np.ndarray)
            and x.dtype == self.bound.dtype
            and x.ndim >= 2
            and x.shape[1] == self.bound.shape[0]
        )

    def clamp(self, x: np.ndarray) -> np.ndarray:
        """max(x, -c), a new array, for an ``x`` that :meth:`fits`."""
        bound = self.bound.reshape((1, -1) + (1,) * (x.ndim - 2))
        out = None if self.spare is None else self.spare.array(x.shape, x.dtype)
        return np.asarray(np.maximum(x, bound, out=out))

    def __call__(self, *args: Any, **attributes: Any) -> Any:
        x = args[1] if self.has_context else args[0]
        if self.fits(x):
            return self.clamp(x)
        # Another type: the written nodes (their errors too), then x' with a x' + b = y.
        head = args[:1] if self.has_context else ()
        written = self.relu(self.norm(*head, x, *self.statistics, **attributes))
        if not isinstance(written, np.ndarray) or written.ndim < 2:
            return written
        shape = (1, -1) + (1,) * (written.ndim - 2)
        with np.errstate(all="ignore"):
            return written / self.factor.reshape(shape) + self.bound.reshape(shape)
