"""Model files: round trips, external data, refusals, atomic saves, corrupt input."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import onnx
import pytest

import onnxcraft as oc
from onnxcraft.io import PROTOBUF_LIMIT
from onnxcraft.proto import ModelProto
from tests.node_cases import case_names, node_tests_root


def _model(*arrays: np.ndarray) -> ModelProto:
    model = ModelProto()
    model.ir_version = 8
    model.graph.name = "g"
    for i, array in enumerate(arrays):
        model.graph.initializer.append(oc.from_array(array, f"w{i}"))
    return model


def test_inline_round_trip_and_onnx_objects(tmp_path: Path) -> None:
    model = _model(np.arange(10, dtype=np.float32))
    oc.save(model, tmp_path / "m.onnx")
    assert oc.load(tmp_path / "m.onnx") == model
    onnx_model = onnx.load(str(tmp_path / "m.onnx"))
    oc.save(onnx_model, tmp_path / "again.onnx")  # an onnx.ModelProto is accepted as is
    assert (tmp_path / "again.onnx").read_bytes() == (tmp_path / "m.onnx").read_bytes()
    assert oc.load((tmp_path / "m.onnx").read_bytes()) == model
    with open(tmp_path / "m.onnx", "rb") as handle:
        assert oc.load(handle) == model


def test_external_data_one_file_and_per_tensor(tmp_path: Path) -> None:
    big = np.arange(4096, dtype=np.float32)
    model = _model(big, big * 2, np.ones(2, np.float32))
    before = model.SerializeToString()
    oc.save(model, tmp_path / "m.onnx", external_data=True)
    assert model.SerializeToString() == before  # the caller's model is left as it was
    assert sorted(os.listdir(tmp_path)) == ["m.onnx", "m.onnx.data"]
    loaded = oc.load(tmp_path / "m.onnx")
    np.testing.assert_array_equal(oc.to_array(loaded.graph.initializer[1]), big * 2)
    from onnx import numpy_helper

    read_by_onnx = onnx.load(str(tmp_path / "m.onnx")).graph.initializer[1]
    np.testing.assert_array_equal(numpy_helper.to_array(read_by_onnx), big * 2)
    oc.save(model, tmp_path / "m.onnx", external_data=True)
    assert (tmp_path / "m.onnx.data").stat().st_size < 2 * 4096 * 4 + 8192  # replaced, not appended
    oc.save(model, tmp_path / "p.onnx", external_data=True, one_file_per_tensor=True)
    assert {"w0.bin", "w1.bin"} <= set(os.listdir(tmp_path))
    assert oc.load(tmp_path / "p.onnx") == model


def _external(tmp_path: Path, location: str, offset: int = 0, length: int = 16) -> Path:
    model = _model(np.zeros(4, np.float32))
    tensor = model.graph.initializer[0]
    tensor.ClearField("raw_data")
    tensor.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    path = tmp_path / "model" / "m.onnx"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(model.SerializeToString())
    return path


@pytest.mark.parametrize("location", ["/etc/passwd", "../secret.bin", "sub/../../secret.bin"])
def test_locations_outside_the_model_folder_are_refused(tmp_path: Path, location: str) -> None:
    (tmp_path / "secret.bin").write_bytes(b"\0" * 16)
    with pytest.raises(oc.ExternalDataError, match=r"absolute|'\.\.'"):
        oc.load(_external(tmp_path, location))


def test_symlink_escaping_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.bin").write_bytes(b"\0" * 16)
    path = _external(tmp_path, "link.bin")
    (path.parent / "link.bin").symlink_to(tmp_path / "secret.bin")
    with pytest.raises(oc.ExternalDataError, match="outside the model's folder"):
        oc.load(path)


def test_ranges_beyond_the_file_are_refused(tmp_path: Path) -> None:
    path = _external(tmp_path, "w.bin", offset=8, length=16)
    (path.parent / "w.bin").write_bytes(b"\0" * 16)
    with pytest.raises(oc.ExternalDataError, match="beyond the end"):
        oc.load(path)


def test_corrupt_truncated_and_foreign_files(tmp_path: Path) -> None:
    good = _model(np.arange(100, dtype=np.float32)).SerializeToString()
    for name, data, message in (
        ("empty", b"", "empty"),
        ("cut", good[:57], "truncated or corrupt"),
        ("tensor", oc.from_array(np.ones(3)).SerializeToString(), "not an ONNX model"),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(oc.ModelFileError, match=message) as info:
            oc.load(path)
        assert str(path) in str(info.value)
    with pytest.raises(oc.ModelFileError, match="cannot read"):
        oc.load(tmp_path / "missing.onnx")


def test_failed_save_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model(np.arange(4096, dtype=np.float32))
    target = tmp_path / "m.onnx"
    target.write_bytes(b"previous")

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(oc.ModelFileError, match="No space left"):
        oc.save(model, target, external_data=True)
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == ["m.onnx"] and target.read_bytes() == b"previous"
    assert model.graph.initializer[0].HasField("raw_data")  # the caller's data is intact


def test_a_model_file_that_cannot_be_written_leaves_the_previous_data_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxcraft.io as oc_io

    old = _model(np.arange(4096, dtype=np.float32))
    target = tmp_path / "m.onnx"
    oc.save(old, target, external_data=True)
    before = {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)}
    original = oc_io._temporary_file

    def full_disk_for_the_model(path: Path) -> tuple[int, str]:
        if path == target:
            raise OSError(28, "No space left on device")
        return original(path)

    monkeypatch.setattr(oc_io, "_temporary_file", full_disk_for_the_model)
    new = _model(np.arange(8192, dtype=np.float32) * 2)
    with pytest.raises(oc.ModelFileError, match="No space left"):
        oc.save(new, target, external_data=True)
    monkeypatch.undo()
    # The data file is only replaced once the new model file is complete.
    assert {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)} == before
    assert oc.load(target) == old


def test_size_estimate_counts_tensor_bytes_without_encoding() -> None:
    from onnxcraft.io import estimated_size

    model = _model(np.zeros((3, 5), np.float32), np.zeros(7, np.int64))
    assert estimated_size(model) == 3 * 5 * 4 + 7 * 8


def test_models_over_two_gib_are_refused_before_encoding(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model = _model(np.zeros(4, np.float32))
    import onnxcraft.io

    monkeypatch.setattr(onnxcraft.io, "estimated_size", lambda model: PROTOBUF_LIMIT + 1)
    with pytest.raises(oc.ModelFileError, match=r"2 GiB.*external_data=True"):
        oc.save(model, tmp_path / "big.onnx")
    assert not (tmp_path / "big.onnx").exists()


def test_streamed_writing_gives_protobufs_own_bytes(tmp_path: Path) -> None:
    from onnxcraft.proto.stream import write_model

    for name in case_names()[::10]:  # every tenth node-test model, big and small
        model = oc.load(node_tests_root() / name / "model.onnx")
        buffer = io.BytesIO()
        write_model(model, buffer)
        assert buffer.getvalue() == model.SerializeToString(), name
    rng = np.random.default_rng(0)
    model = oc.proto.ModelProto(ir_version=10, doc_string="d")
    model.graph.name = "g"
    for i in range(3):
        model.graph.initializer.append(oc.from_array(rng.standard_normal(1000), f"w{i}"))
    model.graph.initializer.append(oc.from_array(np.array([1, 2], np.int64), "typed"))
    model.graph.initializer[-1].ClearField("raw_data")
    model.graph.initializer[-1].int64_data.extend([1, 2])
    model.metadata_props.add(key="k", value="v")
    oc.save(model, tmp_path / "m.onnx")
    assert (tmp_path / "m.onnx").read_bytes() == model.SerializeToString()


def test_streamed_writing_keeps_fields_unknown_to_the_schema(tmp_path: Path) -> None:
    model = oc.proto.ModelProto(ir_version=10)
    model.graph.name = "g"
    model.graph.initializer.append(oc.from_array(np.ones(4, np.float32), "w"))
    # Field 99 of TensorProto does not exist in this schema: protobuf keeps it as unknown.
    extra = b"\x9a\x06\x03abc"  # key (99 << 3 | 2) as a varint, then 3 bytes
    tensor = model.graph.initializer[0]
    tensor.MergeFromString(extra)
    oc.save(model, tmp_path / "m.onnx")
    saved = (tmp_path / "m.onnx").read_bytes()
    assert saved == model.SerializeToString() and extra in saved


@pytest.mark.parametrize("external", [False, True])
def test_fsync_forces_every_written_file_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, external: bool
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    model = ModelProto(ir_version=10)
    model.graph.name = "g"
    model.graph.initializer.append(oc.from_array(np.ones(4096, np.float32), "w"))
    oc.save(model, tmp_path / "plain.onnx", external_data=external)
    assert synced == []
    oc.save(model, tmp_path / "durable.onnx", external_data=external, fsync=True)
    assert len(synced) == (2 if external else 1)  # the data file, then the model file
    assert oc.load(tmp_path / "durable.onnx").SerializeToString() == (
        oc.load(tmp_path / "plain.onnx").SerializeToString()
    )


def test_saved_files_get_ordinary_permissions(tmp_path: Path) -> None:
    model = ModelProto(ir_version=10)
    model.graph.name = "g"
    model.graph.initializer.append(oc.from_array(np.ones(4096, np.float32), "w"))
    umask = os.umask(0o022)
    try:
        oc.save(model, tmp_path / "m.onnx", external_data=True)
        for name in ("m.onnx", "m.onnx.data"):
            assert (tmp_path / name).stat().st_mode & 0o777 == 0o644, name
        (tmp_path / "m.onnx").chmod(0o640)  # a replaced file keeps its permissions
        oc.save(model, tmp_path / "m.onnx")
        assert (tmp_path / "m.onnx").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(umask)
