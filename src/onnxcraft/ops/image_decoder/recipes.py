"""Recipes of the image decoder family: strategies drawing valid nodes of ImageDecoder, every
version.

The decoder is fed small PNG and PNM files written here.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


def _png(image: np.ndarray) -> bytes:
    """A minimal PNG: 8-bit greyscale (H, W) or RGB (H, W, 3), rows unfiltered."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    height, width = image.shape[:2]
    color = 2 if image.ndim == 3 else 0
    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    rows = b"".join(b"\x00" + image[r].tobytes() for r in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _pnm(image: np.ndarray) -> bytes:
    """A binary PGM (P5) or PPM (P6) file."""
    height, width = image.shape[:2]
    magic = b"P6" if image.ndim == 3 else b"P5"
    return magic + f"\n{width} {height}\n255\n".encode() + image.tobytes()


@recipe
def image_decoder(n: NodeDraw) -> NodeCase:
    height, width = n.integer(1, 4), n.integer(1, 4)
    shape = (height, width, 3) if n.flag() else (height, width)
    pixels = n.array(ElementType.UINT8, shape, low=0, high=255)
    encoded = _png(pixels) if n.flag() else _pnm(pixels)
    stream: Input = n.given(np.frombuffer(encoded, dtype=np.uint8).copy())
    attrs = n.attrs(pixel_format=st.sampled_from(["RGB", "BGR", "Grayscale"]))
    return n.case([stream], attrs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("ImageDecoder", image_decoder)
