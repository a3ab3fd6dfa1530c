"""Version adapters of the losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss below
12, where neither exists. The standard's bodies depend on the node's types and attributes, so
the computation is written here for the node at hand, with operators every opset from 7 has:
the picked log-probability is a Gather from the flattened input at indices computed from the
(static) shape, the weights a Gather from ``weight``, ``ignore_index`` a mask."""

from __future__ import annotations

import math

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry

_FLOAT, _FLOAT16, _DOUBLE = 1, 10, 11
_REDUCTIONS = ("none", "sum", "mean")


def _text(value: object, default: str) -> str:
    if value is None:
        return default
    return value.decode() if isinstance(value, bytes) else str(value)


def _static_shape(ctx: AdapterContext, name: str, what: str) -> tuple[int, ...]:
    shape = ctx.shape(name)
    if shape is None or not all(isinstance(d, int) for d in shape):
        ctx.fail(f"the shape of {what} must be known (it is {shape}) to index it by class")
    return tuple(int(d) for d in shape)


def _computing_type(ctx: AdapterContext, name: str) -> int:
    elem = ctx.elem_type(name)
    if elem is None or int(elem) not in (_FLOAT, _FLOAT16, _DOUBLE):
        ctx.fail(f"the input's element type must be float16, float or double, got {elem}")
    return int(elem)


def _nll_absent(ctx: AdapterContext) -> None:
    """NegativeLogLikelihoodLoss-12 -> before 12: ``-input[n, target[n, d], d] * weight``,
    reduced as asked; float16 is computed in float, as the operator's evaluation does."""
    log_prob, target, weight = ctx.input(0), ctx.input(1), ctx.input(2)
    reduction = _text(ctx.attr("reduction"), "mean")
    if reduction not in _REDUCTIONS:
        ctx.fail(f"reduction={reduction!r} is not one of {_REDUCTIONS}")
    elem = _computing_type(ctx, log_prob)
    shape = _static_shape(ctx, log_prob, "input")
    if len(shape) < 2:
        ctx.fail(f"the input must have rank >= 2 (N, C, ...), got shape {shape}")
    loss = _nll_subgraph(ctx, log_prob, target, weight, shape, elem, reduction)
    ctx.emit("Identity", [loss], [ctx.node.outputs[0]], opset=13)
    ctx.remove()


def _nll_subgraph(
    ctx: AdapterContext,
    log_prob: str,
    target: str,
    weight: str,
    shape: tuple[int, ...],
    elem: int,
    reduction: str,
) -> str:
    """The emitted loss (in the element type ``elem`` of ``log_prob``)."""
    batch, classes = shape[0], shape[1]
    inner = math.prod(shape[2:])
    ignore_index = ctx.attr("ignore_index")
    compute = _FLOAT if elem == _FLOAT16 else elem
    if compute != elem:
        (log_prob,) = ctx.emit("Cast", [log_prob], 1, {"to": ("INT", compute)}, opset=13)
        if weight:
            (weight,) = ctx.emit("Cast", [weight], 1, {"to": ("INT", compute)}, opset=13)
    labels = target
    if ctx.elem_type(target) is None or int(ctx.elem_type(target) or 0) != 7:
        (labels,) = ctx.emit("Cast", [target], 1, {"to": ("INT", 7)}, opset=13)
    keep = ""
    if ignore_index is not None:
        ignored_value = ctx.add_constant(np.asarray(int(ignore_index), np.int64), "nll_ignore")
        (ignored,) = ctx.emit("Equal", [labels, ignored_value], 1, opset=13)
        (kept,) = ctx.emit("Not", [ignored], 1, opset=1)
        (kept_int,) = ctx.emit("Cast", [kept], 1, {"to": ("INT", 7)}, opset=13)
        (labels,) = ctx.emit("Mul", [labels, kept_int], 1, opset=14)  # ignored -> class 0
        (keep,) = ctx.emit("Cast", [kept], 1, {"to": ("INT", compute)}, opset=13)
    # flat index of input[n, label, d] in the input flattened to one axis
    offsets = (
        np.arange(batch, dtype=np.int64).reshape(batch, 1) * (classes * inner)
        + np.arange(inner, dtype=np.int64).reshape(1, inner)
    ).reshape((batch, *shape[2:]))
    stride = ctx.add_constant(np.asarray(inner, np.int64), "nll_stride")
    base = ctx.add_constant(offsets, "nll_offsets")
    (scaled,) = ctx.emit("Mul", [labels, stride], 1, opset=14)
    (index,) = ctx.emit("Add", [scaled, base], 1, opset=14)
    flat_shape = ctx.add_constant(np.asarray([-1], np.int64), "nll_flat")
    (flat,) = ctx.emit("Reshape", [log_prob, flat_shape], 1, opset=14)
    # written at opset 1: the indices are non-negative by construction (labels lie in
    # [0, C), ignored ones were set to 0), so no version's meaning of negatives is needed
    (picked,) = ctx.emit("Gather", [flat, index], 1, {"axis": ("INT", 0)}, opset=1)
    (loss,) = ctx.emit("Neg", [picked], 1, opset=13)
    weights = ""
    if weight:
        (weights,) = ctx.emit("Gather", [weight, labels], 1, {"axis": ("INT", 0)}, opset=1)
        if keep:
            (weights,) = ctx.emit("Mul", [weights, keep], 1, opset=14)
    elif keep:
        weights = keep
    if weights:
        (loss,) = ctx.emit("Mul", [loss, weights], 1, opset=14)
    if reduction == "sum":
        (loss,) = ctx.emit("ReduceSum", [loss], 1, {"keepdims": ("INT", 0)}, opset=13)
    elif reduction == "mean" and weights:
        (total,) = ctx.emit("ReduceSum", [loss], 1, {"keepdims": ("INT", 0)}, opset=13)
        (count,) = ctx.emit("ReduceSum", [weights], 1, {"keepdims": ("INT", 0)}, opset=13)
        (loss,) = ctx.emit("Div", [total, count], 1, opset=14)
    elif reduction == "mean":
        (loss,) = ctx.emit("ReduceMean", [loss], 1, {"keepdims": ("INT", 0)}, opset=13)
    if compute != elem:
        (loss,) = ctx.emit("Cast", [loss], 1, {"to": ("INT", elem)}, opset=13)
    return loss


def _sce_absent(ctx: AdapterContext) -> None:
    """SoftmaxCrossEntropyLoss-12 -> before 12: LogSoftmax over axis 1 (written at opset 13,
    moved to the last axis further down), then the negative log-likelihood as above; float16
    is computed in float."""
    scores, labels, weights = ctx.input(0), ctx.input(1), ctx.input(2)
    reduction = _text(ctx.attr("reduction"), "mean")
    if reduction not in _REDUCTIONS:
        ctx.fail(f"reduction={reduction!r} is not one of {_REDUCTIONS}")
    elem = _computing_type(ctx, scores)
    shape = _static_shape(ctx, scores, "scores")
    if len(shape) < 2:
        ctx.fail(f"scores must have rank >= 2 (N, C, ...), got shape {shape}")
    compute = _FLOAT if elem == _FLOAT16 else elem
    if compute != elem:
        (scores,) = ctx.emit("Cast", [scores], 1, {"to": ("INT", compute)}, opset=13)
        if weights:
            (weights,) = ctx.emit("Cast", [weights], 1, {"to": ("INT", compute)}, opset=13)
    (log_prob,) = ctx.emit("LogSoftmax", [scores], 1, {"axis": ("INT", 1)}, opset=13)
    loss = _nll_subgraph(ctx, log_prob, labels, weights, shape, compute, reduction)
    outputs = list(ctx.node.outputs) + [""]
    if compute != elem:
        ctx.emit("Cast", [loss], [outputs[0]], {"to": ("INT", elem)}, opset=13)
        if outputs[1]:
            ctx.emit("Cast", [log_prob], [outputs[1]], {"to": ("INT", elem)}, opset=13)
    else:
        ctx.emit("Identity", [loss], [outputs[0]], opset=13)
        if outputs[1]:
            ctx.emit("Identity", [log_prob], [outputs[1]], opset=13)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("NegativeLogLikelihoodLoss", 12, ABSENT, _nll_absent, "before 12: Gather-based form")
    table.add("SoftmaxCrossEntropyLoss", 12, ABSENT, _sce_absent, "before 12: LogSoftmax and NLL")
