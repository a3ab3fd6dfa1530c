"""A small baseline JPEG writer for tests: float DCT, flat Huffman tables, optional restarts.

It exists to give the decoder streams with chosen sampling factors, restart intervals and
odd sizes; its output is judged by how close the decoded pixels come to the source pixels.
"""

from __future__ import annotations

import struct

import numpy as np

ZIGZAG = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34,
    27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44,
    51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]  # fmt: skip
DC_SYMBOLS = list(range(12))  # every code 4 bits long
AC_SYMBOLS = [0x00, 0xF0] + [r * 16 + s for r in range(16) for s in range(1, 11)]  # 8 bits


def _dct_matrix() -> np.ndarray:
    k = np.arange(8)
    c = np.cos((2 * k[None, :] + 1) * k[:, None] * np.pi / 16) / 2
    c[0] /= np.sqrt(2)
    return c


class _Bits:
    def __init__(self) -> None:
        self.out = bytearray()
        self.acc = 0
        self.count = 0

    def put(self, value: int, length: int) -> None:
        for i in range(length - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.count += 1
            if self.count == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc = self.count = 0

    def flush(self) -> None:
        while self.count:
            self.put(1, 1)


def _category(v: int) -> tuple[int, int]:
    size = abs(v).bit_length()
    return size, (v if v >= 0 else v + (1 << size) - 1)


def _dht(kind: int, slot: int, length: int, symbols: list[int]) -> bytes:
    counts = [0] * 16
    counts[length - 1] = len(symbols)
    body = bytes([kind << 4 | slot]) + bytes(counts) + bytes(symbols)
    return b"\xff\xc4" + struct.pack(">H", len(body) + 2) + body


def encode_jpeg(image: np.ndarray, sampling: tuple[int, int] = (1, 1), restart: int = 0) -> bytes:
    """Baseline JPEG of (H, W) grey or (H, W, 3) RGB uint8; quantization step 1."""
    gray = image.ndim == 2
    height, width = image.shape[:2]
    rgb = image.astype(np.float64)
    if gray:
        planes = [rgb]
        factors = [(1, 1)]
    else:
        r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
        y = 0.299 * r + 0.587 * g + 0.114 * b
        cb = -0.168736 * r - 0.331264 * g + 0.5 * b + 128
        cr = 0.5 * r - 0.418688 * g - 0.081312 * b + 128
        planes = [y, cb, cr]
        factors = [sampling, (1, 1), (1, 1)]
    h_max, v_max = factors[0]
    mcu_w, mcu_h = 8 * h_max, 8 * v_max
    mcus_x, mcus_y = -(-width // mcu_w), -(-height // mcu_h)
    dct = _dct_matrix()
    blocks_per_comp = []
    for plane, (h, v) in zip(planes, factors):
        padded = np.pad(
            plane, ((0, mcus_y * mcu_h - height), (0, mcus_x * mcu_w - width)), mode="edge"
        )
        fy, fx = v_max // v, h_max // h
        small = padded.reshape(padded.shape[0] // fy, fy, padded.shape[1] // fx, fx).mean((1, 3))
        blocks = small.reshape(small.shape[0] // 8, 8, small.shape[1] // 8, 8).swapaxes(1, 2)
        coefficients = np.rint(dct @ (blocks - 128) @ dct.T).astype(int)
        blocks_per_comp.append(coefficients.reshape(*coefficients.shape[:2], 64)[..., ZIGZAG])
    bits = _Bits()
    predictors = [0] * len(planes)
    pieces = []
    for n in range(mcus_x * mcus_y):
        if restart and n and n % restart == 0:
            bits.flush()
            pieces.append(bytes(bits.out) + bytes([0xFF, 0xD0 + (n // restart - 1) % 8]))
            bits.out = bytearray()
            predictors = [0] * len(planes)
        my, mx = divmod(n, mcus_x)
        for c, (h, v) in enumerate(factors):
            for by in range(v):
                for bx in range(h):
                    block = blocks_per_comp[c][my * v + by, mx * h + bx]
                    diff = int(block[0]) - predictors[c]
                    predictors[c] = int(block[0])
                    size, value = _category(diff)
                    bits.put(DC_SYMBOLS.index(size), 4)
                    bits.put(value, size)
                    run = 0
                    last = max((k for k in range(1, 64) if block[k]), default=0)
                    for k in range(1, last + 1):
                        if block[k] == 0:
                            run += 1
                            continue
                        while run > 15:
                            bits.put(AC_SYMBOLS.index(0xF0), 8)
                            run -= 16
                        size, value = _category(int(block[k]))
                        bits.put(AC_SYMBOLS.index(run * 16 + size), 8)
                        bits.put(value, size)
                        run = 0
                    if last < 63:
                        bits.put(AC_SYMBOLS.index(0x00), 8)
    bits.flush()
    pieces.append(bytes(bits.out))
    components = b"".join(bytes([i + 1, h << 4 | v, 0]) for i, (h, v) in enumerate(factors))
    sof = bytes([8]) + struct.pack(">HH", height, width) + bytes([len(planes)]) + components
    scan = bytes([len(planes)]) + b"".join(bytes([i + 1, 0x00]) for i in range(len(planes)))
    scan += bytes([0, 63, 0])
    dqt = bytes([0]) + bytes([1] * 64)
    header = (
        b"\xff\xd8"
        + b"\xff\xdb"
        + struct.pack(">H", len(dqt) + 2)
        + dqt
        + b"\xff\xc0"
        + struct.pack(">H", len(sof) + 2)
        + sof
        + _dht(0, 0, 4, DC_SYMBOLS)
        + _dht(1, 0, 8, AC_SYMBOLS)
    )
    if restart:
        header += b"\xff\xdd\x00\x04" + struct.pack(">H", restart)
    header += b"\xff\xda" + struct.pack(">H", len(scan) + 2) + scan
    return header + b"".join(pieces) + b"\xff\xd9"
