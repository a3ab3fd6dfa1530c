"""PNG decoding with zlib: every colour type and bit depth, Adam7 interlacing included."""

from __future__ import annotations

import struct
import zlib

import numpy as np

from onnxcraft.ops.kernel_common import fail

__all__ = ["decode_png"]

OP = "ImageDecoder"
SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# Adam7 passes: (row start, column start, row step, column step).
ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2),
         (1, 0, 2, 1))  # fmt: skip


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _unfilter(raw: bytes, pos: int, rows: int, stride: int, bpp: int) -> tuple[np.ndarray, int]:
    """Undo the per-row filters of ``rows`` scanlines starting at ``pos``."""
    out = np.zeros((rows, stride), np.int64)
    prior = np.zeros(stride, np.int64)
    for r in range(rows):
        if pos + 1 + stride > len(raw):
            fail(OP, "truncated PNG image data")
        kind = raw[pos]
        line = np.frombuffer(raw, np.uint8, stride, pos + 1).astype(np.int64)
        pos += 1 + stride
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prior) & 255
        elif kind == 1:
            # Each byte adds the reconstructed byte bpp to its left: a running sum per lane.
            padded = np.zeros(-(-stride // bpp) * bpp, np.int64)
            padded[:stride] = line
            cur = (np.cumsum(padded.reshape(-1, bpp), axis=0).reshape(-1) & 255)[:stride]
        elif kind in (3, 4):
            cur = np.zeros(stride, np.int64)
            for i in range(0, stride, bpp):
                end = min(i + bpp, stride)
                left = cur[i - bpp : end - bpp] if i >= bpp else np.zeros(end - i, np.int64)
                up = prior[i:end]
                if kind == 3:
                    guess = (left + up) >> 1
                else:
                    up_left = (
                        prior[i - bpp : end - bpp] if i >= bpp else np.zeros(end - i, np.int64)
                    )
                    guess = _paeth(left, up, up_left)
                cur[i:end] = (line[i:end] + guess) & 255
        else:
            fail(OP, f"corrupt PNG: unknown filter type {kind}")
        out[r] = cur
        prior = cur
    return out, pos


def _samples(rows: np.ndarray, width: int, depth: int, channels: int) -> np.ndarray:
    """Unpack filtered-out bytes into (H, W, channels) integer samples."""
    height = rows.shape[0]
    if depth == 16:
        pairs = rows.reshape(height, -1, 2)
        values = pairs[..., 0] * 256 + pairs[..., 1]
    elif depth == 8:
        values = rows
    else:
        bits = np.unpackbits(rows.astype(np.uint8), axis=1).reshape(height, -1, depth)
        weights = 1 << np.arange(depth - 1, -1, -1)
        values = (bits * weights).sum(axis=2)
    return np.asarray(values[:, : width * channels].reshape(height, width, channels))


def decode_png(data: bytes) -> np.ndarray:
    """Decode a PNG into (H, W) greyscale or (H, W, 3) RGB uint8 (alpha is dropped)."""
    if data[:8] != SIGNATURE:
        fail(OP, "not a PNG file (bad signature)")
    pos = 8
    header = None
    palette = None
    chunks = []
    while pos + 8 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body[:13])
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        fail(OP, "corrupt PNG: no IHDR chunk")
    width, height, depth, color, _, _, interlace = header
    if color not in CHANNELS or depth not in (1, 2, 4, 8, 16):
        fail(OP, f"corrupt PNG: colour type {color} with bit depth {depth}")
    channels = CHANNELS[color]
    try:
        raw = zlib.decompress(b"".join(chunks))
    except zlib.error as exc:
        fail(OP, f"corrupt PNG image data: {exc}")
    bpp = max(1, channels * depth // 8)
    image = np.zeros((height, width, channels), np.int64)
    passes = ADAM7 if interlace else ((0, 0, 1, 1),)
    offset = 0
    for r0, c0, dr, dc in passes:
        rows = len(range(r0, height, dr))
        cols = len(range(c0, width, dc))
        if rows == 0 or cols == 0:
            continue
        stride = (cols * channels * depth + 7) // 8
        filtered, offset = _unfilter(raw, offset, rows, stride, bpp)
        image[r0::dr, c0::dc] = _samples(filtered, cols, depth, channels)
    return _to_8bit(image, color, depth, palette)


def _to_8bit(image: np.ndarray, color: int, depth: int, palette: np.ndarray | None) -> np.ndarray:
    if color == 3:
        if palette is None:
            fail(OP, "corrupt PNG: palette image without a PLTE chunk")
        index = image[..., 0]
        if index.size and int(index.max()) >= len(palette):
            fail(OP, "corrupt PNG: a palette index exceeds the palette")
        return np.asarray(palette[index])
    if depth == 16:
        scaled = image >> 8
    elif depth < 8:
        scaled = image * 255 // ((1 << depth) - 1)
    else:
        scaled = image
    pixels = scaled.astype(np.uint8)
    if color in (0, 4):
        return np.ascontiguousarray(pixels[..., 0])
    return np.ascontiguousarray(pixels[..., :3])
