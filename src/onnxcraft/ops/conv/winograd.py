"""Winograd's F(2x2, 3x3): a 3x3 stride-1 convolution with 16 products per 2x2 output tile
instead of 36, for the prepared convolutions (``fuse=True``, ``ops/conv/prepared.py``).

Each 4x4 input tile d (tiles overlap by two) becomes V = B^T d B, each 3x3 filter g becomes
U = G g G^T (once, when the model is prepared, in float64 rounded once), the 16 elements of
U and V multiply as 16 matrix products over channels (tiles x C by C x M), and each 4x4
result m gives the 2x2 output A^T m A:

    B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]
    G   = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]]
    A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]

B and A hold only 0 and +-1 (the transforms are additions, done as whole-array numpy
operations over every tile at once, rows then columns) and G halves exactly, so the rounding
stays that of a dot product a few terms longer: measured within the same multiple of the
convolution of absolute values as the direct sum (``tests/evaluate/test_prepared_conv.py``).
The transforms cost some twenty passes over arrays of the input's and the output's size, so
the products saved pay for them only with many channels (128 and more, measured by
``tests/benchmarks/bench_conv.py``).

The transforms run with the channels innermost (the image copied once into a padded
channels-last array, the output copied back at the end with the bias): each pass then
steps through runs of C (or M) contiguous values. With the tiles innermost, as before,
a 14 x 14 image's passes ran over rows of 7 tiles, numpy's loop paid per row: on the
zoo's 14 x 14 convolutions of 96 to 256 channels at batch 1, the whole convolution takes
0.66-0.84x the time it took so.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.conv.scratch import WorkingArrays
from onnxcraft.ops.im2col import WindowGeometry

__all__ = ["winograd_image", "winograd_weights"]

_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])


def winograd_weights(weight: np.ndarray) -> np.ndarray:
    """U = G g G^T of every (M, C) filter, as 16 matrices (16, C, M) in ``weight``'s type."""
    u = np.einsum("ai,mcij,bj->abcm", _G, weight.astype(np.float64), _G)
    return np.ascontiguousarray(
        u.reshape(16, weight.shape[1], weight.shape[0]).astype(weight.dtype)
    )


def _input_transform(d: list[np.ndarray], out: np.ndarray) -> None:
    """B^T along one axis: four rows (or columns) of tiles into ``out[0..3]``."""
    np.subtract(d[0], d[2], out=out[0])
    np.add(d[1], d[2], out=out[1])
    np.subtract(d[2], d[1], out=out[2])
    np.subtract(d[1], d[3], out=out[3])


def winograd_image(
    x: np.ndarray,
    geom: WindowGeometry,
    u: np.ndarray,
    bias: np.ndarray | None,
    out: np.ndarray,
    work: WorkingArrays,
) -> None:
    """Images ``x`` (N, C, H, W) convolved by the transformed filters ``u`` (16, C, M) into
    ``out`` (N, M, Ho, Wo), plus ``bias`` (M, 1, 1) when given. ``geom``: 3x3, stride 1,
    dilation 1, any padding.

    The images' tiles sit one after another (N, tiles, C): each of the 16 products has N
    times the rows of one image's, which OpenBLAS runs faster when an image has few tiles
    (49 on a 14 x 14 output), and every transform is one numpy call for the batch."""
    n, c, h, w = x.shape
    m = u.shape[2]
    ho, wo = geom.out_shape
    th, tw = -(-ho // 2), -(-wo // 2)  # 2x2 output tiles; a last half tile is cut off
    top, left = geom.pads_begin
    padded = work.take("winograd input", (n, 2 * th + 2, 2 * tw + 2, c), x.dtype)
    padded[...] = 0
    # 2 * th + 2 >= Ho + 2: the padded height
    padded[:, top : top + h, left : left + w] = x.transpose(0, 2, 3, 1)
    # B^T d: along the rows of every tile at once (tile t's row i is padded row 2t + i)
    across = work.take("winograd rows", (4, n, th, 2 * tw + 2, c), x.dtype)
    _input_transform([padded[:, i : i + 2 * th : 2] for i in range(4)], across)
    # then d B along the columns, for the four rows at once: V, 16 matrices of (tiles, C)
    v = work.take("winograd V", (4, 4, n, th, tw, c), x.dtype)
    _input_transform(
        [across[:, :, :, j : j + 2 * tw : 2] for j in range(4)], v.transpose(1, 0, 2, 3, 4, 5)
    )
    products = work.take("winograd M", (16, n * th * tw, m), x.dtype)
    np.matmul(v.reshape(16, n * th * tw, c), u, out=products)
    mm = products.reshape(4, 4, n, th, tw, m)
    # A^T m: the two output rows of every tile, for the four columns at once
    rows = work.take("winograd A^T m", (2, 4, n, th, tw, m), x.dtype)
    np.add(mm[0], mm[1], out=rows[0])
    rows[0] += mm[2]
    np.subtract(mm[1], mm[2], out=rows[1])
    rows[1] -= mm[3]
    # then m A: the two output columns, written into every tile's place
    tiles = work.take("winograd output", (n, th, 2, tw, 2, m), x.dtype)
    by_row = tiles.transpose(2, 0, 1, 3, 4, 5)  # (2 rows, N, th, tw, 2 columns, M)
    np.add(rows[:, 0], rows[:, 1], out=by_row[..., 0, :])
    by_row[..., 0, :] += rows[:, 2]
    np.subtract(rows[:, 1], rows[:, 2], out=by_row[..., 1, :])
    by_row[..., 1, :] -= rows[:, 3]
    # back to channels first, the bias added on the way
    image = tiles.reshape(n, 2 * th, 2 * tw, m)[:, :ho, :wo].transpose(0, 3, 1, 2)
    if bias is None:
        out[...] = image
    else:
        np.add(image, bias.reshape(1, m, 1, 1), out=out)
