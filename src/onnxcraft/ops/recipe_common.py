"""Recipe builders that several operator families share.

A builder used by one family stays in that family's ``recipes.py``; the ones here are used by
more: the elementwise shapes (``unary``, ``binary``, ``along_axis``, ``cumulative``), an axis to
index along, the sliding windows of the convolutions and pools, the sequences of the sequence
and control operators, and the feature rows of the ML operators and models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, Recipe, recipe
from onnxcraft.types import Sequence, Tensor

__all__ = [
    "ALPHA",
    "Window",
    "along_axis",
    "binary",
    "cumulative",
    "feature_rows",
    "float_values",
    "group_sizes",
    "legacy_broadcast_shapes",
    "sequence_elem",
    "sequence_input",
    "sequence_shapes",
    "shape_with_nonempty_axis",
    "unary",
    "window",
]

# -- elementwise ----------------------------------------------------------------------------------

# Positive attribute values (alpha, beta ...) of the activations and LRN.
ALPHA = st.floats(0.125, 2.0, width=32)


def unary(*, low: float | None = -4, high: float | None = 4, **attrs: Any) -> Recipe:
    """One input, output of its shape; ``attrs`` are drawn where the version has them."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        x = n.tensor(0, n.shape(), low=low, high=high)
        return n.case([x], n.attrs(**attrs))

    return draw


def legacy_broadcast_shapes(n: NodeDraw) -> tuple[tuple[int, ...], tuple[int, ...], dict[str, Any]]:
    """Shapes of A and B under opset 1-6 broadcasting: B equal to A, or (broadcast=1) a
    contiguous run of A's dims, placed at ``axis`` (the trailing run when axis is left out)."""
    a = n.shape(min_dims=1)
    if not n.flag():
        return a, a, {}
    start = n.integer(0, len(a) - 1)
    end = n.integer(start + 1, len(a))
    attrs: dict[str, Any] = {"broadcast": 1}
    if end != len(a) or n.flag():
        attrs["axis"] = start
    return a, a[start:end], attrs


def binary(
    *,
    a_low: float | None = -4,
    a_high: float | None = 4,
    b_low: float | None = -4,
    b_high: float | None = 4,
    **attrs: Any,
) -> Recipe:
    """Two inputs broadcasting together (opsets 1-6: the legacy ``broadcast`` form)."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        extra: dict[str, Any] = {}
        if "broadcast" in n.attribute_names:
            a_shape, b_shape, extra = legacy_broadcast_shapes(n)
        else:
            found = n.draw(ocst.broadcastable_shapes(2))
            a_shape, b_shape = found.input_shapes
        a = n.tensor(0, a_shape, low=a_low, high=a_high)
        b = n.tensor(1, b_shape, low=b_low, high=b_high)
        return n.case([a, b], {**extra, **n.attrs(**attrs)})

    return draw


def along_axis(*, min_dims: int = 1, **attrs: Any) -> Recipe:
    """One input and an ``axis`` attribute within its rank (Softmax, Hardmax ...)."""

    @recipe
    def draw(n: NodeDraw) -> NodeCase:
        shape = n.shape(min_dims=min_dims)
        x = n.tensor(0, shape)
        return n.case([x], n.attrs(axis=n.axis(len(shape)), **attrs))

    return draw


@recipe
def cumulative(n: NodeDraw) -> NodeCase:
    shape = n.shape(min_dims=1)
    x = n.tensor(0, shape, low=-2, high=2)
    axis = n.scalar(n.axis(len(shape)), n.elem("T2"), rank=n.choice([0, 1]))
    flags = st.sampled_from([0, 1])
    return n.case([x, axis], n.attrs(exclusive=flags, reverse=flags))


# -- an axis to index or select along -------------------------------------------------------------


def shape_with_nonempty_axis(n: NodeDraw, **limits: int) -> tuple[tuple[int, ...], int]:
    """A shape of rank >= 1 and one of its axes, made non-empty (Gather, TopK ...)."""
    shape = list(n.shape(min_dims=1, **limits))
    axis = n.axis(len(shape))
    shape[axis] = max(shape[axis], 1)
    return tuple(shape), axis


# -- sliding windows (convolutions and pools) -----------------------------------------------------


@dataclass
class Window:
    """A sliding window over ``rank`` spatial axes, with the input sizes it fits."""

    kernel: list[int]
    strides: list[int]
    dilations: list[int]
    pads: list[int]  # begins then ends
    sizes: list[int]  # spatial input sizes, each at least the dilated kernel
    auto_pad: str

    def attrs(self, n: NodeDraw, *, kernel: bool = True, dilations: bool = True) -> dict[str, Any]:
        """The window as attributes; defaults (stride 1, dilation 1, no pads) sometimes left out."""
        found: dict[str, Any] = {}
        if kernel:
            found["kernel_shape"] = self.kernel
        if any(s != 1 for s in self.strides) or n.flag():
            found["strides"] = self.strides
        if dilations and (any(d != 1 for d in self.dilations) or n.flag()):
            found["dilations"] = self.dilations
        if self.auto_pad != "NOTSET":
            found["auto_pad"] = self.auto_pad
        elif any(self.pads) or n.flag():
            found["pads"] = self.pads
        return {k: v for k, v in found.items() if k in n.attribute_names}


def window(
    n: NodeDraw,
    *,
    rank: int | None = None,
    dilate: bool = True,
    auto_pad: bool = True,
    max_kernel: int = 3,
) -> Window:
    rank = rank or n.integer(1, 2)
    kernel = [n.integer(1, max_kernel) for _ in range(rank)]
    strides = [n.integer(1, 2) for _ in range(rank)]
    dilations = [n.integer(1, 2) if dilate else 1 for _ in range(rank)]
    modes = ["NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"] if auto_pad else ["NOTSET"]
    mode = n.choice(modes)
    pads = [n.integer(0, k - 1) for k in kernel] + [n.integer(0, k - 1) for k in kernel]
    if mode != "NOTSET":
        pads = [0] * (2 * rank)
    sizes = [(k - 1) * d + 1 + n.integer(0, 3) for k, d in zip(kernel, dilations)]
    return Window(kernel, strides, dilations, pads, sizes, mode)


def group_sizes(n: NodeDraw) -> tuple[int, int, int]:
    """(group, input channels, output channels), both divisible by group."""
    group = n.integer(1, 2)
    return group, group * n.integer(1, 2), group * n.integer(1, 2)


# -- sequences ------------------------------------------------------------------------------------


def sequence_elem(n: NodeDraw, param: str) -> ElementType:
    """The element type of the tensors in sequence type parameter ``param`` (drawn once)."""
    found = n.bound(param)
    if found is not None:
        return found
    elems = [
        t.elem.elem_type
        for t in (ocst.parse_type(s) for s in ocst.allowed_types(n.spec, param))
        if isinstance(t, Sequence) and isinstance(t.elem, Tensor) and t.elem.elem_type
    ]
    return n.bind(param, n.choice(elems))


def sequence_input(n: NodeDraw, elem: ElementType, shapes: list[tuple[int, ...]]) -> Input:
    items = [n.array(elem, shape) for shape in shapes]
    return n.value(items, Sequence(Tensor(elem, None)))


def sequence_shapes(n: NodeDraw, *, min_size: int = 0, max_size: int = 3) -> list[tuple[int, ...]]:
    count = n.integer(min_size, max_size)
    return [n.shape(max_dims=3, max_side=3) for _ in range(count)]


# -- rows of features (ML operators and models) ---------------------------------------------------


def feature_rows(n: NodeDraw, *, features: int | None = None, low: float = -2) -> tuple[Input, int]:
    """An (N, F) input of the first type parameter, and F."""
    count = features if features is not None else n.integer(1, 3)
    return n.tensor(0, (n.integer(0, 3), count), low=low, high=2), count


def float_values(n: NodeDraw, count: int) -> list[float]:
    values: list[float] = n.draw(
        st.lists(st.sampled_from([-1.0, 0.5, 1.0, 2.0]), min_size=count, max_size=count)
    )
    return values
