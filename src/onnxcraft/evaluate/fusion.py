"""Rewrites of a prepared graph that save whole passes over activations (``fuse=True``).

Three rewrites:

- A Conv followed by an inference BatchNormalization that alone reads the Conv's output
  becomes one Conv with folded weights (:mod:`onnxcraft.ops.normalization.folding` says how,
  and what it does to rounding). The weights and statistics must be constants of the graph
  (initializers or folded nodes, never graph inputs a feed may replace).
- A Relu that alone reads the output of a node whose kernel returns a new array (Conv,
  BatchNormalization, Add ...) clamps that array in place, right after the node: the same
  values, without a second array and a second pass. The arrays of other nodes may be views
  of their inputs (Reshape, Identity), or of a constant, which must never change.
- A Conv whose weights are constants of the graph runs prepared
  (:mod:`onnxcraft.ops.conv.prepared`: layouts that avoid most of the im2col copy, rounding
  within float precision of the written kernel), with the Add that alone reads its output
  (a residual connection) and then the Relu that alone reads that, applied in place.

Every node must be a standard ai.onnx one. The fused step keeps the first node, so errors
name it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.ops.clamp import clamp_at_zero
from onnxcraft.ops.conv.prepared import prepare_conv
from onnxcraft.ops.kernel_api import Step, SubgraphRef
from onnxcraft.ops.normalization.folding import fold_batch_norm, is_inference_batch_norm

__all__ = ["fuse_steps"]

# Operators whose kernels return an array of their own (never a view of an input or of a
# constant), which a Relu after them may therefore overwrite.
_FRESH_OUTPUT = frozenset(
    {"Conv", "BatchNormalization", "Add", "Sub", "Mul", "Div", "Gemm", "MatMul"}
)


def fuse_steps(
    steps: list[Step], constants: dict[str, Any], inputs: set[str], kept: set[str]
) -> list[Step]:
    """``steps`` with the rewrites above applied.

    ``inputs`` are the graph's inputs (never treated as constant), ``kept`` the names that
    must still be produced (the graph's outputs). Folded weights join ``constants`` under
    names no graph can use (they start with a NUL character).
    """
    steps = _fold_batch_norms(steps, constants, inputs, kept)
    steps = _prepare_convolutions(steps, constants, inputs, kept)
    return _merge_relus(steps, kept)


def _fold_batch_norms(
    steps: list[Step], constants: dict[str, Any], inputs: set[str], kept: set[str]
) -> list[Step]:
    readers = _readers(steps)
    producer = _producers(steps)
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
    return _rebuilt(steps, replaced, dropped)


def _merge_relus(steps: list[Step], kept: set[str]) -> list[Step]:
    readers = _readers(steps)
    producer = _producers(steps)
    replaced: dict[int, Step] = {}
    dropped: set[int] = set()
    for index, step in enumerate(steps):
        if not _is_standard(step, "Relu") or step.since_version < 6 or len(step.inputs) != 1:
            continue
        data = step.inputs[0]
        source = producer.get(data)
        if source is None or source in replaced or data in kept or readers[data] != 1:
            continue
        first = steps[source]
        if first.node.op_type not in _FRESH_OUTPUT or not _is_standard(first, first.node.op_type):
            continue
        if not _library_kernel(first):
            continue  # a kernel of the caller's own registry may return a view of its input
        if len(first.outputs) != 1 or step.fn is None or first.fn is None:
            continue
        replaced[source] = replace(
            first, fn=_then_relu(first.fn, step.fn), outputs=[step.outputs[0]]
        )
        dropped.add(index)
    return _rebuilt(steps, replaced, dropped)


def _prepare_convolutions(
    steps: list[Step], constants: dict[str, Any], inputs: set[str], kept: set[str]
) -> list[Step]:
    readers = _readers(steps)
    fixed = set(constants) - inputs
    reader_of = {
        name: index for index, step in enumerate(steps) for name in set(step.inputs) if name
    }  # the last step reading each name: the only one where readers[name] == 1
    replaced: dict[int, Step] = {}
    dropped: set[int] = set()
    for index, step in enumerate(steps):
        if not _is_standard(step, "Conv") or not _library_kernel(step) or index in dropped:
            continue
        if len(step.outputs) != 1 or not 2 <= len(step.inputs) <= 3:
            continue
        weight, bias = step.inputs[1], step.inputs[2] if len(step.inputs) > 2 else ""
        if not step.inputs[0] or weight not in fixed or (bias and bias not in fixed):
            continue

        def sole_reader(name: str, op_type: str, since: int) -> int | None:
            if name in kept or readers[name] != 1:
                return None
            at = reader_of[name]
            reader = steps[at]
            if at in replaced or at in dropped or not _is_standard(reader, op_type):
                return None
            if reader.since_version < since or not _library_kernel(reader):
                return None
            return at

        inputs_of_step = [step.inputs[0]]
        output, last = step.outputs[0], index
        add_at = sole_reader(output, "Add", 7)  # 7: numpy broadcasting, no attributes
        add_step = steps[add_at] if add_at is not None else None
        others = [name for name in add_step.inputs if name != output] if add_step else []
        if add_step is None or len(add_step.inputs) != 2 or len(others) != 1 or not others[0]:
            add_at = add_step = None  # no Add, or Add(y, y): left as written
        else:
            assert add_at is not None  # add_step came from it
            inputs_of_step.append(others[0])
            output, last = add_step.outputs[0], add_at
        relu_at = sole_reader(output, "Relu", 6)
        relu_step = steps[relu_at] if relu_at is not None else None
        if relu_step is not None and relu_at is not None:
            output, last = relu_step.outputs[0], relu_at
        prepared = prepare_conv(
            constants[weight],
            constants[bias] if bias else None,
            step.attributes,
            add=add_step.fn if add_step is not None else None,
            conv_first=add_step is None or add_step.inputs[0] == step.outputs[0],
            relu=relu_step.fn if relu_step is not None else None,
        )
        if prepared is None:
            continue
        # The fused step sits where its last node was: the Add's other input may be computed
        # after the Conv (a shortcut's own Conv), and the Conv's inputs are there already.
        replaced[last] = replace(
            step, fn=prepared, inputs=inputs_of_step, outputs=[output], attributes={}
        )
        dropped.update(at for at in (index, add_at, relu_at) if at is not None and at != last)
    return _rebuilt(steps, replaced, dropped)


def _then_relu(kernel: Callable[..., Any], relu: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` whose float result is then clamped at zero in place (other results go
    through the Relu kernel itself)."""

    def run(*args: Any, **attributes: Any) -> Any:
        result = kernel(*args, **attributes)
        value = result[0] if isinstance(result, tuple) else result
        if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.flags.writeable:
            clamp_at_zero(value)  # np.maximum's values, through its fast loop
            return value
        return relu(value)

    return run


def _rebuilt(steps: list[Step], replaced: dict[int, Step], dropped: set[int]) -> list[Step]:
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


def _library_kernel(step: Step) -> bool:
    """Whether the step runs onnxcraft's own kernel for its operator (whose output is known to
    be a new array), not one from a registry the caller passed."""
    node = step.node
    entry = default_registry().lookup(node.domain, node.op_type, step.since_version)
    return entry is not None and entry.fn is step.fn


def _producers(steps: list[Step]) -> dict[str, int]:
    return {name: index for index, step in enumerate(steps) for name in step.outputs if name}


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
