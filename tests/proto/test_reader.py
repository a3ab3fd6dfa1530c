"""Parsing a model file one initializer at a time gives what ParseFromString gives."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import onnxcraft as oc
import onnxcraft.io as oc_io
from onnxcraft.errors import ProtoError
from onnxcraft.proto import GraphProto, ModelProto
from onnxcraft.proto.reader import read_model
from tests.node_cases import case_names, node_tests_root


def _read(data: bytes) -> ModelProto:
    return read_model(io.BufferedReader(io.BytesIO(data)), len(data))  # type: ignore[arg-type]


def test_every_node_test_model_parses_the_same() -> None:
    names = case_names()
    assert names
    for name in names:
        data = (node_tests_root() / name / "model.onnx").read_bytes()
        # Compared through their encodings: message equality compares floats by value, and
        # some models hold NaN attributes (NaN != NaN) on older protobufs.
        expected = ModelProto.FromString(data).SerializeToString()
        assert _read(data).SerializeToString() == expected, name


def _tag(number: int, wire: int) -> bytes:
    value, out = number << 3 | wire, bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes([*out, value])


def _delimited(number: int, payload: bytes) -> bytes:
    assert len(payload) < 0x80
    return _tag(number, 2) + bytes([len(payload)]) + payload


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
    with pytest.raises(ProtoError, match="wire type 3"):
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
