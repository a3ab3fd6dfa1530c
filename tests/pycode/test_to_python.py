"""``oc.to_python``: exact values, the side file of weights, control flow and functions,
hostile names, code that passes ruff, and refusals of what is not a model."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx import AttributeProto, TensorProto, helper

import onnxcraft as oc
from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.io import model_ir
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx import v25 as op25
from tests.pycode.roundtrip import differences, rebuild, run_module, same_values

REPO = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).with_name("ruff")


def ruff_problems(folder: Path) -> str:
    """ruff's findings on the Python files of ``folder`` with the project's configuration."""
    result = subprocess.run(
        [str(RUFF), "check", "--no-cache", "--config", str(REPO / "pyproject.toml"), str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    return "" if result.returncode == 0 else result.stdout + result.stderr


def assert_round_trip(model: Any, folder: Path, feeds: dict[str, Any], **options: Any) -> str:
    source, rebuilt = rebuild(model, folder, **options)
    assert differences(model, rebuilt) == []
    expected = oc.evaluate(model, feeds)
    got = oc.evaluate(rebuilt, feeds)
    for key, value in expected.items():
        assert same_values(value, got[key]), key
    assert ruff_problems(folder) == ""
    return source


def bits(elem: ElementType, values: list[int], shape: tuple[int, ...]) -> np.ndarray:
    storage = np.dtype(numpy_dtype(elem).fields[numpy_dtype(elem).names[0]][0])
    return np.array(values, dtype=storage).reshape(shape).view(numpy_dtype(elem))


# -- exact values -------------------------------------------------------------------------------

F32_SPECIAL = np.array(
    [0.1, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4028235e38, 16777217.0], dtype=np.float32
)
NAN_PAYLOAD = np.array([0x7FC00001, 0xFFC00000, 0x7F800001], dtype=np.uint32).view(np.float32)

CONSTANTS: dict[str, tuple[np.ndarray, ElementType]] = {
    "f32": (F32_SPECIAL, ElementType.FLOAT),
    "nan_payloads": (NAN_PAYLOAD, ElementType.FLOAT),
    "f64": (np.array([0.1, -0.0, np.nan, 1e308, 5e-324], np.float64), ElementType.DOUBLE),
    "f16": (np.array([0.1, 65504, -0.0, np.inf, 6e-8], np.float16), ElementType.FLOAT16),
    "bf16": (
        bits(ElementType.BFLOAT16, [0x3F80, 0x7FC0, 0x8000, 0x0001], (2, 2)),
        ElementType.BFLOAT16,
    ),
    "f8": (bits(ElementType.FLOAT8E4M3FN, [0, 0x7F, 0xFF, 0x38], (4,)), ElementType.FLOAT8E4M3FN),
    "f8e5m2": (bits(ElementType.FLOAT8E5M2, [0x7E, 3], (2,)), ElementType.FLOAT8E5M2),
    "f4": (bits(ElementType.FLOAT4E2M1, [1, 15], (2,)), ElementType.FLOAT4E2M1),
    "i4": (bits(ElementType.INT4, [-8, 7, 0], (3,)), ElementType.INT4),
    "u4": (bits(ElementType.UINT4, [15, 0], (2,)), ElementType.UINT4),
    "u64": (np.array([2**64 - 1, 0], np.uint64), ElementType.UINT64),
    "i64": (np.array([[-(2**63), 2**63 - 1]], np.int64), ElementType.INT64),
    "b": (np.array([True, False]), ElementType.BOOL),
    "c64": (np.array([1 + 2j, np.nan], np.complex64), ElementType.COMPLEX64),
    "s": (
        np.array(["plain", 'naïve\n"q"', "\udcff\udc80", "", "名前"], dtype=object),
        ElementType.STRING,
    ),
    "scalar": (np.array(np.float32(-0.0)), ElementType.FLOAT),
    "empty": (np.zeros((0, 3), np.int32), ElementType.INT32),
    "filled": (np.full((4, 5), 0.25, np.float32), ElementType.FLOAT),
}


def constants_model() -> Any:
    """One Identity of each constant (an initializer) and one Constant node of each."""
    args = []
    outputs = {}
    for name, (array, elem) in CONSTANTS.items():
        outputs[f"init_{name}"] = op25.Identity(oc.initializer(array, elem).named(name))
        outputs[f"node_{name}"] = op25.Constant(value=array)
    return oc.build(inputs=args, outputs=outputs, name="constants")


def test_constants_are_exact(tmp_path: Path) -> None:
    model = constants_model()
    source = assert_round_trip(model, tmp_path, {})
    assert "np.nan" in source and "-0.0" in source and "np.inf" in source
    assert "np.frombuffer" in source  # NaN payloads: the bytes themselves
    assert "numpy_dtype(oc.ElementType.BFLOAT16)" in source
    assert "np.full((4, 5), 0.25, dtype=np.float32)" in source
    # Run by itself, the module saves the model next to it.
    subprocess.run(
        [sys.executable, str(tmp_path / "generated.py")],
        check=True,
        cwd=tmp_path,
        env={"PYTHONPATH": f"{REPO / 'src'}"},
    )
    saved = oc.load(tmp_path / "generated.onnx")
    assert differences(model, saved) == []


# -- the side file of weights -------------------------------------------------------------------


def weights_model() -> Any:
    x = oc.arg("x", np.float32, ("N", 64))
    rng = np.random.default_rng(0)
    w = oc.initializer(rng.standard_normal((64, 32)).astype(np.float32)).named("dense.weight")
    b = oc.initializer(np.zeros(32, np.float32)).named("dense.bias")  # 32 elements: inline
    scale = op.Constant(value=rng.standard_normal(100).astype(np.float16))
    h = op.Add(op.MatMul(x, w), b)
    y = op.Mul(op.Cast(h, to=np.float16), op.Slice(scale, [0], [32]))
    labels = oc.initializer(np.array([f"class {i}" for i in range(80)], dtype=object))
    return oc.build(
        inputs=[x], outputs={"y": y, "labels": op.Identity(labels.named("class_names"))}
    )


def test_large_weights_go_to_the_side_file(tmp_path: Path) -> None:
    model = weights_model()
    side = tmp_path / "weights.npz"
    feeds = {"x": np.ones((2, 64), np.float32)}
    source = assert_round_trip(model, tmp_path, feeds, weights_path=side, inline_limit=40)
    with np.load(side) as stored:
        assert sorted(stored) == ["constant_value", "dense_weight"]
        assert stored["constant_value"].dtype == np.float16
    assert 'WEIGHTS = Path(__file__).with_name("weights.npz")' in source
    assert 'weights["dense_weight"]' in source
    assert "np.full((32,), 0.0, dtype=np.float32)" in source  # small: a literal
    assert '"class 79"' in source  # strings always stay literals (no pickle)
    # The module finds its weights beside itself, wherever the two files are moved.
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.move(str(side), moved / "weights.npz")
    rebuilt = run_module(source, moved / "model_code.py")
    assert differences(model, rebuilt) == []


def test_without_a_side_file_everything_is_a_literal(tmp_path: Path) -> None:
    source = assert_round_trip(weights_model(), tmp_path, {"x": np.zeros((1, 64), np.float32)})
    assert "WEIGHTS" not in source and "np.load" not in source


# -- control flow, functions, custom operators --------------------------------------------------


@oc.function("my.domain", "ScaledTanh")
def scaled_tanh(x: oc.Var, *, alpha: float = 2.0) -> oc.Var:
    return op.Mul(op.Tanh(x), op.CastLike(op.Constant(value_float=alpha), x))


def control_flow_model() -> Any:
    x = oc.arg("x", np.float32, ("N", 3))
    n = oc.arg("n", np.int64, ())
    (chosen,) = op.If(
        op.ReduceSum(x) > 0.0,
        then_branch=lambda: [op.Neg(x)],
        else_branch=lambda: [op.Mul(x, 2.0)],
    )
    final, stacked = op.Loop(
        n, None, x, body=lambda i, cond, v: [cond, op.Add(v, 1.0), op.ReduceMax(v)]
    )
    total, running = op.Scan(
        op.Constant(value=np.zeros(3, np.float32)),
        x,
        body=oc.subgraph(
            lambda acc, row: [op.Add(acc, row), op.Add(acc, row)],
            [oc.Tensor(np.float32, (3,)), oc.Tensor(np.float32, (3,))],
        ),
        num_scan_inputs=1,
    )
    return oc.build(
        inputs=[x, n],
        outputs={
            "chosen": chosen,
            "final": final,
            "stacked": stacked,
            "total": total,
            "tanh": scaled_tanh(x, alpha=0.5),
            "running": running,
        },
        name="control",
        doc_string="a model with bodies",
        metadata={"author": "me"},
        model_version=3,
    )


def test_bodies_functions_and_custom_operators(tmp_path: Path) -> None:
    model = control_flow_model()
    source, rebuilt = rebuild(model, tmp_path)
    assert differences(model, rebuilt) == []
    assert ruff_problems(tmp_path) == ""
    assert '@oc.function("my.domain", "ScaledTanh")' in source
    assert "def scaledtanh(x, *, alpha=None):" in source
    assert "oc.subgraph(" in source  # a Loop/Scan body keeps its declared input types
    feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3), "n": np.array(3)}
    expected = oc.evaluate(model, feeds)
    got = oc.evaluate(rebuilt, feeds)
    assert all(same_values(expected[k], got[k]) for k in expected)


def test_custom_operators(tmp_path: Path) -> None:
    x = oc.arg("x", np.float32, ("N", 3))
    (gelu,) = oc.custom_op(
        "FastGelu", x, domain="com.microsoft", alpha=0.5, infer=lambda types, attrs: [types[0]]
    )
    a, b = oc.custom_op("Pair", gelu, domain="my.ops", version=2, outputs=2, mode="fast")
    model = oc.build(
        inputs=[x],
        outputs={
            "gelu": gelu,
            "a": a.with_type(oc.Tensor(np.float32, ("N", 3))),
            "b": b.with_type(oc.Tensor(np.int64, ())),
        },
    )
    source, rebuilt = rebuild(model, tmp_path)  # no kernels: the structure is compared
    assert differences(model, rebuilt) == []
    assert ruff_problems(tmp_path) == ""
    assert 'domain="my.ops"' in source and "version=2" in source and "outputs=2" in source


def test_function_attribute_defaults_become_parameter_defaults(tmp_path: Path) -> None:
    body = helper.make_node("LeakyRelu", ["a"], ["b"])
    body.attribute.append(helper.make_attribute_ref("alpha", AttributeProto.FLOAT))
    function = helper.make_function(
        "my.domain",
        "Leaky",
        ["a"],
        ["b"],
        [body],
        [helper.make_opsetid("", 21)],
        attribute_protos=[helper.make_attribute("alpha", 0.5)],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Leaky", ["x"], ["y"], domain="my.domain"),
            helper.make_node("Leaky", ["y"], ["z"], domain="my.domain", alpha=0.25),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [3])],
    )
    model = helper.make_model(
        graph,
        functions=[function],
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("my.domain", 1)],
        ir_version=10,
    )
    source, rebuilt = rebuild(model, tmp_path)
    assert "def leaky(a, *, alpha=0.5):" in source
    x = {"x": np.array([-4.0, 0.0, 2.0], np.float32)}
    assert same_values(oc.evaluate(model, x)["z"], oc.evaluate(rebuilt, x)["z"])
    assert ruff_problems(tmp_path) == ""
    # The same meaning, written otherwise: the calls carry the value, the function no default.
    assert any("attribute defaults" in d for d in differences(model, rebuilt))


def test_keep_names_names_every_value(tmp_path: Path) -> None:
    x = oc.arg("x", np.float32, (2,))
    h = op.Relu(x).named("hidden.0")
    model = oc.build(inputs=[x], outputs={"y": op.Neg(h)})
    plain = oc.to_python(model)
    assert ".named(" not in plain
    source, rebuilt = rebuild(model, tmp_path, keep_names=True)
    assert '.named("hidden.0")' in source
    assert [n.outputs for n in rebuilt.graph.nodes] == [["hidden.0"], ["y"]]


def test_nodes_no_output_needs_are_kept(tmp_path: Path) -> None:
    x = oc.arg("x", np.float32, (2,))
    unused = op.Shape(x)
    model = oc.build(inputs=[x], outputs={"y": op.Neg(x)}, keep=[unused])
    source = assert_round_trip(model, tmp_path, {"x": np.ones(2, np.float32)})
    assert "keep=[shape0]" in source


# -- hostile names ------------------------------------------------------------------------------


def hostile_model() -> Any:
    names = [
        "class",
        "np",
        "oc",
        "op",
        "1x",
        "a-b",
        "名前",
        "build_model",
        "Path",
        "WEIGHTS",
        "weights",
        "print",
        "x y",
        "_",
        "None",
    ]
    nodes = []
    inputs = []
    for index, name in enumerate(names):
        inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, ["N"]))
        nodes.append(helper.make_node("Neg", [name], [f"{name} "], name=f"n{index}"))
    nodes.append(helper.make_node("Sum", [f"{n} " for n in names], ["def"]))
    graph = helper.make_graph(
        nodes,
        'graph "with" quotes\nand """ a newline',
        inputs,
        [helper.make_tensor_value_info("def", TensorProto.FLOAT, ["N"])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.doc_string = 'a """docstring""" with a \\ backslash'
    model.producer_name = "\u202eevil"  # a bidi control character
    return model


def test_hostile_names(tmp_path: Path) -> None:
    model = hostile_model()
    feeds = {i.name: np.full(2, k, np.float32) for k, i in enumerate(model.graph.input)}
    source = assert_round_trip(model, tmp_path, feeds)
    compile(source, "generated", "exec")
    assert "名前" not in source  # non-ASCII only as escapes


def test_names_python_cannot_take_in_functions_are_refused() -> None:
    function = helper.make_function(
        "my.domain",
        "F",
        ["lambda"],
        ["out"],
        [helper.make_node("Neg", ["lambda"], ["out"])],
        [helper.make_opsetid("", 21)],
    )
    graph = helper.make_graph(
        [helper.make_node("F", ["x"], ["y"], domain="my.domain")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(
        graph,
        functions=[function],
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("my.domain", 1)],
    )
    with pytest.raises(oc.CodeGenerationError, match="input name 'lambda' is not a Python"):
        oc.to_python(model)


# -- not a model, bad options -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "error", "fragment"),
    [
        (42, oc.ProtoError, "got int"),
        (b"\xff\xff not protobuf", oc.ModelFileError, "not a valid ONNX model"),
        (helper.make_graph([], "g", [], []), oc.ProtoError, "GraphProto"),
        ("/nonexistent/model.onnx", oc.ModelFileError, "model.onnx"),
    ],
)
def test_what_is_not_a_model_is_refused(model: Any, error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        oc.to_python(model)


def _external_model() -> Any:
    from onnx import numpy_helper

    weight = numpy_helper.from_array(np.ones(4, np.float32), "w")
    weight.ClearField("raw_data")
    weight.data_location = TensorProto.EXTERNAL
    entry = weight.external_data.add()
    entry.key, entry.value = "location", "missing.bin"
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _one_node_model(node: Any, opset: int = 21) -> Any:
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize(
    ("model", "error", "fragment"),
    [
        (_external_model(), oc.TensorConversionError, "external file"),
        (
            _one_node_model(helper.make_node("Add", ["x"], ["y"])),
            oc.CodeGenerationError,
            "expected 2 inputs for Add",
        ),
        (
            _one_node_model(helper.make_node("Relu", ["x"], ["y", "z"])),
            oc.CodeGenerationError,
            "expected at most 1 outputs for Relu",
        ),
        (
            _one_node_model(helper.make_node("Relu", ["nowhere"], ["y"])),
            oc.CodeGenerationError,
            "reads 'nowhere', which is not defined before it",
        ),
        (
            _one_node_model(helper.make_node("Rellu", ["x"], ["y"])),
            oc.CodeGenerationError,
            "Rellu has no function in onnxcraft's ai.onnx opset 21 module",
        ),
        (
            _one_node_model(helper.make_node("Relu", ["x"], ["y"]), opset=99),
            oc.CodeGenerationError,
            "no operator module for ai.onnx opset 99",
        ),
        (
            _one_node_model(helper.make_node("Relu", ["x"], ["z"])),
            oc.CodeGenerationError,
            "graph output 'y' is not produced by any node",
        ),
    ],
)
def test_broken_models_are_refused(model: Any, error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=re.escape(fragment)):
        oc.to_python(model)


def test_names_that_are_not_text_are_refused() -> None:
    model = _one_node_model(helper.make_node("Relu", ["x"], ["y"]))
    model.graph.node[0].output[0] = "y"
    data = model.SerializeToString().replace(b"\x12\x01y", b"\x12\x01\xff")  # node output
    with pytest.raises(oc.CodeGenerationError, match="not UTF-8 text"):
        oc.to_python(data)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"weights_path": 3}, "weights_path must be a path"),
        ({"inline_limit": -1}, "inline_limit must be an int >= 0"),
        ({"inline_limit": 1.5}, "inline_limit must be an int >= 0"),
        ({"keep_names": "yes"}, "keep_names must be a bool"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], fragment: str) -> None:
    x = oc.arg("x", np.float32, (2,))
    model = oc.build(inputs=[x], outputs={"y": op.Neg(x)})
    with pytest.raises(oc.ArgumentError, match=fragment):
        oc.to_python(model, **options)


def test_what_the_dsl_cannot_write_is_named() -> None:
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]),
        helper.make_tensor("i", TensorProto.INT64, [1], [0]),
        [3],
    )
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["y"], name="c", sparse_value=sparse)],
        "g",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(oc.CodeGenerationError, match=r"node 'c'.*sparse_value.*SPARSE_TENSOR"):
        oc.to_python(model)


# -- the examples -------------------------------------------------------------------------------


def _example_model(name: str, path: Path) -> Any:
    from tests.test_docs_examples import _example

    module = _example(name)
    if name == "large_mlp":
        module.main(str(path), hidden=16)
    else:
        module.main(str(path))
    return oc.load(path)


def _feeds(model: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    feeds = {}
    for info in model_ir(model).graph.inputs:
        shape = [d if isinstance(d, int) else 3 for d in info.type.shape]
        feeds[info.name] = rng.standard_normal(shape).astype(numpy_dtype(info.type.elem_type))
    return feeds


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "examples").glob("*.py")))
def test_examples_round_trip(name: str, tmp_path: Path) -> None:
    model = _example_model(name, tmp_path / f"{name}.onnx")
    code = tmp_path / "code"
    code.mkdir()
    assert_round_trip(model, code, _feeds(model), weights_path=code / "weights.npz")
