"""Rewrites of a prepared graph that save whole passes over activations (``fuse=True``).

The rewrites:

- A Conv followed by an inference BatchNormalization that alone reads the Conv's output
  becomes one Conv with folded weights (:mod:`onnxcraft.ops.normalization.folding` says how,
  and what it does to rounding). The weights and statistics must be constants of the graph
  (initializers or folded nodes, never graph inputs a feed may replace).
- A Relu that alone reads the output of a node whose kernel returns a new array (Conv,
  BatchNormalization, Add ...) clamps that array in place, right after the node: the same
  values, without a second array and a second pass. The arrays of other nodes may be views
  of their inputs (Reshape, Identity), or of a constant, which must never change.
- An inference BatchNormalization left standing (after a Concat, in a DenseNet) with float32
  constant statistics gets its per-channel factor and offset once, when the model is
  prepared, by the kernel's own operations: the same values, without 8 µs a call.
- An Add, Sub or Mul that alone reads such a fresh array (a residual Add after a Conv)
  writes its result over it, when the array has the result's shape and type: the same
  values, without a new array.
- Concats whose inputs grow one list (DenseNet's blocks) share one buffer, each copying
  only the inputs the one before it had not (:mod:`onnxcraft.evaluate.concat_chains`).
- A Conv whose weights are constants of the graph runs prepared
  (:mod:`onnxcraft.ops.conv.prepared`: layouts that avoid most of the im2col copy, rounding
  within float precision of the written kernel), with the Add that alone reads its output
  (a residual connection) and then the Relu that alone reads that, applied in place.
- A Concat followed by a channel shuffle (Reshape, Transpose, Reshape: ShuffleNet's units)
  copies its inputs straight into the shuffled order (:mod:`onnxcraft.evaluate.channel_shuffle`).
- A standing BatchNormalization -> Relu -> Conv (DenseNet's) becomes one clamp per channel
  and a Conv with scaled weights (:mod:`onnxcraft.evaluate.norm_relu_conv`), and an
  AveragePool after a 1x1 Conv runs before it (:mod:`onnxcraft.evaluate.pool_before_conv`):
  rounding within float precision of the nodes as written.
- Prepared Convs reading one value with equal attributes (Inception's branch heads) run as
  one product of their stacked weights (:mod:`onnxcraft.evaluate.sibling_convs`).
- A prepared Conv's Relu whose output only a prepared 3x3 Conv of few filters reads
  (DenseNet's bottleneck) is done by that Conv's copy of its input, not in a pass of its
  own (:mod:`onnxcraft.evaluate.relu_into_conv`): the same values.
- A prepared Conv whose output only a 3x3, stride-2 MaxPool reads (SqueezeNet's stem) hands
  it the product's stride phases, so that the pool reads contiguous slices
  (:mod:`onnxcraft.evaluate.conv_pool`).
- Gelu of float32 values runs in float32 arithmetic (:mod:`onnxcraft.evaluate.fast_gelus`):
  within 12 float32 ulp of the true value for |x| < 3, 130 beyond.
- GlobalAveragePool runs as one matrix-vector product with a vector of 1 / (H * W)
  (:mod:`onnxcraft.evaluate.global_means`): rounding within float precision of the mean.

Every node must be a standard ai.onnx one. The fused step keeps the first node, so errors
name it.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from onnxcraft.evaluate.channel_shuffle import shuffle_concats
from onnxcraft.evaluate.concat_chains import share_concat_buffers
from onnxcraft.evaluate.concat_targets import write_into_concats
from onnxcraft.evaluate.conv_pool import pool_into_conv
from onnxcraft.evaluate.fast_gelus import float32_gelus
from onnxcraft.evaluate.global_means import average_by_product
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.evaluate.norm_relu_conv import clamp_into_conv
from onnxcraft.evaluate.ones_channels import link_ones_channels
from onnxcraft.evaluate.pool_before_conv import pool_before_conv
from onnxcraft.evaluate.relu_into_conv import relu_into_next_conv
from onnxcraft.evaluate.sibling_convs import stack_sibling_convs
from onnxcraft.evaluate.step_links import sole_readers, with_replacements
from onnxcraft.ops.clamp import at_least_zero
from onnxcraft.ops.conv.prepared import prepare_conv
from onnxcraft.ops.conv.scratch import WorkingArrays
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
    steps = clamp_into_conv(  # before the Convs are prepared: it scales their weights
        steps, constants, set(constants) - inputs, kept, _readers(steps), _is_library_step
    )
    steps = pool_before_conv(
        steps, constants, set(constants) - inputs, kept, _readers(steps), _is_library_step
    )
    # Before the in-place Add: a prepared Conv takes the residual Add (and Relu) after it.
    steps = _prepare_convolutions(steps, constants, inputs, kept)
    steps = pool_into_conv(steps, kept, _readers(steps), _is_library_step)
    steps = stack_sibling_convs(steps, kept)
    steps = relu_into_next_conv(steps, kept, _readers(steps))
    # before the Concats' inputs are wrapped: they may read a channel of ones too
    spares = link_ones_channels(steps, kept, _is_library_step)
    steps = _affine_batch_norms(steps, constants, inputs)
    steps = _elementwise_in_place(steps, kept)
    fixed = set(constants) - inputs
    steps = shuffle_concats(steps, constants, fixed, kept, _readers(steps), _is_library_step)
    steps = share_concat_buffers(steps, kept, _is_library_step)
    steps = write_into_concats(steps, kept, _readers(steps), _is_library_step, spares)
    steps = average_by_product(steps, _is_library_step)
    steps = float32_gelus(steps, _is_library_step)
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
        if not _library_kernel(first) and first.fn not in _FRESH_REWRITES:
            continue  # a kernel of the caller's own registry may return a view of its input
        if len(first.outputs) != 1 or step.fn is None or first.fn is None:
            continue
        replaced[source] = replace(
            first, fn=_then_relu(first.fn, step.fn), outputs=[step.outputs[0]]
        )
        dropped.add(index)
    return _rebuilt(steps, replaced, dropped)


# Kernels made by the rewrites here whose result is a new array (or the fresh input array
# the step alone read), as onnxcraft's own kernels of _FRESH_OUTPUT operators.
_FRESH_REWRITES: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()


def _affine_batch_norms(
    steps: list[Step], constants: dict[str, Any], inputs: set[str]
) -> list[Step]:
    """An inference BatchNormalization (not folded into a Conv) whose statistics are float32
    constants computes its per-channel factor and offset once, when the model is prepared,
    instead of on every run: the kernel's own operations on the same values, so the same
    result (a DenseNet's BatchNormalization after each Concat spent 8 µs a call on them).
    Other inputs (float64, float16, other shapes) run the kernel as written.
    """
    fixed = set(constants) - inputs
    replaced: dict[int, Step] = {}
    for index, step in enumerate(steps):
        if not _is_standard(step, "BatchNormalization") or len(step.inputs) != 5:
            continue
        if not is_inference_batch_norm(step.since_version, step.outputs, step.attributes):
            continue
        if len(step.outputs) != 1 or not _library_kernel(step):
            continue
        if not all(name in fixed for name in step.inputs[1:]):
            continue
        scale, bias, mean, var = (constants[name] for name in step.inputs[1:])
        channels = scale.shape[0] if isinstance(scale, np.ndarray) and scale.ndim == 1 else -1
        float32 = np.dtype(np.float32)
        statistics = (scale, bias, mean, var)
        if not all(isinstance(a, np.ndarray) and a.dtype == float32 for a in statistics):
            continue
        if any(a.shape != (channels,) for a in statistics):
            continue
        epsilon = np.float32(step.attributes.get("epsilon", 1e-5))
        factor = scale / np.sqrt(var + epsilon)  # as the kernel computes them, in float32
        offset = bias - mean * factor
        assert step.fn is not None
        kernel = _affine(step.fn, factor, offset, has_context=step.context is not None)
        _FRESH_REWRITES.add(kernel)
        replaced[index] = replace(step, fn=kernel)
    return _rebuilt(steps, replaced, set())


def _affine(
    kernel: Callable[..., Any], factor: np.ndarray, offset: np.ndarray, *, has_context: bool
) -> Callable[..., Any]:
    """The BatchNormalization kernel with its factor and offset computed already: x * factor
    + offset for a float32 x with the statistics' channels on axis 1, else the kernel."""

    def run(*args: Any, **attributes: Any) -> Any:
        x = args[1] if has_context else args[0]
        if (
            isinstance(x, np.ndarray)
            and x.dtype == factor.dtype
            and x.ndim >= 2
            and x.shape[1] == factor.shape[0]
        ):
            shape = (1, -1) + (1,) * (x.ndim - 2)
            y = np.multiply(x, factor.reshape(shape), dtype=factor.dtype)
            y += offset.reshape(shape)
            return y
        return kernel(*args, **attributes)

    return run


# Binary operators that may write their result over a fresh input of the result's shape.
_IN_PLACE_BINARY: dict[str, np.ufunc] = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}
# The kernels _elementwise_in_place made (their result is the fresh array of their input).
_IN_PLACE_KERNELS: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()


def _elementwise_in_place(steps: list[Step], kept: set[str]) -> list[Step]:
    """An Add, Sub or Mul that alone reads the fresh output of the node before it (a Conv
    before a residual Add) writes its result over that array instead of making a new one.

    The values are those of the kernel (numpy's same operation, element by element); it
    happens only at run time, when both inputs are float32 or float64 arrays of one dtype
    and the fresh one already has the result's shape; otherwise the kernel runs as written.
    """
    readers = _readers(steps)
    producer = _producers(steps)
    replaced: dict[int, Step] = {}
    for index, step in enumerate(steps):
        ufunc = _IN_PLACE_BINARY.get(step.node.op_type)
        if ufunc is None or not _is_standard(step, step.node.op_type) or step.since_version < 7:
            continue
        if len(step.inputs) != 2 or len(step.outputs) != 1 or not _library_kernel(step):
            continue
        for position, name in enumerate(step.inputs):
            source = producer.get(name)
            if source is None or name in kept or readers[name] != 1:
                continue
            if step.inputs[1 - position] == name:  # Add(x, x): x is read twice
                continue
            first = steps[source]
            if first.node.op_type not in _FRESH_OUTPUT or len(first.outputs) != 1:
                continue
            if not _is_standard(first, first.node.op_type) or not _library_kernel(first):
                continue
            assert step.fn is not None
            kernel = _into_input(step.fn, ufunc, position)
            _IN_PLACE_KERNELS.add(kernel)
            _FRESH_REWRITES.add(kernel)
            replaced[index] = replace(step, fn=kernel)
            break
    return _rebuilt(steps, replaced, set())


def _into_input(kernel: Callable[..., Any], ufunc: np.ufunc, position: int) -> Callable[..., Any]:
    """``kernel`` of a binary operator, its result written over input ``position`` when
    that array can hold it (see _elementwise_in_place)."""

    def run(a: Any, b: Any, **attributes: Any) -> Any:
        target = a if position == 0 else b
        if _fits(a, b, target):
            with np.errstate(all="ignore"):
                return ufunc(a, b, out=target)
        return kernel(a, b, **attributes)

    return run


_IN_PLACE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _fits(a: Any, b: Any, target: Any) -> bool:
    """Whether ``target`` (a or b) can hold the result of a and b, as the kernel types it."""
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    if a.dtype != b.dtype or a.dtype not in _IN_PLACE_DTYPES or not target.flags.writeable:
        return False
    if a.shape == b.shape:
        return True
    try:
        return bool(np.broadcast_shapes(a.shape, b.shape) == target.shape)
    except ValueError:  # not broadcastable: the kernel says so
        return False


def _prepare_convolutions(
    steps: list[Step], constants: dict[str, Any], inputs: set[str], kept: set[str]
) -> list[Step]:
    work = WorkingArrays()  # the working memory of every prepared Conv of the plan
    readers = _readers(steps)
    fixed = set(constants) - inputs
    sole = sole_readers(steps, readers, kept)
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
            at = sole.get(name)
            if at is None:
                return None
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
            work=work,
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
            return at_least_zero(value, out=value)
        return relu(value)

    return run


def _rebuilt(steps: list[Step], replaced: dict[int, Step], dropped: set[int]) -> list[Step]:
    return with_replacements(steps, replaced, dropped)


def _is_standard(step: Step, op_type: str) -> bool:
    node = step.node
    return (
        node.op_type == op_type
        and node.domain in ("", "ai.onnx")
        and step.fn is not None
        and step.function_plan is None
    )


def _is_library_step(step: Step, op_type: str) -> bool:
    return _is_standard(step, op_type) and _library_kernel(step)


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
