"""A Conv whose weights are constants of the model, prepared once for the evaluator's ``fuse``.

The kernel as written (:func:`onnxcraft.ops.conv.kernels.conv`) copies every window of the
input into an im2col matrix, ``kernel taps x channels x positions`` values, then makes one
matrix product. For a 3x3 convolution that copy is nine times the input, and OpenBLAS then
packs it again. With the weights known when the model is prepared, two layouts avoid most of
it for 2-D, stride-1, ungrouped convolutions (the bulk of ResNet, DenseNet, Inception):

- **taps** (output channels far fewer than input channels, DenseNet's 128 -> 32): every tap's
  weights stacked into one ``(taps * M, C)`` matrix multiply the padded image itself, flattened
  so that each tap's window is one contiguous slice of a row (computed over the padded width,
  the extra columns dropped). The output is the sum of the taps' shifted row blocks: copies
  of ``M`` channels instead of ``C``.
- **rows** (the others): the image copied once per horizontal tap (``kw`` copies, not
  ``kh * kw``), one product with the weights of a kernel row stacked, and the ``kh`` vertical
  taps summed as shifted blocks of the result.

Everything else (strides, groups, depthwise, N-D, small images) runs the written im2col,
one image at a time when the batch's im2col would not stay in cache. Batch images are
computed one at a time in the two layouts too, in working arrays reused from call to call
(:mod:`onnxcraft.ops.conv.scratch`).

These change how the products are summed, so they round differently from the kernel as
written (within float rounding of the dot product: ``tests/ops/conv/test_prepared.py``); the
evaluator uses them only with ``fuse=True``. A residual Add and a Relu that alone read the
Conv's output are applied in place on the new array, exactly as the nodes would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.ops.conv.kernels import check_conv_operands, conv, conv_geometry, grouped_conv
from onnxcraft.ops.conv.scratch import scratch
from onnxcraft.ops.im2col import WindowGeometry

__all__ = ["PreparedConv", "choose_layout", "prepare_conv"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# An image whose im2col holds more values than this is convolved alone (one image's columns
# stay in cache while the product reads them; a batch's do not).
_IM2COL_CHUNK = 1 << 16
# Below this many terms (channels x taps) in each output's sum the im2col is small anyway.
_SMALLEST_PRODUCT = 64


def choose_layout(geom: WindowGeometry, channels: int, out_channels: int, group: int) -> str:
    """``"taps"``, ``"rows"`` or ``"im2col"`` for a 2-D convolution of this shape.

    Measured per shape against the im2col (tests/benchmarks/bench_conv.py): taps wins
    whenever the output has a quarter of the input's channels or fewer; rows wins from about
    12 output rows on (below, the padded rows it also computes cost more than the copy saved)
    and on narrow inputs, where the im2col copy outweighs the product.
    """
    if geom.ndim != 2 or group != 1 or geom.strides != (1, 1) or geom.kernel == (1, 1):
        return "im2col"
    if any(n == 0 for n in geom.out_shape) or out_channels == 0:
        return "im2col"
    if channels * geom.kernel[0] * geom.kernel[1] < _SMALLEST_PRODUCT:
        return "im2col"  # too few terms in each sum for the layouts to gain anything
    if 4 * out_channels <= channels:
        return "taps"
    if geom.out_shape[0] >= 12 or channels <= 64:
        return "rows"
    return "im2col"


@dataclass(frozen=True)
class _Layout:
    geom: WindowGeometry
    name: str


class PreparedConv:
    """Conv (then, optionally, a residual Add and a Relu) with constant weights.

    Called with the Conv's data input, then the Add's other input when an Add is fused.
    Inputs the fast layouts do not cover (another dtype or rank, a channel count the weights
    do not fit) run the nodes as written, with the kernels they would have run.
    """

    def __init__(
        self,
        weight: np.ndarray,
        bias: np.ndarray | None,
        attributes: dict[str, Any],
        *,
        add: Callable[..., Any] | None = None,
        conv_first: bool = True,
        relu: Callable[..., Any] | None = None,
    ) -> None:
        self.weight = weight
        self.bias = bias
        self.attributes = dict(attributes)
        self.group = int(attributes.get("group", 1))
        self.add = add  # the Add kernel, for inputs it cannot add in place
        self.conv_first = conv_first  # whether the Conv's output is the Add's first input
        self.relu = relu  # the Relu kernel, for results it cannot clamp in place
        self._layouts: dict[tuple[int, ...], _Layout] = {}
        self._arranged: dict[str, np.ndarray] = {}  # the weights in each layout, made once
        self._bias = None if bias is None else bias.reshape(-1, 1, 1)

    def __call__(self, x: Any, residual: Any = None) -> np.ndarray:
        with np.errstate(all="ignore"):  # overflow gives inf quietly, as the written kernels
            y = self._convolve(x)
            if self.add is not None:
                y = self._add_residual(y, residual)
            if self.relu is not None:
                y = self._clamp(y)
        return y

    # -- the convolution --------------------------------------------------------------------------

    def _convolve(self, x: Any) -> np.ndarray:
        w = self.weight
        if not isinstance(x, np.ndarray) or x.dtype != w.dtype or x.ndim != w.ndim:
            return self._as_written(x)
        layout = self._layouts.get(x.shape[1:])
        if layout is None:
            layout = self._layout(x)
        if layout.name == "taps":
            return self._each_image(x, layout.geom, self._taps_image)
        if layout.name == "rows":
            return self._each_image(x, layout.geom, self._rows_image)
        return self._im2col(x, layout.geom)

    def _as_written(self, x: Any) -> np.ndarray:
        result: np.ndarray = conv(x, self.weight, self.bias, **self.attributes)
        return result

    def _layout(self, x: np.ndarray) -> _Layout:
        check_conv_operands("Conv", x, self.weight, self.group)
        geom = self._geometry(x)
        name = choose_layout(geom, x.shape[1], self.weight.shape[0], self.group)
        layout = self._layouts[x.shape[1:]] = _Layout(geom, name)
        return layout

    def _geometry(self, x: np.ndarray) -> WindowGeometry:
        a = self.attributes
        return conv_geometry(
            "Conv",
            x,
            self.weight,
            kernel_shape=a.get("kernel_shape"),
            strides=a.get("strides"),
            dilations=a.get("dilations"),
            pads=a.get("pads"),
            auto_pad=a.get("auto_pad", "NOTSET"),
        )

    def _im2col(self, x: np.ndarray, geom: WindowGeometry) -> np.ndarray:
        taps = int(np.prod(geom.kernel)) * x.shape[1]
        positions = int(np.prod(geom.out_shape))
        w = self.weight
        if x.shape[0] <= 1 or taps * positions <= _IM2COL_CHUNK:
            y = grouped_conv(x, w, geom, self.group)
        else:
            y = np.empty((x.shape[0], w.shape[0], *geom.out_shape), x.dtype)
            for n in range(x.shape[0]):
                y[n] = grouped_conv(x[n : n + 1], w, geom, self.group)[0]
        if self._bias is not None:
            y += self._bias.reshape((1, -1) + (1,) * geom.ndim)
        return y

    def _each_image(
        self,
        x: np.ndarray,
        geom: WindowGeometry,
        image: Callable[[np.ndarray, WindowGeometry, np.ndarray], None],
    ) -> np.ndarray:
        y = np.empty((x.shape[0], self.weight.shape[0], *geom.out_shape), x.dtype)
        for n in range(x.shape[0]):
            image(x[n], geom, y[n])
        return y

    def _arrangement(self, name: str) -> np.ndarray:
        """The weights as the ``taps`` or ``rows`` product wants them (made on first use)."""
        arranged = self._arranged.get(name)
        if arranged is None:
            w = self.weight
            m, c, kh, kw = w.shape
            if name == "taps":  # row t * M + m holds w[m, :, i, j] for tap t = i * kw + j
                arranged = w.transpose(2, 3, 0, 1).reshape(kh * kw * m, c)
            else:  # rows: row i * M + m, column j * C + c holds w[m, c, i, j]
                arranged = w.transpose(2, 0, 3, 1).reshape(kh * m, kw * c)
            arranged = self._arranged[name] = np.ascontiguousarray(arranged)
        return arranged

    def _taps_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """One image (C, H, W) by the taps layout into ``out`` (M, Ho, Wo)."""
        c, h, w = x.shape
        m = self.weight.shape[0]
        (kh, kw), (dh, dw) = geom.kernel, geom.dilations
        (top, left), (bottom, right) = geom.pads_begin, geom.pads_end
        hp, wp = h + top + bottom, w + left + right
        ho, wo = geom.out_shape
        length = ho * wp  # output rows over the padded width; the last columns are dropped
        # room past the image for the last tap's slice (it runs into the dropped columns)
        flat = scratch("flat", (c, hp * wp + (kw - 1) * dw), x.dtype)
        flat[...] = 0
        flat[:, : hp * wp].reshape(c, hp, wp)[:, top : top + h, left : left + w] = x
        products = scratch("products", (kh * kw * m, flat.shape[1]), x.dtype)
        np.matmul(self._arrangement("taps"), flat, out=products)
        total = scratch("total", (m, length), x.dtype)
        self._sum_shifted(
            products, m, [i * dh * wp + j * dw for i in range(kh) for j in range(kw)], total
        )
        self._store(total.reshape(m, ho, wp)[:, :, :wo], out)

    def _rows_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """One image (C, H, W) by the rows layout into ``out`` (M, Ho, Wo)."""
        c, h, w = x.shape
        m = self.weight.shape[0]
        (kh, kw), (dh, dw) = geom.kernel, geom.dilations
        ho, wo = geom.out_shape
        (top, left), (bottom, right) = geom.pads_begin, geom.pads_end
        hp, wp = h + top + bottom, w + left + right
        padded = scratch("padded", (c, hp, wp), x.dtype)
        padded[...] = 0
        padded[:, top : top + h, left : left + w] = x
        cols = scratch("cols", (kw, c, hp, wo), x.dtype)
        for j in range(kw):
            cols[j] = padded[:, :, j * dw : j * dw + wo]
        products = scratch("products", (kh * m, hp * wo), x.dtype)
        np.matmul(self._arrangement("rows"), cols.reshape(kw * c, hp * wo), out=products)
        total = scratch("total", (m, ho * wo), x.dtype)
        self._sum_shifted(products, m, [i * dh * wo for i in range(kh)], total)
        self._store(total.reshape(m, ho, wo), out)

    @staticmethod
    def _sum_shifted(
        products: np.ndarray, m: int, offsets: Sequence[int], total: np.ndarray
    ) -> None:
        """``total`` = the sum over blocks b of ``products[b*m:(b+1)*m, offsets[b]:...]``."""
        length = total.shape[1]
        blocks = [
            products[b * m : (b + 1) * m, off : off + length] for b, off in enumerate(offsets)
        ]
        if len(blocks) == 1:
            total[...] = blocks[0]
            return
        np.add(blocks[0], blocks[1], out=total)
        for block in blocks[2:]:
            total += block

    def _store(self, total: np.ndarray, out: np.ndarray) -> None:
        if self._bias is None:
            out[...] = total
        else:
            np.add(total, self._bias, out=out)

    # -- what follows the convolution -------------------------------------------------------------

    def _add_residual(self, y: np.ndarray, residual: Any) -> np.ndarray:
        add = self.add
        assert add is not None
        if (
            isinstance(residual, np.ndarray)
            and residual.dtype == y.dtype
            and y.dtype in _FLOATS
            and residual.ndim <= y.ndim
            and np.broadcast_shapes(residual.shape, y.shape) == y.shape
        ):
            # a + b and b + a round alike: the in-place sum is the Add's, bit for bit
            np.add(y, residual, out=y)
            return y
        result: np.ndarray = add(y, residual) if self.conv_first else add(residual, y)
        return result

    def _clamp(self, y: np.ndarray) -> np.ndarray:
        if isinstance(y, np.ndarray) and y.dtype in _FLOATS and y.flags.writeable:
            np.maximum(y, y.dtype.type(0), out=y)
            return y
        relu = self.relu
        assert relu is not None
        result: np.ndarray = relu(y)
        return result


def prepare_conv(
    weight: Any,
    bias: Any,
    attributes: dict[str, Any],
    *,
    add: Callable[..., Any] | None = None,
    conv_first: bool = True,
    relu: Callable[..., Any] | None = None,
) -> PreparedConv | None:
    """A :class:`PreparedConv` for a Conv with these constant weights, or None where the
    prepared layouts have nothing to offer (not float32/float64, a weight that is not an
    array of rank 3 or more, a bias of another shape: the kernel as written says why)."""
    if not isinstance(weight, np.ndarray) or weight.dtype not in _FLOATS or weight.ndim < 3:
        return None
    if bias is not None and (
        not isinstance(bias, np.ndarray)
        or bias.dtype != weight.dtype
        or bias.shape != (weight.shape[0],)
    ):
        return None
    if int(attributes.get("group", 1)) < 1:
        return None
    return PreparedConv(weight, bias, attributes, add=add, conv_first=conv_first, relu=relu)
