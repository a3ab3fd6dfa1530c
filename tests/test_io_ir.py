"""Saving IR models (``oc.build_ir``): weights written from the arrays' own memory.

Every file must be byte for byte what saving the equivalent ModelProto (``oc.build``) gives,
for every element type and array layout, inline and with external data.
"""
# onnx is imported inside the one test that uses it, so that this file also runs in the
# lower-bound check of docs/development.md (numpy, protobuf, typing-extensions only).

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto.tensor import raw_data


def _weights() -> dict[str, np.ndarray]:
    """Literal arrays of many element types and layouts (big ones over the 1 KiB threshold)."""
    return {
        "f32": np.arange(2048, dtype=np.float32).reshape(32, 64),
        "f64_big_endian": np.arange(300, dtype=">f8"),
        "i64_strided": np.arange(4096, dtype=np.int64).reshape(64, 64)[:, ::2],
        "f16": np.linspace(-1, 1, 1000).astype(np.float16),
        "bf16": np.arange(900, dtype=np.uint16).view(numpy_dtype(ElementType.BFLOAT16)),
        "i4": (np.arange(3001) % 16 - 8).astype(np.int8).view(numpy_dtype(ElementType.INT4)),
        "bool": np.arange(2000) % 3 == 0,
        "scalar": np.array(2.5, np.float32),
        "empty": np.zeros((0, 3), np.float32),
        "text": np.array(["é", "weights", ""], dtype=object),
        "c64": (np.arange(200) * (1 + 2j)).astype(np.complex64),
    }


def _outputs(weights: dict[str, np.ndarray]) -> tuple[list[oc.Var], dict[str, oc.Var]]:
    x = oc.arg("X", np.float32, ("N", 64))
    outputs = {"Y": op.Add(x, weights["f32"])}
    for name, array in weights.items():
        if name != "f32":
            outputs[name] = op.Identity(op.Identity(array))  # the literal becomes an initializer
    return [x], outputs


@pytest.mark.parametrize("external", [False, True])
def test_saves_the_bytes_of_the_equivalent_model_proto(tmp_path: Path, external: bool) -> None:
    inputs, outputs = _outputs(_weights())
    as_ir, as_proto = oc.build_ir(inputs, outputs), oc.build(inputs, outputs)
    (tmp_path / "ir").mkdir()
    (tmp_path / "proto").mkdir()
    oc.save(as_ir, tmp_path / "ir" / "m.onnx", external_data=external)
    oc.save(as_proto, tmp_path / "proto" / "m.onnx", external_data=external)
    names = sorted(os.listdir(tmp_path / "proto"))
    assert sorted(os.listdir(tmp_path / "ir")) == names
    assert names == (["m.onnx", "m.onnx.data"] if external else ["m.onnx"])
    for name in names:
        assert (tmp_path / "ir" / name).read_bytes() == (tmp_path / "proto" / name).read_bytes()
    if not external:
        assert (tmp_path / "ir" / "m.onnx").read_bytes() == as_proto.SerializeToString()
    loaded = oc.load(tmp_path / "ir" / "m.onnx").graph.initializer
    assert [t.name for t in loaded] == [t.name for t in as_proto.graph.initializer]
    for mine, tensor in zip(loaded, as_proto.graph.initializer, strict=True):
        np.testing.assert_array_equal(oc.to_array(mine), oc.to_array(tensor))


def test_onnx_full_check_accepts_the_saved_model(tmp_path: Path) -> None:
    import onnx  # the oracle

    inputs, outputs = _outputs(_weights())
    oc.save(oc.build_ir(inputs, outputs), tmp_path / "m.onnx", external_data=True)
    onnx.checker.check_model(str(tmp_path / "m.onnx"), full_check=True)


def test_threshold_and_one_file_per_tensor(tmp_path: Path) -> None:
    big, small = np.arange(1024, dtype=np.float32), np.arange(4, dtype=np.float32)
    x = oc.arg("X", np.float32, (1024,))
    model = oc.build_ir([x], {"Y": op.Add(op.Mul(x, big), op.ReduceSum(small, keepdims=0))})
    oc.save(model, tmp_path / "m.onnx", external_data=True, one_file_per_tensor=True)
    assert sorted(os.listdir(tmp_path)) == ["c0.bin", "m.onnx"]
    saved = oc.load(tmp_path / "m.onnx", load_external_data=False).graph.initializer
    assert [t.data_location for t in saved] == [oc.proto.TensorProto.EXTERNAL, 0]
    result = oc.evaluate(oc.load(tmp_path / "m.onnx"), {"X": np.ones(1024, np.float32)})
    np.testing.assert_array_equal(result["Y"], big + 6)


def test_raw_data_shares_the_memory_of_contiguous_little_endian_arrays() -> None:
    weights = np.arange(1 << 16, dtype=np.float32)
    view = raw_data(weights)
    assert np.shares_memory(np.frombuffer(view, np.uint8), weights)
    assert bytes(view) == oc.from_array(weights).raw_data
    for array in (weights.astype(">f4"), weights[::2]):  # needs a copy: still the right bytes
        assert bytes(raw_data(array)) == oc.from_array(array).raw_data
    with pytest.raises(oc.TensorConversionError, match="string"):
        raw_data(np.array(["a"], dtype=object))


def test_every_model_api_takes_an_ir_model() -> None:
    weights = np.full((4, 3), 0.5, np.float32)
    x = oc.arg("X", np.float32, ("N", 4))
    model = oc.build_ir([x], {"Y": op.Relu(op.MatMul(x, weights))}, name="g", value_info=True)
    oc.check(model)
    assert oc.proto.ModelProto.FromString(model.SerializeToString()) == oc.build(
        [x], {"Y": op.Relu(op.MatMul(x, weights))}, name="g", value_info=True
    )
    declared = list(model.graph.value_info)
    assert [v.name for v in declared] == [model.graph.nodes[0].outputs[0]]
    model.graph.value_info.clear()
    inferred = oc.infer_shapes(model)
    assert isinstance(inferred, oc.ir.Model)
    assert inferred.graph.value_info == declared
    assert not model.graph.value_info  # a copy was inferred: the model given is unchanged
    assert inferred.graph.initializers[0] is model.graph.initializers[0]  # tensors shared
    feeds = {"X": np.ones((2, 4), np.float32)}
    np.testing.assert_array_equal(oc.evaluate(model, feeds)["Y"], np.full((2, 3), 2.0))
    y = oc.inline(model, X=x)["Y"]
    np.testing.assert_array_equal(oc.evaluate({"Y": y}, {x: feeds["X"]})["Y"], np.full((2, 3), 2.0))


def test_arrays_changed_after_the_build_are_saved_as_they_are_then(tmp_path: Path) -> None:
    weights = np.zeros(512, np.float32)
    x = oc.arg("X", np.float32, (512,))
    model = oc.build_ir([x], {"Y": op.Add(x, weights)})
    weights[:] = 7.0
    oc.save(model, tmp_path / "m.onnx")
    np.testing.assert_array_equal(oc.to_array(oc.load(tmp_path / "m.onnx").graph.initializer[0]), 7)


def _broken_model() -> Any:
    x = oc.arg("X", np.float32, (2048,))
    model = oc.build_ir([x], {"Y": op.Add(x, np.ones(2048, np.float32))})
    tensor = model.graph.initializers[0]
    # An IR edited by hand so that its array no longer fits its dims.
    model.graph.initializers[0] = oc.ir.TensorData(
        tensor.name, tensor.elem_type, (4096,), array=tensor.array()
    )
    return model


@pytest.mark.parametrize("external", [False, True])
def test_an_array_that_does_not_fit_its_dims_fails_cleanly(tmp_path: Path, external: bool) -> None:
    with pytest.raises(oc.ModelFileError, match=r"initializer 'c0'.*shape \(2048,\)"):
        oc.save(_broken_model(), tmp_path / "m.onnx", external_data=external)
    assert os.listdir(tmp_path) == []  # nothing half-written is left behind


def test_models_over_two_gib_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    # A broadcast view: 2.5 GiB of float32 that occupy 4 bytes of memory.
    huge = np.broadcast_to(np.float32(1), (5 * 2**27,))
    x = oc.arg("X", np.float32, (1,))
    model = oc.build_ir([x], {"Y": op.Add(op.ReduceMax(huge, keepdims=1), x)})
    with pytest.raises(oc.ModelFileError, match=r"over protobuf's 2 GiB limit.*external_data"):
        oc.save(model, tmp_path / "m.onnx")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("external", [False, True])
def test_buffers_over_a_mebibyte_are_written_through_the_reserving_path(
    tmp_path: Path, external: bool
) -> None:
    # Over 1 MiB, write_buffer reserves the file's blocks and writes through numpy's tofile;
    # the bytes and the offsets after it must be those of a plain write.
    weights = [np.arange(300_000, dtype=np.float32) * k for k in (1, 2, 3)]
    x = oc.arg("X", np.float32, (300_000,))
    y = x
    for w in weights:
        y = op.Add(y, w)
    for folder, model in (("ir", oc.build_ir([x], {"Y": y})), ("proto", oc.build([x], {"Y": y}))):
        (tmp_path / folder).mkdir()
        oc.save(model, tmp_path / folder / "m.onnx", external_data=external)
    for name in os.listdir(tmp_path / "proto"):
        assert (tmp_path / "ir" / name).read_bytes() == (tmp_path / "proto" / name).read_bytes()
    if not external:
        expected = oc.build([x], {"Y": y}).SerializeToString()
        assert (tmp_path / "ir" / "m.onnx").read_bytes() == expected
    loaded = oc.load(tmp_path / "ir" / "m.onnx")
    for tensor, w in zip(loaded.graph.initializer, weights, strict=True):
        np.testing.assert_array_equal(oc.to_array(tensor), w)


def test_write_model_into_a_stream_without_a_file_descriptor() -> None:
    import io

    from onnxcraft.proto.stream import write_model

    big = oc.from_array(np.arange(400_000, dtype=np.float32), "w")
    model = oc.proto.ModelProto(ir_version=10)
    model.graph.initializer.append(big)
    stream = io.BytesIO()
    write_model(model, stream)
    assert stream.getvalue() == model.SerializeToString()


def _mapped(array: np.ndarray) -> bool:
    base: Any = array
    while base is not None:
        if isinstance(base, np.memmap):
            return True
        base = base.base
    return False


def _external_model(folder: Path) -> tuple[Path, dict[str, np.ndarray]]:
    weights = {
        "w": np.arange(4096, dtype=np.float32).reshape(64, 64),
        "h": np.linspace(-2, 2, 2048).astype(np.float16),
        "q": (np.arange(4001) % 16 - 8).astype(np.int8).view(numpy_dtype(ElementType.INT4)),
    }
    x = oc.arg("X", np.float32, ("N", 64))
    outputs = {"Y": op.MatMul(x, weights["w"])}
    outputs.update({name: op.Identity(weights[name]) for name in ("h", "q")})
    model = oc.build(inputs=[x], outputs=outputs)
    model.graph.initializer[0].doc_string = "the weights"
    model.graph.initializer[0].metadata_props.add(key="origin", value="layer 1")
    path = folder / "m.onnx"
    oc.save(model, path, external_data=True)
    return path, weights


def test_load_ir_maps_external_data_and_saves_what_load_would(tmp_path: Path) -> None:
    path, weights = _external_model(tmp_path)
    model = oc.load_ir(path)
    arrays = [t.array() for t in model.graph.initializers]
    assert [_mapped(a) for a in arrays] == [True, True, False]  # packed int4 is decoded
    assert not arrays[0].flags.writeable
    for array, expected in zip(arrays, weights.values(), strict=True):
        assert array.tobytes() == expected.tobytes()
    for external in (False, True):
        for name, source in (("from_ir", model), ("from_proto", oc.load(path))):
            (tmp_path / name / str(external)).mkdir(parents=True)
            oc.save(source, tmp_path / name / str(external) / "m.onnx", external_data=external)
        ours, theirs = tmp_path / "from_ir" / str(external), tmp_path / "from_proto" / str(external)
        assert sorted(os.listdir(ours)) == sorted(os.listdir(theirs))
        for name in os.listdir(ours):  # doc strings and metadata kept, data carried along
            assert (ours / name).read_bytes() == (theirs / name).read_bytes()


def test_a_load_ir_model_checks_evaluates_and_saves_over_its_own_file(tmp_path: Path) -> None:
    path, weights = _external_model(tmp_path)
    model = oc.load_ir(path)
    oc.check(model)
    assert isinstance(oc.infer_shapes(model), oc.ir.Model)
    x = np.ones((2, 64), np.float32)
    np.testing.assert_array_equal(oc.evaluate(model, {"X": x})["Y"], x @ weights["w"])
    oc.save(model, path, external_data=True)  # the mapping still reads the replaced file
    np.testing.assert_array_equal(oc.evaluate(oc.load(path), {"X": x})["Y"], x @ weights["w"])


def test_load_ir_refuses_unsafe_locations_when_loading(tmp_path: Path) -> None:
    path, _ = _external_model(tmp_path)
    model = oc.load(path, load_external_data=False)
    entry = next(e for e in model.graph.initializer[0].external_data if e.key == "location")
    entry.value = "../m.onnx.data"
    (path.parent / "escape.onnx").write_bytes(model.SerializeToString())
    with pytest.raises(oc.ExternalDataError, match=r"uses '\.\.'"):
        oc.load_ir(path.parent / "escape.onnx")
    entry.value = "m.onnx.data"
    offset = next(e for e in model.graph.initializer[0].external_data if e.key == "offset")
    offset.value = str(10**9)
    (path.parent / "beyond.onnx").write_bytes(model.SerializeToString())
    with pytest.raises(oc.ExternalDataError, match="beyond the end"):
        oc.load_ir(path.parent / "beyond.onnx")


def test_a_mapped_model_inlined_into_a_new_one_keeps_its_weights_mapped(tmp_path: Path) -> None:
    path, weights = _external_model(tmp_path)
    x = oc.arg("X", np.float32, ("N", 64))
    y = oc.inline(oc.load_ir(path), X=x)["Y"]
    model = oc.build_ir([x], {"top": op.ArgMax(y, axis=1, keepdims=0)})
    assert [_mapped(t.array()) for t in model.graph.initializers] == [True]
    (tmp_path / "out").mkdir()
    oc.save(model, tmp_path / "out" / "composed.onnx", external_data=True)
    feeds = {"X": np.random.default_rng(0).standard_normal((3, 64)).astype(np.float32)}
    result = oc.evaluate(oc.load(tmp_path / "out" / "composed.onnx"), feeds)["top"]
    np.testing.assert_array_equal(result, np.argmax(feeds["X"] @ weights["w"], axis=1))


def test_load_ir_says_what_it_needs(tmp_path: Path) -> None:
    with pytest.raises(oc.ModelFileError, match="load_ir: expected the path of a model file"):
        oc.load_ir(b"\x08\x08")  # type: ignore[arg-type]
    with pytest.raises(oc.ModelFileError, match=r"missing\.onnx: cannot read the model file"):
        oc.load_ir(tmp_path / "missing.onnx")
    (tmp_path / "cut.onnx").write_bytes(b"\x3a\x10")
    with pytest.raises(oc.ModelFileError, match=r"cut\.onnx: not a valid ONNX model"):
        oc.load_ir(tmp_path / "cut.onnx")
