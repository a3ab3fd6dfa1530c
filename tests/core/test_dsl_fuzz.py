"""Hostile input to the DSL's entry points: nothing but onnxcraft errors may come out.

Hypothesis drives ``oc.arg`` (names, dtypes, shapes of every kind), ``oc.const``, the Python
operators on Var (literal lifting, comparisons, indexing), ``Var.named``/``with_type``,
``oc.build`` (inputs, outputs and every option), ``oc.custom_op`` and a fixed sample of about
sixty generated operator functions with garbage: Vars of many types, arrays of every dtype,
Python scalars, None, strings, bytes, nested and ragged lists as inputs; values of every wrong
type, huge ints, bytes and NaN as attributes. An operator call that is accepted is also built
into a model (so serialized): what the DSL accepts must not fail later. A case may succeed or
raise an ``oc.OnnxcraftError``; any other exception fails the test, and so does a case that
runs longer than ``CASE_SECONDS`` (a hang).

The default run is small and deterministic (380 cases, a few seconds). A longer run
with fresh random draws is one environment variable away; it collects every failure instead
of stopping at the first and prints the counts (cases, clean errors, other exceptions):

    ONNXCRAFT_FUZZ_EXAMPLES=5000 python -m pytest -q -s tests/core/test_dsl_fuzz.py
"""

from __future__ import annotations

import inspect
import math
import os
import signal
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op

LONG_RUN = "ONNXCRAFT_FUZZ_EXAMPLES" in os.environ
EXAMPLES = int(os.environ.get("ONNXCRAFT_FUZZ_EXAMPLES", "0")) or None
CASE_SECONDS = 5.0

# About sixty operators: every input kind (variadic, optional, shape-like, string, sequence,
# optional types), every attribute type (ints, floats, strings, tensors, graphs, lists) and
# the operators whose output count is computed (Split, TopK, Loop, Scan, If).
OPERATORS = [
    "Abs",
    "Add",
    "And",
    "ArgMax",
    "AveragePool",
    "BatchNormalization",
    "BitShift",
    "Cast",
    "CastLike",
    "Clip",
    "Col2Im",
    "Concat",
    "ConcatFromSequence",
    "Constant",
    "ConstantOfShape",
    "Conv",
    "ConvTranspose",
    "CumSum",
    "DFT",
    "DepthToSpace",
    "DequantizeLinear",
    "Einsum",
    "Equal",
    "Expand",
    "EyeLike",
    "Flatten",
    "Gather",
    "GatherND",
    "Gemm",
    "GridSample",
    "GRU",
    "Identity",
    "If",
    "LayerNormalization",
    "Loop",
    "LSTM",
    "MatMul",
    "Max",
    "MaxPool",
    "Mod",
    "NonMaxSuppression",
    "OneHot",
    "Optional",
    "Pad",
    "QuantizeLinear",
    "RandomNormal",
    "Range",
    "ReduceSum",
    "RegexFullMatch",
    "Reshape",
    "Resize",
    "Scan",
    "SequenceAt",
    "SequenceConstruct",
    "SequenceInsert",
    "Slice",
    "Softmax",
    "Split",
    "SplitToSequence",
    "Squeeze",
    "STFT",
    "StringNormalizer",
    "StringSplit",
    "Tile",
    "TopK",
    "Transpose",
    "Trilu",
    "Unique",
    "Unsqueeze",
    "Where",
]

DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]


# -- running one case -----------------------------------------------------------------------------


class CaseTimeout(BaseException):
    """A case ran past CASE_SECONDS (a BaseException, so no ``except Exception`` hides it)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise CaseTimeout(f"a case ran longer than {CASE_SECONDS} s")


COUNTS: Counter[str] = Counter()
OTHERS: Counter[str] = Counter()  # "ExceptionType at file:line: message" -> count
SAMPLES: dict[str, str] = {}  # the same key -> a repr of one call that raised it


def run_case(call: Callable[[], Any], describe: Callable[[], str]) -> None:
    """Run one case under a timer; an error that is not an OnnxcraftError fails (or, in a
    long run, is counted)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    COUNTS["cases"] += 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's warnings on garbage values are not errors
            call()
        COUNTS["built"] += 1
    except oc.OnnxcraftError:
        COUNTS["clean errors"] += 1
    except (Exception, CaseTimeout) as exc:
        COUNTS["other"] += 1
        if not LONG_RUN:
            raise AssertionError(f"{describe()} raised {type(exc).__name__}: {exc}") from exc
        frames = traceback.extract_tb(exc.__traceback__)
        where = " < ".join(
            f"{os.path.basename(f.filename)}:{f.lineno}"
            for f in reversed(frames)
            if "onnxcraft" in f.filename
        )
        key = f"{type(exc).__name__} at {where}: {str(exc)[:120]}"
        OTHERS[key] += 1
        SAMPLES.setdefault(key, describe()[:300])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=EXAMPLES or examples,
        deadline=2000,
        derandomize=not LONG_RUN,
        database=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    if LONG_RUN:
        print(f"\nDSL fuzz: {dict(COUNTS)}")
        for key, count in OTHERS.most_common():
            print(f"  {count:6d}  {key}\n          e.g. {SAMPLES[key]}")
        assert not OTHERS, f"{sum(OTHERS.values())} non-onnxcraft exceptions (listed above)"


# -- garbage --------------------------------------------------------------------------------------

huge_ints = st.sampled_from([2**31, 2**63, -(2**63) - 1, 2**64, 10**30, -(10**30)])
odd_floats = st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e308, 5e-324, 0.1])
texts = st.sampled_from(
    ["", ",", "x", "float", "tensor(float)", "\x00", "é", "\ud800", "NOTSET", "1"]
)
blobs = st.sampled_from([b"", b"\xff\xfe", b"NOTSET", b"abc"])


@st.composite
def arrays(draw: st.DrawFn) -> np.ndarray:
    """Small arrays of every dtype, strings and bytes included, of rank 0 to 3."""
    shape = draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
    kind = draw(st.sampled_from([*DTYPES, "str", "bytes", "object", "datetime"]))
    size = int(np.prod(shape))
    if kind == "str":
        return np.array(draw(st.lists(texts, min_size=size, max_size=size)), dtype=str).reshape(
            shape
        )
    if kind == "bytes":
        return np.array(draw(st.lists(blobs, min_size=size, max_size=size)), dtype=bytes).reshape(
            shape
        )
    if kind == "object":
        return np.array([object()] * size, dtype=object).reshape(shape)
    if kind == "datetime":
        return np.zeros(shape, "datetime64[s]")
    values = draw(st.lists(st.integers(-3, 3) | odd_floats, min_size=size, max_size=size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(values, dtype=np.float64).astype(kind).reshape(shape)


def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.booleans(),
        st.integers(-5, 5),
        huge_ints,
        odd_floats,
        st.sampled_from([1 + 2j, complex(math.nan, 0)]),
        texts,
        blobs,
        st.none(),
        st.sampled_from([np.float32(1.5), np.int64(-1), np.uint8(7), np.bool_(True)]),
    )


def nested() -> st.SearchStrategy[Any]:
    """Nested and ragged lists and tuples of scalars."""
    return st.recursive(
        scalars(), lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner), max_leaves=6
    )


def value_types() -> st.SearchStrategy[Any]:
    return st.sampled_from(
        [
            oc.Tensor(np.float32, ("N", 3)),
            oc.Tensor(np.int64, None),
            oc.Tensor(None, None),
            oc.Sequence(oc.Tensor(np.float32, None)),
            oc.Optional(oc.Tensor(np.int64, (2,))),
            oc.Map(np.int64, oc.Tensor(np.float32, ())),
            oc.SparseTensor(np.float32, (2, 2)),
        ]
    )


def odd_objects() -> st.SearchStrategy[Any]:
    return st.sampled_from(
        [
            object(),
            {"a": 1},
            {1, 2},
            range(3),
            slice(1, 2),
            Ellipsis,
            np.float32,
            np.dtype("float32"),
            np.dtype([("a", np.int8)]),
            int,
            lambda: None,
            lambda *args: list(args),
            lambda *args: 1.0,
            lambda *args: [object()],
            oc.ElementType.FLOAT,
            oc.ElementType.UNDEFINED,
        ]
    )


@st.composite
def vars_(draw: st.DrawFn) -> oc.Var:
    """A graph input of a random tensor type (or a sequence, optional or map)."""
    name = f"V{draw(st.integers(0, 10**6))}"  # distinct names, so the call's model builds
    if draw(st.integers(0, 5)) == 0:
        return oc.arg(name, draw(value_types()))
    dtype = draw(st.sampled_from([*DTYPES, np.str_]))
    rank = draw(st.integers(0, 4) | st.none())
    shape = (
        None
        if rank is None
        else draw(st.lists(st.sampled_from([1, 2, 3, "N", None]), min_size=rank, max_size=rank))
    )
    return oc.arg(name, dtype, shape)


def inputs() -> st.SearchStrategy[Any]:
    return st.one_of(vars_(), vars_(), arrays(), scalars(), nested(), odd_objects())


def attribute_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        scalars(),
        nested(),
        arrays(),
        odd_objects(),
        value_types(),
        st.lists(huge_ints | texts | blobs | odd_floats, max_size=3),
    )


# -- the entry points -----------------------------------------------------------------------------


@st.composite
def shapes(draw: st.DrawFn) -> Any:
    dims = st.one_of(
        st.integers(-2, 4),
        huge_ints,
        texts,
        blobs,
        st.none(),
        odd_floats,
        st.booleans(),
        odd_objects(),
        st.just(np.int64(3)),
        st.just(np.float32(2.0)),
    )
    return draw(
        st.one_of(
            st.none(),
            st.lists(dims, max_size=4),
            st.lists(dims, max_size=4).map(tuple),
            dims,
            texts,
            blobs,
            arrays(),
            st.lists(st.lists(st.integers(0, 3), max_size=2), max_size=2),
        )
    )


names = st.one_of(texts, blobs, st.none(), st.integers(), odd_objects())
dtypes = st.one_of(
    st.sampled_from(
        [*DTYPES, np.str_, np.bytes_, np.object_, np.datetime64, float, int, bool, str]
    ),
    texts,
    blobs,
    st.integers(-2, 30),
    huge_ints,
    st.none(),
    value_types(),
    odd_objects(),
)


@fuzz_settings(80)
@given(name=names, dtype=dtypes, shape=shapes())
def test_arg(name: Any, dtype: Any, shape: Any) -> None:
    run_case(lambda: oc.arg(name, dtype, shape), lambda: f"oc.arg({name!r}, {dtype!r}, {shape!r})")


@fuzz_settings(40)
@given(value=st.one_of(arrays(), scalars(), nested(), odd_objects()), dtype=dtypes)
def test_const(value: Any, dtype: Any) -> None:
    run_case(lambda: oc.const(value, dtype), lambda: f"oc.const({value!r}, {dtype!r})")


VAR_OPERATIONS: dict[str, Callable[[oc.Var, Any], Any]] = {
    "x + v": lambda x, v: x + v,
    "v - x": lambda x, v: v - x,
    "x * v": lambda x, v: x * v,
    "x / v": lambda x, v: x / v,
    "x @ v": lambda x, v: x @ v,
    "x ** v": lambda x, v: x**v,
    "x == v": lambda x, v: x == v,
    "v != x": lambda x, v: v != x,
    "x < v": lambda x, v: x < v,
    "v >= x": lambda x, v: v >= x,
    "x & v": lambda x, v: x & v,
    "x ^ v": lambda x, v: x ^ v,
    "x[v]": lambda x, v: x[v],
    "x.named(v)": lambda x, v: x.named(v),
    "x.with_type(v)": lambda x, v: x.with_type(v),
    "bool(x)": lambda x, v: bool(x),
    "v in [x]": lambda x, v: v in [x],
}


@fuzz_settings(80)
@given(
    x=vars_(),
    operation=st.sampled_from(sorted(VAR_OPERATIONS)),
    value=st.one_of(inputs(), value_types(), st.tuples(scalars(), scalars()), st.slices(4)),
)
def test_var_operations(x: oc.Var, operation: str, value: Any) -> None:
    run_case(
        lambda: VAR_OPERATIONS[operation](x, value),
        lambda: f"{operation} with x={x!r}, v={value!r}",
    )


@fuzz_settings(40)
@given(
    inputs=st.one_of(st.lists(vars_() | scalars(), max_size=2), vars_(), scalars(), odd_objects()),
    outputs=st.one_of(
        st.dictionaries(texts | st.integers(), vars_() | scalars(), max_size=2),
        st.lists(vars_() | scalars(), max_size=2),
        vars_(),
        scalars(),
    ),
    options=st.dictionaries(
        st.sampled_from(["name", "opset", "ir_version", "metadata", "model_version", "domain"]),
        attribute_values() | st.dictionaries(texts | blobs, texts | st.integers(), max_size=2),
        max_size=3,
    ),
)
def test_build(inputs: Any, outputs: Any, options: dict[str, Any]) -> None:
    run_case(
        lambda: oc.build(inputs, outputs, **options),
        lambda: f"oc.build({inputs!r}, {outputs!r}, **{options!r})",
    )


@fuzz_settings(40)
@given(
    op_type=names,
    given=st.lists(inputs(), max_size=3),
    options=st.dictionaries(
        st.sampled_from(["domain", "version", "outputs", "infer"]), attribute_values(), max_size=3
    ),
    attributes=st.dictionaries(st.sampled_from(["alpha", "mode", "axes"]), attribute_values()),
)
def test_custom_op(
    op_type: Any, given: list[Any], options: dict[str, Any], attributes: dict[str, Any]
) -> None:
    options.setdefault("domain", "my.domain")
    run_case(
        lambda: oc.custom_op(op_type, *given, **options, **attributes),
        lambda: f"oc.custom_op({op_type!r}, *{given!r}, **{options!r}, **{attributes!r})",
    )


def _signature(name: str) -> tuple[int, int, bool, list[str]]:
    """(required and all positional inputs, variadic?, attribute names) of a generated
    operator function: calls stay within its Python signature (a missing positional argument
    is Python's own TypeError, before onnxcraft sees the call)."""
    params = inspect.signature(getattr(op, name)).parameters.values()
    positional = [p for p in params if p.kind == p.POSITIONAL_ONLY]
    required = sum(p.default is p.empty for p in positional)
    variadic = any(p.kind == p.VAR_POSITIONAL for p in params)
    attributes = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
    return required, len(positional), variadic, attributes


@st.composite
def operator_calls(draw: st.DrawFn) -> tuple[str, list[Any], dict[str, Any]]:
    name = draw(st.sampled_from(OPERATORS))
    required, positional, variadic, attributes = _signature(name)
    count = draw(st.integers(required, positional + (3 if variadic else 0)))
    given = [draw(inputs()) for _ in range(count)]
    chosen = (
        draw(st.lists(st.sampled_from(attributes), unique=True, max_size=3)) if attributes else []
    )
    return name, given, {a: draw(attribute_values()) for a in chosen}


@fuzz_settings(100)
@given(call=operator_calls())
def test_operators(call: tuple[str, list[Any], dict[str, Any]]) -> None:
    name, given, attributes = call
    run_case(
        lambda: _call_and_build(name, given, attributes),
        lambda: f"op.{name}(*{given!r}, **{attributes!r})",
    )


def _call_and_build(name: str, given: list[Any], attributes: dict[str, Any]) -> None:
    """Call the operator; when it accepts the call, build (and so serialize) its model too: a
    value it accepted must not fail later, when the model is written."""
    result = getattr(op, name)(*given, **attributes)
    outputs = [result] if isinstance(result, oc.Var) else list(result)
    inputs = list({id(v): v for v in given if isinstance(v, oc.Var)}.values())
    oc.build(inputs, {f"out{i}": v for i, v in enumerate(outputs)})


def test_the_operator_sample_exists_at_the_default_opset() -> None:
    missing = [name for name in OPERATORS if not hasattr(op, name)]
    assert not missing and len(OPERATORS) >= 60


# -- what the fuzzing found, each pinned ----------------------------------------------------------


def _x() -> oc.Var:
    return oc.arg("X", np.float32, ("N", 4))


def _i64() -> oc.Var:
    return oc.arg("I", np.int64, (2,))


FOUND: dict[str, tuple[Callable[[], Any], type[oc.OnnxcraftError], str]] = {
    "dtype numpy cannot parse (was SyntaxError)": (
        lambda: oc.arg("x", ",", None),
        oc.ArgumentError,
        r"arg 'x': dtype: expected a numpy dtype-like.*got ','",
    ),
    "shape that is an int (was TypeError)": (
        lambda: oc.arg("Z", np.float32, 5),
        oc.ArgumentError,
        r"arg 'Z': shape: expected a sequence of dims \(tuple or list\), got int 5",
    ),
    "dim beyond int64": (
        lambda: oc.arg("Z", np.float32, (2**63,)),
        oc.ArgumentError,
        r"dims must be between 0 and 2\*\*63-1, got 9223372036854775808",
    ),
    "element type number out of range (was ValueError)": (
        lambda: oc.const(1.0, dtype=2**64),
        oc.ArgumentError,
        r"const: dtype: expected a numpy dtype-like.*18446744073709551616",
    ),
    "bytes attribute that is not UTF-8 (was UnicodeDecodeError)": (
        lambda: op.AveragePool(_x(), kernel_shape=[2], auto_pad=b"\xff"),
        oc.OpAttributeError,
        r"AveragePool: attribute 'auto_pad' expects a str \(bytes must be UTF-8\)",
    ),
    "int attribute beyond int64 (was OverflowError when written)": (
        lambda: op.Split(_x(), axis=1, num_outputs=10**30),
        oc.OpAttributeError,
        r"Split: attribute 'num_outputs' expects an int within int64",
    ),
    "output count no model can have": (
        lambda: op.Split(_x(), axis=1, num_outputs=2**40),
        oc.OpInputError,
        r"Split: 1099511627776 outputs requested; at most 65536",
    ),
    "outputs_count that is not an int (was TypeError)": (
        lambda: op.Split(_x(), outputs_count=1.5),  # type: ignore[arg-type]
        oc.OpInputError,
        r"Split: outputs_count must be an int, got float 1.5",
    ),
    "float attribute beyond float32": (
        lambda: op.LeakyRelu(_x(), alpha=1e300),
        oc.OpAttributeError,
        r"LeakyRelu: attribute 'alpha' expects a float within float32's range",
    ),
    "dtype attribute numpy cannot parse (was SyntaxError)": (
        lambda: op.Cast(_x(), to=","),
        oc.OpAttributeError,
        r"Cast: attribute 'to' expects an int \(or a dtype-like for element types\)",
    ),
    "bytes literal into a float input (was ValueError)": (
        lambda: op.Add(_x(), np.array([b"a"])),
        oc.OpInputError,
        r"Add: input 'B' expects float, got strings",
    ),
    "uint64 literal that wraps in int64 (was a silent -1)": (
        lambda: op.Add(_i64(), np.array([2**64 - 1], np.uint64)),
        oc.OpInputError,
        r"Add: input 'B': literal \[18446744073709551615\] does not fit in int64",
    ),
    "complex literal into a real input (was a silent drop of the imaginary part)": (
        lambda: op.Add(_x(), np.array([1 + 2j])),
        oc.OpInputError,
        r"Add: input 'B' expects float, got a complex literal with an imaginary part",
    ),
    "datetime literal (was TypeError)": (
        lambda: op.Identity(np.zeros(2, "datetime64[s]")),
        oc.OpInputError,
        r"Identity: input 'input': numpy dtype datetime64\[s\] has no ONNX element type",
    ),
    "list mixing strings and numbers (numpy made them all strings)": (
        lambda: op.Identity(["a", 1]),
        oc.OpInputError,
        r"Identity: input 'input': a literal mixes strings and numbers: \['a', 1\]",
    ),
    "string literal UTF-8 cannot encode (failed when written)": (
        lambda: oc.build([], {"y": op.Identity(["\ud800"])}),
        oc.OpInputError,
        r"Identity: input 'input': the string '\\ud800' cannot be written to a model",
    ),
    "array as an index (was ValueError)": (
        lambda: _x()[np.array([], dtype=str)],
        oc.BuildError,
        r"x\[...\]: unsupported index",
    ),
    "name that UTF-8 cannot encode (failed when written)": (
        lambda: _x().named("\ud800"),
        oc.ArgumentError,
        r"named\(\): '\\ud800' cannot be written to a model \(it is not valid UTF-8\)",
    ),
    "build outputs that are not a mapping or list (was TypeError: not iterable)": (
        lambda: oc.build([], 3),
        oc.ArgumentError,
        r"build: outputs must be a dict of name to Var, a list of named Vars or a Var, got int",
    ),
    "build inputs that are not a list (was TypeError: not iterable)": (
        lambda: oc.build(None, {"y": _x()}),  # type: ignore[arg-type]
        oc.ArgumentError,
        r"build: inputs must be a list of Vars made with oc.arg, got NoneType",
    ),
    "build metadata that is not a dict (was AttributeError)": (
        lambda: oc.build([], {"y": _x()}, metadata=["a"]),  # type: ignore[arg-type]
        oc.ArgumentError,
        r"build: metadata must be a dict of str to str, got \['a'\]",
    ),
    "build opset that is not an int": (
        lambda: oc.build([], {"y": _x()}, opset="21"),  # type: ignore[arg-type]
        oc.ArgumentError,
        r"build: opset must be an int >= 1 .* got '21'",
    ),
}


@pytest.mark.parametrize("case", list(FOUND.values()), ids=list(FOUND))
def test_what_fuzzing_found(case: tuple[Callable[[], Any], type[Exception], str]) -> None:
    call, error, message = case
    with pytest.raises(error, match=message) as info:
        call()
    builtin = TypeError if isinstance(info.value, (oc.OpInputError, oc.ArgumentError)) else None
    assert builtin is None or isinstance(info.value, builtin)
