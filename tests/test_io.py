"""Model files: round trips, external data, refusals, atomic saves, corrupt input."""

from __future__ import annotations

import contextlib
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

    def full_disk_for_the_model(path: Path, targets: object) -> tuple[int, str]:
        if path.name == target.name:
            raise OSError(28, "No space left on device")
        return original(path, targets)  # type: ignore[arg-type]

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


# Hostile and careless saves and loads (issue 16): nothing lost, nothing hangs, onnxcraft's errors.


def _big_model() -> ModelProto:
    model = ModelProto(ir_version=10)
    model.graph.name = "g"
    model.graph.initializer.append(oc.from_array(np.arange(4096, dtype=np.float32), "w"))
    return model


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("location", ["m.onnx", "./m.onnx", "sub/../m.onnx", "link.bin"])
def test_a_data_location_naming_the_model_file_is_refused_before_writing(
    tmp_path: Path, location: str
) -> None:
    (tmp_path / "m.onnx").write_bytes(b"previous model")
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.bin").symlink_to(tmp_path / "m.onnx")
    before = _listing(tmp_path)
    if ".." in location:  # climbing back in is still climbing: refused as such
        with pytest.raises(oc.ExternalDataError, match=r"uses '\.\.'"):
            oc.save(_big_model(), tmp_path / "m.onnx", external_data=True, location=location)
    else:
        with pytest.raises(oc.ExternalDataError, match="the model file itself") as info:
            oc.save(_big_model(), tmp_path / "m.onnx", external_data=True, location=location)
        assert repr(location) in str(info.value) and "nothing was written" in str(info.value)
    assert _listing(tmp_path) == before  # the previous model untouched, no temporary file left


def test_the_model_file_is_told_apart_where_case_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxcraft.proto.save_targets as save_targets

    oc.save(_big_model(), tmp_path / "m.onnx", external_data=True, location="M.onnx")  # ext4
    assert sorted(os.listdir(tmp_path)) == ["M.onnx", "m.onnx"]
    monkeypatch.setattr(save_targets, "_ignores_case", lambda folder: True)  # as on macOS
    with pytest.raises(oc.ExternalDataError, match="the model file itself"):
        oc.save(_big_model(), tmp_path / "m.onnx", external_data=True, location="M.ONNX")
    assert sorted(os.listdir(tmp_path)) == ["M.onnx", "m.onnx"]


def _with_reference(model: ModelProto, location: str, name: str = "kept") -> ModelProto:
    tensor = model.graph.initializer.add(name=name, data_type=1, dims=[4])
    tensor.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "16")):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return model


@pytest.mark.parametrize("external", [False, True])
@pytest.mark.parametrize("location", ["/etc/passwd", "../outside.bin", "a/../../outside.bin"])
def test_a_model_holding_an_escaping_reference_is_refused_at_save(
    tmp_path: Path, external: bool, location: str
) -> None:
    model = _with_reference(_big_model(), location)
    with pytest.raises(oc.ExternalDataError, match=r"absolute|'\.\.'") as info:
        oc.save(model, tmp_path / "m.onnx", external_data=external)
    assert "'kept'" in str(info.value) and repr(location) in str(info.value)
    assert os.listdir(tmp_path) == []


def test_kept_references_must_not_name_a_file_the_save_writes(tmp_path: Path) -> None:
    (tmp_path / "m.onnx.data").write_bytes(b"\1" * 16)  # what the kept reference points to
    model = _with_reference(_big_model(), "m.onnx.data")
    before = _listing(tmp_path)
    with pytest.raises(oc.ExternalDataError, match="data file of tensor 'kept'"):
        oc.save(model, tmp_path / "m.onnx", external_data=True)  # would replace m.onnx.data
    with pytest.raises(oc.ExternalDataError, match="the model file itself"):
        oc.save(_with_reference(_big_model(), "m.onnx"), tmp_path / "m.onnx")
    assert _listing(tmp_path) == before
    oc.save(model, tmp_path / "m.onnx", external_data=True, location="other.bin")  # fine
    loaded = oc.load(tmp_path / "m.onnx")
    assert oc.to_array(loaded.graph.initializer[1]).tobytes() == b"\1" * 16


def test_one_file_per_tensor_gives_every_tensor_its_own_file(tmp_path: Path) -> None:
    model = ModelProto(ir_version=10)
    model.graph.name = "g"
    for i, name in enumerate(["a/b", "a_b", "W", "w", "a_b_1"]):
        model.graph.initializer.append(oc.from_array(np.full(1024, i, np.float32), name))
    oc.save(model, tmp_path / "m.onnx", external_data=True, one_file_per_tensor=True)
    data_files = sorted(set(os.listdir(tmp_path)) - {"m.onnx"})
    assert len({name.casefold() for name in data_files}) == 5  # distinct even ignoring case
    assert oc.load(tmp_path / "m.onnx") == model


def test_a_temporary_file_never_takes_the_name_of_a_file_the_save_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import secrets

    tokens = iter(f"{i:012x}" for i in range(1000))
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(tokens))
    location = f".m.onnx.{1:012x}.tmp"  # the name the model's temporary file would get next
    oc.save(_big_model(), tmp_path / "m.onnx", external_data=True, location=location)
    assert sorted(os.listdir(tmp_path)) == [location, "m.onnx"]
    assert oc.load(tmp_path / "m.onnx") == _big_model()


def _unwritable_folders(tmp_path: Path) -> list[Path]:
    """Folders no file can be created in, also as root (for whom permissions do not count)."""
    folders = [Path("/proc")] if Path("/proc/self").is_dir() else []
    if os.name == "posix" and os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        folders.append(locked)
    return folders


@pytest.mark.parametrize("external", [False, True])
def test_saving_where_nothing_can_be_written_raises_model_file_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, external: bool
) -> None:
    folders = _unwritable_folders(tmp_path)
    for folder in folders:
        with pytest.raises(oc.ModelFileError, match="cannot save: cannot create a file in") as e:
            oc.save(_big_model(), folder / "m.onnx", external_data=external)
        assert str(folder / "m.onnx") in str(e.value)
        assert not any(p.name.endswith(".tmp") for p in folder.iterdir())
    # A read-only file system, as the operating system reports it (it stops root too).
    real_open = os.open

    def read_only(path: object, flags: int, *args: object) -> int:
        if flags & os.O_CREAT:
            raise OSError(30, "Read-only file system", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(oc.ModelFileError, match=r"m\.onnx: cannot save.*Read-only file system"):
        oc.save(_big_model(), tmp_path / "m.onnx", external_data=external)
    monkeypatch.undo()
    assert not (tmp_path / "m.onnx").exists() and not list(tmp_path.glob(".*.tmp"))
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(oc.ModelFileError, match=r"folder .*file is not a folder"):
        oc.save(_big_model(), tmp_path / "file" / "m.onnx", external_data=external)
    (tmp_path / "sub").mkdir()
    with pytest.raises(oc.ModelFileError, match=r"sub is a folder"):
        oc.save(_big_model(), tmp_path / "sub", external_data=external)
    with pytest.raises(oc.ExternalDataError, match=r"location 'sub' is .*sub, a folder"):
        oc.save(_big_model(), tmp_path / "m.onnx", external_data=True, location="sub")
    assert sorted(os.listdir(tmp_path)) == ["file", "sub"]


def test_nul_bytes_in_paths_and_locations_raise_onnxcraft_errors(tmp_path: Path) -> None:
    cases = [
        (lambda: oc.load("m\0.onnx"), "load: path"),
        (lambda: oc.load(_big_model().SerializeToString(), base_dir="d\0"), "load: base_dir"),
        (lambda: oc.load_ir("m\0.onnx"), "load_ir: path"),
        (lambda: oc.load_ir(tmp_path / "m.onnx", base_dir="d\0"), "load_ir: base_dir"),
        (lambda: oc.save(_big_model(), tmp_path / "m\0.onnx"), "save: path"),
        (
            lambda: oc.save(_big_model(), tmp_path / "m.onnx", external_data=True, location="w\0"),
            r"location 'w\\x00' contains a NUL byte",
        ),
        (lambda: oc.load(_external(tmp_path, "w\0.bin")), r"tensor 'w0'.*'w\\x00\.bin'.*NUL"),
    ]
    for call, message in cases:
        with pytest.raises(oc.ModelFileError, match=message):
            call()
    assert sorted(os.listdir(tmp_path)) == ["model"]


def _finishes(call: object, timeout: float = 10.0) -> BaseException | None:
    """Run ``call`` in a thread: the error it raised (None if none); fails if it hangs."""
    import threading

    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()  # type: ignore[operator]
            outcome.append(None)
        except BaseException as exc:  # handed to the test to check
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the call hangs"
    return outcome[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")
def test_files_that_are_not_regular_files_are_refused_before_reading(tmp_path: Path) -> None:
    import socket

    fifo = tmp_path / "fifo.onnx"
    os.mkfifo(fifo)
    sockets = []
    with contextlib.suppress(OSError):  # a socket path must be short
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(tmp_path / "s"))
        sockets.append((tmp_path / "s", "a socket"))
    kinds = [(Path("/dev/zero"), "a character device"), (fifo, "a FIFO"), (tmp_path, "a folder")]
    for path, kind in kinds + sockets:
        for load in (oc.load, oc.load_ir):
            error = _finishes(lambda: load(path))  # run at once
            assert isinstance(error, oc.ModelFileError), (path, error)
            assert f"{path}: the model file is {kind}" in str(error)
    model_path = _external(tmp_path, "data.bin")
    os.mkfifo(model_path.parent / "data.bin")
    for load in (oc.load, oc.load_ir):
        error = _finishes(lambda: load(model_path))  # run at once
        assert isinstance(error, oc.ExternalDataError), error
        assert "tensor 'w0': external data" in str(error) and "is a FIFO" in str(error)
    for server, _ in sockets:
        server.unlink()


def test_arguments_of_the_wrong_type_raise_model_file_error(tmp_path: Path) -> None:
    model, target = _big_model(), tmp_path / "m.onnx"
    cases = [
        (lambda: oc.save(model, 5), "save: path must be a path .* got int"),  # type: ignore[arg-type]
        (lambda: oc.save(model, b"m.onnx"), "save: path must be a path .* got bytes"),  # type: ignore[arg-type]
        (lambda: oc.save(model, target, size_threshold="1"), "size_threshold must be an int"),  # type: ignore[arg-type]
        (lambda: oc.save(model, target, size_threshold=-1), "size_threshold must be >= 0"),
        (lambda: oc.save(model, target, external_data=True, location=5), "location must be a str"),  # type: ignore[arg-type]
        (lambda: oc.load(model.SerializeToString(), base_dir=3), "load: base_dir must be a path"),  # type: ignore[arg-type]
        (lambda: oc.load_ir(target, base_dir=3), "load_ir: base_dir must be a path"),  # type: ignore[arg-type]
    ]
    for call, message in cases:
        with pytest.raises(oc.ModelFileError, match=message):
            call()
    assert os.listdir(tmp_path) == []


def test_a_model_holding_text_that_is_not_utf8_is_refused_at_save(tmp_path: Path) -> None:
    # protobuf parses such a string field and fails only when it is read (found by fuzzing).
    import onnxcraft as oc
    from onnxcraft.opset.ai.onnx import v21 as op

    x = oc.arg("X", np.float32, (2,))
    data = oc.build([x], {"Y": op.Neg(x)}, name="QQgraph").SerializeToString()
    model = oc.load(data.replace(b"QQgraph", b"Q\xb7graph"))  # the graph's name
    target = tmp_path / "m.onnx"
    with pytest.raises(oc.ModelFileError, match="not UTF-8"):
        oc.save(model, target)
    assert list(tmp_path.iterdir()) == []
