"""Depthwise 2-D convolutions (one filter per channel) as one batched matrix product, for the
prepared convolutions (``fuse=True``, ``ops/conv/prepared.py``).

A depthwise convolution has few terms per output (9 for 3x3) and no weights shared between
channels, so neither an im2col product (one tiny product per channel, nine copies) nor
elementwise multiply-adds over shifted views (18 passes; numpy's elementwise loops run some
25 times fewer operations per second than OpenBLAS's products here) come near onnxruntime.
Instead, every output row of channel c reads one contiguous run of the padded image: the
``span`` = ((kh - 1) * dh + 1) padded rows from row r * sh on, flattened. With those runs
copied as the rows of a matrix A_c (Ho x span * Wp, one copy for all channels), the output
of channel c is A_c @ T_c, where T_c (span * Wp x Wo) holds, in column q, the channel's
weight w[c, i, j] at row i * dh * Wp + q * sw + j * dw and zeros elsewhere (a banded,
Toeplitz-like matrix made once per input width). All channels are one ``np.matmul`` over a
batch of C products, straight into the output; a column of ones in A and the bias as a last
row of T add the bias.

The product multiplies about Wp / kw times more terms than the convolution has (the zeros of
T), but OpenBLAS runs them faster than numpy runs the nine taps; the layout is used only
for narrow images (``DEPTHWISE_WIDTH``), where that waste stays small. Each output's sum
holds the same nonzero terms as the written kernel's plus exact zeros, so it rounds as a
dot product of its terms does. The zeros multiply the other values of the image's rows: an
infinity or NaN in the input makes NaN across its rows of outputs of that channel (the
written kernel limits it to the windows that hold it).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from onnxcraft.ops.im2col import WindowGeometry

__all__ = ["DEPTHWISE_WIDTH", "depthwise_image", "depthwise_weights"]

# Padded widths up to this run as banded products (measured in ShuffleNet v2 by
# tests/benchmarks/ab_conv.py: faster than the flat and im2col layouts on widths 9 to 30,
# slower on its 58-column images, where T holds 20 zeros for each weight).
DEPTHWISE_WIDTH = 32


def depthwise_weights(
    weight: np.ndarray, bias: np.ndarray | None, geom: WindowGeometry, padded_width: int
) -> np.ndarray:
    """The banded matrices T (C, span * Wp [+ 1 with a bias], Wo) of ``weight`` (C, 1, kh, kw)
    for images of ``padded_width`` Wp, in ``weight``'s type."""
    c, _, kh, kw = weight.shape
    sw, (dh, dw) = geom.strides[1], geom.dilations
    wo = geom.out_shape[1]
    rows = ((kh - 1) * dh + 1) * padded_width
    t = np.zeros((c, rows + (bias is not None), wo), weight.dtype)
    q = np.arange(wo)
    for i in range(kh):
        for j in range(kw):
            t[:, i * dh * padded_width + q * sw + j * dw, q] = weight[:, 0, i, j, None]
    if bias is not None:
        t[:, rows, :] = bias[:, None]
    return t


def depthwise_image(
    padded: np.ndarray, geom: WindowGeometry, t: np.ndarray, out: np.ndarray, rows: np.ndarray
) -> None:
    """Padded images (N, C, Hp, Wp) convolved by the banded matrices ``t`` into ``out``
    (N, C, Ho, Wo); ``rows`` is a working array (N, C, Ho, t.shape[1]) for the copied runs."""
    n, c, hp, wp = padded.shape
    ho = geom.out_shape[0]
    sh = geom.strides[0]
    run = ((geom.kernel[0] - 1) * geom.dilations[0] + 1) * wp
    image = np.ascontiguousarray(padded)  # the runs are read as flat rows of each channel
    item = image.itemsize
    # every output row's run, overlapping views of the flat channels (read, never written)
    runs = as_strided(
        image, (n, c, ho, run), (c * hp * wp * item, hp * wp * item, sh * wp * item, item)
    )
    rows[..., :run] = runs
    if rows.shape[3] > run:
        rows[..., run] = 1  # multiplies the bias, T's last row
    np.matmul(rows, t, out=out)
