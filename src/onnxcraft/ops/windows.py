"""Sliding-window shape arithmetic, and the vision rules' helpers for attributes and dim checks.

The integer formulas come first: the extent of a dilated window, how many windows fit
(``ceil_mode`` included), SAME padding and its split, and the size a transposed window operation
(ConvTranspose, MaxUnpool) produces. They take known sizes only, and both sides use them: the
kernels (through :func:`onnxcraft.ops.im2col.resolve_geometry` and their own code) once per node,
the rules wherever the dims are known.

Convolution and pooling rules resolve ``auto_pad``, ``pads``, ``strides``, ``dilations`` and
``ceil_mode`` through :func:`window_attributes` and get each output size from
:func:`window_output_dim`. Dims may be symbolic (``str``) or unknown (``None``): a symbol is kept
only where the output provably equals the input (stride 1, padding that restores the size),
otherwise the dim becomes unknown. Known clashes raise :class:`InferenceError` via ``ctx.fail``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from onnxcraft.ops.infer_api import InferenceContext
from onnxcraft.types import Dim, Shape

__all__ = [
    "AUTO_PAD_MODES",
    "WindowAttributes",
    "WindowParams",
    "defined_attr",
    "dilated_extent",
    "ints_attr",
    "require_rank",
    "same_output_size",
    "same_pads",
    "same_padding_output_dim",
    "same_transposed_size",
    "show_shape",
    "spatial_input",
    "split_padding",
    "static_window_counts",
    "static_window_output",
    "static_window_params",
    "transposed_window_size",
    "unify_dim",
    "weight_kernel",
    "window_attributes",
    "window_count",
    "window_output_dim",
    "window_output_shape",
]

AUTO_PAD_MODES = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def dilated_extent(kernel: int, dilation: int) -> int:
    """The input extent one window covers: ``(kernel - 1) * dilation + 1``."""
    return (kernel - 1) * dilation + 1


def window_count(
    size: int, begin: int, end: int, extent: int, stride: int, ceil_mode: bool = False
) -> int:
    """How many windows of ``extent`` fit along an axis of ``size`` padded by ``begin``/``end``.

    ``floor((size + begin + end - extent) / stride) + 1``, or with ``ceil_mode`` the ceiling,
    less a last window that would start in the end padding. 0 when even one window does not fit
    (a rule rejects that case before asking).
    """
    padded = size + begin + end
    if padded < extent:
        return 0
    if not ceil_mode:
        return (padded - extent) // stride + 1
    count = -(-(padded - extent) // stride) + 1
    # A ceil-mode window must start inside the input or its leading padding.
    if (count - 1) * stride >= size + begin:
        count -= 1
    return count


def same_output_size(size: int, stride: int) -> int:
    """SAME_UPPER / SAME_LOWER output size: ``ceil(size / stride)``, whatever the kernel."""
    return -(-size // stride)


def split_padding(total: int, upper: bool) -> tuple[int, int]:
    """(begin, end) halves of ``total`` padding; the odd one goes at the end when ``upper``
    (SAME_UPPER), at the beginning otherwise (SAME_LOWER)."""
    small = total // 2
    large = total - small
    return (small, large) if upper else (large, small)


def same_pads(size: int, extent: int, stride: int, upper: bool) -> tuple[int, int]:
    """(begin, end) pads that SAME padding adds so ``ceil(size / stride)`` windows fit."""
    total = max(0, (same_output_size(size, stride) - 1) * stride + extent - size)
    return split_padding(total, upper)


def transposed_window_size(
    size: int, stride: int, extent: int, pads: int, output_padding: int = 0
) -> int:
    """The size a transposed window operation (ConvTranspose, MaxUnpool) produces:
    ``stride * (size - 1) + output_padding + extent - pads`` (``pads``: begin plus end)."""
    return stride * (size - 1) + output_padding + extent - pads


def same_transposed_size(size: int, stride: int) -> int:
    """A transposed convolution's output size under SAME padding: ``size * stride``."""
    return size * stride


def defined_attr(ctx: InferenceContext, name: str, default: Any) -> Any:
    """The attribute's value if this operator version defines it, else ``default``.

    Older versions lack attributes such as ``ceil_mode`` or ``dilations``; reading them through
    here keeps a stray attribute on an old node from changing the answer.
    """
    if name not in ctx.op.attributes:
        return default
    return ctx.attr(name, default)


def ints_attr(
    ctx: InferenceContext, name: str, length: int, default: int, *, minimum: int | None = None
) -> tuple[int, ...]:
    """An ints attribute of ``length`` entries (``default`` each when absent or empty)."""
    value = defined_attr(ctx, name, None)
    if value is None or len(value) == 0:
        return (default,) * length
    values = tuple(map(int, value))
    if len(values) != length:
        raise ctx.fail(f"{name} must have {length} entries, got {list(values)}")
    if minimum is not None and min(values) < minimum:
        raise ctx.fail(f"{name} must be >= {minimum} everywhere, got {list(values)}")
    return values


def require_rank(
    ctx: InferenceContext, index: int, arg: str, *, exactly: int | None = None, at_least: int = 0
) -> Shape:
    """Input ``index``'s shape after checking its rank (None when the rank is unknown)."""
    shape = ctx.shape(index)
    if shape is None:
        return None
    if exactly is not None and len(shape) != exactly:
        raise ctx.fail(f"input {arg} must have rank {exactly}, got shape {show_shape(shape)}")
    if len(shape) < at_least:
        raise ctx.fail(f"input {arg} must have rank >= {at_least}, got shape {show_shape(shape)}")
    return shape


def spatial_input(ctx: InferenceContext, index: int = 0, arg: str = "X") -> Shape:
    """An image input (N, C, D1, ..., Dn) with at least one spatial axis."""
    return require_rank(ctx, index, arg, at_least=3)


def unify_dim(ctx: InferenceContext, a: Dim, b: Dim, what: str) -> Dim:
    """Two facts about one dim: fail when both are static and differ, else the better known."""
    if isinstance(a, int) and isinstance(b, int):
        if a != b:
            raise ctx.fail(f"{what}: {a} vs {b}")
        return a
    if isinstance(a, int):
        return a
    if isinstance(b, int):
        return b
    return a if a is not None else b


def weight_kernel(ctx: InferenceContext, w_shape: Shape, nd: int) -> tuple[Dim, ...]:
    """The kernel size per spatial axis: the weight's trailing dims, checked against the
    ``kernel_shape`` attribute when both are given."""
    weight: tuple[Dim, ...] = (None,) * nd if w_shape is None else tuple(w_shape[2:])
    attr = ctx.attr("kernel_shape")
    if not attr:
        return weight
    declared = tuple(map(int, attr))
    if len(declared) != nd:
        raise ctx.fail(f"kernel_shape={list(declared)} must have one entry per spatial axis ({nd})")
    # Each declared size (an int) is the answer; a known weight size must agree with it.
    for k, w in zip(declared, weight):
        if isinstance(w, int) and w != k:
            raise ctx.fail(
                f"kernel_shape={list(declared)} does not match weight W's shape: {k} vs {w}"
            )
    return declared


class WindowAttributes(NamedTuple):
    """The attributes that place sliding windows along the spatial axes (a named tuple: one is
    made for every convolution or pooling node inferred)."""

    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads: tuple[int, ...]  # every begin pad, then every end pad
    auto_pad: str
    ceil_mode: bool

    @property
    def ndim(self) -> int:
        return len(self.strides)


def window_attributes(ctx: InferenceContext, nd: int, *, auto_pad: bool = True) -> WindowAttributes:
    """Read and check strides, dilations, pads, auto_pad and ceil_mode for ``nd`` axes."""
    strides = ints_attr(ctx, "strides", nd, 1, minimum=1)
    dilations = ints_attr(ctx, "dilations", nd, 1, minimum=1)
    pads = ints_attr(ctx, "pads", 2 * nd, 0, minimum=0)
    mode = str(defined_attr(ctx, "auto_pad", "NOTSET")) if auto_pad else "NOTSET"
    if mode not in AUTO_PAD_MODES:
        raise ctx.fail(f"auto_pad must be one of {list(AUTO_PAD_MODES)}, got {mode!r}")
    given = defined_attr(ctx, "pads", None)
    # Explicit pads contradict SAME_* padding; with VALID only zeros agree.
    if (mode.startswith("SAME") and given) or (mode == "VALID" and any(pads)):
        raise ctx.fail(
            f"pads={list(pads)} cannot be combined with auto_pad={mode!r}: set auto_pad to "
            f"'NOTSET' to use explicit pads"
        )
    ceil_mode = bool(defined_attr(ctx, "ceil_mode", 0))
    return WindowAttributes(strides, dilations, pads, mode, ceil_mode)


def same_padding_output_dim(size: Dim, stride: int) -> Dim:
    """SAME_UPPER / SAME_LOWER output size: ceil(size / stride), whatever the kernel."""
    if isinstance(size, int):
        return same_output_size(size, stride)
    return size if stride == 1 else None


def window_output_dim(
    ctx: InferenceContext, axis: int, size: Dim, kernel: Dim, window: WindowAttributes
) -> Dim:
    """How many windows fit along spatial ``axis`` (input ``size``, kernel extent ``kernel``)."""
    stride = window.strides[axis]
    if window.auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return same_padding_output_dim(size, stride)
    nd = window.ndim
    begin, end = (
        (0, 0) if window.auto_pad == "VALID" else (window.pads[axis], window.pads[nd + axis])
    )
    if not isinstance(kernel, int):
        return None
    if kernel < 1:
        raise ctx.fail(f"kernel size must be positive, got {kernel} along spatial axis {axis}")
    span = dilated_extent(kernel, window.dilations[axis])
    if not isinstance(size, int):
        # Stride 1 with padding that exactly restores the size keeps the (symbolic) dim.
        return size if stride == 1 and begin + end == span - 1 else None
    padded = size + begin + end
    if padded < span:
        raise ctx.fail(
            f"the window (kernel {kernel}, dilation {window.dilations[axis]}: extent {span}) is "
            f"larger than the padded input along spatial axis {axis} (size {size} + pads "
            f"{begin} + {end} = {padded})"
        )
    return window_count(size, begin, end, span, stride, window.ceil_mode)


def window_output_shape(
    ctx: InferenceContext,
    spatial: Sequence[Dim],
    kernel: Sequence[Dim],
    window: WindowAttributes,
) -> tuple[Dim, ...]:
    """Output spatial dims of windows of ``kernel`` sliding over ``spatial``."""
    return tuple(
        window_output_dim(ctx, axis, size, k, window)
        for axis, (size, k) in enumerate(zip(spatial, kernel, strict=True))
    )


def static_window_output(
    ctx: InferenceContext, spatial: Sequence[Dim], kernel: Sequence[Dim]
) -> tuple[int, ...] | None:
    """What ``window_output_shape(ctx, spatial, kernel, window_attributes(ctx, nd))`` gives in
    the common case: every size and kernel size a known int, auto_pad NOTSET, strides,
    dilations and pads given in full or not at all, and every window fitting. None in any
    other case (the general path then answers, and words any error); never raises. Its sizes
    are valid dims (at most 2**63 - 1), so a type of them needs no checking.

    The general path makes an object of the attributes and asks a function per axis; this one
    reads the attributes once and computes in place: convolutions and pooling are the nodes
    of a CNN that inference meets most.
    """
    params = static_window_params(ctx, len(spatial))
    return None if params is None else static_window_counts(params, spatial, kernel)


# strides, dilations, pads (every begin pad, then every end pad) and ceil_mode
WindowParams = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]


def static_window_params(ctx: InferenceContext, nd: int) -> WindowParams | None:
    """The attributes :func:`static_window_output` computes with for ``nd`` spatial axes
    (None: it declines whatever the sizes). They depend on the operator version and the
    attributes alone: read once per alike group of nodes (the context's derived facts)."""
    key = (_WINDOW, nd)
    derived = ctx.derived
    params = derived.get(key, _UNREAD)
    if params is _UNREAD:
        params = derived[key] = _static_window_params(ctx, nd)
    return params  # type: ignore[no-any-return]


def static_window_counts(
    params: WindowParams, spatial: Sequence[Dim], kernel: Sequence[Dim]
) -> tuple[int, ...] | None:
    """:func:`static_window_output` with its attributes read (:func:`static_window_params`)."""
    nd = len(spatial)
    strides, dilations, pads, ceil_mode = params
    out = []
    for axis in range(nd):
        size, k = spatial[axis], kernel[axis]
        if type(size) is not int or type(k) is not int or k < 1:
            return None
        span = (k - 1) * dilations[axis] + 1
        begin, end = pads[axis], pads[nd + axis]
        if size + begin + end < span:
            return None
        count = window_count(size, begin, end, span, strides[axis], ceil_mode)
        if count > _INT64_MAX:
            return None  # (no type holds it: the general path says so, in words)
        out.append(count)
    return tuple(out)


_INT64_MAX = 2**63 - 1  # the largest dim a type can hold
_WINDOW = "static window"  # the derived facts' key of _static_window_params' answer
_UNREAD = object()  # not worked out yet (None is an answer: the fast path declines)


def _static_window_params(
    ctx: InferenceContext, nd: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool] | None:
    """Strides, dilations, pads and ceil_mode of ``nd`` spatial axes, when the fast path of
    :func:`static_window_output` can use them (else None)."""
    try:
        strides = _plain_ints(ctx, "strides", nd, 1, 1)
        dilations = _plain_ints(ctx, "dilations", nd, 1, 1)
        pads = _plain_ints(ctx, "pads", 2 * nd, 0, 0)
        if strides is None or dilations is None or pads is None:
            return None
        if defined_attr(ctx, "auto_pad", "NOTSET") != "NOTSET":
            return None
        ceil_mode = bool(defined_attr(ctx, "ceil_mode", 0))
    except (TypeError, ValueError, OverflowError):
        return None
    return strides, dilations, pads, ceil_mode


def _plain_ints(
    ctx: InferenceContext, name: str, length: int, default: int, minimum: int
) -> tuple[int, ...] | None:
    """:func:`ints_attr`'s answer when it has one, else None (it would fail)."""
    value = defined_attr(ctx, name, None)
    if value is None or len(value) == 0:
        return (default,) * length
    values = tuple(map(int, value))
    if len(values) != length or min(values) < minimum:
        return None
    return values


def show_shape(shape: Sequence[Dim]) -> str:
    """A shape as text for error messages: unknown dims show as '?'."""
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
