"""Rewrites of a prepared graph that save whole passes over activations (``fuse=True``).

One rewrite today: a Conv followed by an inference BatchNormalization that alone reads the
Conv's output becomes one Conv with folded weights (:mod:`onnxcraft.ops.normalization.folding`
says how and what it does to rounding). Both nodes must be standard ai.onnx ones, and the
weights and statistics constants of the graph (initializers or folded nodes, never graph
inputs a feed may replace). The fused step keeps the Conv's node, so errors still name it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from onnxcraft.ops.kernel_api import Step, SubgraphRef
from onnxcraft.ops.normalization.folding import fold_batch_norm, is_inference_batch_norm

__all__ = ["fuse_steps"]


def fuse_steps(
    steps: list[Step], constants: dict[str, Any], inputs: set[str], kept: set[str]
) -> list[Step]:
    """``steps`` with each foldable Conv + BatchNormalization pair made one step.

    ``inputs`` are the graph's inputs (never treated as constant), ``kept`` the names that
    must still be produced (the graph's outputs). Folded weights join ``constants`` under
    names no graph can use (they start with a NUL character).
    """
    readers = _readers(steps)
    producer = {name: index for index, step in enumerate(steps) for name in step.outputs if name}
    fixed = set(constants) - inputs
    replaced: dict[int, Step] = {}
    dropped: set[int] = set()
    for index, step in enumerate(steps):
        if not _is_standard(step, "BatchNormalization") or len(step.inputs) != 5:
            continue
        if not is_inference_batch_norm(step.since_version, step.outputs, step.attributes):
            continue
        data = step.inputs[0]
        source = producer.get(data)
        if source is None or source in replaced or data in kept or readers[data] != 1:
            continue
        conv = steps[source]
        if not _is_standard(conv, "Conv") or len(conv.outputs) != 1:
            continue
        weight = conv.inputs[1] if len(conv.inputs) > 1 else ""
        bias = conv.inputs[2] if len(conv.inputs) > 2 else ""
        statistics = step.inputs[1:]
        if weight not in fixed or (bias and bias not in fixed):
            continue
        if not all(name in fixed for name in statistics):
            continue
        scale, shift, mean, var = (constants[name] for name in statistics)
        folded = fold_batch_norm(
            constants[weight],
            constants[bias] if bias else None,
            scale,
            shift,
            mean,
            var,
            float(step.attributes.get("epsilon", 1e-5)),
        )
        if folded is None:
            continue
        weight_name = f"\0fused weight of {step.outputs[0]}"
        bias_name = f"\0fused bias of {step.outputs[0]}"
        constants[weight_name], constants[bias_name] = folded
        replaced[source] = replace(
            conv, inputs=[conv.inputs[0], weight_name, bias_name], outputs=[step.outputs[0]]
        )
        dropped.add(index)
    if not replaced:
        return steps
    return [replaced.get(i, step) for i, step in enumerate(steps) if i not in dropped]


def _is_standard(step: Step, op_type: str) -> bool:
    node = step.node
    return (
        node.op_type == op_type
        and node.domain in ("", "ai.onnx")
        and step.fn is not None
        and step.function_plan is None
    )


def _readers(steps: list[Step]) -> Counter[str]:
    """How many steps read each name (a subgraph's reads count for its node)."""
    counts: Counter[str] = Counter()
    for step in steps:
        names = {name for name in step.inputs if name}
        for attr in step.subgraph_attributes:
            value = step.attributes[attr]
            for ref in value if isinstance(value, list) else [value]:
                if isinstance(ref, SubgraphRef):
                    names.update(ref.plan.free_names)
        counts.update(names)
    return counts
