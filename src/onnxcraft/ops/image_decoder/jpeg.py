"""Baseline (sequential Huffman) JPEG decoding, bit-compatible with libjpeg's defaults.

Decoders disagree by a grey level here and there, so this one follows the arithmetic of
libjpeg(-turbo) as commonly configured — the "islow" integer IDCT, "fancy" (triangular)
chroma upsampling and its fixed-point YCbCr -> RGB tables — to reproduce what widely used
image libraries return, exactly. Entropy decoding is plain Python (JPEG's bit stream is
inherently sequential); the IDCT, upsampling and colour conversion are vectorised over the
whole image.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from onnxcraft.ops.kernel_common import fail

__all__ = ["decode_jpeg"]

OP = "ImageDecoder"

# Position in the 8x8 block (row-major) of the n-th coefficient in zig-zag order.
ZIGZAG = np.array(
    [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]
)  # fmt: skip


@dataclass
class _Component:
    ident: int
    h: int
    v: int
    table: int
    blocks_x: int = 0
    blocks_y: int = 0
    coefficients: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    dc_table: int = 0
    ac_table: int = 0


@dataclass
class _Huffman:
    """A canonical Huffman table as a 16-bit lookahead table.

    ``lengths[w]`` and ``symbols[w]`` give the code length and symbol of the code that
    starts the 16-bit window ``w`` (length 0: no code matches).
    """

    lengths: list[int]
    symbols: list[int]


@dataclass
class _Frame:
    height: int = 0
    width: int = 0
    components: list[_Component] = field(default_factory=list)
    h_max: int = 1
    v_max: int = 1


class _BitReader:
    """MSB-first bits of an entropy-coded segment (byte stuffing already removed).

    The 16-bit window starting at every bit position is precomputed with numpy, so decoding
    a Huffman code or reading a value costs one list lookup instead of a loop over bits.
    """

    # Past the end libjpeg feeds one bits; padding with 0xFF does the same, so a
    # truncated stream decodes to what it holds rather than failing.
    PAD = b"\xff" * 8

    def __init__(self, data: bytes) -> None:
        bits = np.unpackbits(np.frombuffer(data + self.PAD, np.uint8)).astype(np.int64)
        count = len(bits) - 16
        window = np.zeros(count, np.int64)
        for i in range(16):
            window = (window << 1) | bits[i : i + count]
        self._window: list[int] = window.tolist()
        self._pos = 0

    def _at(self) -> int:
        if self._pos >= len(self._window):
            fail(OP, "corrupt JPEG: the entropy-coded data ends inside a block")
        return self._window[self._pos]

    def bits(self, count: int) -> int:
        value = self._at() >> (16 - count)
        self._pos += count
        return value

    def decode(self, table: _Huffman) -> int:
        window = self._at()
        length = table.lengths[window]
        if length == 0:
            fail(OP, "corrupt JPEG: a Huffman code matches no symbol")
        self._pos += length
        return table.symbols[window]

    def receive_extend(self, size: int) -> int:
        """A ``size``-bit magnitude category value, sign-extended as JPEG defines."""
        if size == 0:
            return 0
        value = self.bits(size)
        return value if value >= 1 << (size - 1) else value - (1 << size) + 1


def _build_huffman(counts: bytes, symbols: bytes) -> _Huffman:
    lengths = [0] * 65536
    table = [0] * 65536
    code = 0
    k = 0
    for length in range(1, 17):
        span = 1 << (16 - length)
        for _ in range(counts[length - 1]):
            if k >= len(symbols) or code >= 1 << length:
                fail(OP, "corrupt JPEG: a Huffman table has more codes than fit")
            first = code * span
            lengths[first : first + span] = [length] * span
            table[first : first + span] = [symbols[k]] * span
            code += 1
            k += 1
        code <<= 1
    return _Huffman(lengths, table)


def _segments(data: bytes) -> list[tuple[int, bytes, int]]:
    """(marker, payload, end offset) of each marker segment up to and including each SOS."""
    if data[:2] != b"\xff\xd8":
        fail(OP, "not a JPEG stream (missing SOI marker)")
    out = []
    pos = 2
    while pos < len(data):
        if data[pos] != 0xFF:
            fail(OP, f"corrupt JPEG: expected a marker at byte {pos}")
        marker = data[pos + 1]
        pos += 2
        if marker == 0xFF:  # fill byte
            pos -= 1
            continue
        if marker == 0xD9:
            break
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            continue
        length = int.from_bytes(data[pos : pos + 2], "big")
        payload = data[pos + 2 : pos + length]
        pos += length
        out.append((marker, payload, pos))
        if marker == 0xDA:
            pos = _skip_entropy(data, pos)
    return out


def _skip_entropy(data: bytes, pos: int) -> int:
    """Offset of the first marker after entropy-coded data (not RSTn or stuffing)."""
    while True:
        pos = data.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(data):
            return len(data)
        following = data[pos + 1]
        if following != 0 and not 0xD0 <= following <= 0xD7:
            return pos
        pos += 2


def _entropy_intervals(data: bytes, start: int) -> list[bytes]:
    """Entropy-coded data after SOS split at restart markers, byte stuffing removed."""
    raw = data[start : _skip_entropy(data, start)]
    intervals = []
    current = bytearray()
    pos = 0
    while True:
        marker = raw.find(b"\xff", pos)
        if marker < 0 or marker + 1 >= len(raw):
            current += raw[pos:]
            break
        current += raw[pos:marker]
        following = raw[marker + 1]
        if 0xD0 <= following <= 0xD7:  # a restart marker ends the interval
            intervals.append(bytes(current))
            current = bytearray()
        else:  # 0xFF00 is a stuffed 0xFF data byte
            current.append(0xFF)
        pos = marker + 2
    intervals.append(bytes(current))
    return intervals


def _decode_block(
    reader: _BitReader, dc: _Huffman, ac: _Huffman, predictor: int, out: np.ndarray
) -> int:
    """Decode one block's zig-zag coefficients into ``out`` (64,); returns the new DC."""
    size = reader.decode(dc)
    predictor += reader.receive_extend(size)
    out[0] = predictor
    k = 1
    while k < 64:
        symbol = reader.decode(ac)
        run, size = symbol >> 4, symbol & 15
        if size == 0:
            if run != 15:  # end of block
                break
            k += 16
            continue
        k += run
        if k > 63:
            fail(OP, "corrupt JPEG: coefficient index beyond the block")
        out[k] = reader.receive_extend(size)
        k += 1
    return predictor


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _decode_scan(
    frame: _Frame,
    scan: list[_Component],
    *,
    dc_tables: dict[int, _Huffman],
    ac_tables: dict[int, _Huffman],
    intervals: list[bytes],
    restart: int,
) -> None:
    """Decode one sequential scan into the components' zig-zag coefficient arrays."""
    for comp in scan:
        if comp.dc_table not in dc_tables or comp.ac_table not in ac_tables:
            fail(OP, f"corrupt JPEG: component {comp.ident} uses an undefined Huffman table")
    # Which blocks each MCU visits: interleaved scans cover h*v blocks of each component,
    # a single-component scan walks that component's own blocks in raster order.
    units: list[list[tuple[_Component, int, int]]] = []
    if len(scan) == 1:
        comp = scan[0]
        need_x = _ceil_div(_ceil_div(frame.width * comp.h, frame.h_max), 8)
        need_y = _ceil_div(_ceil_div(frame.height * comp.v, frame.v_max), 8)
        units = [[(comp, by, bx)] for by in range(need_y) for bx in range(need_x)]
    else:
        mcus_x = _ceil_div(frame.width, 8 * frame.h_max)
        mcus_y = _ceil_div(frame.height, 8 * frame.v_max)
        for my in range(mcus_y):
            for mx in range(mcus_x):
                units.append(
                    [
                        (comp, my * comp.v + y, mx * comp.h + x)
                        for comp in scan
                        for y in range(comp.v)
                        for x in range(comp.h)
                    ]
                )
    interval_index = 0
    reader = _BitReader(intervals[0])
    predictors = {comp.ident: 0 for comp in scan}
    for n, unit in enumerate(units):
        if restart and n and n % restart == 0:
            interval_index += 1
            chunk = intervals[interval_index] if interval_index < len(intervals) else b""
            reader = _BitReader(chunk)
            predictors = dict.fromkeys(predictors, 0)
        for comp, by, bx in unit:
            block = comp.coefficients[by, bx]
            predictors[comp.ident] = _decode_block(
                reader,
                dc_tables[comp.dc_table],
                ac_tables[comp.ac_table],
                predictors[comp.ident],
                block,
            )


# libjpeg's "islow" IDCT constants: round(x * 2**13).
_C = {
    "0.298631336": 2446, "0.390180644": 3196, "0.541196100": 4433, "0.765366865": 6270,
    "0.899976223": 7373, "1.175875602": 9633, "1.501321110": 12299, "1.847759065": 15137,
    "1.961570560": 16069, "2.053119869": 16819, "2.562915447": 20995, "3.072711026": 25172,
}  # fmt: skip
_CONST_BITS = 13
_PASS1_BITS = 2


def _descale(x: np.ndarray, n: int) -> np.ndarray:
    return (x + (1 << (n - 1))) >> n


def _idct_1d(s: list[np.ndarray], shift: int) -> list[np.ndarray]:
    """One 8-point pass of the islow IDCT over arrays of the 8 inputs; outputs descaled."""
    z1 = (s[2] + s[6]) * _C["0.541196100"]
    tmp2 = z1 - s[6] * _C["1.847759065"]
    tmp3 = z1 + s[2] * _C["0.765366865"]
    tmp0 = (s[0] + s[4]) << _CONST_BITS
    tmp1 = (s[0] - s[4]) << _CONST_BITS
    t10, t13, t11, t12 = tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2
    o0, o1, o2, o3 = s[7], s[5], s[3], s[1]
    z1 = o0 + o3
    z2 = o1 + o2
    z3 = o0 + o2
    z4 = o1 + o3
    z5 = (z3 + z4) * _C["1.175875602"]
    o0 = o0 * _C["0.298631336"]
    o1 = o1 * _C["2.053119869"]
    o2 = o2 * _C["3.072711026"]
    o3 = o3 * _C["1.501321110"]
    z1 = z1 * -_C["0.899976223"]
    z2 = z2 * -_C["2.562915447"]
    z3 = z3 * -_C["1.961570560"] + z5
    z4 = z4 * -_C["0.390180644"] + z5
    o0 = o0 + z1 + z3
    o1 = o1 + z2 + z4
    o2 = o2 + z2 + z3
    o3 = o3 + z1 + z4
    return [
        _descale(t10 + o3, shift), _descale(t11 + o2, shift), _descale(t12 + o1, shift),
        _descale(t13 + o0, shift), _descale(t13 - o0, shift), _descale(t12 - o1, shift),
        _descale(t11 - o2, shift), _descale(t10 - o3, shift),
    ]  # fmt: skip


def _idct_blocks(coefficients: np.ndarray, quant: np.ndarray) -> np.ndarray:
    """Samples (by, bx, 8, 8) uint8 of zig-zag coefficients (by, bx, 64)."""
    natural = np.zeros(coefficients.shape, np.int64)
    natural[..., ZIGZAG] = coefficients.astype(np.int64) * quant[np.newaxis, np.newaxis, :]
    blocks = natural.reshape(*coefficients.shape[:2], 8, 8)
    # Pass 1 over columns (inputs run down a column), then pass 2 over rows.
    columns = _idct_1d([blocks[..., u, :] for u in range(8)], _CONST_BITS - _PASS1_BITS)
    work = np.stack(columns, axis=-2)  # (.., row, col)
    rows = _idct_1d([work[..., :, u] for u in range(8)], _CONST_BITS + _PASS1_BITS + 3)
    samples = np.stack(rows, axis=-1)
    return np.asarray(np.clip(samples + 128, 0, 255).astype(np.uint8))


def _plane(comp: _Component, quant: np.ndarray, frame: _Frame) -> np.ndarray:
    """The component's samples at its own (downsampled) resolution."""
    blocks = _idct_blocks(comp.coefficients, quant)
    by, bx = blocks.shape[:2]
    image = blocks.transpose(0, 2, 1, 3).reshape(by * 8, bx * 8)
    width = _ceil_div(frame.width * comp.h, frame.h_max)
    height = _ceil_div(frame.height * comp.v, frame.v_max)
    return np.asarray(image[:height, :width])


def _fancy_h2(
    rows: np.ndarray, weight: int, bias_even: int, bias_odd: int, shift: int
) -> np.ndarray:
    """Horizontal triangle-filter doubling of (already vertically weighted) rows."""
    h, w = rows.shape
    out = np.empty((h, 2 * w), np.int32)
    if w == 1:
        out[:, 0] = (rows[:, 0] * weight + bias_even) >> shift
        out[:, 1] = (rows[:, 0] * weight + bias_odd) >> shift
        return out
    left = np.concatenate([rows[:, :1], rows[:, :-1]], axis=1)
    right = np.concatenate([rows[:, 1:], rows[:, -1:]], axis=1)
    out[:, 0::2] = (rows * (weight - weight // 4) + left * (weight // 4) + bias_even) >> shift
    out[:, 1::2] = (rows * (weight - weight // 4) + right * (weight // 4) + bias_odd) >> shift
    return out


def _upsample(plane: np.ndarray, h: int, v: int, frame: _Frame) -> np.ndarray:
    """Bring a component plane to full resolution as libjpeg's fancy upsampling does."""
    fx, fy = frame.h_max // h, frame.v_max // v
    data = plane.astype(np.int32)
    if (fx, fy) == (1, 1):
        result = data
    elif (fx, fy) == (2, 1) and data.shape[1] > 2:
        # Sums are 4 * value (weights 3 and 1); biases 1 then 2 as libjpeg rounds.
        result = _fancy_h2(data, 4, 1, 2, 2)
    elif (fx, fy) in ((2, 2), (1, 2)) and (fx == 1 or data.shape[1] > 2):
        above = np.concatenate([data[:1], data[:-1]], axis=0)
        below = np.concatenate([data[1:], data[-1:]], axis=0)
        near_above = data * 3 + above  # output row 2i
        near_below = data * 3 + below  # output row 2i + 1
        if fx == 2:
            # Column sums are 4 * value; the horizontal pass takes 3:1 of them.
            even = _fancy_h2(near_above, 4, 8, 7, 4)
            odd = _fancy_h2(near_below, 4, 8, 7, 4)
        else:
            even = (near_above + 1) >> 2
            odd = (near_below + 2) >> 2
        result = np.empty((2 * data.shape[0], even.shape[1]), np.int32)
        result[0::2] = even
        result[1::2] = odd
    else:
        result = np.repeat(np.repeat(data, fy, axis=0), fx, axis=1)
    return np.clip(result[: frame.height, : frame.width], 0, 255).astype(np.uint8)


def _fix(x: float) -> int:
    return int(x * 65536 + 0.5)


def _ycc_to_rgb(y: np.ndarray, cb: np.ndarray, cr: np.ndarray) -> np.ndarray:
    """libjpeg's fixed-point YCbCr -> RGB (16 fractional bits, arithmetic shifts)."""
    yy = y.astype(np.int64)
    b_ = cb.astype(np.int64) - 128
    r_ = cr.astype(np.int64) - 128
    half = 1 << 15
    red = yy + ((_fix(1.40200) * r_ + half) >> 16)
    green = yy + ((-_fix(0.34414) * b_ + half - _fix(0.71414) * r_) >> 16)
    blue = yy + ((_fix(1.77200) * b_ + half) >> 16)
    return np.asarray(np.clip(np.stack([red, green, blue], axis=-1), 0, 255).astype(np.uint8))


def decode_jpeg(data: bytes) -> np.ndarray:
    """Decode a baseline JPEG into (H, W) greyscale or (H, W, 3) RGB uint8."""
    frame = _Frame()
    quant: dict[int, np.ndarray] = {}
    dc_tables: dict[int, _Huffman] = {}
    ac_tables: dict[int, _Huffman] = {}
    restart = 0
    for marker, payload, end in _segments(data):
        if marker == 0xDB:
            pos = 0
            while pos < len(payload):
                precision, slot = payload[pos] >> 4, payload[pos] & 15
                size = 128 if precision else 64
                raw = payload[pos + 1 : pos + 1 + size]
                table = np.frombuffer(raw, ">u2") if precision else np.frombuffer(raw, "u1")
                quant[slot] = table.astype(np.int64)
                pos += 1 + size
        elif marker == 0xC4:
            pos = 0
            while pos < len(payload):
                kind, slot = payload[pos] >> 4, payload[pos] & 15
                counts = payload[pos + 1 : pos + 17]
                total = sum(counts)
                symbols = payload[pos + 17 : pos + 17 + total]
                (ac_tables if kind else dc_tables)[slot] = _build_huffman(counts, symbols)
                pos += 17 + total
        elif marker == 0xDD:
            restart = int.from_bytes(payload[:2], "big")
        elif marker in (0xC0, 0xC1):
            _read_frame(frame, payload)
        elif 0xC2 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            fail(
                OP,
                f"only baseline JPEG is supported; this file uses SOF marker "
                f"0x{marker:02X} (progressive, lossless or arithmetic coding)",
            )
        elif marker == 0xDA:
            if not frame.components:
                fail(OP, "corrupt JPEG: scan before the frame header")
            scan = _read_scan_header(frame, payload)
            _decode_scan(
                frame,
                scan,
                dc_tables=dc_tables,
                ac_tables=ac_tables,
                intervals=_entropy_intervals(data, end),
                restart=restart,
            )
    if not frame.components:
        fail(OP, "corrupt JPEG: no frame header")
    planes = []
    for comp in frame.components:
        if comp.table not in quant:
            fail(OP, f"corrupt JPEG: quantization table {comp.table} is not defined")
        planes.append(_upsample(_plane(comp, quant[comp.table], frame), comp.h, comp.v, frame))
    if len(planes) == 1:
        return planes[0]
    if len(planes) == 3:
        return _ycc_to_rgb(*planes)
    fail(OP, f"JPEG with {len(planes)} components (e.g. CMYK) is not supported")


def _read_frame(frame: _Frame, payload: bytes) -> None:
    if payload[0] != 8:
        fail(OP, f"only 8-bit JPEG samples are supported, got {payload[0]}-bit")
    frame.height = int.from_bytes(payload[1:3], "big")
    frame.width = int.from_bytes(payload[3:5], "big")
    if frame.height == 0 or frame.width == 0:
        fail(OP, "JPEG frames without a height (DNL marker) are not supported")
    count = payload[5]
    for i in range(count):
        ident, sampling, table = payload[6 + 3 * i : 9 + 3 * i]
        frame.components.append(_Component(ident, sampling >> 4, sampling & 15, table))
    frame.h_max = max(c.h for c in frame.components)
    frame.v_max = max(c.v for c in frame.components)
    mcus_x = _ceil_div(frame.width, 8 * frame.h_max)
    mcus_y = _ceil_div(frame.height, 8 * frame.v_max)
    for comp in frame.components:
        if comp.h < 1 or comp.v < 1 or frame.h_max % comp.h or frame.v_max % comp.v:
            fail(OP, f"unsupported JPEG sampling factors {comp.h}x{comp.v}")
        comp.blocks_x = mcus_x * comp.h
        comp.blocks_y = mcus_y * comp.v
        comp.coefficients = np.zeros((comp.blocks_y, comp.blocks_x, 64), np.int32)


def _read_scan_header(frame: _Frame, payload: bytes) -> list[_Component]:
    count = payload[0]
    by_id = {c.ident: c for c in frame.components}
    scan = []
    for i in range(count):
        ident, tables = payload[1 + 2 * i], payload[2 + 2 * i]
        if ident not in by_id:
            fail(OP, f"corrupt JPEG: scan names unknown component {ident}")
        comp = by_id[ident]
        comp.dc_table, comp.ac_table = tables >> 4, tables & 15
        scan.append(comp)
    return scan
