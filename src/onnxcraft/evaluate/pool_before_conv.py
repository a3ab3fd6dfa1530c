"""An AveragePool after a 1x1 Conv runs before it (``fuse=True``): DenseNet's transitions.

A 1x1 Conv with stride 1 and no padding is the same matrix applied at every position, plus
its bias; an AveragePool without padding (every window full, so every window divides by its
own size) averages positions of each channel. Both are linear and act on different axes, so
they commute, and the bias passes through the average unchanged. Pooling first makes the
Conv's matrix product 1/(window size) as long: a quarter for DenseNet's 2x2, stride-2
transitions, for one pool over the Conv's input instead of its output (twice the channels).

It rounds differently: the averages are taken of the inputs, then multiplied, instead of
averaging the products (float rounding of the Conv's dot product and of a 4-term mean,
relative to their terms).

The 2x2, stride-2 pool itself runs here as two adds of strided views (the rows of each
pair, then the columns), an image at a time so that the intermediate stays in cache: the
same sums in the same order as the AveragePool kernel, so the same bits, in about half its
time on DenseNet's transitions.

Taken when the Conv's output is read by the AveragePool alone (and is not a graph output),
the Conv has 1x1 kernels, stride 1, no padding and constant weights (so a feed cannot give it
another kernel size), and the pool has no padding, no ceil mode and no dilation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft.evaluate.step_links import sole_readers, with_replacements
from onnxcraft.ops.kernel_api import Step

__all__ = ["pool_before_conv"]


def pool_before_conv(
    steps: list[Step],
    constants: dict[str, Any],
    fixed: set[str],
    kept: set[str],
    readers: Counter[str],
    is_library_step: Callable[[Step, str], bool],
) -> list[Step]:
    """``steps`` with each 1x1 Conv -> AveragePool swapped as above.

    ``fixed`` are the constants no feed can replace, ``kept`` the names the graph must
    produce, ``readers`` how many steps read each name, ``is_library_step(step, op_type)``
    whether a step runs onnxcraft's own kernel of a standard operator.
    """
    sole = sole_readers(steps, readers, kept)
    replaced: dict[int, Step] = {}
    for index, conv in enumerate(steps):
        if index in replaced or not _pointwise_conv(conv, constants, fixed, is_library_step):
            continue
        output = conv.outputs[0]
        pool_at = sole.get(output)
        if pool_at is None:
            continue
        pool = steps[pool_at]
        if pool_at in replaced or not is_library_step(pool, "AveragePool"):
            continue
        if pool.inputs != [output] or len(pool.outputs) != 1 or not pool.outputs[0]:
            continue
        if not _full_windows(pool.attributes, constants[conv.inputs[1]].ndim - 2):
            continue
        pooled = f"\0pooled input of {pool.outputs[0]}"
        # The pool sits where the Conv was (its input is there already), the Conv where the
        # pool was, reading the pooled input and naming the pool's output.
        kernel = pool.fn
        if _halving(pool.attributes) and kernel is not None:
            kernel = _mean_of_pairs(kernel, has_context=pool.context is not None)
        replaced[index] = replace(pool, fn=kernel, inputs=[conv.inputs[0]], outputs=[pooled])
        replaced[pool_at] = replace(
            conv, inputs=[pooled, *conv.inputs[1:]], outputs=[pool.outputs[0]]
        )
    return with_replacements(steps, replaced)


def _pointwise_conv(
    conv: Step,
    constants: dict[str, Any],
    fixed: set[str],
    is_library_step: Callable[[Step, str], bool],
) -> bool:
    """Whether ``conv`` is a 1x1, stride-1, unpadded Conv with constant weights."""
    if not is_library_step(conv, "Conv") or len(conv.outputs) != 1 or not conv.outputs[0]:
        return False
    if not 2 <= len(conv.inputs) <= 3 or not conv.inputs[0]:
        return False
    if not all(name in fixed for name in conv.inputs[1:] if name):
        return False
    weight = constants[conv.inputs[1]]
    if not isinstance(weight, np.ndarray) or weight.ndim < 3 or weight.dtype.kind != "f":
        return False
    if any(size != 1 for size in weight.shape[2:]):
        return False
    attributes = conv.attributes
    if attributes.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        return False
    if any(attributes.get("pads") or ()):
        return False
    if any(size != 1 for size in attributes.get("kernel_shape") or ()):
        return False
    return all(stride == 1 for stride in attributes.get("strides") or ())


def _halving(attributes: dict[str, Any]) -> bool:
    kernel, strides = attributes.get("kernel_shape") or (), attributes.get("strides") or ()
    return tuple(kernel) == (2, 2) and tuple(strides) == (2, 2)


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _mean_of_pairs(kernel: Callable[..., Any], *, has_context: bool) -> Callable[..., Any]:
    """The AveragePool kernel, 2x2 windows at stride 2 without padding taken by two strided
    adds for a float32 or float64 (N, C, H, W) array (others through ``kernel``)."""

    def run(*args: Any, **attributes: Any) -> Any:
        x = args[1] if has_context else args[0]
        if not (isinstance(x, np.ndarray) and x.dtype in _FLOATS and x.ndim == 4):
            return kernel(*args, **attributes)
        n, c, h, w = x.shape
        if min(n, c, h // 2, w // 2) == 0:
            return kernel(*args, **attributes)
        rows = np.empty((c, h // 2, w - w % 2), x.dtype)  # one image's row pairs summed
        y = np.empty((n, c, h // 2, w // 2), x.dtype)
        for image, out in zip(x[:, :, : h - h % 2, : w - w % 2], y, strict=True):
            np.add(image[:, 0::2], image[:, 1::2], out=rows)
            np.add(rows[:, :, 0::2], rows[:, :, 1::2], out=out)
        y *= x.dtype.type(0.25)  # a power of two: the same as dividing by the window's 4
        return y

    return run


def _full_windows(attributes: dict[str, Any], rank: int) -> bool:
    """Whether an AveragePool's every window lies on the input (so each is a plain mean)."""
    kernel = attributes.get("kernel_shape") or ()
    if len(kernel) != rank:
        return False
    if attributes.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        return False
    if any(attributes.get("pads") or ()) or attributes.get("ceil_mode", 0):
        return False
    return all(d == 1 for d in attributes.get("dilations") or ())
