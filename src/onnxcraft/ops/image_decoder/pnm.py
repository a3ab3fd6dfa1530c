"""Netpbm decoding: PBM, PGM and PPM, in both ASCII (P1-P3) and binary (P4-P6) forms."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.kernel_common import fail

__all__ = ["decode_pnm"]

OP = "ImageDecoder"


def _header(data: bytes, count: int) -> tuple[list[int], int]:
    """The first ``count`` integers after the magic number, skipping comments."""
    values: list[int] = []
    pos = 2
    while len(values) < count:
        while pos < len(data) and (data[pos : pos + 1].isspace() or data[pos] == ord("#")):
            if data[pos] == ord("#"):
                while pos < len(data) and data[pos] not in b"\r\n":
                    pos += 1
            else:
                pos += 1
        start = pos
        while pos < len(data) and data[pos : pos + 1].isdigit():
            pos += 1
        if start == pos:
            fail(OP, "corrupt PNM header: expected a number")
        values.append(int(data[start:pos]))
    return values, pos + 1  # one whitespace byte ends the header


def _scale(samples: np.ndarray, maxval: int) -> np.ndarray:
    if maxval == 255:
        return samples.astype(np.uint8)
    if maxval <= 0 or maxval > 65535:
        fail(OP, f"PNM maxval must lie in [1, 65535], got {maxval}")
    return ((samples.astype(np.int64) * 255 + maxval // 2) // maxval).astype(np.uint8)


def decode_pnm(data: bytes) -> np.ndarray:
    """Decode a PNM file into (H, W) greyscale or (H, W, 3) RGB uint8."""
    kind = data[1:2]
    if data[:1] != b"P" or kind not in b"123456" or not kind:
        fail(OP, "not a PNM file (expected P1..P6)")
    magic = int(kind)
    bitmap = magic in (1, 4)
    (width, height, *rest), pos = _header(data, 2 if bitmap else 3)
    maxval = 1 if bitmap else rest[0]
    channels = 3 if magic in (3, 6) else 1
    count = width * height * channels
    if magic in (1, 2, 3):
        text = data[pos - 1 :]
        if magic == 1:
            digits = [c - 48 for c in text if c in b"01"]
            samples = np.array(digits[:count], np.int64)
        else:
            samples = np.array([int(t) for t in text.split()[:count]], np.int64)
    elif magic == 4:
        stride = (width + 7) // 8
        raw = np.frombuffer(data, np.uint8, stride * height, pos).reshape(height, stride)
        samples = np.unpackbits(raw, axis=1)[:, :width].reshape(-1).astype(np.int64)
    else:
        dtype = ">u2" if maxval > 255 else "u1"
        size = np.dtype(dtype).itemsize
        if len(data) < pos + count * size:
            fail(OP, "truncated PNM data")
        samples = np.frombuffer(data, dtype, count, pos).astype(np.int64)
    if samples.size != count:
        fail(OP, f"truncated PNM data: expected {count} samples, found {samples.size}")
    if bitmap:
        return np.where(samples.reshape(height, width) == 1, 0, 255).astype(np.uint8)
    image = _scale(samples, maxval)
    return image.reshape(height, width, 3) if channels == 3 else image.reshape(height, width)
