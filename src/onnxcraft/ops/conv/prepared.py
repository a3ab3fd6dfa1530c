"""A Conv whose weights are constants of the model, prepared once for the evaluator's ``fuse``.

The kernel as written (:func:`onnxcraft.ops.conv.kernels.conv`) copies every window of the
input into an im2col matrix, ``kernel taps x channels x positions`` values, then makes one
matrix product. For a 3x3 convolution that copy is nine times the input, and OpenBLAS then
packs it again. With the weights known when the model is prepared, two layouts avoid most of
it for 2-D, stride-1, ungrouped convolutions (the bulk of ResNet, DenseNet, Inception):

- **taps** (output channels far fewer than input channels, DenseNet's 128 -> 32): every tap's
  weights stacked into one ``(taps * M, C)`` matrix multiply the padded image itself, flattened
  so that each tap's window is one contiguous slice of a row (computed over the padded width,
  the extra columns dropped; under a "same" padding the grid has no padding columns, the
  products read across a row's edge set to a padding column's). The output is the sum of
  the taps' shifted row blocks: copies of ``M`` channels instead of ``C``.
- **rows** (as many output channels as input or fewer, images of 12 rows or more): the image
  copied once per horizontal tap (``kw`` copies, not ``kh * kw``), one product with the
  weights of a kernel row stacked, and the ``kh`` vertical taps summed as shifted blocks of
  the result.
- **winograd4** (3x3, stride 1, 64 input channels or more, at least as many output
  channels, outputs of 14 x 14 or more, and a batch of 32 4x4 tiles or more: ResNet's and
  Inception's 3x3 convolutions): Winograd's F(4x4, 3x3), 36 products per 4x4 output tile
  instead of 144, its transforms matrix products with 6x6 matrices
  (:mod:`onnxcraft.ops.conv.winograd4`). It rounds worse than the direct sum (within 7.2e-5
  of the largest value of the output channel's convolution of absolute values, against 2e-6
  for the other layouts). A batch with fewer tiles runs the layout chosen without it.
- **winograd** (3x3, stride 1, 256 channels or more in and out, outputs of 8x8 or more that
  F(4x4, 3x3) does not take, such as 13x13, or one 14 x 14 image):
  Winograd's F(2x2, 3x3), 16 products per 2x2 output tile instead of 36
  (:mod:`onnxcraft.ops.conv.winograd`).
- **depthwise** (one filter per channel, as ShuffleNet's): each block of an output row the
  product of one small rectangle of the padded image with a banded matrix of the channel's
  weights, all channels in one batched product (:mod:`onnxcraft.ops.conv.depthwise`).
- **phases** (strided convolutions with large kernels, the 7x7 stride-2 stems): the padded
  image split once into its stride phases, the taps reading each phase copied together
  from an overlapping view of it (:mod:`onnxcraft.ops.conv.phases`), a cache-sized band of
  output rows at a time.
- **flat** (stride-1 convolutions with one group per input channel and several filters per
  channel): the padded image split into stride phases and flattened, so that every tap's
  windows are one contiguous slice per channel, copied into the im2col.

Everything else in 2-D runs an im2col of one image at a time (or of a few small ones
together), every tap's windows copied at once (one strided view of them all) into a
working array and multiplied straight into the output; a 1x1 stride-1 convolution
multiplies the image itself. 1-D and 3-D convolutions run the written im2col. With a bias,
the copied arrays get a row of ones and the weights the bias as a column: the product adds
it. Working arrays are reused
from call to call (:mod:`onnxcraft.ops.conv.scratch`), and each image's output gets the
residual Add and the Relu while it is still in cache.

These change how the products are summed, so they round differently from the kernel as
written (within float rounding of the dot product: ``tests/evaluate/test_prepared_conv.py``;
F(4x4, 3x3) within its own bound, ``tests/evaluate/test_winograd4.py``);
the evaluator uses them only with ``fuse=True``. The depthwise and Winograd layouts combine
values from outside an output's window (times zero, or mixed in a tile), which would spread
an infinity or NaN of the input to outputs the written kernel leaves finite: an input
holding one runs the im2col instead (Winograd's input checked by its sum of squares, one
BLAS pass; a depthwise output holding NaN computed again).
The residual Add and the Relu are exactly the nodes' (``a + b`` in place rounds as
``a + b``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from onnxcraft.ops.clamp import at_least_zero
from onnxcraft.ops.conv.columns import ImageColumns, image_columns
from onnxcraft.ops.conv.depthwise import Blocks, DepthwiseRun, block_width, depthwise_weights
from onnxcraft.ops.conv.kernels import check_conv_operands, conv, conv_geometry, grouped_conv
from onnxcraft.ops.conv.ones_channel import OnesChannel
from onnxcraft.ops.conv.phases import TapClass, tap_classes
from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.conv.winograd import winograd_image, winograd_weights
from onnxcraft.ops.conv.winograd4 import winograd4_image, winograd4_weights
from onnxcraft.ops.im2col import WindowGeometry

__all__ = ["PreparedConv", "choose_layout", "copies_input_once", "prepare_conv"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Below this many terms (channels x taps) in each output's sum the im2col is small anyway.
_SMALLEST_PRODUCT = 64
# The taps layout from this many input channels per output channel on (DenseNet's 128 -> 32).
_TAPS_CHANNEL_RATIO = 4
# Images whose im2col holds fewer values than this are convolved together (about 512 KiB of
# float32: they stay in cache while the product reads them).
_IM2COL_VALUES = 1 << 17
# Images with at most this many output positions (7 x 7, ResNet's and DenseNet's last stages)
# are convolved together with their columns side by side, one product of about this many
# columns: OpenBLAS runs one (M, K) x (K, 8 * 49) product in 0.63-0.69x the time of eight
# (M, K) x (K, 49) ones, even counting the copy that puts the images back in order.
_SIDE_BY_SIDE_POSITIONS = 64
_SIDE_BY_SIDE_COLUMNS = 512
# The phases layout's bands of output rows: an im2col of up to this many values (2 MiB of
# float32, an AVX-512 Xeon's L2). Measured on the 7x7 stems against 2^17 values (512 KiB):
# 2^19 and 2^20 took 0.92-0.96x the time at batch 1 and 8, 2^21 0.96-1.05x, 2^16 1.17-1.21x
# (tests/benchmarks/ab_prepared_choices.py for 2^19).
_PHASES_BAND_VALUES = 1 << 19
# Winograd's transforms pay for themselves from this many input and output channels on (on an
# AVX-512 machine, where OpenBLAS's products run faster than on AVX2: at 128 channels the rows
# layout took 0.86-0.90x Winograd's time on ResNet-50's 128 x 28 x 28, at 256 x 28 x 28
# Winograd still wins by 12-16%; tests/benchmarks/ab_prepared_choices.py).
_WINOGRAD_CHANNELS = 256
# Winograd's images with at most this many 2x2 tiles (14 x 14 outputs: 49) are transformed
# and multiplied together, their tiles side by side in the 16 products, as the im2col's
# small images: 0.95x the time on 256 x 14 x 14 at batch 8, 0.76x on 512 x 14 x 14
# (tests/benchmarks/ab_prepared_choices.py --only winograd_side).
_WINOGRAD_SIDE_BY_SIDE_TILES = 64
# Winograd's F(4x4, 3x3) from this many input channels on, with at least as many output
# channels and outputs of 14 x 14 or more: 0.64-0.90x the time of the rows, im2col and
# F(2x2, 3x3) layouts on ResNet-50's and BN-Inception's 3x3 convolutions alone, batch 1 and 8
# (tests/benchmarks/ab_prepared_choices.py --only winograd4). Not on SqueezeNet's (16 to 64
# channels in: 0.89-1.31x), in place of DenseNet's taps layout (1.02-1.58x), nor on 7x7
# outputs (1.6-1.9x with 512 channels at batch 1: four tiles an image).
_WINOGRAD4_CHANNELS = 64
_WINOGRAD4_SIZE = 14
# ... and when the batch has at least this many 4x4 tiles (the products' columns): with fewer,
# its weights (36 matrices, four times the filters) cost more to read than the products they
# save. Inside ResNet-50 and BN-Inception at batch 1, on 14 x 14 outputs (16 tiles) it took
# 0.97-1.06x the time of F(2x2, 3x3) and the im2col (their weights come from memory there,
# not from the cache as when timed alone), but 0.83-0.87x on 14 x 14 at batch 2 (32 tiles),
# 0.87-0.90x at batch 4 and 8, and 0.65-0.92x on 28 x 28 and 56 x 56 at batch 1 (49 and 196
# tiles; tests/benchmarks/ab_winograd4_models.py and its per-convolution timing).
_WINOGRAD4_COLUMNS = 32
# F(4x4, 3x3)'s side-by-side images go in chunks of at most this many transformed values
# (36 x the larger channel count x the chunk's tiles, 4 MiB of float32): a batch of 8 28 x 28
# images (49 tiles each, 392 columns) spilled its transforms far past the L2. Alone, chunks of
# 1 to 4 took 0.75-0.88x the time of all 8 on ResNet-50's and BN-Inception's 28 x 28 ones;
# inside the models (the rule switched run by run, the steps it changes) 0.92-0.96x on
# ResNet-50, 0.96-0.99x on BN-Inception (2^19 and 2^18 0.98-0.99x, 2^21 1.01-1.04x;
# tests/benchmarks/ab_conv_chunks.py --only winograd4_chunk).
_WINOGRAD4_CHUNK_VALUES = 1 << 20
# Layouts writing their output through a transposed view (M, N, Ho, Wo) of it, which may
# have any strides: a Concat's channel slice of a batch of several images is taken as it is
# (the others need each block of images contiguous, or get a new array and a copy after).
_ANY_STRIDES = frozenset({"winograd", "winograd4", "taps", "rows"})
# Layouts whose products combine values from outside an output's window (_Layout.confined).
_SPREADS_NON_FINITE = frozenset({"winograd", "winograd4", "depthwise"})


def choose_layout(
    geom: WindowGeometry, channels: int, out_channels: int, group: int, *, winograd4: bool = True
) -> str:
    """``"taps"``, ``"winograd4"``, ``"winograd"``, ``"rows"``, ``"depthwise"``, ``"phases"``,
    ``"flat"`` or ``"im2col"`` for a 2-D convolution of this shape.

    From the layouts timed per shape (``tests/benchmarks/bench_conv.py``,
    ``ab_prepared_choices.py``): taps whenever the output has a quarter of the input's
    channels or fewer; Winograd's F(4x4, 3x3) for 3x3 stride-1 convolutions with 64 input
    channels or more, at least as many output channels, and outputs of 14 x 14 or more
    (``_WINOGRAD4_CHANNELS``); its F(2x2, 3x3) for the other 3x3 stride-1 convolutions with
    256 channels or more in and out and 8 output rows and columns or more (slower with fewer
    channels, where its transforms cost more than the products it saves, and no faster on
    7x7 outputs); rows when the output
    has no more channels than the input and at least 12 rows (below, the padded rows it also
    computes cost more than the copies saved); the banded products for depthwise convolutions (one
    filter per channel: 1.1 to 1.9 times faster than flat and im2col on ShuffleNet's);
    phases for strided ones with large kernels (image stems: 7x7, stride 2; 1.1 to 1.2 times
    faster than flat and im2col, slower on 3x3 kernels); flat for stride-1 convolutions with
    a group per input channel and several filters each, whose window copies are otherwise
    strided; the im2col for the rest, where every layout spends about the same beside the
    product. ``winograd4=False``: the layout for batches with too few tiles for F(4x4, 3x3)
    (``_WINOGRAD4_COLUMNS``).
    """
    if any(n == 0 for n in geom.out_shape) or out_channels == 0:
        return "im2col"
    stride_one = geom.strides == (1, 1)
    if group > 1:
        if group == channels == out_channels and geom.kernel != (1, 1):
            return "depthwise"  # one banded product per channel
        depthwise = group == channels and stride_one and geom.kernel != (1, 1)
        return "flat" if depthwise else "im2col"
    if not stride_one:  # large kernels (image stems): their taps copied by stride phase
        return "phases" if min(geom.kernel) >= 5 else "im2col"
    if geom.kernel == (1, 1) or channels * geom.kernel[0] * geom.kernel[1] < _SMALLEST_PRODUCT:
        return "im2col"  # a view already, or too few terms in each sum to gain anything
    if _TAPS_CHANNEL_RATIO * out_channels <= channels:
        return "taps"
    three_by_three = geom.kernel == (3, 3) and geom.dilations == (1, 1)
    if (
        winograd4
        and three_by_three
        and _WINOGRAD4_CHANNELS <= channels <= out_channels
        and min(geom.out_shape) >= _WINOGRAD4_SIZE
    ):
        return "winograd4"
    if (
        three_by_three
        and min(channels, out_channels) >= _WINOGRAD_CHANNELS
        and min(geom.out_shape) >= 8  # 7x7: tiles padded to 8x8 waste a third
    ):
        return "winograd"
    if out_channels <= channels and geom.out_shape[0] >= 12:
        return "rows"
    return "im2col"


@dataclass(frozen=True)
class _Layout:
    geom: WindowGeometry
    name: str
    # F(4x4, 3x3) only: the layout for batches with fewer tiles than _WINOGRAD4_COLUMNS
    few_tiles: _Layout | None = None
    # The layouts whose products mix values outside an output's window (the depthwise
    # banded zeros, Winograd's transforms) would spread an infinity or NaN of the input to
    # outputs the written kernel leaves finite (zero times infinity): for such inputs, the
    # im2col, which multiplies each output's window alone. Winograd's input is checked
    # first (a spread infinity could turn -inf, which a Relu hides); the depthwise output
    # after (it spreads NaN only).
    confined: _Layout | None = None
    # Worked out once when the layout is chosen (per-call Python was 7-14 µs of a small
    # convolution): the function convolving a chunk of images, unbound (the layout must not
    # refer back to its PreparedConv), and how many images a chunk holds. A layout made
    # without them (tests and benchmarks force layouts) has them worked out call by call.
    image: Callable[..., None] | None = None
    at_once: int = 0


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
        input_relu: Callable[..., Any] | None = None,
        work: WorkingArrays | None = None,
    ) -> None:
        self.weight = weight
        self.work = WorkingArrays() if work is None else work  # shared by a plan's convs
        self.bias = bias
        self.attributes = dict(attributes)
        self.group = int(attributes.get("group", 1))
        self.add = add  # the Add kernel, for inputs it cannot add in place
        self.conv_first = conv_first  # whether the Conv's output is the Add's first input
        self.relu = relu  # the Relu kernel, for results it cannot clamp in place
        # The Relu of the Conv before, moved here (onnxcraft.evaluate.relu_into_conv): done
        # by the taps layout's copy of the input, by any other first.
        self.input_relu = input_relu
        # Links made by onnxcraft.evaluate.ones_channels: the output made with a channel of
        # ones after it (``spare``), the input read with one (``ones_from``, a 1x1 with a bias)
        self.spare: OnesChannel | None = None
        self.ones_from: OnesChannel | None = None
        self._layouts: dict[tuple[int, ...], _Layout] = {}
        self._arranged: dict[str, np.ndarray] = {}  # the weights in each layout, made once
        self._banded: dict[int, tuple[Blocks, np.ndarray]] = {}  # depthwise, by input width
        self._depthwise_runs: dict[tuple[int, ...], DepthwiseRun] = {}  # by input shape
        self._columns: dict[tuple[int, ...], ImageColumns | None] = {}  # im2col, by shape
        self._bias = None if bias is None else bias.reshape(-1, 1, 1)

    def __call__(self, x: Any, residual: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        with np.errstate(all="ignore"):  # overflow gives inf quietly, as the written kernels
            layout = self._layout_for(x)
            if layout is None or layout.confined is None:
                return self._run(x, residual, out, layout)
            if layout.name != "depthwise":  # Winograd: checked before (see _Layout.confined)
                return self._run(x, residual, out, layout if _all_finite(x) else layout.confined)
            # The banded product spreads NaN only (zero times an infinity or NaN), which the
            # Add and the Relu keep: an output without NaN had nothing to spread (a pass over
            # the output, a quarter of the input at stride 2).
            y = self._run(x, residual, out, layout)
            if not isinstance(y, np.ndarray) or y.size == 0 or not np.isnan(y.max()):
                return y
            return self._run(x, residual, out, layout.confined)

    def _run(
        self, x: Any, residual: Any, out: np.ndarray | None, layout: _Layout | None
    ) -> np.ndarray:
        """The convolution (and the Add and Relu joined to it) of ``x`` in ``layout``."""
        if self.input_relu is not None and (layout is None or layout.name != "taps"):
            x = self._clamped_input(x)
        if layout is None:  # not a case of the layouts: the nodes as written
            return self._after(self._as_written(x), residual)
        y = self._output_array(x, layout, out)
        if y.size == 0:
            return self._after(y, residual)
        in_place = self.add is None or self._adds_in_place(residual, y)
        if layout.name == "nd" or not in_place:
            self._whole_batch(x, layout, y)
            return self._after(y, residual)
        image, step = layout.image, layout.at_once
        if image is None:
            image = self._image(layout.name)
            step = self._images_at_once(x, layout, self.weight.shape[0])
        if self.ones_from is not None and layout.name == "im2col":
            extended = self._with_ones(x, layout.geom)
            if extended is not None:  # the bias by the product, from the row of ones
                x, image = extended, PreparedConv._ones_image
        if layout.name == "winograd4" and x.shape[0] > step:
            # chunks of even size (8 images by 7 would leave one image of few tiles,
            # the narrow product F(4x4, 3x3) is not chosen for)
            step = -(-x.shape[0] // -(-x.shape[0] // step))
        if step >= x.shape[0] and self.add is None:  # one chunk, the usual case
            image(self, x, layout.geom, y)
            if self.relu is not None:
                at_least_zero(y, out=y)
            return y
        rows = None if self.add is None else np.broadcast_to(residual, y.shape)
        for n in range(0, x.shape[0], step):
            # each chunk of images finished while it is in cache: bias, residual, Relu
            out = y[n : n + step]
            image(self, x[n : n + step], layout.geom, out)
            if rows is not None:
                np.add(out, rows[n : n + step], out=out)
            if self.relu is not None:
                at_least_zero(out, out=out)
        return y

    def without_relu(self) -> PreparedConv:
        """This convolution without its Relu (the rest as it is)."""
        return self.with_relus(relu=None, input_relu=self.input_relu)

    def with_relus(
        self, *, relu: Callable[..., Any] | None, input_relu: Callable[..., Any] | None
    ) -> PreparedConv:
        """This convolution with another Relu after it and before it (the rest as it is), its
        weights arranged once for both: they are the same weights and bias."""
        twin = PreparedConv(
            self.weight,
            self.bias,
            self.attributes,
            add=self.add,
            conv_first=self.conv_first,
            relu=relu,
            input_relu=input_relu,
            work=self.work,
        )
        twin._arranged = self._arranged
        return twin

    def _clamped_input(self, x: Any) -> Any:
        """The input through the Relu moved here: in place for a float array it may write
        (the Conv before made it for this one alone), else by the Relu's kernel."""
        assert self.input_relu is not None
        if isinstance(x, np.ndarray) and x.dtype in _FLOATS and x.flags.writeable:
            return at_least_zero(x, out=x)
        return self.input_relu(x)

    def _output_array(self, x: np.ndarray, layout: _Layout, out: np.ndarray | None) -> np.ndarray:
        """The array the output is written into: ``out`` (a slice of a Concat's output, from
        :mod:`onnxcraft.evaluate.concat_targets`) when it fits, else a new one. The layouts
        write a block of images through reshaped views, so each block must be contiguous."""
        shape = (x.shape[0], self.weight.shape[0], *layout.geom.out_shape)
        if out is None and self.spare is not None:
            out = self.spare.array(shape, x.dtype)  # taken if the layout can write it
        if out is None or out.shape != shape or out.dtype != x.dtype or not out.flags.writeable:
            return np.empty(shape, x.dtype)
        if out.flags.c_contiguous or layout.name in _ANY_STRIDES:
            return out
        one_at_a_time = self._images_at_once(x, layout, self.weight.shape[0]) == 1
        if one_at_a_time and layout.name != "nd" and out[:1].flags.c_contiguous:
            return out
        return np.empty(shape, x.dtype)

    # -- the convolution --------------------------------------------------------------------------

    def _layout_for(self, x: Any) -> _Layout | None:
        w = self.weight
        if not isinstance(x, np.ndarray) or x.dtype != w.dtype or x.ndim != w.ndim:
            return None
        layout = self._layouts.get(x.shape[1:])
        if layout is None:
            check_conv_operands("Conv", x, w, self.group)
            geom = self._geometry(x)
            c, m, g = x.shape[1], w.shape[0], self.group
            name = "nd" if geom.ndim != 2 else choose_layout(geom, c, m, g)
            few = None
            if name == "winograd4":
                few = self._with_image(
                    x, _Layout(geom, choose_layout(geom, c, m, g, winograd4=False))
                )
            layout = self._layouts[x.shape[1:]] = self._with_image(x, _Layout(geom, name, few))
        if layout.few_tiles is not None:
            ho, wo = layout.geom.out_shape
            if x.shape[0] * -(-ho // 4) * -(-wo // 4) < _WINOGRAD4_COLUMNS:
                return layout.few_tiles
        return layout

    def _with_image(self, x: np.ndarray, layout: _Layout) -> _Layout:
        """``layout`` with its image function and chunk size (both follow from the layout and
        the input's shape past the batch axis, the key of ``_layouts``), and its confined
        twin where it spreads non-finite values."""
        if layout.name == "nd":
            return layout
        image = self._image(layout.name)
        at_once = self._images_at_once(x, layout, self.weight.shape[0])
        confined = None
        if layout.name in _SPREADS_NON_FINITE:
            confined = self._with_image(x, _Layout(layout.geom, "im2col"))
        return replace(layout, image=image, at_once=at_once, confined=confined)

    def _as_written(self, x: Any) -> np.ndarray:
        result: np.ndarray = conv(x, self.weight, self.bias, **self.attributes)
        return result

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

    @staticmethod
    def _image(name: str) -> Callable[..., None]:
        """The function convolving images into their output for layout ``name``, called with
        the PreparedConv, the images, the geometry and the output (unbound: a layout keeps
        it without referring back to its PreparedConv)."""
        if name == "taps":
            return PreparedConv._taps_image
        if name == "rows":
            return PreparedConv._rows_image
        if name == "winograd":
            return PreparedConv._winograd_image
        if name == "winograd4":
            return PreparedConv._winograd4_image
        if name == "flat":
            return PreparedConv._flat_image
        if name == "depthwise":
            return PreparedConv._depthwise_image
        if name == "phases":
            return PreparedConv._phases_image
        return PreparedConv._im2col_image

    @staticmethod
    def _images_at_once(x: np.ndarray, layout: _Layout, out_channels: int) -> int:
        """How many images to convolve together: small im2col images together (fewer numpy
        calls), up to a cache-sized working array; one at a time in the taps, rows and
        Winograd layouts (measured for taps and rows: several at once gained nothing on
        DenseNet and ResNet at batch 8, and their products outgrow the cache), except for
        outputs of a few dozen positions in the im2col and taps layouts, whose products
        run much faster over several images' columns (0.78x for DenseNet's 7x7 taps at
        batch 8; 1.05-1.3x at 14x14 and 28x28), and Winograd's images of up to 64 tiles
        (14 x 14 outputs), whose 16 products likewise."""
        geom = layout.geom
        positions = math.prod(geom.out_shape)
        side_by_side = 1
        if layout.name in ("im2col", "taps", "depthwise") and positions <= _SIDE_BY_SIDE_POSITIONS:
            side_by_side = max(1, _SIDE_BY_SIDE_COLUMNS // max(1, positions))
        if layout.name in ("winograd", "winograd4"):
            side = 2 if layout.name == "winograd" else 4  # of the output tiles
            tiles = -(-geom.out_shape[0] // side) * -(-geom.out_shape[1] // side)
            if tiles <= _WINOGRAD_SIDE_BY_SIDE_TILES:  # the products' columns, per image
                if layout.name == "winograd4":  # a chunk's transformed tiles near the L2
                    per_image = 36 * max(int(x.shape[1]), out_channels) * tiles
                    cap = max(1, _WINOGRAD4_CHUNK_VALUES // per_image)
                    return max(1, min(_SIDE_BY_SIDE_COLUMNS // tiles, cap))
                return max(1, _SIDE_BY_SIDE_COLUMNS // tiles)
        if layout.name in ("taps", "rows", "winograd", "winograd4"):
            return side_by_side
        taps = int(x.shape[1]) * math.prod(geom.kernel)
        together = max(1, _IM2COL_VALUES // max(1, taps * positions))
        return max(together, side_by_side)

    def _whole_batch(self, x: np.ndarray, layout: _Layout, y: np.ndarray) -> None:
        """The convolution (bias included) into ``y``, nothing after it."""
        if layout.name != "nd":
            image = self._image(layout.name)
            step = self._images_at_once(x, layout, self.weight.shape[0])
            for n in range(0, x.shape[0], step):
                image(self, x[n : n + step], layout.geom, y[n : n + step])
            return
        geom = layout.geom
        if x.shape[0] > 0:  # N-D: the written im2col over the batch
            y[...] = grouped_conv(x, self.weight, geom, self.group)
        if self._bias is not None:
            y += self._bias.reshape((1, -1) + (1,) * geom.ndim)

    def _im2col_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) into ``out`` (N, M, Ho, Wo): every tap's windows copied at
        once into a working array (:func:`_tap_windows`), then one product per group and
        image. With a bias, the array gets a row of ones and the weights the bias as a
        column, so the product adds it (no pass of its own)."""
        n, c = x.shape[:2]
        m, g = self.weight.shape[0], self.group
        (kh, kw), (sh, sw) = geom.kernel, geom.strides
        ho, wo = geom.out_shape
        if n > 1 and ho * wo <= _SIDE_BY_SIDE_POSITIONS:
            self._side_by_side_image(x, geom, out)
            return
        taps = (c // g) * kh * kw
        ones = 0 if self._bias is None else 1
        if x.shape in self._columns:
            columns = self._columns[x.shape]
            if columns is not None and columns.geom is not geom:
                columns = self._columns[x.shape] = image_columns(x.shape, x.dtype, geom, g, ones)
        else:
            columns = self._columns[x.shape] = image_columns(x.shape, x.dtype, geom, g, ones)
        cols = None if columns is None else columns.fill(x, self.work)
        if cols is not None:  # straight from the images, the padding's zeros kept
            np.matmul(self._arrangement("im2col"), cols, out=out.reshape(n, g, m // g, ho * wo))
            return
        padded = self._padded(x, geom)
        itself = (kh, kw, sh, sw) == (1, 1, 1, 1) and padded.shape[2:] == (ho, wo)
        # a 1x1 convolution multiplies the images themselves, unless copying them with a row
        # of ones costs less than a pass of the bias over the (wider) output
        if itself and (self._bias is None or c >= m):
            weights = self.weight.reshape(g, m // g, taps)
            np.matmul(
                weights, padded.reshape(n, g, taps, ho * wo), out=out.reshape(n, g, -1, ho * wo)
            )
            if self._bias is not None:
                out += self._bias
            return
        cols = self.work.take("cols", (n, g, taps + ones, ho * wo), x.dtype)
        windows = cols[:, :, :taps].reshape(n, g, c // g, kh, kw, ho, wo)
        windows[...] = _tap_windows(padded.reshape(n, g, c // g, *padded.shape[2:]), geom)
        if ones:
            cols[:, :, taps] = 1
        np.matmul(self._arrangement("im2col"), cols, out=out.reshape(n, g, m // g, ho * wo))

    def _with_ones(self, x: np.ndarray, geom: WindowGeometry) -> np.ndarray | None:
        """``x`` with the channel of ones its maker put after it, for a 1x1 convolution with a
        bias that multiplies its images themselves (None: the usual path)."""
        assert self.ones_from is not None
        if self._bias is None or self.group != 1 or geom.kernel != (1, 1):
            return None
        if geom.strides != (1, 1) or any(geom.pads_begin) or any(geom.pads_end):
            return None
        return self.ones_from.extended(x)

    def _ones_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C + 1, H, W), a last channel of ones, by a 1x1 convolution with a bias
        into ``out`` (N, M, H, W): one product with the bias as the weights' last column."""
        n, taps = x.shape[:2]
        positions = math.prod(geom.out_shape)
        np.matmul(
            self._arrangement("im2col"),
            x.reshape(n, 1, taps, positions),
            out=out.reshape(n, 1, -1, positions),
        )

    def _side_by_side_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Small images (N, C, H, W) into ``out`` (N, M, Ho, Wo) by one product per group over
        every image's im2col columns side by side: on outputs of a few dozen positions,
        OpenBLAS runs one wide product much faster than a narrow one per image (whose last
        partial block of columns costs as much as a full one). The product's columns are
        then copied back image by image. Mostly the per-image im2col's bits; a 1x1
        convolution of a wider image gets its bias in the product here (added after the
        product per image), within the same rounding of the written kernel."""
        n, c = x.shape[:2]
        m, g = self.weight.shape[0], self.group
        kh, kw = geom.kernel
        ho, wo = geom.out_shape
        taps = (c // g) * kh * kw
        padded = self._padded(x, geom)
        ones = 0 if self._bias is None else 1
        cols = self.work.take("cols", (g, taps + ones, n, ho * wo), x.dtype)
        windows = cols[:, :taps].reshape(g, c // g, kh, kw, n, ho, wo)
        # (G, C/G, N, Hp, Wp): each tap's copy moves the images next to each other
        source = padded.reshape(n, g, c // g, *padded.shape[2:]).transpose(1, 2, 0, 3, 4)
        windows[...] = _tap_windows(source, geom).transpose(0, 1, 3, 4, 2, 5, 6)
        if ones:
            cols[:, taps] = 1
        products = self.work.take("products", (g, m // g, n, ho * wo), x.dtype)
        np.matmul(
            self._arrangement("im2col"),
            cols.reshape(g, taps + ones, n * ho * wo),
            out=products.reshape(g, m // g, n * ho * wo),
        )
        out.reshape(n, g, m // g, ho * wo)[...] = products.transpose(2, 0, 1, 3)

    def _flat_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) into ``out`` (N, M, Ho, Wo), the im2col copied from flattened
        phase images: each tap's windows are then one contiguous slice of every channel.

        A stride of s splits the padded image into s_h x s_w phases (every s-th row and
        column from each offset), each a stride-1 image; tap (i, j) reads phase
        (i*dh mod sh, j*dw mod sw) from row i*dh // sh and column j*dw // sw on. With each
        phase flattened over a common padded width wq, output row r of that tap is the slice
        at (r + row) * wq + column: the product is computed over Ho x wq positions and the
        columns past Wo dropped.
        """
        n, c = x.shape[:2]
        m, g = self.weight.shape[0], self.group
        (kh, kw), (sh, sw), (dh, dw) = geom.kernel, geom.strides, geom.dilations
        ho, wo = geom.out_shape
        (top, left), (bottom, right) = geom.pads_begin, geom.pads_end
        hp, wp = x.shape[2] + top + bottom, x.shape[3] + left + right
        hq, wq = -(-hp // sh), -(-wp // sw)
        length = ho * wq
        slack = (kw - 1) * dw // sw  # the last tap's slice runs this far past the phase
        phases = self.work.take("flat", (n, sh * sw, c, hq * wq + slack), x.dtype)
        phases[...] = 0
        if (sh, sw) == (1, 1):
            grid = phases[:, 0, :, : hq * wq].reshape(n, c, hq, wq)
            grid[:, :, top : top + x.shape[2], left : left + x.shape[3]] = x
        else:
            padded = self._padded(x, geom)
            for a in range(sh):
                for b in range(sw):
                    part = padded[:, :, a::sh, b::sw]
                    grid = phases[:, a * sw + b, :, : hq * wq].reshape(n, c, hq, wq)
                    grid[:, :, : part.shape[2], : part.shape[3]] = part
        taps = (c // g) * kh * kw
        ones = 0 if self._bias is None else 1
        cols = self.work.take("cols", (n, g, taps + ones, length), x.dtype)
        windows = cols[:, :, :taps].reshape(n, g, c // g, kh, kw, length)
        for i in range(kh):
            for j in range(kw):
                phase = (i * dh % sh) * sw + j * dw % sw
                start = (i * dh // sh) * wq + j * dw // sw
                source = phases[:, phase, :, start : start + length]
                windows[:, :, :, i, j] = source.reshape(n, g, c // g, length)
        if ones:
            cols[:, :, taps] = 1
        weights = self._arrangement("flat")
        if wq == wo:  # no column to drop: straight into the output
            np.matmul(weights, cols, out=out.reshape(n, g, m // g, length))
            return
        products = self.work.take("products", (n, g, m // g, length), x.dtype)
        np.matmul(weights, cols, out=products)
        out[...] = products.reshape(n, m, ho, wq)[..., :wo]

    def _phases_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) into ``out`` (N, M, Ho, Wo) by an im2col of the stride phases,
        a band of output rows at a time (:mod:`onnxcraft.ops.conv.phases`).

        The padded image is split once into its s_h x s_w stride phases (every s-th row and
        column from each offset). The taps reading the same phase form a regular grid on it,
        so each class of taps is one copy from an overlapping view of its phase (rows
        contiguous), instead of one strided copy per tap; the copies and the product then
        run over bands of output rows whose im2col stays in cache, each band's product
        written straight into its rows of the output.
        """
        n, c = x.shape[:2]
        m, g = self.weight.shape[0], self.group
        (sh, sw), (ho, wo) = geom.strides, geom.out_shape
        padded = self._padded(x, geom)
        hq, wq = -(-padded.shape[2] // sh), -(-padded.shape[3] // sw)
        phases = self.work.take("flat", (sh, sw, n, g, c // g, hq, wq), x.dtype)
        for a in range(sh):
            for b in range(sw):
                part = padded[:, :, a::sh, b::sw]  # rows and columns past it are never read
                phases[a, b, :, :, :, : part.shape[2], : part.shape[3]] = part.reshape(
                    n, g, c // g, *part.shape[2:]
                )
        classes = self._tap_classes
        taps = (c // g) * math.prod(geom.kernel)
        ones = 0 if self._bias is None else 1
        band = max(1, min(ho, _PHASES_BAND_VALUES // max(1, n * g * (taps + ones) * wo)))
        cols = self.work.take("cols", (n, g, taps + ones, band * wo), x.dtype)
        if ones:
            cols[:, :, taps] = 1
        weights = self._arrangement("phases")
        item = phases.itemsize
        flat_out = out.reshape(n, g, m // g, ho * wo)
        for r0 in range(0, ho, band):
            rows = min(band, ho - r0)
            block = cols[..., : rows * wo]
            at = 0
            for cls in classes:
                count = (c // g) * cls.rows * cls.columns
                phase = phases[cls.phase]
                # (N, G, C/G, row taps, column taps, rows, Wo), read only: overlapping windows
                view = as_strided(
                    phase[..., cls.top + r0 :, cls.left :],
                    (n, g, c // g, cls.rows, cls.columns, rows, wo),
                    (*phase.strides[:3], cls.row_step * wq * item, cls.column_step * item)
                    + (wq * item, item),
                    writeable=False,
                )
                block[:, :, at : at + count].reshape(view.shape)[...] = view
                at += count
            np.matmul(weights, block, out=flat_out[..., r0 * wo : (r0 + rows) * wo])

    @functools.cached_property
    def _tap_classes(self) -> list[TapClass]:
        """The taps by the stride phase they read, worked out once (kernel, strides and
        dilations are the Conv's attributes, the same for every input)."""
        a, k = self.attributes, self.weight.shape[2:]
        strides = tuple(a.get("strides") or (1, 1))
        dilations = tuple(a.get("dilations") or (1, 1))
        return tap_classes(k, strides, dilations)

    def _depthwise_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) by banded products, one per channel, into ``out`` (N, C, Ho, Wo)
        (:mod:`onnxcraft.ops.conv.depthwise`)."""
        run = self._depthwise_runs.get(x.shape)
        if run is None or run.geom is not geom:
            arranged = self._banded.get(x.shape[3])  # the blocks depend on the input's width
            if arranged is None:
                blocks = block_width(geom, x.shape[3])
                t = depthwise_weights(self.weight, self.bias, geom, blocks)
                arranged = self._banded[x.shape[3]] = (blocks, t)
            # a batch's small images in one product per channel, as the im2col's side by side
            stacked = x.shape[0] > 1 and math.prod(geom.out_shape) <= _SIDE_BY_SIDE_POSITIONS
            run = DepthwiseRun(x.shape, x.dtype, geom, *arranged, stacked=stacked)
            self._depthwise_runs[x.shape] = run
        run(x, out, self.work)

    def _padded(self, x: np.ndarray, geom: WindowGeometry) -> np.ndarray:
        """Images ``x`` (N, C, H, W) with their padding, in a working array (``x`` itself
        when there is none)."""
        (top, left), (bottom, right) = geom.pads_begin, geom.pads_end
        if not (top or left or bottom or right):
            return x
        n, c, h, w = x.shape
        padded = self.work.take("padded", (n, c, h + top + bottom, w + left + right), x.dtype)
        padded[...] = 0
        padded[:, :, top : top + h, left : left + w] = x
        return padded

    # -- what follows the convolution -------------------------------------------------------------

    def _adds_in_place(self, residual: Any, y: np.ndarray) -> bool:
        """Whether the Add's other input can be added into the Conv's new output ``y``."""
        return (
            isinstance(residual, np.ndarray)
            and residual.dtype == y.dtype
            and residual.ndim <= y.ndim
            and np.broadcast_shapes(residual.shape, y.shape) == y.shape
        )

    def _after(self, y: np.ndarray, residual: Any) -> np.ndarray:
        """The Add and the Relu on a whole Conv output, with their kernels where they are not
        done in place."""
        if self.add is not None:
            if self._adds_in_place(residual, y) and y.dtype in _FLOATS:
                # a + b and b + a round alike: the in-place sum is the Add's, bit for bit
                np.add(y, residual, out=y)
            else:
                y = self.add(y, residual) if self.conv_first else self.add(residual, y)
        if self.relu is not None:
            if isinstance(y, np.ndarray) and y.dtype in _FLOATS and y.flags.writeable:
                at_least_zero(y, out=y)
            else:
                y = self.relu(y)
        return y

    def _arrangement(self, name: str) -> np.ndarray:
        """The weights as the ``taps``, ``rows``, ``im2col`` or ``flat`` product wants them,
        the bias as a last column (made on first use)."""
        arranged = self._arranged.get(name)
        if arranged is not None:
            return arranged
        w, g = self.weight, self.group
        m, c = w.shape[:2]
        kh, kw = w.shape[2:]
        if name == "taps":  # row t * M + m holds w[m, :, i, j] for tap t = i * kw + j
            matrix = w.transpose(2, 3, 0, 1).reshape(1, kh * kw * m, c)
        elif name == "rows":  # row i * M + m, column j * C + c holds w[m, c, i, j]
            matrix = w.transpose(2, 0, 3, 1).reshape(1, kh * m, kw * c)
        elif name == "phases":  # the taps class by class, as _phases_image copies them
            matrix = np.concatenate(
                [
                    w[:, :, cls.kernel_rows][:, :, :, cls.kernel_columns].reshape(g, m // g, -1)
                    for cls in self._tap_classes
                ],
                axis=2,
            )
        else:  # im2col, flat: one (M/g, C/g * kh * kw) matrix per group
            matrix = w.reshape(g, m // g, c * kh * kw)
        if self.bias is not None:
            # the bias multiplies the row of ones; only the first tap (kernel row) carries it
            column = np.zeros(matrix.shape[:2] + (1,), w.dtype)
            column[:, : m // g, 0] = self.bias.reshape(-1, m // g)
            matrix = np.concatenate([matrix, column], axis=2)
        grouped = name in ("im2col", "flat", "phases")
        arranged = np.ascontiguousarray(matrix if grouped else matrix[0])
        self._arranged[name] = arranged
        return arranged

    def _winograd_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) by Winograd's F(2x2, 3x3) into ``out`` (N, M, Ho, Wo), their
        tiles side by side in the products."""
        u = self._arranged.get("winograd")
        if u is None:
            u = self._arranged["winograd"] = winograd_weights(self.weight)
        winograd_image(x, geom, u, self._bias, out, self.work)

    def _winograd4_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) by Winograd's F(4x4, 3x3) into ``out`` (N, M, Ho, Wo)
        (:mod:`onnxcraft.ops.conv.winograd4`)."""
        u = self._arranged.get("winograd4")
        if u is None:
            u = self._arranged["winograd4"] = winograd4_weights(self.weight)
        winograd4_image(x, geom, u, self._bias, out, self.work)

    def _taps_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) by the taps layout into ``out`` (N, M, Ho, Wo)."""
        n, c, h, w = x.shape
        m = self.weight.shape[0]
        (kh, kw), (dh, dw) = geom.kernel, geom.dilations
        (top, left), (bottom, right) = geom.pads_begin, geom.pads_end
        hp, ho = h + top + bottom, geom.out_shape[0]
        # Output rows are computed over the grid's width, each tap's window one slice of the
        # flat grid; each flat image has room past its end for the last tap's slice, and the
        # images sit side by side, with a row of ones for the bias. With as many output
        # columns as input columns (a "same" padding) the grid has no columns of padding:
        # the image is copied whole rows at a time and the products are not made for columns
        # that are dropped, the few reads across a row's edge mended after the product
        # (_mend_row_edges). Otherwise the grid is padded and the extra columns dropped.
        same_width = geom.out_shape[1] == w
        width, lead = (w, left) if same_width else (w + left + right, 0)
        ones = 0 if self._bias is None else 1
        span = hp * width + (kw - 1) * dw
        flat = self.work.take("flat", (c + ones, n, span), x.dtype)
        grid = flat[:c, :, lead : lead + hp * width].reshape(c, n, hp, width)
        if same_width:  # zeros above and below the image only
            flat[:c, :, : lead + top * w] = 0
            flat[:c, :, lead + (top + h) * w :] = 0
            inside = grid[:, :, top : top + h]
        else:
            flat[:c] = 0
            inside = grid[:, :, top : top + h, left : left + w]
        if ones:
            flat[c] = 1
        if self.input_relu is None:
            inside[...] = x.transpose(1, 0, 2, 3)
        else:  # the Relu moved here, by the copy
            at_least_zero(x.transpose(1, 0, 2, 3), out=inside)
        products = self.work.take("products", (kh * kw * m, n * span), x.dtype)
        np.matmul(self._arrangement("taps"), flat.reshape(c + ones, n * span), out=products)
        offsets = [i * dh * width + j * dw for i in range(kh) for j in range(kw)]
        if same_width:
            self._mend_row_edges(products, offsets, geom, span, w)
        self._sum_shifted(products, offsets, (n, span), (ho, width), out)

    def _mend_row_edges(
        self,
        products: np.ndarray,
        offsets: Sequence[int],
        geom: WindowGeometry,
        span: int,
        w: int,
    ) -> None:
        """Set the taps layout's product columns that a tap reads across a row's edge (its
        window starting in the padding left or right of the image, where the unpadded grid
        holds the neighbouring row) to the product of a padding column: the weights times
        zeros, the bias on the first tap. Each product column of a tap is read by one output
        only, so the outputs then sum the terms of the padded grid, in the same order."""
        m = self.weight.shape[0]
        kw, dw, left = geom.kernel[1], geom.dilations[1], geom.pads_begin[1]
        ho = geom.out_shape[0]
        padding = self._arranged.get("taps padding")
        if padding is None:
            arranged = self._arrangement("taps")
            zeros = np.zeros(arranged.shape[1], arranged.dtype)
            zeros[self.weight.shape[1] :] = 1  # the row of ones, with a bias
            padding = np.matmul(arranged, zeros).reshape(-1, m, 1, 1)
            self._arranged["taps padding"] = padding
        for tap, offset in enumerate(offsets):
            shift = (tap % kw) * dw - left  # output column j reads image column j + shift
            across = range(min(-shift, w)) if shift < 0 else range(max(w - shift, 0), w)
            block = products[tap * m : (tap + 1) * m].reshape(m, -1, span)
            for column in across:
                start = offset + column  # the tap's product for output column `column`
                block[:, :, start : start + (ho - 1) * w + 1 : w] = padding[tap]

    def _rows_image(self, x: np.ndarray, geom: WindowGeometry, out: np.ndarray) -> None:
        """Images (N, C, H, W) by the rows layout into ``out`` (N, M, Ho, Wo)."""
        n, c = x.shape[:2]
        (kh, kw), (dh, dw) = geom.kernel, geom.dilations
        ho, wo = geom.out_shape
        padded = self._padded(x, geom)
        hp = padded.shape[2]
        ones = 0 if self._bias is None else 1
        cols = self.work.take("cols", (kw * c + ones, n, hp * wo), x.dtype)
        windows = cols[: kw * c].reshape(kw, c, n, hp, wo)
        for j in range(kw):
            windows[j] = padded[:, :, :, j * dw : j * dw + wo].transpose(1, 0, 2, 3)
        if ones:
            cols[kw * c] = 1
        products = self.work.take("products", (kh * self.weight.shape[0], n * hp * wo), x.dtype)
        np.matmul(self._arrangement("rows"), cols.reshape(-1, n * hp * wo), out=products)
        offsets = [i * dh * wo for i in range(kh)]
        self._sum_shifted(products, offsets, (n, hp * wo), (ho, wo), out)

    def _sum_shifted(
        self,
        products: np.ndarray,
        offsets: Sequence[int],
        images: tuple[int, int],
        rows: tuple[int, int],
        out: np.ndarray,
    ) -> None:
        """``out`` (N, M, Ho, Wo) = the sum over blocks b of the rows b*M to (b+1)*M of
        ``products``, whose columns hold ``images`` = (N, span) images side by side; each
        block is read from column ``offsets[b]`` of each image on, as ``rows`` = (Ho, row
        length >= Wo), and cut to Wo.

        The blocks are summed whole rows at a time, the columns past Wo included, into a
        working array, then cut into ``out`` in one copy: numpy's adds then run over rows of
        Ho * row length values instead of Wo (0.56-0.80x the time of summing straight into
        the cut view on DenseNet's 56 x 56 to 7 x 7 images, the same bits: the same sums in
        the same order)."""
        n, span = images
        ho, width = rows
        m, wo = out.shape[1], out.shape[3]
        target = out.transpose(1, 0, 2, 3)  # (M, N, Ho, Wo), a view of the output
        blocks = [
            products[b * m : (b + 1) * m].reshape(m, n, span)[:, :, off : off + ho * width]
            for b, off in enumerate(offsets)
        ]
        if len(blocks) == 1:
            target[...] = blocks[0].reshape(m, n, ho, width)[..., :wo]
            return
        if width == wo:  # whole rows already (the rows layout): summed straight into out
            total, blocks = target, [block.reshape(m, n, ho, wo) for block in blocks]
        else:
            total = self.work.take("shifted sum", (m, n, ho * width), products.dtype)
        np.add(blocks[0], blocks[1], out=total)
        for block in blocks[2:]:
            total += block
        if total is not target:
            target[...] = total.reshape(m, n, ho, width)[..., :wo]


def _all_finite(x: np.ndarray) -> bool:
    """Whether ``x`` holds no infinity or NaN: its sum of squares, one BLAS pass (half the
    time of ``np.isfinite``'s), is finite; where that overflows, every element is. Called
    under :meth:`PreparedConv.__call__`'s ``np.errstate`` (the overflow is quiet there; an
    ``errstate`` of its own cost a third of the check on ShuffleNet's inputs)."""
    if x.flags.c_contiguous:
        flat = x.reshape(-1)
        if np.isfinite(np.dot(flat, flat)):
            return True
    return bool(np.isfinite(x).all())


def _tap_windows(source: np.ndarray, geom: WindowGeometry) -> np.ndarray:
    """Every tap's windows of the padded images ``source`` (..., Hp, Wp) as one read-only
    view (..., kh, kw, Ho, Wo): copied at once into the im2col, in 0.5-0.9x the time of a
    copy per tap (numpy's overhead per copy is most of the work on small images: 25 copies
    of 16 x 14 x 14 for a 5x5 kernel)."""
    (kh, kw), (sh, sw), (dh, dw) = geom.kernel, geom.strides, geom.dilations
    *outer, row, column = source.strides
    return as_strided(
        source,
        (*source.shape[:-2], kh, kw, *geom.out_shape),
        (*outer, row * dh, column * dw, row * sh, column * sw),
        writeable=False,
    )


def prepare_conv(
    weight: Any,
    bias: Any,
    attributes: dict[str, Any],
    *,
    add: Callable[..., Any] | None = None,
    conv_first: bool = True,
    relu: Callable[..., Any] | None = None,
    input_relu: Callable[..., Any] | None = None,
    work: WorkingArrays | None = None,
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
    return PreparedConv(
        weight,
        bias,
        attributes,
        add=add,
        conv_first=conv_first,
        relu=relu,
        input_relu=input_relu,
        work=work,
    )


def copies_input_once(conv: PreparedConv) -> bool:
    """Whether ``conv``'s weights and attributes are those :func:`choose_layout` gives the
    taps layout, which copies the input once (a kernel larger than 1x1 at stride 1, one
    group, a quarter of the input's channels or fewer), whatever the input's size; it
    chooses the im2col instead for fewer than ``_SMALLEST_PRODUCT`` terms in each sum, and
    an input of another rank or type runs the kernel as written."""
    w = conv.weight
    if w.ndim != 4 or conv.group != 1 or tuple(w.shape[2:]) == (1, 1):
        return False
    strides = conv.attributes.get("strides")
    if strides is not None and any(int(s) != 1 for s in strides):
        return False
    return bool(_TAPS_CHANNEL_RATIO * w.shape[0] <= w.shape[1])
