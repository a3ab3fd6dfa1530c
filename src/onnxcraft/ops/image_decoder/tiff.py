"""Baseline TIFF decoding: uncompressed or PackBits strips, 8-bit greyscale/RGB/palette."""

from __future__ import annotations

import struct

import numpy as np

from onnxcraft.ops.kernel_common import fail

__all__ = ["decode_tiff"]

OP = "ImageDecoder"
TYPE_FORMATS = {1: "B", 2: "c", 3: "H", 4: "I", 5: "II", 6: "b", 7: "B", 8: "h", 9: "i",
                10: "ii", 11: "f", 12: "d", 16: "Q"}  # fmt: skip
WIDTH, HEIGHT, BITS, COMPRESSION, PHOTOMETRIC = 256, 257, 258, 259, 262
STRIP_OFFSETS, SAMPLES, ROWS_PER_STRIP, STRIP_COUNTS = 273, 277, 278, 279
PLANAR, PREDICTOR, COLORMAP = 284, 317, 320


def _entries(data: bytes, order: str, offset: int) -> dict[int, list[int]]:
    """The tags of the first image file directory, each as a list of integers."""
    (count,) = struct.unpack_from(order + "H", data, offset)
    tags: dict[int, list[int]] = {}
    for i in range(count):
        tag, kind, n, value = struct.unpack_from(order + "HHI4s", data, offset + 2 + 12 * i)
        code = TYPE_FORMATS.get(kind)
        if code is None:
            continue
        size = struct.calcsize(order + code) * n
        raw = (
            value
            if size <= 4
            else data[int.from_bytes(value, "little" if order == "<" else "big") :][:size]
        )
        if code in ("c", "f", "d", "II", "ii"):
            continue  # not needed for pixel data
        tags[tag] = list(struct.unpack_from(order + code * n, raw))
    return tags


def _packbits(chunk: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(chunk):
        n = chunk[i]
        i += 1
        if n < 128:
            out += chunk[i : i + n + 1]
            i += n + 1
        elif n > 128:
            out += chunk[i : i + 1] * (257 - n)
            i += 1
    return bytes(out)


def decode_tiff(data: bytes) -> np.ndarray:
    """Decode the first image of a TIFF into (H, W) greyscale or (H, W, 3) RGB uint8."""
    if data[:4] not in (b"II*\x00", b"MM\x00*"):
        fail(OP, "not a TIFF file (bad byte-order header)")
    order = "<" if data[:2] == b"II" else ">"
    (first,) = struct.unpack_from(order + "I", data, 4)
    tags = _entries(data, order, first)

    def tag(code: int, default: int | None = None) -> int:
        if code in tags:
            return tags[code][0]
        if default is None:
            fail(OP, f"TIFF is missing required tag {code}")
        return default

    width, height = tag(WIDTH), tag(HEIGHT)
    samples = tag(SAMPLES, 1)
    bits = tags.get(BITS, [1] * samples)
    compression = tag(COMPRESSION, 1)
    photometric = tag(PHOTOMETRIC)
    if compression not in (1, 32773):
        fail(OP, f"TIFF compression {compression} is not supported (only none and PackBits)")
    if any(b != 8 for b in bits) and not (photometric == 3 and bits[0] in (4, 8)):
        fail(OP, f"TIFF with {bits} bits per sample is not supported")
    if tag(PREDICTOR, 1) != 1:
        fail(OP, "TIFF with a predictor is not supported")
    offsets = tags.get(STRIP_OFFSETS)
    counts = tags.get(STRIP_COUNTS)
    if not offsets or not counts:
        fail(OP, "TIFF is missing its strip offsets or byte counts")
    chunks = [data[o : o + c] for o, c in zip(offsets, counts, strict=True)]
    if compression == 32773:
        chunks = [_packbits(c) for c in chunks]
    raw = b"".join(chunks)
    planar = tag(PLANAR, 1)
    depth = bits[0]
    needed = width * height * samples * depth // 8
    if len(raw) < needed:
        fail(OP, f"truncated TIFF strips: need {needed} bytes, have {len(raw)}")
    if depth == 4:
        stride = (width + 1) // 2
        packed = np.frombuffer(raw, np.uint8, stride * height).reshape(height, stride)
        pixels = np.stack([packed >> 4, packed & 15], axis=-1).reshape(height, -1)[:, :width]
        pixels = pixels[..., np.newaxis]
    else:
        flat = np.frombuffer(raw, np.uint8, width * height * samples)
        if planar == 2:
            pixels = flat.reshape(samples, height, width).transpose(1, 2, 0)
        else:
            pixels = flat.reshape(height, width, samples)
    if photometric == 2:
        return np.ascontiguousarray(pixels[..., :3])
    if photometric in (0, 1):
        gray = pixels[..., 0]
        return np.ascontiguousarray(255 - gray if photometric == 0 else gray)
    if photometric == 3:
        colormap = tags.get(COLORMAP)
        if not colormap:
            fail(OP, "palette TIFF without a ColorMap")
        table = (np.array(colormap, np.int64).reshape(3, -1).T >> 8).astype(np.uint8)
        return np.asarray(table[pixels[..., 0]])
    fail(OP, f"TIFF photometric interpretation {photometric} is not supported")
