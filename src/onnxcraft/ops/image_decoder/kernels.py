"""ImageDecoder: decode encoded image bytes (BMP, PNM, PNG, TIFF, baseline JPEG) with numpy.

The format is recognised from the stream's signature. Each format module returns greyscale
(H, W) or RGB (H, W, 3) uint8; this module converts that to the requested ``pixel_format``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from onnxcraft.ops.image_decoder.bmp import decode_bmp
from onnxcraft.ops.image_decoder.jpeg import decode_jpeg
from onnxcraft.ops.image_decoder.png import decode_png
from onnxcraft.ops.image_decoder.pnm import decode_pnm
from onnxcraft.ops.image_decoder.tiff import decode_tiff
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail

__all__ = ["decode_image", "register"]

OP = "ImageDecoder"
PIXEL_FORMATS = ("RGB", "BGR", "Grayscale")


def _decoder_for(data: bytes) -> Callable[[bytes], np.ndarray]:
    if data.startswith(b"\xff\xd8"):
        return decode_jpeg
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return decode_png
    if data.startswith(b"BM"):
        return decode_bmp
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return decode_tiff
    if len(data) > 2 and data[:1] == b"P" and data[1:2] in b"123456" and data[2:3].isspace():
        return decode_pnm
    known = {b"RIFF": "WebP", b"\x00\x00\x00\x0c": "JPEG 2000", b"GIF8": "GIF"}
    name = known.get(data[:4])
    if name is not None:
        fail(
            OP,
            f"{name} images are not supported (supported: BMP, PNM, PNG, uncompressed "
            "TIFF, baseline JPEG)",
        )
    fail(
        OP,
        "unrecognised image format (supported: BMP, PNM, PNG, uncompressed TIFF, "
        f"baseline JPEG); the data starts with {data[:8]!r}",
    )


def _to_gray(rgb: np.ndarray) -> np.ndarray:
    """ITU-R 601 luma in 16-bit fixed point, rounded, as common image libraries compute it."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)


def decode_image(data: bytes, pixel_format: str = "RGB") -> np.ndarray:
    """Decode ``data`` to (H, W, 3) RGB/BGR or (H, W, 1) greyscale uint8."""
    if pixel_format not in PIXEL_FORMATS:
        fail(OP, f"pixel_format must be one of {PIXEL_FORMATS}, got {pixel_format!r}")
    if not data:
        fail(OP, "the encoded stream is empty")
    try:
        image = _decoder_for(data)(data)
    except (IndexError, ValueError, KeyError) as exc:  # structural damage found by numpy
        fail(OP, f"corrupt or truncated image data: {exc}")
    if pixel_format == "Grayscale":
        gray = image if image.ndim == 2 else _to_gray(image)
        return gray[..., np.newaxis]
    rgb = np.repeat(image[..., np.newaxis], 3, axis=2) if image.ndim == 2 else image
    return np.ascontiguousarray(rgb[..., ::-1] if pixel_format == "BGR" else rgb)


def image_decoder(encoded_stream: np.ndarray, *, pixel_format: str = "RGB") -> np.ndarray:
    """ImageDecoder-20: a 1-D uint8 tensor of encoded bytes -> decoded pixels."""
    stream = np.asarray(encoded_stream)
    if stream.dtype != np.uint8 or stream.ndim != 1:
        fail(
            OP,
            f"encoded_stream must be a 1-D uint8 tensor, got {stream.dtype} with shape "
            f"{stream.shape}",
        )
    return decode_image(stream.tobytes(), pixel_format)


def register(kernels: KernelRegistry) -> None:
    """Add ImageDecoder to ``kernels``."""
    kernels.add("ImageDecoder", image_decoder, since=20)
