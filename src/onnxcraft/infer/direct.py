"""Direct answers for a CNN's common nodes, given by the walk without running their rules.

A node the walk has to infer anew (its answer not remembered) costs its rule and the
machinery around it: the engine's look-up of the rule, a context made for the node, the rule's
checks of every input. For the nodes a CNN has most of (Conv, BatchNormalization, Concat and
the windowed pools) this module answers in the common case as the rules' own fast paths do
(``static_conv_shape``, ``static_window_output``, ``static_concat``), reading the attributes
once per operator version and attribute list through one context. Each answer here is the
rule's (same output types, no warning, no error, no output value); in any other case (a dim
unknown, an input of another kind, an inconsistency, a second output) a direct answer is None
and the walk runs the rule, which words every error.

The walk asks only once the node's attributes were checked (at the first node of each
attribute list), its inputs and outputs counted, every input named and its first input's
value unknown (so the engine would not fold the node), and never on the plain path
(``GraphInference.memo = None``), which the equivalence tests compare with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.core.opinfo import OpInfo
from onnxcraft.errors import OnnxcraftError
from onnxcraft.ops.conv.rules import static_conv_attributes
from onnxcraft.ops.infer_api import InferenceContext, SymbolicValue
from onnxcraft.ops.shape.rules import static_concat
from onnxcraft.ops.windows import (
    defined_attr,
    static_window_counts,
    static_window_params,
    window_count,
)
from onnxcraft.types import Tensor, ValueType
from onnxcraft.types import shared_tensor as tensor  # (infer_common.tensor, a call less)

__all__ = [
    "DIRECT",
    "DIRECT_FIRST",
    "VALUED_DIRECT",
    "Direct",
    "ValuedDirect",
    "direct_answer",
    "direct_context",
]

_INT64_MAX = 2**63 - 1  # the largest dim a type holds
# group, declared kernel_shape, strides, dilations, pads, ceil_mode
_ConvParams = tuple[
    int, tuple[int, ...] | None, tuple[int, ...], tuple[int, ...], tuple[int, ...], bool
]

# A direct answer: (the group's context, the node's input types, how many outputs it names)
# -> the output types, or None when the rule must answer.
Direct = Callable[[InferenceContext, list[ValueType | None], int], list[ValueType | None] | None]

# A direct answer that reads the node's known input values: (the group's context, the input
# types, the input values, how many outputs) -> the output types, or None. Its answer depends
# on what the values hold (the walk remembers it by the values, as it does the rule's).
ValuedDirect = Callable[
    [InferenceContext, list[ValueType | None], list[Any], int], list[ValueType | None] | None
]

_CONV_PARAMS = "direct conv"  # ... of a convolution's attributes, by rank
_CONV_IMAGE = "direct conv image"  # ... of an image convolution's attributes, as it uses them
_POOL_KERNEL = "direct pool kernel"  # ... of a pool's kernel_shape, by rank
_PER_ACTIVATION = "direct per activation"  # ... of BatchNormalization's spatial=0
_ALLOW_ZERO = "direct allowzero"  # ... of Reshape's allowzero
_SPLIT_AXIS = "direct split axis"  # ... of Split's axis
_AXIS = "direct axis"  # ... of Softmax's or Flatten's axis
_PERM = "direct perm"  # ... of Transpose's perm


def direct_answer(
    direct: Direct,
    op: OpInfo,
    attributes: dict[str, Any],
    derived: dict[Any, Any],
    types: list[ValueType | None],
    outputs: int,
) -> list[ValueType | None] | None:
    """``direct``'s answer for a node of ``op`` with these (checked) attributes, whose alike
    nodes share ``derived`` (:attr:`InferenceContext.derived`)."""
    return direct(direct_context(op, attributes, derived), types, outputs)


def direct_context(
    op: OpInfo,
    attributes: dict[str, Any],
    derived: dict[Any, Any],
    contexts: dict[int, InferenceContext] | None = None,
) -> InferenceContext:
    """The context the direct answers of a group of alike nodes (those sharing ``derived``)
    read their attributes through: made once per group, kept in ``contexts`` by the id of
    ``derived`` (which the caller keeps alive as long); without ``contexts``, made anew.
    Kept in ``derived`` itself, the context and the facts it refers to would make a
    reference cycle: garbage left for the cyclic collector after every walk (78 objects
    after SqueezeNet's)."""
    ctx = None if contexts is None else contexts.get(id(derived))
    if ctx is None:
        ctx = InferenceContext(op, [], [], attributes, 1, 0, derived=derived)
        if contexts is not None:
            contexts[id(derived)] = ctx
    return ctx


def _conv(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    # static_conv_shape's answer, its checks inline (this runs for most of a CNN's misses);
    # each dim is checked to be an int where it is first used.
    x, w = types[0], types[1]
    if type(x) is not Tensor or type(w) is not Tensor:
        return None
    xs, ws = x.shape, w.shape
    if xs is None or ws is None:
        return None
    rank = len(xs)
    if rank == 4 and len(ws) == 4:
        # Images (most of a CNN's convolutions): the attributes as the two axes use them,
        # read once per group; the loop below for two axes, inline.
        image = ctx.derived.get(_CONV_IMAGE)
        if image is None:
            image = ctx.derived[_CONV_IMAGE] = _conv_image(ctx)
        if not image:
            return _conv_any(ctx, types, x, xs, ws, rank)
        group, declared, pad_h, pad_w, dilation_h, dilation_w, stride_h, stride_w = image
        n, c, h, w_ = xs
        m, per_group, kh, kw = ws
        if not (type(c) is type(m) is type(per_group) is type(h) is type(w_) is int):
            return None
        if not _groups_and_bias_fit(types, group, c, m, per_group):
            return None
        if declared is not None and declared != (kh, kw):
            return None
        if type(kh) is not int or type(kw) is not int or kh < 1 or kw < 1:
            return None
        # (the padded size less the window's span, per axis: negative when none fits)
        rows = h + pad_h - (kh - 1) * dilation_h - 1
        columns = w_ + pad_w - (kw - 1) * dilation_w - 1
        if rows < 0 or columns < 0:
            return None
        rows, columns = rows // stride_h + 1, columns // stride_w + 1
        if rows > _INT64_MAX or columns > _INT64_MAX:
            return None
        return [tensor(x.elem_type, (n, m, rows, columns))]
    if rank < 3 or len(ws) != rank:
        return None
    return _conv_any(ctx, types, x, xs, ws, rank)


def _groups_and_bias_fit(
    types: list[ValueType | None], group: int, c: int, m: int, per_group: int
) -> bool:
    """The rule's group_mismatch and bias checks, inline: ``group`` divides C and M, W's dim
    1 times ``group`` is C, and a bias (the third input) is a vector of M (the rule passes
    such a node without a word; anything else is left to it)."""
    if c % group or m % group or per_group * group != c:
        return False
    if len(types) > 2:
        bias = types[2]
        if type(bias) is not Tensor or bias.shape is None:
            return False
        b = bias.shape
        if len(b) != 1 or type(b[0]) is not int or b[0] != m:
            return False
    return True


def _conv_image(ctx: InferenceContext) -> tuple[Any, ...]:
    """What :func:`_conv` computes an image's two output dims with: group, the declared
    kernel_shape, the pads of each axis summed, dilations and strides; () when the fast path
    declines whatever the shapes, or takes the general loop (ceil_mode)."""
    key = (_CONV_PARAMS, 4)
    params = ctx.derived.get(key, ())
    if params == ():
        params = ctx.derived[key] = _conv_params(ctx, 2)
    if params is None:
        return ()
    group, declared, strides, dilations, pads, ceil_mode = params
    if ceil_mode:
        return ()
    return (
        group,
        declared,
        pads[0] + pads[2],
        pads[1] + pads[3],
        dilations[0],
        dilations[1],
        strides[0],
        strides[1],
    )


def _conv_any(
    ctx: InferenceContext,
    types: list[ValueType | None],
    x: Tensor,
    xs: tuple[Any, ...],
    ws: tuple[Any, ...],
    rank: int,
) -> list[ValueType | None] | None:
    """:func:`_conv` for inputs of any rank (``x``: the first, of shape ``xs``; ``ws``: the
    weight's), as the loop over axes gives it."""
    key = (_CONV_PARAMS, rank)
    params = ctx.derived.get(key, ())
    if params == ():
        params = ctx.derived[key] = _conv_params(ctx, rank - 2)
    if params is None:
        return None
    group, declared, strides, dilations, pads, ceil_mode = params
    c, m, per_group = xs[1], ws[0], ws[1]
    if type(c) is not int or type(m) is not int or type(per_group) is not int:
        return None
    if not _groups_and_bias_fit(types, group, c, m, per_group):
        return None
    kernel = ws[2:]
    if declared is not None and declared != kernel:
        return None
    nd = rank - 2
    out = [xs[0], m]
    for axis in range(nd):  # static_window_counts, inline
        size, k = xs[2 + axis], kernel[axis]
        if type(size) is not int or type(k) is not int or k < 1:
            return None
        span = (k - 1) * dilations[axis] + 1
        padded = size + pads[axis] + pads[nd + axis]
        if padded < span:
            return None
        if ceil_mode:
            count = window_count(size, pads[axis], pads[nd + axis], span, strides[axis], True)
        else:
            count = (padded - span) // strides[axis] + 1  # (window_count's floor)
        if count > _INT64_MAX:
            return None
        out.append(count)
    return [tensor(x.elem_type, tuple(out))]


def _conv_params(ctx: InferenceContext, nd: int) -> _ConvParams | None:
    """group, the declared kernel_shape, strides, dilations, pads and ceil_mode as the rule's
    fast path reads them for ``nd`` spatial axes (None: it declines whatever the shapes)."""
    group, declared = static_conv_attributes(ctx)
    window = static_window_params(ctx, nd)
    if group is None or group < 1 or window is None:
        return None
    return (group, declared, *window)


def _pool(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    if outputs > 1:  # (MaxPool's Indices: the rule)
        return None
    x = types[0]
    if type(x) is not Tensor or x.shape is None or len(x.shape) < 3:
        return None
    shape = x.shape
    nd = len(shape) - 2
    key = (_POOL_KERNEL, nd)
    kernel = ctx.derived.get(key, ())
    if kernel == ():
        kernel = ctx.derived[key] = _pool_kernel(ctx, nd)
    if kernel is None:
        return None
    window = static_window_params(ctx, nd)
    if window is None:
        return None
    static = static_window_counts(window, shape[2:], kernel)
    if static is None:
        return None
    return [tensor(x.elem_type, (shape[0], shape[1], *static))]


def _pool_kernel(ctx: InferenceContext, nd: int) -> tuple[int, ...] | None:
    """kernel_shape as the pool rule reads it, when it reads it without an error."""
    attr = ctx.attr("kernel_shape")
    if not attr:
        return None
    try:
        kernel = tuple(int(k) for k in attr)
    except (TypeError, ValueError, OverflowError):
        return None
    if len(kernel) != nd or min(kernel) < 1:
        return None
    return kernel


def _batch_norm(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    if outputs > 1 or len(types) != 5:  # (training statistics: the rule)
        return None
    per_activation = ctx.derived.get(_PER_ACTIVATION)
    if per_activation is None:
        try:
            per_activation = not defined_attr(ctx, "spatial", 1)
        except OnnxcraftError:
            per_activation = True  # (declined: the rule says what is wrong)
        ctx.derived[_PER_ACTIVATION] = per_activation
    if per_activation:
        return None
    x = types[0]
    if type(x) is not Tensor or x.shape is None or len(x.shape) < 2:
        return None
    c = x.shape[1]
    if type(c) is not int:
        return None
    scale = types[1]
    if not (type(scale) is Tensor and scale.shape is not None and scale.shape == (c,)):
        return None
    for t in types[2:]:
        if t is not scale and not (type(t) is Tensor and t.shape == (c,)):
            return None
    return [x]  # (its type: the rule's answer is equal)


def _concat(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    joined = static_concat(ctx, types)  # type: ignore[arg-type]  # (declines a non-tensor)
    # A joined vector may carry a value the rule works out: the rule answers.
    if joined is None or joined.shape is None or len(joined.shape) == 1:
        return None
    return [joined]


def _global_pool(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    # (N, C, 1, ...): the rule's answer for an image of known rank
    x = types[0]
    if outputs != 1 or type(x) is not Tensor or x.shape is None or len(x.shape) < 3:
        return None
    n, c = x.shape[0], x.shape[1]
    if not (_valid_dim(n) and _valid_dim(c) and _valid_type(x)):
        return None
    return [tensor(x.elem_type, (n, c, *(1,) * (len(x.shape) - 2)))]


def _int_attribute(ctx: InferenceContext, key: str, name: str, default: int) -> int | None:
    """An int attribute, read once for the group's nodes under ``key`` of its derived facts
    (None: not a value the fast path takes; the rule then answers)."""
    value = ctx.derived.get(key)
    if value is None:
        try:
            value = ctx.derived[key] = int(ctx.attr(name, default))
        except (TypeError, ValueError, OverflowError):
            return None
    return value


def _softmax(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    # Softmax, LogSoftmax, Hardmax: the input's type once the axis fits it
    x = types[0]
    if outputs != 1 or type(x) is not Tensor or x.shape is None or not x.shape:
        return None
    axis = _int_attribute(ctx, _AXIS, "axis", 1 if ctx.op.since_version < 13 else -1)
    if axis is None:
        return None
    rank = len(x.shape)
    if ctx.op.since_version >= 11 and not -rank <= axis < rank:
        return None
    if not all(map(_valid_dim, x.shape)) or not _valid_type(x):
        return None
    return [x]  # (the rule's answer is equal)


def _flatten(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    # (the product of the dims before axis, that of the dims from it) for known dims
    x = types[0]
    if outputs != 1 or type(x) is not Tensor or x.shape is None or not _valid_type(x):
        return None
    axis = _int_attribute(ctx, _AXIS, "axis", 1)
    if axis is None:
        return None
    shape = x.shape
    rank = len(shape)
    if axis < 0:
        if ctx.op.since_version < 11:  # (Flatten-1 and -9 take [0, rank] only)
            return None
        axis += rank
    if not 0 <= axis <= rank:
        return None
    head = tail = 1
    for i, d in enumerate(shape):
        if type(d) is not int or d < 0:
            return None
        if i < axis:
            head *= d
        else:
            tail *= d
    if head > _INT64_MAX or tail > _INT64_MAX:
        return None
    return [tensor(x.elem_type, (head, tail))]


def _transpose(
    ctx: InferenceContext, types: list[ValueType | None], outputs: int
) -> list[ValueType | None] | None:
    # The input's dims permuted, for a perm that is one (ShuffleNet's channel shuffles)
    x = types[0]
    if outputs != 1 or type(x) is not Tensor or x.shape is None:
        return None
    shape = x.shape
    perm = ctx.derived.get(_PERM)
    if perm is None:
        given = ctx.attr("perm")
        try:
            perm = ctx.derived[_PERM] = None if given is None else tuple(map(int, given))
        except (TypeError, ValueError, OverflowError):
            return None
        if perm is None:
            return None  # (no perm: the rule reverses the axes)
    if sorted(perm) != list(range(len(shape))):
        return None
    return [tensor(x.elem_type, tuple([shape[p] for p in perm]))]


def _valid_dim(d: Any) -> bool:
    """A dim a Tensor keeps as it is (an int within int64, a symbol, unknown)."""
    if type(d) is int:
        return 0 <= d <= _INT64_MAX
    return d is None or (type(d) is str and d != "")


def _valid_type(x: Tensor) -> bool:
    """An element type a Tensor keeps as it is (UNDEFINED would be read as unknown)."""
    return x.elem_type is None or x.elem_type != 0


def _reshape(
    ctx: InferenceContext, types: list[ValueType | None], values: list[Any], outputs: int
) -> list[ValueType | None] | None:
    # The rule's answer for an input of known dims and a known shape of signed ints (a shape
    # constant, as CNNs' reshapes and shuffles have), made without its general checks.
    if outputs != 1 or len(types) != 2 or len(values) != 2 or ctx.op.since_version < 5:
        return None  # (before version 5 the shape is an attribute: the rule)
    x = types[0]
    if type(x) is not Tensor or x.shape is None:
        return None
    shape: tuple[int, ...] = x.shape  # type: ignore[assignment]  # (its dims checked next)
    total = 1
    for d in shape:
        if type(d) is not int or d > _INT64_MAX:  # (an IR model's dims are not bounded)
            return None
        total *= d
    target = _int_vector(values[1])
    if target is None:
        return None
    allow_zero = ctx.derived.get(_ALLOW_ZERO)
    if allow_zero is None:
        try:
            allow_zero = ctx.derived[_ALLOW_ZERO] = bool(ctx.attr("allowzero", 0))
        except (TypeError, ValueError):
            return None
    dims: list[int] = []
    unknown_at = -1
    known = 1  # the product of the dims other than the -1
    rank = len(shape)
    for i, d in enumerate(target):
        if d == 0 and not allow_zero:
            if i >= rank:
                return None  # (the rule says which dim is missing)
            d = shape[i]
        elif d == -1:
            if unknown_at >= 0:
                return None
            unknown_at = i
            dims.append(-1)
            continue
        elif d < -1:
            return None
        dims.append(d)
        known *= d
    if unknown_at >= 0:
        if known == 0 or total % known:
            return None
        dims[unknown_at] = total // known
        if dims[unknown_at] > _INT64_MAX:
            return None
    elif known != total:
        return None
    return [tensor(x.elem_type, tuple(dims))]


def _split(
    ctx: InferenceContext, types: list[ValueType | None], values: list[Any], outputs: int
) -> list[ValueType | None] | None:
    # The rule's answer (Split-13 and later) for an input of known dims, of rank 2 or more (a
    # vector may carry values the rule works out), split at known sizes (a constant).
    if len(types) != 2 or len(values) != 2 or ctx.op.since_version < 13:
        return None
    x = types[0]
    if type(x) is not Tensor or x.shape is None or len(x.shape) < 2:
        return None
    shape: tuple[int, ...] = x.shape  # type: ignore[assignment]  # (its dims checked next)
    for d in shape:
        if type(d) is not int or d > _INT64_MAX:  # (an IR model's dims are not bounded)
            return None
    sizes = _int_vector(values[1])
    if sizes is None or len(sizes) != outputs:
        return None
    axis = _int_attribute(ctx, _SPLIT_AXIS, "axis", 0)
    if axis is None:
        return None
    rank = len(shape)
    if not -rank <= axis < rank:
        return None
    if axis < 0:
        axis += rank
    if min(sizes, default=0) < 0 or sum(sizes) != shape[axis]:
        return None
    head, tail, elem = shape[:axis], shape[axis + 1 :], x.elem_type
    return [tensor(elem, (*head, size, *tail)) for size in sizes]


def _int_vector(value: Any) -> list[int] | None:
    """A known 0-D or 1-D value of signed ints as the rules read it (``dims_value``), for an
    array or a tensor read lazily; None for anything else (the rule answers)."""
    if type(value) is not np.ndarray:
        if value is None or type(value) is SymbolicValue or not hasattr(value, "array"):
            return None
        try:  # (decoded once: the rule's reading finds it decoded)
            value = value.array()
        except (OnnxcraftError, ValueError, TypeError):
            return None  # (the rule words what is wrong with it)
        if type(value) is not np.ndarray:
            return None
    if value.dtype.kind != "i" or value.ndim > 1:
        return None
    return value.reshape(-1).tolist()  # type: ignore[no-any-return]


# The standard operators answered here (every version: their rules are one per operator).
DIRECT: dict[str, Direct] = {
    "Conv": _conv,
    "MaxPool": _pool,
    "AveragePool": _pool,
    "LpPool": _pool,
    "BatchNormalization": _batch_norm,
    "Concat": _concat,
    "GlobalAveragePool": _global_pool,
    "GlobalMaxPool": _global_pool,
    "GlobalLpPool": _global_pool,
    "Softmax": _softmax,
    "LogSoftmax": _softmax,
    "Hardmax": _softmax,
    "Flatten": _flatten,
    "Transpose": _transpose,
}

# Those whose direct answer costs less than their memo key and its look-up (BatchNormalization
# hashes five input types, Concat up to eight): the walk answers them so before making a key.
# A convolution or a pool remembered costs less than its direct answer (measured: ShuffleNet
# and ResNet-50, whose blocks repeat, 1 to 9% slower asking first), so those are answered
# directly only when not remembered. The global pools, Softmax and its kin and Flatten mostly
# come once per model (a classifier's head): the key of the first would only be made to miss
# (measured, the walk alone: SqueezeNet 0.97, the encoder's twelve Softmaxes 1.00).
DIRECT_FIRST = frozenset(
    {
        "BatchNormalization",
        "Concat",
        "GlobalAveragePool",
        "GlobalMaxPool",
        "GlobalLpPool",
        "Softmax",
        "LogSoftmax",
        "Hardmax",
        "Flatten",
    }
)

# Those answered from their known input values too (Reshape-5 and later: its shape input;
# Split-13 and later: its sizes), when not remembered by the values.
VALUED_DIRECT: dict[str, ValuedDirect] = {"Reshape": _reshape, "Split": _split}
