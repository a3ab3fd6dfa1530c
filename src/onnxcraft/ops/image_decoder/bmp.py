"""Windows BMP decoding: uncompressed 1/4/8-bit palette and 16/24/32-bit direct colour."""

from __future__ import annotations

import struct

import numpy as np

from onnxcraft.ops.kernel_common import fail

__all__ = ["decode_bmp"]

OP = "ImageDecoder"
BI_RGB = 0
BI_BITFIELDS = 3


def _field(pixels: np.ndarray, mask: int) -> np.ndarray:
    """Extract the channel selected by a bit mask and scale it to 8 bits."""
    if mask == 0:
        return np.zeros(pixels.shape, np.uint8)
    shift = (mask & -mask).bit_length() - 1
    width = (mask >> shift).bit_length()
    values = (pixels & mask) >> shift
    return np.asarray((values * 255 + ((1 << width) - 1) // 2) // ((1 << width) - 1), np.uint8)


def decode_bmp(data: bytes) -> np.ndarray:
    """Decode a BMP file into (H, W, 3) RGB uint8."""
    if len(data) < 26 or data[:2] != b"BM":
        fail(OP, "not a BMP file (missing 'BM' signature)")
    offset = struct.unpack_from("<I", data, 10)[0]
    header_size = struct.unpack_from("<I", data, 14)[0]
    if header_size == 12:  # OS/2 BITMAPCOREHEADER
        width, height, _, bits = struct.unpack_from("<HhHH", data, 18)
        compression = BI_RGB
        colors_used = 0
        palette_entry = 3
    else:
        width, height, _, bits, compression = struct.unpack_from("<iiHHI", data, 18)
        colors_used = struct.unpack_from("<I", data, 46)[0] if header_size >= 36 else 0
        palette_entry = 4
    if compression not in (BI_RGB, BI_BITFIELDS):
        fail(OP, f"compressed BMP (compression {compression}) is not supported")
    bottom_up = height > 0
    height = abs(height)
    stride = (width * bits + 31) // 32 * 4
    needed = offset + stride * height
    if width <= 0 or len(data) < needed:
        fail(
            OP,
            f"truncated or invalid BMP: {width}x{height} at {bits} bits needs {needed} "
            f"bytes, file has {len(data)}",
        )
    rows = np.frombuffer(data, np.uint8, stride * height, offset).reshape(height, stride)
    if bottom_up:
        rows = rows[::-1]
    if bits in (1, 4, 8):
        count = colors_used or (1 << bits)
        start = 14 + header_size
        palette = np.frombuffer(data, np.uint8, count * palette_entry, start)
        palette = palette.reshape(count, palette_entry)[:, 2::-1]  # BGR(A) -> RGB
        indices = np.unpackbits(rows, axis=1) if bits == 1 else rows
        if bits == 4:
            indices = np.stack([rows >> 4, rows & 15], axis=-1).reshape(height, -1)
        indices = indices[:, :width]
        if indices.size and int(indices.max()) >= count:
            fail(OP, "corrupt BMP: a palette index exceeds the palette")
        return np.asarray(palette[indices])
    if bits == 24:
        return np.ascontiguousarray(rows[:, : width * 3].reshape(height, width, 3)[..., ::-1])
    if bits in (16, 32):
        dtype = "<u2" if bits == 16 else "<u4"
        pixels = rows[:, : width * bits // 8].copy().view(dtype).astype(np.int64)
        if compression == BI_BITFIELDS:
            masks = struct.unpack_from("<III", data, 54)  # right after BITMAPINFOHEADER
        elif bits == 16:
            masks = (0x7C00, 0x03E0, 0x001F)
        else:
            masks = (0xFF0000, 0x00FF00, 0x0000FF)
        return np.stack([_field(pixels, m) for m in masks], axis=-1)
    fail(OP, f"BMP with {bits} bits per pixel is not supported")
