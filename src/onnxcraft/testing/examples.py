"""Concrete drawn cases of an operator version, for use outside pytest.

``examples("TopK", 20, seed=1)`` draws 20 valid nodes with the operator's recipe (the same
hypothesis strategies as :func:`onnxcraft.testing.node_cases`, driven from a seed so the same
call gives the same cases) and hands each back as an :class:`Example`: the one-node model as
bytes, its feeds, and onnxcraft's outputs. :func:`backend_value` turns a value into the
representation another runtime takes (ml_dtypes arrays for bfloat16, float8 and int4 ...).
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from onnxcraft import specs
from onnxcraft.dtypes import ElementType, element_type_of, storage_dtype
from onnxcraft.errors import OnnxcraftError
from onnxcraft.evaluate.evaluator import Evaluator
from onnxcraft.io import model_ir
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import PREFERRED_ELEMENTS
from onnxcraft.proto.serde import model_to_proto
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing.harness import build_model, infer_case, type_of_value
from onnxcraft.testing.profile import Profile
from onnxcraft.testing.recipes import node_cases
from onnxcraft.types import Optional, Tensor, ValueType

__all__ = ["Example", "backend_value", "example_of", "examples", "optional_outputs", "typed_model"]


@dataclass(frozen=True, repr=False)
class Example:
    """One drawn node as a model a runtime can load.

    ``model`` is the serialized ModelProto (graph inputs ``in0``, ``in1`` ..., outputs
    ``out0`` ...), ``feeds`` its inputs in onnxcraft's representation, ``outputs`` the names of
    the graph outputs in order and ``expected`` onnxcraft's value of each (None with
    ``error`` set when onnxcraft's evaluator rejected the node).
    """

    case: NodeCase
    model: bytes
    feeds: dict[str, Any]
    outputs: tuple[str, ...]
    expected: tuple[Any, ...] | None
    error: str | None = None

    def __repr__(self) -> str:
        return f"<Example {self.case.describe()}>"

    def feeds_as(self, representation: str = "ml_dtypes") -> dict[str, Any]:
        """The feeds in ``representation``: "onnxcraft" or "ml_dtypes" (see backend_value)."""
        return {name: backend_value(v, representation) for name, v in self.feeds.items()}


def example_of(case: NodeCase, profile: Profile | None = None) -> Example:
    """``case`` as an :class:`Example`, its model of the profile's IR version.

    A graph input the recipe declared without a rank (to test inference) is declared with
    its rank here: onnx's checker wants one on every input of a model's main graph.
    """
    case = _ranked(case)
    model, feeds = build_model(case)
    if profile is not None:
        model.ir_version = profile.ir_version
        if "" not in (case.domain, "ai.onnx"):
            # the ai.onnx opset that bodies of other domains' operators use, within the profile
            model.opset_imports[""] = min(
                model.opset_imports.get("", 21), profile.opsets.get("", 21)
            )
    proto = model_to_proto(model)
    names = tuple(info.name for info in model.graph.outputs)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            results = Evaluator(proto).run(feeds)
    except OnnxcraftError as exc:
        return Example(
            case, proto.SerializeToString(), feeds, names, None, f"{type(exc).__name__}: {exc}"
        )
    return Example(case, proto.SerializeToString(), feeds, names, tuple(results[n] for n in names))


def _ranked(case: NodeCase) -> NodeCase:
    def ranked(item: Input | None) -> Input | None:
        if item is None or item.declared is None:
            return item
        declared = item.declared
        inner = declared.elem if isinstance(declared, Optional) else declared
        if isinstance(inner, Tensor) and inner.shape is None:
            return Input(item.value, item.type, item.constant)
        return item

    inputs = tuple(ranked(item) for item in case.inputs)
    captured = tuple(ranked(item) or item for item in case.captured)
    return dataclasses.replace(case, inputs=inputs, captured=captured)


def typed_model(example: Example, values: tuple[Any, ...] | None = None) -> bytes:
    """The example's model with each graph output typed as ``values`` (default: onnxcraft's
    outputs) are, as onnx's checker and node tests want; an output without a value stays
    untyped."""
    values = example.expected if values is None else values
    optional = optional_outputs(example.case)
    model = model_ir(example.model)
    inferred = _inferred_outputs(example.case)
    for index, info in enumerate(model.graph.outputs):
        value = None if values is None else values[index]
        if value is None or (isinstance(value, list) and not value):
            info.type = inferred[index] if index < len(inferred) else None  # nothing to see
            continue
        kind = type_of_value(value)
        info.type = Optional(kind) if index in optional else kind
    return bytes(model_to_proto(model).SerializeToString())


def _inferred_outputs(case: NodeCase) -> list[ValueType | None]:
    """The types onnxcraft infers for the graph's outputs, in order (empty if it cannot)."""
    try:
        inferred = infer_case(case)
    except OnnxcraftError:
        return []
    return [t for t, wanted in zip(inferred, case.outputs) if wanted]


def optional_outputs(case: NodeCase) -> set[int]:
    """Indices (among the graph's outputs) of the outputs inferred to be optionals."""
    return {i for i, t in enumerate(_inferred_outputs(case)) if isinstance(t, Optional)}


def examples(
    operator: OpSpec | str,
    n: int = 30,
    *,
    seed: int = 0,
    domain: str = "",
    opset: int | None = None,
    profile: Profile | None = None,
) -> list[Example]:
    """Up to ``n`` drawn examples of an operator version (an OpSpec, or the op_type of the
    version in force at ``opset`` of ``domain``, the newest when None).

    The same arguments give the same examples. Fewer than ``n`` come back when the operator
    has fewer distinct small cases, or when most drawn cases fall outside ``profile``.
    """
    spec = specs.get(operator, domain, opset) if isinstance(operator, str) else operator
    if not isinstance(spec, OpSpec):
        raise TypeError(f"examples: expected an OpSpec or an op_type string, got {operator!r}")
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"examples: n must be an int >= 0, got {n!r}")
    return [example_of(case, profile) for case in draw_cases(spec, n, seed=seed, profile=profile)]


def draw_cases(
    spec: OpSpec, n: int, *, seed: int = 0, profile: Profile | None = None
) -> list[NodeCase]:
    """Up to ``n`` cases of ``spec`` drawn by its recipe from ``seed`` (within ``profile``)."""
    strategy: st.SearchStrategy[NodeCase] = node_cases(spec)
    if profile is not None:
        strategy = strategy.filter(lambda case: profile.refusal(case) is None)
    drawn: list[NodeCase] = []
    if n == 0:
        return drawn

    @seeded(seed)
    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(case: NodeCase) -> None:
        drawn.append(case)

    token = PREFERRED_ELEMENTS.set(None if profile is None else profile.element_types)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # hypothesis' notes on filtered strategies
            collect()
    except Unsatisfiable:
        pass  # nothing drawn fits the profile: an empty list says so
    finally:
        PREFERRED_ELEMENTS.reset(token)
    return drawn[:n]


# -- values in a backend's representation ---------------------------------------------------------

_ML_DTYPE_NAMES = {
    ElementType.BFLOAT16: "bfloat16",
    ElementType.FLOAT8E4M3FN: "float8_e4m3fn",
    ElementType.FLOAT8E4M3FNUZ: "float8_e4m3fnuz",
    ElementType.FLOAT8E5M2: "float8_e5m2",
    ElementType.FLOAT8E5M2FNUZ: "float8_e5m2fnuz",
    ElementType.FLOAT8E8M0: "float8_e8m0fnu",
    ElementType.FLOAT4E2M1: "float4_e2m1fn",
    ElementType.FLOAT6E2M3: "float6_e2m3fn",
    ElementType.FLOAT6E3M2: "float6_e3m2fn",
    ElementType.INT4: "int4",
    ElementType.UINT4: "uint4",
    ElementType.INT2: "int2",
    ElementType.UINT2: "uint2",
}
_SMALL_INTEGERS = {ElementType.INT4, ElementType.UINT4, ElementType.INT2, ElementType.UINT2}


def _ml_dtypes() -> Any:
    """The ml_dtypes module when installed (onnx and onnxruntime users have it), else None."""
    try:
        return importlib.import_module("ml_dtypes")
    except ImportError:
        return None


def backend_value(value: Any, representation: str = "ml_dtypes") -> Any:
    """``value`` (onnxcraft's representation) as a runtime takes it.

    "ml_dtypes": arrays of bfloat16, the float8/6/4 types and int4/int2 become ml_dtypes arrays
    (when ml_dtypes is installed; else they stay as they are), map values that are scalars
    become plain Python numbers or strings; sequences are lists, an empty optional None.
    "onnxcraft": the value as it is.
    """
    if representation == "onnxcraft":
        return value
    if representation != "ml_dtypes":
        raise ValueError(
            f"backend_value: representation must be 'ml_dtypes' or 'onnxcraft', "
            f"got {representation!r}"
        )
    if isinstance(value, list):
        return [backend_value(v, representation) for v in value]
    if isinstance(value, dict):
        return {k: _plain(backend_value(v, representation)) for k, v in value.items()}
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.names is not None:
        return _as_ml_dtypes(np.asarray(value))
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0:
        return np.asarray(value).item()
    return value


def _as_ml_dtypes(array: np.ndarray) -> Any:
    module = _ml_dtypes()
    elem = element_type_of(array.dtype)
    if module is None or elem not in _ML_DTYPE_NAMES:
        return array
    target = np.dtype(getattr(module, _ML_DTYPE_NAMES[elem]))
    bits = array[array.dtype.names[0]] if array.dtype.names else array
    if elem in _SMALL_INTEGERS:
        return np.asarray(bits).astype(np.int64).astype(target)  # by value: ml keeps low bits
    return np.asarray(bits, order="C").astype(storage_dtype(elem), copy=False).view(target)
