"""ImageDecoder: images encoded here by small independent writers, decoded by the kernel."""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from onnxcraft.errors import EvaluationError
from onnxcraft.ops.image_decoder.kernels import decode_image, image_decoder

RNG = np.random.default_rng(21)
IMAGE = RNG.integers(0, 256, (7, 10, 3), dtype=np.uint8)
GAPS = json.loads((Path(__file__).parent / "data" / "image_decoder_known_gaps.json").read_text())


def _gray(rgb: np.ndarray) -> np.ndarray:
    """Rec. 601 luma rounded to nearest, computed in floating point."""
    weights = np.array([0.299, 0.587, 0.114])
    return np.floor(rgb.astype(np.float64) @ weights + 0.5).astype(np.uint8)


# --- PNG -------------------------------------------------------------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _filter_row(kind: int, row: bytes, prior: bytes, bpp: int) -> bytes:
    out = bytearray()
    for i, value in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        if kind == 1:
            guess = a
        elif kind == 2:
            guess = b
        elif kind == 3:
            guess = (a + b) // 2
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            guess = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        else:
            guess = 0
        out.append((value - guess) % 256)
    return bytes([kind]) + bytes(out)


def _png(
    rows: list[bytes], width: int, height: int, depth: int, color: int, bpp: int, extra: bytes = b""
) -> bytes:
    prior = bytes(len(rows[0]))
    data = b""
    for r, row in enumerate(rows):
        data += _filter_row(r % 5, row, prior, bpp)  # every filter type in turn
        prior = row
    header = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + extra
        + _chunk(b"IDAT", zlib.compress(data))
        + _chunk(b"IEND", b"")
    )


def test_png_rgb_every_filter_and_grayscale_conversion() -> None:
    encoded = _png([IMAGE[r].tobytes() for r in range(7)], 10, 7, 8, 2, 3)
    np.testing.assert_array_equal(decode_image(encoded, "RGB"), IMAGE)
    np.testing.assert_array_equal(decode_image(encoded, "BGR"), IMAGE[..., ::-1])
    gray = decode_image(encoded, "Grayscale")
    assert gray.shape == (7, 10, 1)
    assert np.abs(gray[..., 0].astype(int) - _gray(IMAGE).astype(int)).max() <= 1


def test_png_rgba16_palette_and_low_bit_depths() -> None:
    rgba16 = RNG.integers(0, 65536, (5, 4, 4), dtype=np.uint16)
    encoded = _png([rgba16[r].astype(">u2").tobytes() for r in range(5)], 4, 5, 16, 6, 8)
    np.testing.assert_array_equal(decode_image(encoded), (rgba16[..., :3] >> 8).astype(np.uint8))

    palette = RNG.integers(0, 256, (16, 3), dtype=np.uint8)
    index = RNG.integers(0, 16, (3, 9), dtype=np.uint8)
    packed = [
        bytes(np.packbits(np.unpackbits(row[:, None], axis=1)[:, 4:].reshape(-1))) for row in index
    ]
    encoded = _png(packed, 9, 3, 4, 3, 1, _chunk(b"PLTE", palette.tobytes()))
    np.testing.assert_array_equal(decode_image(encoded), palette[index])

    bits = RNG.integers(0, 2, (4, 11), dtype=np.uint8)
    encoded = _png([bytes(np.packbits(row)) for row in bits], 11, 4, 1, 0, 1)
    gray = decode_image(encoded, "Grayscale")[..., 0]
    np.testing.assert_array_equal(gray, bits * 255)


def test_png_adam7_interlaced() -> None:
    passes = (
        (0, 0, 8, 8),
        (0, 4, 8, 8),
        (4, 0, 8, 4),
        (0, 2, 4, 4),
        (2, 0, 4, 2),
        (0, 1, 2, 2),
        (1, 0, 2, 1),
    )
    image = RNG.integers(0, 256, (9, 10), dtype=np.uint8)
    data = b""
    for r0, c0, dr, dc in passes:
        sub = image[r0::dr, c0::dc]
        if sub.size:
            data += b"".join(b"\x00" + row.tobytes() for row in sub)
    header = struct.pack(">IIBBBBB", 10, 9, 8, 0, 0, 0, 1)
    encoded = (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(data))
        + _chunk(b"IEND", b"")
    )
    np.testing.assert_array_equal(decode_image(encoded, "Grayscale")[..., 0], image)


# --- BMP, PNM, TIFF --------------------------------------------------------------------------


def _bmp24(image: np.ndarray, top_down: bool) -> bytes:
    h, w, _ = image.shape
    stride = (w * 3 + 3) // 4 * 4
    rows = image[..., ::-1] if top_down else image[::-1, :, ::-1]
    pixels = b"".join(r.tobytes() + bytes(stride - w * 3) for r in rows)
    info = struct.pack(
        "<IiiHHIIiiII", 40, w, -h if top_down else h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0
    )
    return b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) + info + pixels


@pytest.mark.parametrize("top_down", [False, True])
def test_bmp_24_bit(top_down: bool) -> None:
    np.testing.assert_array_equal(decode_image(_bmp24(IMAGE, top_down)), IMAGE)


def test_bmp_8_bit_palette() -> None:
    palette = RNG.integers(0, 256, (256, 3), dtype=np.uint8)
    index = RNG.integers(0, 256, (3, 5), dtype=np.uint8)
    stride = 8
    pixels = b"".join(row.tobytes() + bytes(stride - 5) for row in index[::-1])
    table = b"".join(bytes(c[::-1]) + b"\x00" for c in palette)
    info = struct.pack("<IiiHHIIiiII", 40, 5, 3, 1, 8, 0, len(pixels), 0, 0, 256, 0)
    offset = 54 + len(table)
    encoded = b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + info + table
    np.testing.assert_array_equal(decode_image(encoded + pixels), palette[index])


def test_pnm_binary_ascii_and_16_bit() -> None:
    p6 = b"P6\n# a comment\n10 7\n255\n" + IMAGE.tobytes()
    np.testing.assert_array_equal(decode_image(p6), IMAGE)
    p3 = b"P3 10 7 255\n" + " ".join(str(v) for v in IMAGE.reshape(-1)).encode()
    np.testing.assert_array_equal(decode_image(p3), IMAGE)
    gray16 = RNG.integers(0, 1024, (3, 4), dtype=np.uint16)
    p5 = b"P5 4 3 1023\n" + gray16.astype(">u2").tobytes()
    expected = ((gray16.astype(int) * 255 + 511) // 1023).astype(np.uint8)
    np.testing.assert_array_equal(decode_image(p5, "Grayscale")[..., 0], expected)


def _tiff(image: np.ndarray, photometric: int, packbits: bool) -> bytes:
    h, w = image.shape[:2]
    samples = 1 if image.ndim == 2 else image.shape[2]
    pixels = image.tobytes()
    if packbits:  # literal runs of at most 128 bytes
        pixels = b"".join(
            bytes([len(c) - 1]) + c
            for c in (pixels[i : i + 128] for i in range(0, len(pixels), 128))
        )
    entries = [
        (256, 3, 1, w),
        (257, 3, 1, h),
        (258, 3, 1, 8),
        (259, 3, 1, 32773 if packbits else 1),
        (262, 3, 1, photometric),
        (273, 4, 1, 0),
        (277, 3, 1, samples),
        (278, 3, 1, h),
        (279, 4, 1, len(pixels)),
    ]
    ifd_size = 2 + 12 * len(entries) + 4
    data_offset = 8 + ifd_size
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        value = data_offset if tag == 273 else value
        packed = struct.pack("<H", value) + b"\x00\x00" if kind == 3 else struct.pack("<I", value)
        ifd += struct.pack("<HHI", tag, kind, count) + packed
    return b"II*\x00" + struct.pack("<I", 8) + ifd + b"\x00" * 4 + pixels


def test_tiff_uncompressed_rgb_and_packbits_gray() -> None:
    np.testing.assert_array_equal(decode_image(_tiff(IMAGE, 2, False)), IMAGE)
    gray = IMAGE[..., 0]
    got = decode_image(_tiff(gray, 1, True), "Grayscale")[..., 0]
    np.testing.assert_array_equal(got, gray)
    np.testing.assert_array_equal(
        decode_image(_tiff(gray, 0, False), "Grayscale")[..., 0], 255 - gray
    )


# --- errors and the node tests ---------------------------------------------------------------


def test_unsupported_and_corrupt_streams_raise_evaluation_errors() -> None:
    with pytest.raises(EvaluationError, match="ImageDecoder: only baseline JPEG"):
        decode_image(b"\xff\xd8\xff\xc2\x00\x0b\x08\x00\x01\x00\x01\x01\x01\x11\x00\xff\xd9")
    with pytest.raises(EvaluationError, match="ImageDecoder: unrecognised image format"):
        decode_image(b"hello world")
    encoded = _png([IMAGE[r].tobytes() for r in range(7)], 10, 7, 8, 2, 3)
    with pytest.raises(EvaluationError, match="ImageDecoder: corrupt"):
        decode_image(encoded[:60])
    with pytest.raises(EvaluationError, match="pixel_format must be one of"):
        decode_image(encoded, "CMYK")
    with pytest.raises(EvaluationError, match="1-D uint8 tensor"):
        image_decoder(np.zeros((2, 2), np.uint8))


def _node_tests_root() -> Path:
    default = Path(__file__).resolve().parents[2].parent / "shared" / "onnx-node-tests"
    root = Path(os.environ.get("ONNXCRAFT_NODE_TESTS", default))
    if not (root / "MANIFEST.json").exists():
        pytest.skip(f"ONNX node tests not found at {root} (set ONNXCRAFT_NODE_TESTS)")
    return root


@pytest.mark.parametrize("case", sorted(GAPS))
def test_known_gaps_still_fail(case: str) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    root = _node_tests_root()
    tensor = onnx.TensorProto()
    tensor.ParseFromString((root / case / "test_data_set_0" / "input_0.pb").read_bytes())
    stream = numpy_helper.to_array(tensor)
    with pytest.raises(EvaluationError, match="not supported"):
        image_decoder(stream)


# --- JPEG (streams from tests/evaluate/_jpeg_writer.py) --------------------------------------


def _smooth(height: int, width: int, channels: int) -> np.ndarray:
    y, x = np.mgrid[0:height, 0:width]
    layers = [127 + 100 * np.sin(x / 5 + k) * np.cos(y / 7 - k) for k in range(channels)]
    return np.clip(np.stack(layers, axis=-1), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("restart", [0, 3])
def test_jpeg_444_odd_size_with_restarts(restart: int) -> None:
    from tests.evaluate._jpeg_writer import encode_jpeg

    image = _smooth(13, 21, 3)
    decoded = decode_image(encode_jpeg(image, restart=restart))
    assert decoded.shape == (13, 21, 3)
    assert np.abs(decoded.astype(int) - image.astype(int)).max() <= 3


@pytest.mark.parametrize("sampling", [(2, 2), (2, 1), (1, 2)])
def test_jpeg_subsampled_luma_layout(sampling: tuple[int, int]) -> None:
    from tests.evaluate._jpeg_writer import encode_jpeg

    # Neutral colours keep chroma constant, so any error comes from the luma block layout.
    gray = _smooth(19, 27, 1)[..., 0]
    image = np.repeat(gray[..., None], 3, axis=2)
    decoded = decode_image(encode_jpeg(image, sampling=sampling, restart=2))
    assert np.abs(decoded.astype(int) - image.astype(int)).max() <= 3


def test_jpeg_single_component() -> None:
    from tests.evaluate._jpeg_writer import encode_jpeg

    gray = _smooth(9, 17, 1)[..., 0]
    decoded = decode_image(encode_jpeg(gray), "Grayscale")[..., 0]
    assert np.abs(decoded.astype(int) - gray.astype(int)).max() <= 2
    rgb = decode_image(encode_jpeg(gray), "RGB")
    np.testing.assert_array_equal(rgb[..., 0], rgb[..., 2])
