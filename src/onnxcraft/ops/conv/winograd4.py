"""Winograd's F(4x4, 3x3): a 3x3 stride-1 convolution with 36 products per 4x4 output tile
instead of 144, for the prepared convolutions (``fuse=True``, ``ops/conv/prepared.py``).

**The transforms** (Toom-Cook, as Lavin and Gray's). The product s = a g of a polynomial a
with four coefficients and g = g_0 + g_1 x + g_2 x^2 has six coefficients, so it is known from
its values at six points, here 0, 1, -1, 2, -2 and infinity (the leading coefficient): each
value is one multiplication a(p_i) g(p_i), and s is their Lagrange interpolation,
s(x) = sum_i s(p_i) prod_{j != i} (x - p_j) / N_i + s_inf prod_j (x - p_j), with
N_i = prod_{j != i} (p_i - p_j) (N = 4, -6, -6, 24, 24 for the five finite points). One output
row of a tile, y_p = sum_k g_k d_{p+k} for p = 0..3 from six inputs d, is the transpose of
that linear map from a to s, so it is the same algorithm transposed: evaluation of a becomes
A^T, interpolation becomes B^T, and g is evaluated as before (the 1 / N_i moved onto it):

    B^T = [[4, 0, -5,  0, 1, 0],     G = [[ 1/4,     0,    0],     A^T = [[1, 1,  1, 1,  1, 0],
           [0, -4, -4, 1, 1, 0],          [-1/6, -1/6, -1/6],            [0, 1, -1, 2, -2, 0],
           [0, 4, -4, -1, 1, 0],          [-1/6,  1/6, -1/6],            [0, 1,  1, 4,  4, 0],
           [0, -2, -1, 2, 1, 0],          [1/24, 1/12,  1/6],            [0, 1, -1, 8, -8, 1]]
           [0, 2, -1, -2, 1, 0],          [1/24, -1/12, 1/6],
           [0, 4, 0,  -5, 0, 1]]          [   0,    0,    1]]

A^T's columns are the points' powers 0..3 (infinity: the last power only); G's rows are g at
the points over N_i; B^T's rows are the coefficients of prod_{j != i} (x - p_j) and, for
infinity, of prod_j (x - p_j) (``tests/evaluate/test_winograd4.py`` checks the identity in
rational arithmetic). In two dimensions: each 6x6 input tile d (tiles overlap by two)
becomes V = B^T d B, each filter U = G g G^T (once, when the model is prepared, in float64
rounded once), the 36 elements multiply as 36 matrix products over channels (M x C by
C x tiles, one batched ``np.matmul``) and each 6x6 result m gives the 4x4 output A^T m A.
The bias rides on m[1, 1]: A^T's column for the point 1 is all ones.

**How it runs.** Unlike F(2x2, 3x3) (:mod:`onnxcraft.ops.conv.winograd`), whose transforms
are a few additions, B^T and A^T here have 3 to 5 terms a row with coefficients up to 8, so
the transforms are matrix products too: a block of channels' tiles gathered from the
padded images (one strided copy, 36 values per tile and channel), then B^T along the tiles'
rows and along their columns as two products with a 6x6 matrix (OpenBLAS streams them at
memory speed), block after block, each small enough to stay in cache through its three
passes; and A^T likewise on the 36 products, a block of output channels at a time (the
second product transposed, so that each output row's four values of a tile come out next
to each other), whose 4x4 results go straight into the output (a partial last tile cut
off). The transformed input and products hold 36
values per 16 outputs (F(2x2, 3x3): 16 per 4), so they also move less memory. The filters
do not: 36 matrices, four times the 3x3 filters' size, which a product of few columns (few
tiles in the batch) spends its time reading; ``prepared.py`` takes this layout only for
batches of 32 tiles or more.

**Rounding.** Each transform stage sums a few terms, so its rounding error is a few units
of the float (u) times the sum of the absolute values of its terms; carried through the
later stages, an output's error is bounded by a few u times
sum_{a,b} |A^T|_{pa} |A^T|_{qb} (|G| |g| |G^T|)_{ab} (|B^T| |d| |B|)_{ab}, summed over
channels. Where the direct sum adds 3 taps along each axis with weight 1, this adds, for
output row p, sum_a |A^T|_{pa} (row sum of |G|)_a (row sum of |B^T|)_a = 16, 17, 24, 48
(for p = 0..3): the terms' absolute sizes grow up to 48 / 3 = 16 times per axis, 256 times
in two dimensions, against (8 / 3)^2 = 7.1 for F(2x2, 3x3). The tests therefore hold it to
36 times (256 / 7.1) F(2x2, 3x3)'s bound of 2e-6 of the largest value of the convolution of
absolute values in the output channel: 7.2e-5 in float32 (3.6e-13 in float64), 14 times
inside the ONNX backend tests' rtol of 1e-3. That scales F(2x2, 3x3)'s bound by the growth;
it is not a worst case (every rounding of every stage aligned could exceed it, as it could
F(2x2, 3x3)'s and the direct sum's). Observed against the exact (float64) sum on 1,500 drawn
convolutions (1 to 64 channels, sizes 1 to 30, any padding): at most 3.1e-6 in float32 (23
times inside the bound) and 7.4e-15 in float64; on the zoo models' shapes 0.4e-6 to
2.6e-6, where the written kernel's own error is 0.5e-7 to 2.2e-7
(``tests/evaluate/test_winograd4.py``).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.im2col import WindowGeometry

__all__ = ["winograd4_image", "winograd4_weights"]

_BT = np.array(
    [
        [4, 0, -5, 0, 1, 0],
        [0, -4, -4, 1, 1, 0],
        [0, 4, -4, -1, 1, 0],
        [0, -2, -1, 2, 1, 0],
        [0, 2, -1, -2, 1, 0],
        [0, 4, 0, -5, 0, 1],
    ],
    dtype=np.float64,
)
_G = np.array(
    [
        [1 / 4, 0, 0],
        [-1 / 6, -1 / 6, -1 / 6],
        [-1 / 6, 1 / 6, -1 / 6],
        [1 / 24, 1 / 12, 1 / 6],
        [1 / 24, -1 / 12, 1 / 6],
        [0, 0, 1],
    ]
)
_AT = np.array(
    [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
    dtype=np.float64,
)
# B^T and A^T hold small integers: exact in either float type
_TRANSFORMS = {np.dtype(t): (_BT.astype(t), _AT.astype(t)) for t in (np.float32, np.float64)}
# The transforms' blocks of channels: the input's tiles, then their transform along the
# rows, and the output's products, then their transform along the rows, each about this
# many values (512 KiB of float32), stay in the L2 cache between their passes. Alone,
# against every channel at once: the input's 0.86-0.96x the convolution's time on the zoo's
# shapes (64 to 256 channels, 14 x 14 to 56 x 56, 1 to 8 images), the output's 0.81-1.01x
# the time of the products and the output transform; the same sums (the same bits on the
# zoo's models; OpenBLAS may round a product of a single column otherwise).
_BLOCK_VALUES = 1 << 17
_BIAS_ELEMENT = 1 * 6 + 1  # m[1, 1]: A^T e_1 is all ones, so it reaches every output once


def winograd4_weights(weight: np.ndarray) -> np.ndarray:
    """U = G g G^T of every (M, C) filter, as 36 matrices (36, M, C) in ``weight``'s type."""
    u = np.einsum("ai,mcij,bj->abmc", _G, weight.astype(np.float64), _G)
    return np.ascontiguousarray(u.reshape(36, *weight.shape[:2]).astype(weight.dtype))


def winograd4_image(
    x: np.ndarray,
    geom: WindowGeometry,
    u: np.ndarray,
    bias: np.ndarray | None,
    out: np.ndarray,
    work: WorkingArrays,
) -> None:
    """Images ``x`` (N, C, H, W) convolved by the transformed filters ``u`` (36, M, C) into
    ``out`` (N, M, Ho, Wo, any strides), plus ``bias`` (M, 1, 1) when given. ``geom``: 3x3,
    stride 1, dilation 1, any padding. The images' tiles sit side by side (C, N, tiles) in
    the products, as F(2x2, 3x3)'s."""
    n, c, h, w = x.shape
    m = u.shape[1]
    ho, wo = geom.out_shape
    th, tw = -(-ho // 4), -(-wo // 4)  # 4x4 output tiles; a last partial tile is cut off
    top, left = geom.pads_begin
    bt, at = _TRANSFORMS[x.dtype]
    hp, wp = 4 * th + 2, 4 * tw + 2  # >= Ho + 2: the padded size, and more
    padded = work.take("winograd input", (c, n, hp, wp), x.dtype)
    # zeros around the images only (the rows and columns past them included)
    padded[:, :, :top] = 0
    padded[:, :, top + h :] = 0
    padded[:, :, top : top + h, :left] = 0
    padded[:, :, top : top + h, left + w :] = 0
    padded[:, :, top : top + h, left : left + w] = x.transpose(1, 0, 2, 3)
    # every tile's 6x6 inputs, tile (s, t)'s (i, j) being padded row 4s + i, column 4t + j
    item = padded.itemsize
    strides = (wp * item, item, n * hp * wp * item, hp * wp * item, 4 * wp * item, 4 * item)
    tiles = n * th * tw
    source = as_strided(padded, (6, 6, c, n, th, tw), strides, writeable=False)
    v = work.take("winograd V", (6, 6, c, tiles), x.dtype)
    flat_v = v.reshape(6, 6, c * tiles)  # a view: V's rows of each (a, b), channel by channel
    # A block of channels at a time, so that its tiles and their transform stay in cache
    # between the gather and the two products.
    block = max(1, min(c, _BLOCK_VALUES // (36 * tiles)))
    for first in range(0, c, block):
        count = min(block, c - first)
        d = work.take("winograd tiles", (6, 6, count, tiles), x.dtype)
        d.reshape(6, 6, count, n, th, tw)[...] = source[:, :, first : first + count]
        # B^T d along the rows (i), then along the columns (j) for each row a: V[a, b]
        rows = work.take("winograd B^T d", (6, 6, count, tiles), x.dtype)
        np.matmul(bt, d.reshape(6, -1), out=rows.reshape(6, -1))
        columns = flat_v[:, :, first * tiles : (first + count) * tiles]
        np.matmul(bt, rows.reshape(6, 6, -1), out=columns)
    products = work.take("winograd M", (36, m, tiles), x.dtype)
    np.matmul(u, v.reshape(36, c, tiles), out=products)
    if bias is not None:
        products[_BIAS_ELEMENT] += bias.reshape(m, 1)
    # The output transform a block of output channels at a time, in cache like the input's.
    by_element = products.reshape(6, 6, m, tiles)  # m[a, b] for each channel and tile
    target = out.transpose(1, 0, 2, 3)
    block = max(1, min(m, _BLOCK_VALUES // (36 * tiles)))
    for first in range(0, m, block):
        count = min(block, m - first)
        # A^T m along a (the output rows p), for each b: (p, b, channels, tiles)
        half = work.take("winograd A^T m", (4, 6, count, tiles), x.dtype)
        for b in range(6):
            part = by_element[:, b, first : first + count].reshape(6, count * tiles)
            np.matmul(at, part, out=half[:, b].reshape(4, count * tiles))
        # then (m A)^T along b for each p, the four columns q of a tile innermost:
        # (p, channels, N, th, tw, q), each output row's values in order
        y = work.take("winograd output", (4, count, n, th, tw, 4), x.dtype)
        np.matmul(half.reshape(4, 6, -1).transpose(0, 2, 1), at.T, out=y.reshape(4, -1, 4))
        _write_tiles(y, target[first : first + count])


def _write_tiles(y: np.ndarray, target: np.ndarray) -> None:
    """The tiles ``y`` (4, M, N, th, tw, 4) into ``target`` (M, N, Ho, Wo): the whole tiles
    in one copy (runs of whole output rows), the last partial row and column of tiles (if
    any) in up to three more."""
    m, n, ho, wo = target.shape
    # (first tile, tiles, values of each) along each axis: the whole tiles, then a partial one
    parts = []
    for size in (ho, wo):
        whole, rest = divmod(size, 4)
        parts.append([(0, whole, 4)] * (whole > 0) + [(whole, 1, rest)] * (rest > 0))
    for r0, rn, rv in parts[0]:
        for c0, cn, cv in parts[1]:
            block = target[:, :, 4 * r0 : 4 * r0 + rn * rv, 4 * c0 : 4 * c0 + cn * cv]
            view = block.reshape(m, n, rn, rv, cn, cv).transpose(3, 0, 1, 2, 4, 5)
            view[...] = y[:rv, :, :, r0 : r0 + rn, c0 : c0 + cn, :cv]
