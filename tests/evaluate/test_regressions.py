"""Regression tests: one per disagreement the operator property test found in a kernel or rule,
and the clear errors the fixed kernels give on bad input.

Each case is checked against onnxruntime where it implements the case, otherwise against a
derivation written here from the standard's text (low-precision values are encoded, decoded
and rounded by the small helpers below, not by onnxcraft). Every valid case also runs through
the harness (``problems``): evaluator, inference rule and checker must agree on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onnxcraft as oc
from onnxcraft import ir, specs
from onnxcraft.dtypes import ElementType, element_type_of, from_type_string, numpy_dtype
from onnxcraft.errors import EvaluationError, InferenceError
from onnxcraft.opset.ai.onnx import v18
from onnxcraft.testing import Input, NodeCase, compare_backends, evaluate_case, problems
from onnxcraft.testing.harness import infer_case
from onnxcraft.types import Map, Tensor, ValueType

E = ElementType
BF16 = numpy_dtype(E.BFLOAT16)


# -- helpers --------------------------------------------------------------------------------------


def tensor(value: Any, *, declared: ValueType | None = None) -> Input:
    """A graph input holding ``value`` as a tensor of its exact type."""
    array = np.asarray(value)
    return Input(array, Tensor(element_type_of(array.dtype), array.shape), declared=declared)


def onnxruntime(model: Any, feeds: dict[str, Any]) -> list[Any]:
    """The outputs of ``model`` (an onnxcraft ModelProto) per onnxruntime's CPU provider."""
    options = ort.SessionOptions()
    options.log_severity_level = 4
    proto = onnx.ModelProto.FromString(model.SerializeToString())
    proto.ir_version = min(proto.ir_version, 10)  # the newest IR version onnxruntime reads
    session = ort.InferenceSession(
        proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return list(session.run(None, feeds))


def agrees_with_onnxruntime(case: NodeCase) -> None:
    """The harness finds nothing, and onnxruntime computes exactly the same outputs."""
    assert problems(case) == []
    compare_backends(case, onnxruntime, rtol=0, atol=0)


def bf16(values: Any) -> np.ndarray:
    """float values, each exactly a bfloat16, in onnxcraft's bfloat16 representation."""
    bits = np.asarray(values, np.float32).view(np.uint32)
    assert not (bits & 0xFFFF).any(), "the test's values must be exact bfloat16 values"
    return (bits >> 16).astype(np.uint16).view(BF16)


def bf16_values(array: np.ndarray) -> np.ndarray:
    """The float32 values of a bfloat16 array (its bits are a float32's upper half)."""
    assert array.dtype == BF16, f"expected bfloat16, got {array.dtype}"
    return (array.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def round_bf16(value: float) -> float:
    """``value`` rounded to the nearest bfloat16 (8 significant bits), ties to even."""
    if value == 0 or not math.isfinite(value):
        return value
    mantissa, exponent = math.frexp(value)  # value = mantissa * 2**exponent, 0.5 <= |m| < 1
    return math.ldexp(round(mantissa * 2**8), exponent - 8)  # round() is half-to-even


# -- 1. Cast-1 names its target type by a string --------------------------------------------------

CAST_1_TARGETS = {
    "FLOAT16": np.float16,
    "DOUBLE": np.float64,
    "INT32": np.int32,
    "UINT8": np.uint8,
    "BOOL": np.bool_,
}


@pytest.mark.parametrize("name", sorted(CAST_1_TARGETS))
def test_cast_1_takes_the_target_type_by_name(name: str) -> None:
    # onnxruntime runs no opset-1 Cast: small whole numbers convert the same in C and numpy.
    x = np.array([[0.0, 1.0], [2.0, 3.0]], np.float32)
    case = NodeCase("", "Cast", 1, (tensor(x),), {"to": name})
    expected: np.ndarray = x.astype(CAST_1_TARGETS[name])
    (got,) = evaluate_case(case)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()
    assert infer_case(case) == [Tensor(element_type_of(expected.dtype), (2, 2))]
    assert problems(case) == []


def test_cast_1_names_an_unknown_type_name() -> None:
    case = NodeCase("", "Cast", 1, (tensor(np.zeros(2, np.float32)),), {"to": "FLOAT17"})
    message = "Cast: attribute 'to' must be a type name such as 'FLOAT', got 'FLOAT17'"
    with pytest.raises(EvaluationError, match=message):
        evaluate_case(case)
    with pytest.raises(InferenceError, match=message):
        infer_case(case)


# -- 2. Det of float16 (and bfloat16) -------------------------------------------------------------


def integer_det(matrix: list[list[int]]) -> int:
    """The determinant by cofactor expansion along the first row, in exact integers."""
    if len(matrix) == 1:
        return matrix[0][0]
    return sum(
        (-1) ** j * matrix[0][j] * integer_det([row[:j] + row[j + 1 :] for row in matrix[1:]])
        for j in range(len(matrix))
    )


def invertible_integer_matrices(count: int, size: int) -> np.ndarray:
    """Matrices of small integers with a non-zero determinant: every float type holds the
    determinant exactly, and no rounding error of the elimination can reach it."""
    rng = np.random.default_rng(7)
    found: list[np.ndarray] = []
    while len(found) < count:
        candidate = rng.integers(-2, 3, (size, size))
        if integer_det(candidate.tolist()) != 0:
            found.append(candidate)
    return np.stack(found)


@pytest.mark.parametrize("version", [11, 22])
def test_det_of_float16_matches_onnxruntime(version: int) -> None:
    matrices = invertible_integer_matrices(6, 3).reshape(2, 3, 3, 3).astype(np.float16)
    agrees_with_onnxruntime(NodeCase("", "Det", version, (tensor(matrices),)))


def test_det_of_bfloat16_is_the_exact_determinant_rounded() -> None:
    # onnxruntime has no bfloat16 Det: the determinants are whole numbers below 256, exact.
    matrices = invertible_integer_matrices(4, 3)
    case = NodeCase("", "Det", 22, (tensor(bf16(matrices.astype(np.float32))),))
    (got,) = evaluate_case(case)
    assert bf16_values(got).tolist() == [float(integer_det(m.tolist())) for m in matrices]
    assert problems(case) == []


# -- 3. GatherElements has the indices' shape -----------------------------------------------------


@pytest.mark.parametrize("version", [11, 13])
@pytest.mark.parametrize(
    ("data_shape", "indices", "axis"),
    [
        ((3, 1, 4), [[[2]], [[0]]], 0),  # (2, 1, 1): smaller than data off the axis
        ((2, 3, 4), [[[3], [-1]], [[0], [1]]], 2),  # (2, 2, 1), negative indices
        ((3, 3), [[2, 0, 1, 1]], -1),  # (1, 4): longer than data along the axis
        ((2, 3), np.zeros((0, 3), np.int64), 1),  # no rows
    ],
)
def test_gather_elements_has_the_indices_shape(
    version: int, data_shape: tuple[int, ...], indices: Any, axis: int
) -> None:
    data = np.arange(math.prod(data_shape), dtype=np.float32).reshape(data_shape)
    index = np.asarray(indices, np.int64)
    case = NodeCase("", "GatherElements", version, (tensor(data), tensor(index)), {"axis": axis})
    agrees_with_onnxruntime(case)


def test_gather_elements_rejects_indices_larger_than_data_off_the_axis() -> None:
    data = np.zeros((3, 1, 4), np.float32)
    case = NodeCase("", "GatherElements", 13, (tensor(data), tensor(np.zeros((2, 2, 1), np.int64))))
    message = r"GatherElements: indices dim 1 must be <= data's \(1\) off axis 0, got 2"
    with pytest.raises(EvaluationError, match=message):
        evaluate_case(case)


# -- 4. A Loop of no iterations: scan outputs shaped as the body declares -------------------------


def body_graph(node: ir.Node, output: ValueType) -> ir.Graph:
    """A Loop body: (i, cond) -> (cond, one scan output computed by ``node`` into "s")."""
    graph = ir.Graph(name="body")
    graph.inputs = [ir.ValueInfo("i", Tensor(E.INT64, ())), ir.ValueInfo("c", Tensor(E.BOOL, ()))]
    graph.nodes = [ir.Node("Identity", ["c"], ["c_out"]), node]
    graph.outputs = [ir.ValueInfo("c_out", Tensor(E.BOOL, ())), ir.ValueInfo("s", output)]
    return graph


def constant_node(value: np.ndarray) -> ir.Node:
    data = ir.TensorData.from_array("", value, element_type_of(value.dtype))
    return ir.Node("Constant", [], ["s"], attributes=[ir.Attribute("value", "TENSOR", data)])


def zero_trip_loop(version: int, body: ir.Graph, captured: tuple[Input, ...] = ()) -> NodeCase:
    trips = tensor(np.array(0, np.int64))
    cond = tensor(np.array(True))
    return NodeCase("", "Loop", version, (trips, cond), {"body": body}, captured=captured)


LOOP_BODIES: dict[str, Callable[[], tuple[ir.Graph, tuple[Input, ...]]]] = {
    # a (1, 2) float per iteration: (0, 1, 2), the brief's example
    "static float": lambda: (
        body_graph(constant_node(np.ones((1, 2), np.float32)), Tensor(E.FLOAT, (1, 2))),
        (),
    ),
    # the element type too comes from the declaration, not a float default
    "static int64": lambda: (
        body_graph(constant_node(np.ones((2, 3), np.int64)), Tensor(E.INT64, (2, 3))),
        (),
    ),
    # a symbol no input binds: the tensor is empty whatever it is; onnxruntime makes it 0
    "symbolic dim": lambda: (
        body_graph(ir.Node("Identity", ["cap0"], ["s"]), Tensor(E.FLOAT, ("a", 2))),
        (tensor(np.zeros((3, 2), np.float32), declared=Tensor(E.FLOAT, (None, None))),),
    ),
    # no rank declared anywhere: (0,), as onnxruntime gives
    "unknown rank": lambda: (
        body_graph(ir.Node("Identity", ["cap0"], ["s"]), Tensor(E.FLOAT, None)),
        (tensor(np.zeros((3, 2), np.float32), declared=Tensor(E.FLOAT, None)),),
    ),
}


@pytest.mark.parametrize("version", [11, 13, 16, 19, 21])
@pytest.mark.parametrize("body", sorted(LOOP_BODIES))
def test_zero_trip_loop_scan_outputs_match_onnxruntime(version: int, body: str) -> None:
    graph, captured = LOOP_BODIES[body]()
    agrees_with_onnxruntime(zero_trip_loop(version, graph, captured))


def test_zero_trip_loop_gives_the_documented_shape() -> None:
    graph, _ = LOOP_BODIES["static float"]()
    (got,) = evaluate_case(zero_trip_loop(21, graph))
    assert got.shape == (0, 1, 2) and got.dtype == np.float32


def scan_body(shape: tuple[int, ...], elem: ElementType) -> ir.Graph:
    graph = ir.Graph(name="body")
    graph.inputs = [ir.ValueInfo("x", Tensor(elem, shape))]
    graph.nodes = [ir.Node("Identity", ["x"], ["y"])]
    graph.outputs = [ir.ValueInfo("y", Tensor(elem, shape))]
    return graph


@pytest.mark.parametrize(
    ("output_axis", "expected_shape"), [(0, (0, 2, 3)), (1, (2, 0, 3)), (-1, (2, 3, 0))]
)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_scan_of_no_steps_keeps_the_body_output_shape(
    output_axis: int, expected_shape: tuple[int, ...], dtype: Any
) -> None:
    # Found reading the Loop fix: Scan stacked no steps into a float (0,) too. onnxruntime
    # fails on a scan input of length 0; by the standard the steps (none) are stacked along
    # the output axis, each of the body's (2, 3) shape.
    scanned = np.zeros((0, 2, 3), dtype)
    body = scan_body((2, 3), element_type_of(np.dtype(dtype)))
    attrs = {"body": body, "num_scan_inputs": 1, "scan_output_axes": [output_axis]}
    case = NodeCase("", "Scan", 21, (tensor(scanned),), attrs)
    (got,) = evaluate_case(case)
    assert got.shape == expected_shape and got.dtype == np.dtype(dtype)
    assert problems(case) == []


# -- 5. Pow: Z has X's type for every pair of types ----------------------------------------------


def pow_inputs(elem: ElementType, values: list[int]) -> np.ndarray:
    if elem == E.BFLOAT16:
        return bf16(np.array(values, np.float32))
    return np.array(values, numpy_dtype(elem))


def decoded(array: np.ndarray) -> list[float]:
    values = bf16_values(array) if array.dtype == BF16 else array
    return [float(v) for v in values.reshape(-1)]


def pow_type_pairs() -> list[tuple[int, ElementType, ElementType]]:
    """(version, X's type, Y's type) for every pair each two-parameter Pow version allows."""
    pairs = []
    for version in (12, 13, 15):
        allowed = {c.name: c.allowed for c in specs.get("Pow", opset=version).type_constraints}
        pairs += [
            (version, from_type_string(x), from_type_string(y))
            for x in allowed["T"]
            for y in allowed["T1"]
        ]
    return pairs


@pytest.mark.parametrize(
    ("version", "x_elem", "y_elem"),
    pow_type_pairs(),
    ids=lambda v: v.name.lower() if isinstance(v, ElementType) else f"Pow-{v}",
)
def test_pow_result_has_the_base_type(
    version: int, x_elem: ElementType, y_elem: ElementType
) -> None:
    # onnxruntime lacks most mixed pairs (double ** bfloat16 among them). Whole numbers whose
    # powers every type holds exactly: Z = X ** Y, in X's type.
    bases, exponents = [0, 1, 2, 3, 2], [3, 0, 2, 3, 1]
    x, y = pow_inputs(x_elem, bases), pow_inputs(y_elem, exponents)
    case = NodeCase("", "Pow", version, (tensor(x), tensor(y)))
    (got,) = evaluate_case(case)
    assert got.dtype == x.dtype
    assert decoded(got) == [float(b**e) for b, e in zip(bases, exponents)]
    assert problems(case) == []


# -- 6. Scatter reductions on bfloat16 ------------------------------------------------------------

REDUCE: dict[str, Callable[[float, float], float]] = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "min": min,
    "max": max,
}


def scatter_oracle(
    data: list[float], targets: list[int], updates: list[float], how: str
) -> list[float]:
    """The standard's loop: each update in order, each result rounded to bfloat16."""
    result = list(data)
    for target, update in zip(targets, updates):
        result[target] = round_bf16(REDUCE[how](result[target], update))
    return result


# Rounding each step differs from rounding once: 256 + 1 rounds back to 256 in bfloat16, so
# adding three ones one by one leaves 256, where one rounding of the exact sum gives 260; and
# 3 * 1.0078125 * 1.0078125 gives 3.0625 step by step, 3.046875 rounded once.
DATA = [256.0, 3.0, -2.0, 0.5]
TARGETS = [0, 1, 0, 1, 0, 1, 2, 3]
UPDATES = [1.0, 1.0078125, 1.0, 1.0078125, 1.0, 1.0, -0.25, 0.75]
SCATTER_CASES = [(16, how) for how in ("add", "mul")] + [
    (18, how) for how in ("add", "mul", "min", "max")
]


@pytest.mark.parametrize(("version", "how"), SCATTER_CASES)
def test_scatter_elements_reduces_bfloat16_step_by_step(version: int, how: str) -> None:
    # onnxruntime has no bfloat16 ScatterElements: the standard's loop is the oracle.
    inputs = (tensor(bf16(DATA)), tensor(np.array(TARGETS, np.int64)), tensor(bf16(UPDATES)))
    case = NodeCase("", "ScatterElements", version, inputs, {"reduction": how})
    (got,) = evaluate_case(case)
    assert got.dtype == BF16
    assert bf16_values(got).tolist() == scatter_oracle(DATA, TARGETS, UPDATES, how)
    assert problems(case) == []


@pytest.mark.parametrize(("version", "how"), SCATTER_CASES)
def test_scatter_nd_reduces_bfloat16_step_by_step(version: int, how: str) -> None:
    indices = np.array(TARGETS, np.int64).reshape(-1, 1)
    inputs = (tensor(bf16(DATA)), tensor(indices), tensor(bf16(UPDATES)))
    case = NodeCase("", "ScatterND", version, inputs, {"reduction": how})
    (got,) = evaluate_case(case)
    assert got.dtype == BF16
    assert bf16_values(got).tolist() == scatter_oracle(DATA, TARGETS, UPDATES, how)
    assert problems(case) == []


def test_scatter_elements_reduces_bfloat16_along_an_axis() -> None:
    data = [[1.0, 2.0], [256.0, 4.0]]
    indices = [[1, 1, 1], [0, 0, 1]]  # axis 1: row r, column indices[r][k]
    updates = [[0.5, 0.5, 8.0], [1.0, 1.0, 0.25]]
    case = NodeCase(
        "",
        "ScatterElements",
        18,
        (tensor(bf16(data)), tensor(np.array(indices, np.int64)), tensor(bf16(updates))),
        {"axis": 1, "reduction": "add"},
    )
    expected = [
        scatter_oracle(row, targets, values, "add")
        for row, targets, values in zip(data, indices, updates)
    ]
    (got,) = evaluate_case(case)
    assert bf16_values(got).tolist() == expected


@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
def test_scatter_strings_add_concatenates_and_mul_is_refused(op: str) -> None:
    # Found by the longer property run: 'mul' on strings crashed inside numpy.
    data = np.array(["a", "b"], dtype=object)
    targets = np.array([0, 0], np.int64)
    indices = targets if op == "ScatterElements" else targets.reshape(-1, 1)
    updates = np.array(["x", "y"], dtype=object)
    inputs = (tensor(data), tensor(indices), tensor(updates))
    agrees_with_onnxruntime(NodeCase("", op, 18, inputs, {"reduction": "add"}))
    refused = NodeCase("", op, 18, inputs, {"reduction": "mul"})
    with pytest.raises(EvaluationError, match=f"{op}: reduction 'mul' needs numeric or bool"):
        evaluate_case(refused)


# -- 7. MatMulInteger: a per-row zero point of A, also with no rows -------------------------------


def integer_matmul(a: np.ndarray, b: np.ndarray, a_zero: Any, b_zero: Any) -> list[list[int]]:
    """Y[i][j] = sum over k of (A[i][k] - a_zero[i]) * (B[k][j] - b_zero[j])."""
    rows, inner = a.shape
    columns = b.shape[1]
    za = np.broadcast_to(np.asarray(a_zero, np.int64), (rows,))
    zb = np.broadcast_to(np.asarray(b_zero, np.int64), (columns,))
    return [
        [
            sum((int(a[i, k]) - int(za[i])) * (int(b[k, j]) - int(zb[j])) for k in range(inner))
            for j in range(columns)
        ]
        for i in range(rows)
    ]


@pytest.mark.parametrize(("rows", "inner", "columns"), [(0, 1, 2), (0, 3, 0), (3, 2, 4), (1, 2, 3)])
def test_mat_mul_integer_per_row_zero_point(rows: int, inner: int, columns: int) -> None:
    # onnxruntime takes only a scalar a_zero_point: the sum above is the oracle.
    rng = np.random.default_rng(rows * 100 + inner * 10 + columns)
    a = rng.integers(0, 256, (rows, inner)).astype(np.uint8)
    b = rng.integers(-128, 128, (inner, columns)).astype(np.int8)
    a_zero = rng.integers(0, 256, (rows,)).astype(np.uint8)
    b_zero = rng.integers(-128, 128, (columns,)).astype(np.int8)
    case = NodeCase("", "MatMulInteger", 10, (tensor(a), tensor(b), tensor(a_zero), tensor(b_zero)))
    (got,) = evaluate_case(case)
    assert got.dtype == np.int32 and got.shape == (rows, columns)
    assert got.tolist() == integer_matmul(a, b, a_zero, b_zero)
    assert problems(case) == []


def test_mat_mul_integer_names_a_zero_point_of_the_wrong_length() -> None:
    a, b = np.zeros((3, 2), np.uint8), np.zeros((2, 4), np.uint8)
    case = NodeCase("", "MatMulInteger", 10, (tensor(a), tensor(b), tensor(np.zeros(2, np.uint8))))
    message = (
        r"MatMulInteger: a_zero_point must be a scalar or hold one entry per row of A \(M\), "
        r"3 for shape \[3, 2\]; got shape \[2\]"
    )
    with pytest.raises(EvaluationError, match=message):
        evaluate_case(case)


# -- 8. DictVectorizer of an empty map: the declared value type -----------------------------------


@pytest.mark.parametrize(
    ("key", "value", "vocabulary", "expected"),
    [
        (E.INT64, E.STRING, {"int64_vocabulary": [1, 2]}, np.array([["", ""]], dtype=object)),
        (E.INT64, E.DOUBLE, {"int64_vocabulary": [4, 5, 6]}, np.zeros((1, 3), np.float64)),
        (E.STRING, E.INT64, {"string_vocabulary": ["a"]}, np.zeros((1, 1), np.int64)),
        (E.STRING, E.FLOAT, {"string_vocabulary": ["a", "b"]}, np.zeros((1, 2), np.float32)),
    ],
)
def test_dict_vectorizer_of_an_empty_map_has_the_declared_value_type(
    key: ElementType, value: ElementType, vocabulary: dict[str, Any], expected: np.ndarray
) -> None:
    # onnxruntime's Python API refuses an empty map. By the standard every vocabulary entry
    # missing from the map is the value type's zero ("" for strings).
    mapping = Input({}, Map(key, Tensor(value, ())))
    case = NodeCase("ai.onnx.ml", "DictVectorizer", 1, (mapping,), vocabulary)
    (got,) = evaluate_case(case)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tolist() == expected.tolist()
    assert problems(case) == []


# -- found by longer property runs ----------------------------------------------------------------


@pytest.mark.parametrize("version", [11, 13])
def test_gather_of_a_string_vector_by_a_scalar_index_matches_onnxruntime(version: int) -> None:
    # np.take gave a bare str, not a 0-d string tensor.
    data = np.array(["a", "b", "c"], dtype=object)
    case = NodeCase("", "Gather", version, (tensor(data), tensor(np.array(-2, np.int64))))
    agrees_with_onnxruntime(case)


@pytest.mark.parametrize("shape", [(0,), (0, 2), (2, 0)])
def test_exclusive_cum_prod_of_an_empty_axis_matches_onnxruntime(shape: tuple[int, ...]) -> None:
    # Shifting the products by one read element 0 of the empty axis.
    x = np.zeros(shape, np.float32)
    axis = tensor(np.array(len(shape) - 1, np.int64))
    case = NodeCase("", "CumProd", 26, (tensor(x), axis), {"exclusive": 1})
    agrees_with_onnxruntime(case)


@pytest.mark.parametrize("sorted_", [0, 1])
@pytest.mark.parametrize(
    ("values", "axis"),
    [
        ([["b", "a"], ["a", "c"], ["b", "a"]], 0),
        ([["b", "a"], ["a", "c"], ["b", "a"]], 1),
        ([["b", "a", "b"], ["a", "c", "a"]], -1),
        (np.empty((0, 2), dtype=object), 1),
        (np.empty((0, 0), dtype=object), 0),
    ],
)
def test_unique_of_strings_along_an_axis_matches_onnxruntime(
    values: Any, axis: int, sorted_: int
) -> None:
    # numpy's unique cannot compare string slices along an axis.
    x = np.array(values, dtype=object)
    outputs = (True, True, True, True)
    case = NodeCase("", "Unique", 11, (tensor(x),), {"axis": axis, "sorted": sorted_}, outputs)
    agrees_with_onnxruntime(case)


# Types narrower than a byte: (width in bits, held sign-extended).
NARROW = {
    "int4": (4, True),
    "uint4": (4, False),
    "float4e2m1": (4, False),
    "int2": (2, True),
    "uint2": (2, False),
}


def narrow(name: str, bits: list[int]) -> np.ndarray:
    """Bit patterns of a type narrower than a byte, one per byte as onnxcraft holds them:
    sign-extended for the signed integer types."""
    width, signed = NARROW[name]
    held = [b - (1 << width) if signed and b >> (width - 1) else b for b in bits]
    storage = np.array(held, np.int8 if signed else np.uint8)
    return storage.view(numpy_dtype(ElementType[name.upper()]))


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("int4", "uint4"),
        ("int4", "float4e2m1"),
        ("uint4", "int4"),
        ("float4e2m1", "int4"),
        ("int2", "uint2"),
        ("uint2", "int2"),
    ],
)
def test_bit_cast_of_narrow_types_keeps_the_bit_pattern(source: str, target: str) -> None:
    # Found by the longer property run: the sign-extended byte of int4 -4 (0xFC) became a
    # float4e2m1 of pattern 252. onnxruntime has no BitCast for these types; the standard:
    # the same bits, read as the target type.
    width = NARROW[source][0]
    patterns = list(range(1 << width))
    case = NodeCase(
        "", "BitCast", 26, (tensor(narrow(source, patterns)),), {"to": ElementType[target.upper()]}
    )
    (got,) = evaluate_case(case)
    expected = narrow(target, patterns)
    assert got.dtype == expected.dtype
    assert got.view(np.uint8).tolist() == expected.view(np.uint8).tolist()
    assert problems(case) == []


# -- bad input: clear errors naming operator, argument, expected and received ---------------------

F32 = np.zeros(3, np.float32)
I64 = np.zeros(1, np.int64)


@pytest.mark.parametrize(
    ("op", "version", "inputs", "attrs", "message"),
    [
        (
            "ScatterElements",
            18,
            (np.zeros((2, 1)), np.zeros((1, 2), np.int64), np.zeros((1, 2))),
            {},
            r"ScatterElements: indices dim 1 must be <= data's \(1\) off axis 0, got 2",
        ),
        (
            "ScatterElements",
            18,
            (F32, I64, np.zeros(2, np.float32)),
            {},
            r"indices and updates must have the same shape, of data's rank 1; "
            r"got indices \[1\], updates \[2\]",
        ),
        (
            "ScatterND",
            18,
            (F32, I64.reshape(1, 1), np.zeros(2, np.float32)),
            {},
            r"ScatterND: updates must have shape \[1\], got \[2\]",
        ),
        (
            "ScatterND",
            18,
            (F32, np.array([[3]], np.int64), np.zeros(1, np.float32)),
            {},
            r"ScatterND: index \[3\] is out of range for data of shape \[3\]",
        ),
        (
            "BitCast",
            26,
            (F32,),
            {"to": int(ElementType.INT64)},
            r"BitCast: attribute 'to' must name a type as wide as the input's float "
            r"\(32 bits\), got int64 \(64 bits\)",
        ),
    ],
)
def test_bad_input_is_named(
    op: str, version: int, inputs: tuple[Any, ...], attrs: dict[str, Any], message: str
) -> None:
    case = NodeCase("", op, version, tuple(tensor(v) for v in inputs), attrs)
    with pytest.raises(EvaluationError, match=message):
        evaluate_case(case)


# -- found by the property test run with 100 examples per operator ----------------------------


@pytest.mark.parametrize("version", [11, 14])
def test_exclusive_cumsum_of_an_empty_axis_is_empty(version: int) -> None:
    data = np.zeros((1, 0, 2), np.int32)
    case = NodeCase("", "CumSum", version, (tensor(data), tensor(np.array(1))), {"exclusive": 1})
    compare_backends(case, onnxruntime, rtol=0, atol=0)
    assert evaluate_case(case)[0].shape == (1, 0, 2)


def test_prelu_slope_must_broadcast_to_x_without_growing_it() -> None:
    x = np.array([3.0, -1.0], np.float32)
    ok = NodeCase("", "PRelu", 9, (tensor(x), tensor(np.array([0.5], np.float32))))
    compare_backends(ok, onnxruntime)
    bad = NodeCase("", "PRelu", 9, (tensor(np.array([3.0])), tensor(np.zeros(0))))
    with pytest.raises(EvaluationError, match="PRelu: slope of shape \\[0\\] does not broadcast"):
        evaluate_case(bad)


@pytest.mark.parametrize("version", [11, 24])
def test_split_to_sequence_chunks_of_a_non_dividing_size_are_not_all_alike(version: int) -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    case = NodeCase(
        "", "SplitToSequence", version, (tensor(data), tensor(np.array(2))), {"axis": 1}
    )
    chunks = evaluate_case(case)[0]
    assert [c.shape for c in chunks] == [(2, 2), (2, 1)]  # the last chunk is shorter
    inferred = infer_case(case)[0]
    assert inferred is not None and inferred.elem.shape == (2, None)
    assert not problems(case)


@pytest.mark.parametrize(
    ("start", "end", "step"),
    [(-9223372036854775807, -9223372036854775807, -2), (-7, -7, -3), (-7, -6, -1), (5, -9, -2)],
)
def test_slice_clamps_a_negative_step_as_onnx_does_not_as_python(
    start: int, end: int, step: int
) -> None:
    """With a negative step a start before the first element is the first element."""
    data = np.arange(4, dtype=np.float32)
    known = tuple(  # initializers: inference sees the slice's arguments
        Input(np.array([v]), Tensor(ElementType.INT64, (1,)), constant=True)
        for v in (start, end, 0, step)
    )
    case = NodeCase("", "Slice", 13, (tensor(data), *known))
    compare_backends(case, onnxruntime, rtol=0, atol=0)
    inferred = infer_case(case)[0]
    assert isinstance(inferred, Tensor) and inferred.shape == evaluate_case(case)[0].shape


def test_split_num_outputs_agrees_with_its_rule() -> None:
    """Split-18 with num_outputs: the kernel takes ceil-sized parts like the rule (and
    onnxruntime), refuses a count that leaves a part nothing, and splits an empty axis."""
    x = oc.arg("X", np.float32, (None,))
    a, b, c = v18.Split(x, axis=0, num_outputs=3)
    model = oc.build([x], {"a": a, "b": b, "c": c})
    out = oc.evaluate(model, {"X": np.arange(5, dtype=np.float32)})
    assert [out[k].tolist() for k in "abc"] == [[0, 1], [2, 3], [4]]
    empty = oc.evaluate(model, {"X": np.zeros(0, np.float32)})
    assert [empty[k].shape for k in "abc"] == [(0,), (0,), (0,)]
    four = oc.build([x], dict(zip("abcd", v18.Split(x, axis=0, num_outputs=4))))
    with pytest.raises(EvaluationError, match="axis length 5 cannot be split into 4 outputs"):
        oc.evaluate(four, {"X": np.arange(5, dtype=np.float32)})


def test_an_empty_kernel_table_is_used_not_replaced_by_the_default() -> None:
    from onnxcraft.errors import MissingKernelError
    from onnxcraft.ops.kernel_api import KernelRegistry

    x = oc.arg("X", np.float32, (2,))
    model = oc.build([x], {"Y": v18.Neg(x)})
    with pytest.raises(MissingKernelError, match="Neg"):
        oc.Evaluator(model, kernels=KernelRegistry())


def test_an_output_no_node_produced_is_an_evaluation_error() -> None:
    # A Split naming three outputs with num_outputs=2 (found by fuzzing): the kernel gives two.
    import onnx.helper as h

    node = h.make_node("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=2)
    graph = h.make_graph(
        [node],
        "g",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [6])],
        [h.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in "abc"],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])
    with pytest.raises(EvaluationError, match=r"no node produced the output\(s\) \['c'\]"):
        oc.evaluate(model, {"x": np.arange(6, dtype=np.float32)})
