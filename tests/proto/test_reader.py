"""Parsing a model file one initializer at a time gives what ParseFromString gives."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import onnxcraft as oc
import onnxcraft.io as oc_io
from onnxcraft.errors import ProtoError
from onnxcraft.proto import GraphProto, ModelProto, reader
from onnxcraft.proto.reader import read_model
from tests.node_cases import case_names, node_tests_root


def _read(data: bytes) -> ModelProto:
    return read_model(io.BufferedReader(io.BytesIO(data)), len(data))  # type: ignore[arg-type]


@pytest.mark.parametrize("batch_bytes", [1, 100, 1 << 20])
def test_every_node_test_model_parses_the_same(
    monkeypatch: pytest.MonkeyPatch, batch_bytes: int
) -> None:
    # Initializers below batch_bytes are parsed in batches, the others one by one: with small
    # limits, both ways (and their alternation) run on these small models.
    monkeypatch.setattr(reader, "_BATCH_BYTES", batch_bytes)
    names = case_names()
    assert names
    for name in names:
        data = (node_tests_root() / name / "model.onnx").read_bytes()
        # Compared through their encodings: message equality compares floats by value, and
        # some models hold NaN attributes (NaN != NaN) on older protobufs.
        expected = ModelProto.FromString(data).SerializeToString()
        assert _read(data).SerializeToString() == expected, name


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes([*out, value])


def _tag(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _delimited(number: int, payload: bytes) -> bytes:
    return _tag(number, 2) + _varint(len(payload)) + payload


def test_repeated_graph_fields_unknown_fields_and_every_wire_type_merge_like_protobuf() -> None:
    first = GraphProto(name="first")
    first.initializer.append(oc.from_array(np.arange(3, dtype=np.float32), "a"))
    second = GraphProto(name="second", doc_string="d")
    second.initializer.append(oc.from_array(np.arange(2, dtype=np.int64), "b"))
    # An unknown field of each wire type, inside the graph and at the top level.
    unknown = (
        _tag(900, 0) + b"\x96\x01"
        + _tag(901, 1) + bytes(8)
        + _tag(902, 5) + bytes(4)
        + _delimited(903, b"xyz")
    )  # fmt: skip
    data = (
        _tag(1, 0) + b"\x08"  # ir_version 8
        + _delimited(7, first.SerializeToString() + unknown)
        + unknown
        + _delimited(2, b"producer")
        + _delimited(7, second.SerializeToString())  # a second graph field merges into the first
        + _tag(1, 0) + b"\x09"  # and a second ir_version wins
    )  # fmt: skip
    parsed = _read(data)
    expected = ModelProto.FromString(data)
    with pytest.MonkeyPatch.context() as patched:  # each initializer parsed on its own
        patched.setattr(reader, "_BATCH_BYTES", 1)
        assert _read(data) == expected
    assert parsed == expected
    assert parsed.SerializeToString() == expected.SerializeToString()
    assert [t.name for t in parsed.graph.initializer] == ["a", "b"]
    assert parsed.graph.name == "second" and parsed.ir_version == 9


def test_cut_or_corrupt_data_is_refused() -> None:
    model = ModelProto(ir_version=8)
    model.graph.name = "g"
    model.graph.initializer.append(oc.from_array(np.arange(40, dtype=np.float32), "w"))
    model.graph.node.add(op_type="Relu", input=["w"], output=["y"])
    data = model.SerializeToString()
    refused = 0
    for cut in range(1, len(data)):
        try:
            expected = ModelProto.FromString(data[:cut])
        except Exception:  # protobuf's DecodeError
            with pytest.raises(ProtoError):
                _read(data[:cut])
            refused += 1
        else:  # cut between two top-level fields: a valid (if graphless) encoding
            assert _read(data[:cut]) == expected
    assert refused == len(data) - 2  # every cut but the one just after ir_version
    with pytest.raises(ProtoError, match="group 5 is never ended"):
        _read(_tag(5, 3) + data)
    with pytest.raises(ProtoError, match="does not parse"):
        _read(_delimited(7, _delimited(5, b"\xff\xff")))  # an initializer that is not a tensor


def test_load_reads_large_files_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ModelProto(ir_version=8)
    model.graph.name = "g"
    for i in range(3):
        model.graph.initializer.append(oc.from_array(np.full(1000, i, np.float32), f"w{i}"))
    oc.save(model, tmp_path / "m.onnx")
    calls: list[int] = []

    def counting(handle: io.BufferedReader, size: int) -> ModelProto:
        calls.append(size)
        return read_model(handle, size)

    monkeypatch.setattr(oc_io, "read_model", counting)
    monkeypatch.setattr(oc_io, "_READ_IN_PIECES_ABOVE", 1024)
    assert oc.load(tmp_path / "m.onnx") == model
    assert calls == [(tmp_path / "m.onnx").stat().st_size]
    (tmp_path / "cut.onnx").write_bytes((tmp_path / "m.onnx").read_bytes()[:-100])
    with pytest.raises(oc.ModelFileError, match=r"cut\.onnx: not a valid ONNX model.*truncated"):
        oc.load(tmp_path / "cut.onnx")
    no_graph = ModelProto(ir_version=8, doc_string="x" * 2000)
    (tmp_path / "not_a_model.onnx").write_bytes(no_graph.SerializeToString())
    with pytest.raises(oc.ModelFileError, match=r"not an ONNX model \(it has no graph\)"):
        oc.load(tmp_path / "not_a_model.onnx")


def _same_as_protobuf(data: bytes) -> bool:
    """Whether the piecewise reader accepts ``data`` exactly when protobuf does, and then
    gives the same model; returns whether protobuf accepted it."""
    try:
        expected = ModelProto.FromString(data).SerializeToString()
    except Exception:  # protobuf's DecodeError
        with pytest.raises(ProtoError):
            _read(data)
        return False
    assert _read(data).SerializeToString() == expected
    return True


def _group(number: int, *fields: bytes) -> bytes:
    return _tag(number, 3) + b"".join(fields) + _tag(number, 4)


def _small_model() -> tuple[bytes, bytes]:
    """A model's graph encoding (one initializer, one node) and its ir_version field."""
    graph = GraphProto(name="g")
    graph.initializer.append(oc.from_array(np.arange(6, dtype=np.float32), "w"))
    graph.node.add(op_type="Relu", input=["w"], output=["y"])
    return graph.SerializeToString(), _tag(1, 0) + b"\x08"


def test_groups_are_skipped_like_protobuf_at_every_level() -> None:
    graph, ir_version = _small_model()
    tensor = oc.from_array(np.arange(3, dtype=np.float32), "t").SerializeToString()
    nested = _group(900, _tag(1, 0) + b"\x01", _group(901, _group(902)), _delimited(3, b"ab"))
    accepted = [
        ir_version + nested + _delimited(7, graph),  # at the top level
        ir_version + _delimited(7, graph + nested),  # inside the graph
        ir_version + _delimited(7, graph + _delimited(5, tensor + nested)),  # an initializer
        ir_version + _group(7, _tag(1, 0) + b"\x01") + _delimited(7, graph),  # a known number
    ]
    for data in accepted:
        assert _same_as_protobuf(data)
        assert [t.name for t in _read(data).graph.initializer][:1] == ["w"]
    refused = [
        ir_version + _tag(900, 4) + _delimited(7, graph),  # an end without a start
        ir_version + _tag(900, 3) + _tag(901, 4) + _delimited(7, graph),  # a mismatched end
        ir_version + _delimited(7, graph + _tag(900, 3)),  # never ended inside its message
        ir_version + _delimited(7, graph + _group(900, _tag(901, 6))),  # wire type 6 inside
    ]
    for data in refused:
        assert not _same_as_protobuf(data)


@pytest.mark.parametrize("level", ["top", "graph", "initializer"])
def test_protobufs_nesting_limit_applies_at_the_same_depth(level: str) -> None:
    graph, ir_version = _small_model()
    tensor = oc.from_array(np.arange(3, dtype=np.float32), "t").SerializeToString()
    outcomes = []
    for depth in range(94, 104):
        groups = _tag(900, 3) * depth + _tag(900, 4) * depth
        data = {
            "top": ir_version + groups + _delimited(7, graph),
            "graph": ir_version + _delimited(7, graph + groups),
            "initializer": ir_version + _delimited(7, graph + _delimited(5, tensor + groups)),
        }[level]
        outcomes.append(_same_as_protobuf(data))
    assert True in outcomes and False in outcomes  # the limit lies within the range tried


def test_mutated_files_load_or_fail_as_with_protobuf() -> None:
    """Random byte edits, insertions of group and other tags, and cuts of a small model: the
    piecewise reader agrees with protobuf on every one."""
    graph, ir_version = _small_model()
    data = ir_version + _delimited(7, graph) + _delimited(2, b"producer")
    pieces = [_tag(n, w) for n in (1, 5, 7, 900) for w in range(8)] + [b"\x00", b"\xff", b"\x80"]
    pieces += [_group(900), _group(5, _tag(1, 0) + b"\x01"), _group(900, _group(901))]
    rng = np.random.default_rng(16)
    accepted = 0
    for _ in range(3000):
        mutated = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            at = int(rng.integers(0, len(mutated) + 1))
            kind = rng.integers(0, 3)
            if kind == 0 and at < len(mutated):
                mutated[at] = int(rng.integers(0, 256))
            elif kind == 1:
                mutated[at:at] = pieces[int(rng.integers(0, len(pieces)))]
            else:
                del mutated[at : at + int(rng.integers(1, 4))]
        accepted += _same_as_protobuf(bytes(mutated))
    assert 100 < accepted < 2900  # both outcomes were exercised


def test_load_gives_the_same_answer_whatever_the_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph, ir_version = _small_model()
    tensor = oc.from_array(np.arange(3, dtype=np.float32), "t").SerializeToString()
    files = {
        "group_in_graph": ir_version + _delimited(7, graph + _group(900, _group(901))),
        "group_in_initializer": ir_version
        + _delimited(7, graph + _delimited(5, tensor + _group(9))),
        "unended_group": ir_version + _delimited(7, graph) + _tag(900, 3),
        "stray_end": ir_version + _delimited(7, graph) + _tag(900, 4),
    }

    def outcome(path: Path) -> str:
        try:
            return oc.load(path).SerializeToString().hex()
        except oc.ModelFileError as exc:
            return type(exc).__name__

    for name, data in files.items():
        path = tmp_path / f"{name}.onnx"
        path.write_bytes(data)
        whole = outcome(path)
        with monkeypatch.context() as patched:
            patched.setattr(oc_io, "_READ_IN_PIECES_ABOVE", 0)  # every file read in pieces
            assert outcome(path) == whole, name
        assert (whole == "ModelFileError") == (name in ("unended_group", "stray_end")), name
