"""Loading and saving model files, with tensors inline or in external data files.

Saving is atomic: everything is written to temporary files in the target folder and renamed
into place, so a failed save leaves no partial file and never half-updates an existing one.
A save that would write two of its files to one path (a data location naming the model file)
is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from onnxcraft import ir
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import ExternalDataError, ModelFileError, ProtoError, TensorConversionError
from onnxcraft.proto.external_data import read_tensor_bytes
from onnxcraft.proto.fields import copy_fields
from onnxcraft.proto.onnx_pb2 import GraphProto, ModelProto, TensorProto
from onnxcraft.proto.reader import read_model
from onnxcraft.proto.regular_files import open_regular
from onnxcraft.proto.save_targets import SaveTargets
from onnxcraft.proto.serde import as_model_proto, model_from_proto, model_to_proto
from onnxcraft.proto.stream import RawData, write_buffer, write_model
from onnxcraft.proto.tensor import raw_data

__all__ = ["load", "load_ir", "save", "tensors_of", "write_file"]

PROTOBUF_LIMIT = 2**31 - 1  # protobuf cannot encode a message of 2 GiB or more
_ALIGNMENT = 4096  # external tensors start at page boundaries, so they can be memory-mapped
_READ_IN_PIECES_ABOVE = 64 << 20  # bytes: smaller files are read whole and parsed in one call


def _describe(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return f"<{len(source)} bytes>"
    return getattr(source, "name", None) or f"<{type(source).__name__}>"


def _path_argument(value: str | os.PathLike[str], function: str, argument: str) -> Path:
    """``value`` as a Path; a NUL byte, which no file system allows, is refused here rather
    than by the operating system's ValueError."""
    if not isinstance(value, (str, os.PathLike)) or not isinstance(os.fspath(value), str):
        raise ModelFileError(
            f"{function}: {argument} must be a path (str or os.PathLike of str), got "
            f"{type(value).__name__}"
        )
    if "\0" in os.fspath(value):
        raise ModelFileError(
            f"{function}: {argument} {str(value)!r} contains a NUL byte, which no path may hold"
        )
    return Path(value)


def _folder_argument(value: str | os.PathLike[str] | None, function: str) -> Path | None:
    return None if value is None else _path_argument(value, function, "base_dir")


def load(
    source: str | os.PathLike[str] | bytes | IO[bytes],
    *,
    load_external_data: bool = True,
    base_dir: str | os.PathLike[str] | None = None,
) -> ModelProto:
    """Read a model from a path, bytes or a binary file object.

    External tensor data is read into the model, relative to the model file's folder (or
    ``base_dir`` for bytes and file objects), unless ``load_external_data=False``.
    """
    label = _describe(source)
    given_folder = _folder_argument(base_dir, "load")
    if isinstance(source, (str, os.PathLike)):
        path = _path_argument(source, "load", "path")
        model = _read_file(path, label)
        folder: Path | None = path.parent if given_folder is None else given_folder
    elif isinstance(source, (bytes, bytearray, memoryview)):
        model = _parse(bytes(source), label)
        folder = given_folder
    elif hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise ModelFileError(f"{label}: the file object must be opened in binary mode")
        model = _parse(bytes(data), label)
        folder = given_folder
    else:
        raise ModelFileError(
            f"load: expected a path, bytes or a binary file, got {type(source).__name__}"
        )
    if load_external_data:
        _load_external(model, folder, label)
    return model


def load_ir(
    path: str | os.PathLike[str], *, base_dir: str | os.PathLike[str] | None = None
) -> ir.Model:
    """Read a model file as an :class:`onnxcraft.ir.Model` whose external data stays in its
    files: each such tensor is memory-mapped, read-only, when first used.

    Loading a model of many gigabytes this way takes moments and little memory; evaluating,
    inlining or saving it reads the weights from the page cache, and ``save`` writes them from
    the mapping, never copying them into protobuf. External data is looked for relative to
    the model's folder (or ``base_dir``); unsafe locations and out-of-range offsets are refused
    here, as ``load`` refuses them. The files must not change while the model is in use.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ModelFileError(
            f"load_ir: expected the path of a model file, got {type(path).__name__} (the "
            f"external data is found and mapped relative to the file; use load for bytes)"
        )
    target = _path_argument(path, "load_ir", "path")
    given_folder = _folder_argument(base_dir, "load_ir")
    proto = load(target, load_external_data=False)
    folder = target.parent if given_folder is None else given_folder
    return model_from_proto(proto, base_dir=folder, map_external=True)


def model_proto(model: Any, *, what: str = "model") -> ModelProto:
    """onnxcraft's ModelProto of any model an API takes: a ModelProto (onnxcraft's, or onnx's
    or anything else with ``SerializeToString()``), an IR model, the bytes of a model, or the
    path of a model file (read with its external data)."""
    if isinstance(model, (str, os.PathLike)):
        return load(model)
    if isinstance(model, (bytes, bytearray, memoryview)):
        return load(bytes(model), load_external_data=False)
    return as_model_proto(model, what=what)


def model_from_bytes(data: bytes) -> ModelProto:
    """``model_proto(data)`` for a model's bytes, without asking what else it might be (a
    call that has the bytes in hand: ``oc.infer_shapes``)."""
    return _parse(data, f"<{len(data)} bytes>")


def model_ir(
    model: Any, *, what: str = "model", base_dir: str | os.PathLike[str] | None = None
) -> ir.Model:
    """The IR of any model an API takes, converted once at the API's entry: an IR model as it
    is; a ModelProto (onnxcraft's or onnx's) or a model's bytes, read (external data relative
    to ``base_dir``); the path of a model file, loaded with its external data memory-mapped
    (:func:`load_ir`)."""
    if isinstance(model, ir.Model):
        return model
    if isinstance(model, (str, os.PathLike)):
        return load_ir(model, base_dir=base_dir)
    folder = _folder_argument(base_dir, what)
    return model_from_proto(model_proto(model, what=what), base_dir=folder)


def _read_file(path: Path, label: str) -> ModelProto:
    # A FIFO, a device (/dev/zero) or a folder is refused before anything is read from it.
    handle = open_regular(path, "model file")
    try:
        with handle:
            size = os.fstat(handle.fileno()).st_size
            if size > _READ_IN_PIECES_ABOVE:
                return _read_in_pieces(handle, size, label)
            return _parse(handle.read(), label)
    except ModelFileError:
        raise
    except OSError as exc:
        raise ModelFileError(f"{label}: cannot read the model file: {exc.strerror or exc}") from exc


def _parse(data: bytes, label: str) -> ModelProto:
    if not data:
        raise ModelFileError(f"{label}: the file is empty")
    model = ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError: truncated or not protobuf at all
        raise ModelFileError(
            f"{label}: not a valid ONNX model (the protobuf data is truncated or corrupt: {exc})"
        ) from exc
    return _checked(model, label)


def _read_in_pieces(handle: IO[bytes], size: int, label: str) -> ModelProto:
    """A large file parsed one initializer at a time (``proto/reader.py``): its weights are
    never held twice, as file bytes and as messages."""
    try:
        return _checked(read_model(handle, size), label)
    except ProtoError as exc:
        raise ModelFileError(
            f"{label}: not a valid ONNX model (the protobuf data is truncated or corrupt: {exc})"
        ) from exc


def _checked(model: ModelProto, label: str) -> ModelProto:
    if not model.HasField("graph") or model.ir_version <= 0:
        missing = "graph" if not model.HasField("graph") else "ir_version"
        raise ModelFileError(f"{label}: not an ONNX model (it has no {missing})")
    return model


def tensors_of(model: ModelProto) -> Iterator[TensorProto]:
    """Every TensorProto of a model: initializers, Constant values, subgraphs, functions."""

    def from_attributes(attributes: Any) -> Iterator[TensorProto]:
        for attr in attributes:
            if attr.HasField("t"):
                yield attr.t
            yield from attr.tensors
            if attr.HasField("sparse_tensor"):
                yield attr.sparse_tensor.values
                yield attr.sparse_tensor.indices
            if attr.HasField("g"):
                yield from from_graph(attr.g)
            for graph in attr.graphs:
                yield from from_graph(graph)

    def from_graph(graph: GraphProto) -> Iterator[TensorProto]:
        yield from graph.initializer
        for sparse in graph.sparse_initializer:
            yield sparse.values
            yield sparse.indices
        for node in graph.node:
            yield from from_attributes(node.attribute)

    yield from from_graph(model.graph)
    for function in model.functions:
        for node in function.node:
            yield from from_attributes(node.attribute)


def _load_external(model: ModelProto, folder: Path | None, label: str) -> None:
    for tensor in tensors_of(model):
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        if folder is None:
            raise ExternalDataError(
                f"{label}: tensor {tensor.name!r} has external data; pass base_dir= (the folder "
                f"the data files are in) when loading from bytes or a file object"
            )
        tensor.raw_data = read_tensor_bytes(tensor, folder)
        del tensor.external_data[:]
        tensor.ClearField("data_location")


def _as_model(model: Any) -> ModelProto:
    if isinstance(model, ModelProto):
        return model
    if hasattr(model, "SerializeToString"):
        return ModelProto.FromString(model.SerializeToString())
    raise ModelFileError(
        f"save: expected a ModelProto (onnxcraft's or onnx's) or an onnxcraft.ir.Model, "
        f"got {type(model).__name__}"
    )


def save(
    model: Any,
    path: str | os.PathLike[str],
    *,
    external_data: bool = False,
    size_threshold: int = 1024,
    location: str | None = None,
    one_file_per_tensor: bool = False,
    fsync: bool = False,
) -> None:
    """Write ``model`` to ``path`` atomically.

    ``model`` is a ModelProto (onnxcraft's or onnx's) or an :class:`onnxcraft.ir.Model` (from
    :func:`onnxcraft.build_ir`), whose initializers are written straight from their arrays'
    memory, never copied into protobuf.

    With ``external_data=True`` every tensor of at least ``size_threshold`` bytes goes to a
    side file (``location``, default ``<model file name>.data``; or one file per tensor) next
    to the model; a previous data file of the same name is replaced, never appended to.
    The model passed in is left as it was.

    Every file is written to a temporary name and renamed into place, so a save that fails
    leaves no partial file and the previous version intact. ``fsync=True`` also forces the
    data to the disk before the rename, so the new files survive a crash of the machine itself
    (at the disk's speed rather than the page cache's).

    Refused before anything is written (``ExternalDataError``): a ``location`` that is not a
    plain relative path inside the folder, or that names the model file itself; external
    references the model already holds that leave the folder, or name the model file or a
    data file this save writes. A failure of the operating system (no permission, read-only
    file system, disk full) raises ``ModelFileError`` with its reason.
    """
    target = _path_argument(path, "save", "path")
    _check_save_options(size_threshold, location)
    try:
        _save(model, target, external_data, size_threshold, location, one_file_per_tensor, fsync)
    except UnicodeDecodeError as exc:
        # protobuf parses a string field that is not UTF-8 and fails only when it is read.
        raise ModelFileError(
            f"{target}: cannot save: the model holds text that is not UTF-8 (a name or a "
            f"string field: {exc.reason} at byte {exc.start}); nothing was written"
        ) from exc


def write_file(path: str | os.PathLike[str], data: bytes, *, function: str) -> None:
    """Write ``data`` to ``path`` as ``save`` writes a model: to a temporary file beside it,
    renamed into place, so that a failed write leaves the previous file intact."""
    target = _path_argument(path, function, "path")
    label = str(target)
    folder = target.parent if str(target.parent) else Path(".")
    _check_folder(folder, label)
    targets = SaveTargets(folder, target.name, label)
    _atomic_write(targets.model, lambda handle: handle.write(data), False, targets)


def _save(
    model: Any,
    target: Path,
    external_data: bool,
    size_threshold: int,
    location: str | None,
    one_file_per_tensor: bool,
    fsync: bool,
) -> None:
    label = str(target)
    folder = target.parent if str(target.parent) else Path(".")
    _check_folder(folder, label)
    targets = SaveTargets(folder, target.name, label)
    if external_data and location is not None and not one_file_per_tensor:
        targets.write(location)  # refused now, even if no tensor ends up in it
    threshold = size_threshold if external_data else 0
    if isinstance(model, ir.Model):
        skeleton, elsewhere = _ir_skeleton(model, threshold, label)
    elif external_data:
        skeleton, elsewhere = _proto_skeleton(_as_model(model), threshold)
    else:
        skeleton, elsewhere = _as_model(model), {}
    for tensor in tensors_of(skeleton):
        if tensor.data_location == TensorProto.EXTERNAL:
            targets.keep(tensor)  # written as it is: it must stay valid next to the new file
    if not external_data:
        size = estimated_size(skeleton)
        if size > PROTOBUF_LIMIT:
            raise ModelFileError(
                f"{label}: the model is {size / 2**30:.2f} GiB, over protobuf's 2 GiB limit for "
                f"one message; save it with external_data=True to store large tensors in a "
                f"side file"
            )
        # Streamed: a large model is never held twice (once as messages, once as bytes).
        _atomic_write(
            targets.model, lambda handle: write_model(skeleton, handle, elsewhere), fsync, targets
        )
        return
    _save_external(skeleton, elsewhere, targets, threshold, location, one_file_per_tensor, fsync)


def _check_save_options(size_threshold: Any, location: Any) -> None:
    if isinstance(size_threshold, bool) or not hasattr(size_threshold, "__index__"):
        raise ModelFileError(
            f"save: size_threshold must be an int (a number of bytes), got "
            f"{type(size_threshold).__name__}"
        )
    if size_threshold.__index__() < 0:
        raise ModelFileError(f"save: size_threshold must be >= 0 bytes, got {size_threshold}")
    if location is not None and not isinstance(location, str):
        raise ModelFileError(
            f"save: location must be a str (a path relative to the model's folder) or None, "
            f"got {type(location).__name__}"
        )


def _check_folder(folder: Path, label: str) -> None:
    try:
        is_folder = stat.S_ISDIR(os.stat(folder).st_mode)
        reason = "is not a folder"
    except FileNotFoundError:
        is_folder, reason = False, "does not exist"
    except OSError as exc:
        is_folder, reason = False, f"cannot be reached: {exc.strerror or exc}"
    if not is_folder:
        raise ModelFileError(f"{label}: cannot save: folder {folder} {reason}")


def _os_file(exc: OSError) -> str:
    """The file an operating system error is about, for a message: the destination of a
    rename rather than the temporary file renamed."""
    name = exc.filename2 or exc.filename
    return f" ({name})" if name else ""


def _temporary_file(target: Path, targets: SaveTargets) -> tuple[int, str]:
    """A new, empty file beside ``target`` to be renamed over it, and its descriptor.

    Unlike tempfile.mkstemp (always 0600), it gets the permissions a new file would get (the
    umask applies), or those of the file it replaces, so a saved model stays readable by
    whoever could read the previous one. Its name is none of the save's own files.
    """
    try:
        replaced: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        replaced = None
    for _ in range(100):
        temp = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
        if not targets.is_free(temp):
            continue
        try:
            # A new file's mode: 0o666 less the process's umask, which os.open applies.
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            raise ModelFileError(
                f"{targets.label}: cannot save: cannot create a file in {target.parent}: "
                f"{exc.strerror or exc}"
            ) from exc
        try:
            if replaced is not None:
                os.chmod(temp, replaced)
        except BaseException:
            os.close(fd)
            os.unlink(temp)
            raise
        return fd, str(temp)
    raise ModelFileError(f"{targets.label}: cannot save: no free temporary name beside {target}")


def _atomic_write(
    target: Path, write: Any, fsync: bool, targets: SaveTargets, before_rename: Any = None
) -> None:
    """Write through ``write(handle)`` to a temporary file and rename it to ``target``.

    ``before_rename()`` runs once the file is complete (on disk, with fsync), just before the
    rename: an external-data save renames its data files there, so that nothing is replaced
    unless the model file, the last thing that could fail to be written, is complete.
    """
    fd, temp = _temporary_file(target, targets)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        if before_rename is not None:
            before_rename()
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        if isinstance(exc, OSError) and not isinstance(exc, ModelFileError):
            raise ModelFileError(
                f"{targets.label}: cannot save: {exc.strerror or exc}" + _os_file(exc)
            ) from exc
        raise


# A skeleton is a model's messages less some top-level initializers' raw_data, and that data
# by initializer index, to be written from where it already is: no tensor is copied whole.
_Skeleton = tuple[ModelProto, dict[int, RawData]]


def _proto_skeleton(model: ModelProto, threshold: int) -> _Skeleton:
    """A copy of ``model`` sharing nothing large with it: initializers of at least
    ``threshold`` bytes of raw_data are read from the original, one at a time, when written."""
    stripped = ModelProto()
    copy_fields(model, stripped, lambda field: field.name != "graph")
    copy_fields(model.graph, stripped.graph, lambda field: field.name != "initializer")
    elsewhere: dict[int, RawData] = {}
    for index, tensor in enumerate(model.graph.initializer):
        copy = stripped.graph.initializer.add()
        size = _data_bytes(tensor)
        if not tensor.HasField("raw_data") or size < threshold:
            copy.CopyFrom(tensor)
            continue
        copy_fields(tensor, copy, lambda field: field.name not in _DATA_FIELDS)
        elsewhere[index] = RawData(size, functools.partial(getattr, tensor, "raw_data"))
    return stripped, elsewhere


def _ir_skeleton(model: ir.Model, threshold: int, label: str) -> _Skeleton:
    """``model`` as messages, less the data of top-level initializers made from arrays (and
    of at least ``threshold`` bytes): that stays in the arrays, to be written from their memory.
    """
    initializers: list[ir.TensorData] = []
    elsewhere: dict[int, RawData] = {}
    for index, data in enumerate(model.graph.initializers):
        if data.source is None and data.elem_type != ElementType.STRING:
            header = TensorProto(data_type=int(data.elem_type), dims=data.dims)
            if data.name:
                header.name = data.name
            if data.doc_string:
                header.doc_string = data.doc_string
            for key, value in data.metadata.items():
                header.metadata_props.add(key=key, value=value)
            size = _data_bytes(header)
            if size >= threshold:
                elsewhere[index] = RawData(size, functools.partial(_array_bytes, data, label))
                data = ir.TensorData(data.name, data.elem_type, data.dims, source=header)
        initializers.append(data)
    graph = dataclasses.replace(model.graph, initializers=initializers)
    return model_to_proto(dataclasses.replace(model, graph=graph)), elsewhere


def _array_bytes(data: ir.TensorData, label: str) -> bytes | memoryview:
    try:
        array = data.array()
        if tuple(array.shape) != tuple(data.dims):
            raise TensorConversionError(
                f"its array has shape {array.shape}, its dims say {tuple(data.dims)}"
            )
        return raw_data(array, data.elem_type)
    except (TensorConversionError, ValueError) as exc:
        raise ModelFileError(f"{label}: cannot save initializer {data.name!r}: {exc}") from exc


_DATA_FIELDS = frozenset(
    {
        "raw_data",
        "float_data",
        "int32_data",
        "string_data",
        "int64_data",
        "double_data",
        "uint64_data",
    }
)


class _DataFiles:
    """External data files being written, under temporary names until the model is saved."""

    def __init__(self, targets: SaveTargets, fsync: bool) -> None:
        self.targets = targets
        self.fsync = fsync
        self._finals: dict[str, Path] = {}  # location -> the file it names
        self._open: dict[Path, tuple[str, IO[bytes]]] = {}  # final path -> (temp path, handle)

    def append(self, location: str, tensor: str, data: bytes | memoryview) -> int:
        """Write ``data`` at the next aligned offset of ``location``; returns the offset."""
        final = self._finals.get(location)
        if final is None:  # checked once per file: refused if it is one of the save's others
            final = self._finals[location] = self.targets.write(location, tensor)
        if final not in self._open:
            fd, temp = _temporary_file(final, self.targets)
            self._open[final] = (temp, os.fdopen(fd, "wb"))
        handle = self._open[final][1]
        offset = handle.tell()
        if offset % _ALIGNMENT:
            handle.write(b"\0" * (_ALIGNMENT - offset % _ALIGNMENT))
            offset = handle.tell()
        write_buffer(handle, data)
        return offset

    def finish(self) -> None:
        """Flush every file (to the disk with fsync) and close it, still under its temp name."""
        for _, handle in self._open.values():
            handle.flush()
            if self.fsync:
                os.fsync(handle.fileno())
            handle.close()

    def commit(self) -> None:
        """Rename every file into place."""
        for final, (temp, _) in list(self._open.items()):
            os.replace(temp, final)
            del self._open[final]

    def discard(self) -> None:
        """Remove whatever was not committed."""
        for temp, handle in self._open.values():
            handle.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        self._open.clear()


def _save_external(
    skeleton: ModelProto,
    elsewhere: dict[int, RawData],
    targets: SaveTargets,
    threshold: int,
    location: str | None,
    one_file_per_tensor: bool,
    fsync: bool,
) -> None:
    """Write large tensors to data files, then the model referring to them.

    The initializers in ``elsewhere`` always go to a data file, straight from their buffers;
    any other tensor of the skeleton does when it has at least ``threshold`` bytes of raw_data.
    """
    target = targets.model
    default_location = location or f"{target.name}.data"
    files = _DataFiles(targets, fsync)
    file_names: set[str] = set()  # one_file_per_tensor: the names given, case folded
    try:
        # The first tensors of tensors_of() are the top-level initializers, in order.
        for index, tensor in enumerate(tensors_of(skeleton)):
            if tensor.data_location == TensorProto.EXTERNAL:
                continue
            source = elsewhere.get(index)
            if source is None and (
                not tensor.HasField("raw_data") or _data_bytes(tensor) < threshold
            ):
                continue
            name = (
                _file_name(tensor.name, index, file_names)
                if one_file_per_tensor
                else default_location
            )
            data = source.read() if source is not None else tensor.raw_data
            offset = files.append(name, tensor.name, data)
            length = len(data)
            del data
            tensor.ClearField("raw_data")
            tensor.data_location = TensorProto.EXTERNAL
            del tensor.external_data[:]
            for key, value in (
                ("location", name),
                ("offset", str(offset)),
                ("length", str(length)),
            ):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
        files.finish()
        serialized = skeleton.SerializeToString()
        if len(serialized) > PROTOBUF_LIMIT:
            raise ModelFileError(
                f"{targets.label}: even without its large tensors the model exceeds 2 GiB"
            )
        _atomic_write(
            target, lambda h: h.write(serialized), fsync, targets, before_rename=files.commit
        )
    except ModelFileError:
        raise
    except OSError as exc:
        raise ModelFileError(
            f"{targets.label}: cannot save: {exc.strerror or exc}" + _os_file(exc)
        ) from exc
    finally:
        files.discard()


_ITEM_BITS = {
    1: 32,
    2: 8,
    3: 8,
    4: 16,
    5: 16,
    6: 32,
    7: 64,
    9: 8,
    10: 16,
    11: 64,
    12: 32,
    13: 64,
    14: 64,
    15: 128,
    16: 16,
    17: 8,
    18: 8,
    19: 8,
    20: 8,
    21: 4,
    22: 4,
    23: 4,
    24: 8,
    25: 2,
    26: 2,
    27: 6,
    28: 6,
}


def _data_bytes(tensor: TensorProto) -> int:
    """The size of a tensor's data, from its dims and type (without touching the data)."""
    count = 1
    for d in tensor.dims:
        count *= d
    bits = _ITEM_BITS.get(tensor.data_type)
    if bits is None:  # strings: their lengths are only known from the data itself
        return sum(len(v) for v in tensor.string_data)
    return (count * bits + 7) // 8


def estimated_size(model: ModelProto) -> int:
    """A lower bound of the encoded size: the bytes of every tensor's data."""
    return sum(_data_bytes(t) for t in tensors_of(model) if t.data_location != TensorProto.EXTERNAL)


def _file_stem(name: str, index: int) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".")
    return safe or f"tensor_{index}"


def _file_name(tensor: str, index: int, used: set[str]) -> str:
    """The data file of one tensor, unlike every other of the save even where case is
    ignored ("w/1" and "w_1", "W" and "w" would otherwise share one)."""
    stem = _file_stem(tensor, index)
    name, suffix = f"{stem}.bin", index
    while name.casefold() in used:
        name, suffix = f"{stem}_{suffix}.bin", suffix + 1
    used.add(name.casefold())
    return name
