"""One drawn node, run as a one-node model: evaluated, inferred and checked against itself.

A :class:`NodeCase` is the node a recipe (or your own strategy) draws: operator, input values,
attributes and which outputs are requested. :func:`build_model` turns it into an onnxcraft
model whose outputs are left untyped; :func:`check_case` then asserts that

- ``oc.check`` accepts the model (the drawn node is valid),
- the evaluator runs it, and every output has a type the operator's spec allows, consistent
  with the type parameters its inputs bind,
- ``oc.infer_shapes`` (strict) types every output without contradicting the evaluated value:
  element type, rank, every static dim, and every symbol bound by the inputs' declared shapes.

Unknown is allowed; wrong is not. :func:`compare_backends` runs the same model on another
backend (onnxruntime, your converter's target) and compares the values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from onnxcraft import ir, specs
from onnxcraft.core.check import check_ir
from onnxcraft.core.versions import LATEST_IR_VERSION
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.errors import MissingKernelError, OnnxcraftError
from onnxcraft.evaluate.evaluator import Evaluator
from onnxcraft.infer.model import infer_shapes
from onnxcraft.numerics import to_float32
from onnxcraft.ops.node_case import Input, NodeCase, describe_value
from onnxcraft.ops.strategies import parse_type
from onnxcraft.proto.serde import model_from_proto, model_to_proto
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = [
    "CaseFailure",
    "Input",
    "NodeCase",
    "build_model",
    "check_case",
    "compare_backends",
    "describe_value",
    "evaluate_case",
    "infer_case",
    "problems",
    "type_of_value",
]


class CaseFailure(AssertionError):
    """A drawn node on which the checker, the evaluator and the inference rules disagree."""


# -- the model ------------------------------------------------------------------------------------


def _attribute_kind(name: str, value: Any, spec_kinds: Mapping[str, str]) -> str:
    if name in spec_kinds:
        return spec_kinds[name]
    if isinstance(value, (bool, int, np.integer)):
        return "INT"
    if isinstance(value, float):
        return "FLOAT"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, np.ndarray):
        return "TENSOR"
    if isinstance(value, ir.Graph):
        return "GRAPH"
    if isinstance(value, (list, tuple)) and value:
        first = _attribute_kind(name, value[0], {})
        return first + "S"
    raise CaseFailure(f"attribute {name!r}: cannot tell the ONNX attribute type of {value!r}")


def _ir_attribute(name: str, kind: str, value: Any) -> ir.Attribute:
    if kind == "TENSOR":
        array = np.asarray(value)
        value = ir.TensorData.from_array("", array, element_type_of(array.dtype))
    elif kind == "TENSORS":
        value = [ir.TensorData.from_array("", a, element_type_of(a.dtype)) for a in value]
    elif kind in ("INTS", "FLOATS", "STRINGS"):
        value = list(value)
    return ir.Attribute(name, kind, value)


def build_model(case: NodeCase) -> tuple[ir.Model, dict[str, Any]]:
    """The one-node model of ``case`` (outputs untyped) and the feeds of its graph inputs."""
    spec_kinds = _spec_attribute_kinds(case)
    graph = ir.Graph(name=f"{case.op_type}_case")
    feeds: dict[str, Any] = {}
    input_names: list[str] = []
    for index, item in enumerate(case.inputs):
        if item is None:
            input_names.append("")
            continue
        name = f"in{index}"
        input_names.append(name)
        _add_input(graph, feeds, name, item)
    for index, item in enumerate(case.captured):
        _add_input(graph, feeds, f"cap{index}", item)
    while input_names and not input_names[-1]:
        input_names.pop()  # trailing omitted inputs are simply not written
    output_names = [f"out{i}" if wanted else "" for i, wanted in enumerate(case.outputs)]
    while output_names and not output_names[-1]:
        output_names.pop()
    attributes = [
        _ir_attribute(name, _attribute_kind(name, value, spec_kinds), value)
        for name, value in sorted(case.attributes.items())
    ]
    graph.nodes.append(
        ir.Node(case.op_type, input_names, output_names, case.domain, "node", attributes)
    )
    graph.outputs.extend(ir.ValueInfo(name) for name in output_names if name)
    opsets = {case.domain: case.model_opset}
    opsets.setdefault("", 21)  # bodies and function bodies of other domains use ai.onnx
    return ir.Model(graph, opsets, ir_version=LATEST_IR_VERSION), feeds


def _add_input(graph: ir.Graph, feeds: dict[str, Any], name: str, item: Input) -> None:
    """A graph input (fed) or, for a constant, an initializer."""
    if item.constant:
        array = np.asarray(item.value)
        graph.initializers.append(
            ir.TensorData.from_array(name, array, element_type_of(array.dtype))
        )
    else:
        graph.inputs.append(ir.ValueInfo(name, item.declared_type))
        feeds[name] = item.value


def _spec_attribute_kinds(case: NodeCase) -> dict[str, str]:
    if not specs.is_standard_domain(case.domain):
        return {}
    try:
        spec = specs.get(case.op_type, case.domain, case.model_opset)
    except OnnxcraftError:
        return {}
    return {a.name: a.type for a in spec.attributes}


def _to_proto(model: ir.Model) -> Any:
    return model_to_proto(model)


# -- running --------------------------------------------------------------------------------------


def evaluate_case(case: NodeCase) -> list[Any]:
    """The evaluator's value of every output of the node, in order (None where not requested)."""
    model, feeds = build_model(case)
    results = Evaluator(_to_proto(model)).run(feeds)
    return [results.get(f"out{i}") if wanted else None for i, wanted in enumerate(case.outputs)]


def infer_case(case: NodeCase) -> list[ValueType | None]:
    """The type ``oc.infer_shapes`` (strict) gives every output, in order."""
    model, _ = build_model(case)
    inferred = model_from_proto(infer_shapes(_to_proto(model), strict=True))
    types = {info.name: info.type for info in inferred.graph.outputs}
    return [types.get(f"out{i}") if wanted else None for i, wanted in enumerate(case.outputs)]


def problems(case: NodeCase) -> list[str]:
    """Every disagreement found on ``case`` (empty when checker, kernel and rule agree)."""
    values, found = _evaluated(case)
    inferred, inference_problems = _inferred(case)
    found.extend(inference_problems)
    found.extend(f"oc.check rejects the node: {p}" for p in _check(case, values, inferred))
    if values is None or inferred is None:
        return found
    found.extend(_spec_type_problems(case, values))
    bindings = _symbol_bindings(case)
    fresh: dict[str, int] = {}
    for index, (wanted, value, inferred_type) in enumerate(zip(case.outputs, values, inferred)):
        if wanted:
            found.extend(_contradictions(f"output {index}", inferred_type, value, bindings, fresh))
    return found


def _evaluated(case: NodeCase) -> tuple[list[Any] | None, list[str]]:
    try:
        return evaluate_case(case), []
    except MissingKernelError as exc:
        return None, [f"no kernel: {exc}"]
    except OnnxcraftError as exc:
        return None, [f"the evaluator rejects a valid node: {type(exc).__name__}: {exc}"]
    except Exception as exc:  # a crash, not an onnxcraft error: always a bug
        return None, [f"the evaluator crashes: {type(exc).__name__}: {exc}"]


def _inferred(case: NodeCase) -> tuple[list[ValueType | None] | None, list[str]]:
    try:
        return infer_case(case), []
    except OnnxcraftError as exc:
        return None, [f"inference fails on a valid node: {type(exc).__name__}: {exc}"]
    except Exception as exc:
        return None, [f"inference crashes: {type(exc).__name__}: {exc}"]


def _check(
    case: NodeCase, values: list[Any] | None, inferred: list[ValueType | None] | None
) -> list[str]:
    """``oc.check``'s problems with the node, in a model whose inputs and outputs are typed
    as the values are.

    The declared input types of the case (rank hidden, dims unknown) test inference; the
    node's validity is checked with the exact types, since the IR wants a rank on every main
    graph input and output. An output's kind (optional or not) and, for an empty optional or
    sequence, its element type come from inference; outputs neither typed are left out.
    """
    exact = NodeCase(
        case.domain,
        case.op_type,
        case.since_version,
        tuple(None if i is None else _exactly_declared(i) for i in case.inputs),
        case.attributes,
        case.outputs,
        case.opset,
        tuple(_exactly_declared(i) for i in case.captured),
    )
    model, _ = build_model(exact)
    count = len(case.outputs)
    values = values if values is not None else [None] * count
    inferred = inferred if inferred is not None else [None] * count
    types = {f"out{i}": _checked_type(v, t) for i, (v, t) in enumerate(zip(values, inferred))}
    for info in model.graph.outputs:
        info.type = types.get(info.name)
    model.graph.outputs = [o for o in model.graph.outputs if o.type is not None]
    if not model.graph.outputs:
        return []
    return check_ir(model)


def _exactly_declared(item: Input) -> Input:
    return Input(item.value, item.type, item.constant)


def _checked_type(value: Any, inferred: ValueType | None) -> ValueType | None:
    """The type to declare for an output holding ``value`` (None: leave it out)."""
    if value is None or (isinstance(value, list) and not value):
        known = isinstance(inferred, Tensor) and inferred.shape is not None
        return inferred if known or not isinstance(inferred, Tensor) else None
    actual = type_of_value(value)
    return Optional(actual) if isinstance(inferred, Optional) else actual


def check_case(case: NodeCase) -> None:
    """Raise :class:`CaseFailure` describing the case and every problem :func:`problems` finds."""
    found = problems(case)
    if found:
        listed = "\n".join(f"- {p}" for p in found)
        raise CaseFailure(f"{case.describe()}\n{listed}")


def compare_backends(
    case: NodeCase,
    run: Callable[[Any, dict[str, Any]], Mapping[str, Any] | list[Any]],
    *,
    rtol: float = 1e-4,
    atol: float = 1e-6,
) -> None:
    """Compare onnxcraft's evaluator with another backend on ``case``'s model.

    ``run(model_proto, feeds)`` returns the outputs as a dict by name or a list in order; only
    tensor outputs are compared (floats with ``rtol``/``atol``, other types exactly).
    """
    model, feeds = build_model(case)
    expected = evaluate_case(case)
    got = run(_to_proto(model), feeds)
    names = [f"out{i}" for i, wanted in enumerate(case.outputs) if wanted]
    if isinstance(got, Mapping):
        missing = [n for n in names if n not in got]
        if missing:
            raise CaseFailure(f"{case.describe()}\n- the backend returned no {missing}")
        listed = [got[n] for n in names]
    else:
        listed = list(got)
    wanted_values = [v for v, wanted in zip(expected, case.outputs) if wanted]
    if len(listed) != len(wanted_values):
        raise CaseFailure(
            f"{case.describe()}\n- the backend returned {len(listed)} outputs, "
            f"expected {len(wanted_values)}"
        )
    for index, (mine, theirs) in enumerate(zip(wanted_values, listed)):
        _compare_arrays(case, index, mine, theirs, rtol, atol)


def _compare_arrays(
    case: NodeCase, index: int, mine: Any, theirs: Any, rtol: float, atol: float
) -> None:
    if not isinstance(mine, np.ndarray):
        return
    theirs = np.asarray(theirs)
    where = f"{case.describe()}\n- output {index}"
    if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
        raise CaseFailure(f"{where}: {describe_value(mine)} vs backend {describe_value(theirs)}")
    if mine.dtype.names is not None:
        mine, theirs = to_float32(mine), to_float32(theirs)
    if mine.dtype.kind in "fc":
        np.testing.assert_allclose(
            mine, theirs, rtol=rtol, atol=atol, equal_nan=True, err_msg=where
        )
    else:
        np.testing.assert_array_equal(mine, theirs, err_msg=where)


# -- what a value is, and whether a type describes it ---------------------------------------------


def type_of_value(value: Any) -> ValueType | None:
    """The exact type of a value (None for an empty optional, unknown elements of empties)."""
    if value is None:
        return None
    if isinstance(value, list):
        return Sequence(type_of_value(value[0]) if value else None)
    if isinstance(value, dict):
        key = ElementType.STRING if any(isinstance(k, str) for k in value) else ElementType.INT64
        first = next(iter(value.values()), None)
        return Map(key, None if first is None else type_of_value(first))
    array = np.asarray(value)
    return Tensor(element_type_of(array.dtype), array.shape)


def _value_matches(value: Any, allowed: ValueType) -> bool:
    """True if ``value`` is a value of type ``allowed`` (shapes ignored)."""
    if isinstance(allowed, Optional):
        return value is None or _value_matches(value, allowed.elem or Tensor())
    if isinstance(allowed, Sequence):
        return isinstance(value, list) and all(
            _value_matches(v, allowed.elem or Tensor()) for v in value
        )
    if isinstance(allowed, Map):
        if not isinstance(value, dict):
            return False
        key_ok = all(
            isinstance(k, str) if allowed.key == ElementType.STRING else isinstance(k, int)
            for k in value
        )
        return key_ok and all(_value_matches(v, allowed.value or Tensor()) for v in value.values())
    if isinstance(allowed, (Tensor, SparseTensor)):
        if not isinstance(value, (np.ndarray, np.generic)):
            return False
        return allowed.elem_type is None or element_type_of(value.dtype) == allowed.elem_type
    return False


def _strip(value: ValueType | None) -> ValueType | None:
    if isinstance(value, Tensor):
        return Tensor(value.elem_type, None)
    if isinstance(value, Sequence):
        return Sequence(_strip(value.elem))
    if isinstance(value, Optional):
        return Optional(_strip(value.elem))
    if isinstance(value, Map):
        return Map(value.key, _strip(value.value))
    return value


def _formal_inputs(spec: Any, count: int) -> Iterator[tuple[int, Any]]:
    """(input index, formal) for ``count`` inputs: a variadic last formal takes the rest."""
    formals = spec.inputs
    for index in range(count):
        if not formals:
            return
        yield index, formals[min(index, len(formals) - 1)]


def _spec_type_problems(case: NodeCase, values: list[Any]) -> list[str]:
    """Outputs whose type the spec does not allow, or that break a type parameter's binding."""
    if not specs.is_standard_domain(case.domain):
        return []
    spec = specs.get(case.op_type, case.domain, case.model_opset)
    allowed = {c.name: c.allowed for c in spec.type_constraints}
    bound: dict[str, ValueType | None] = {}
    for index, formal in _formal_inputs(spec, len(case.inputs)):
        item = case.inputs[index]
        heterogeneous = formal.option == "variadic" and not formal.homogeneous
        if item is not None and formal.type_str in allowed and not heterogeneous:
            bound.setdefault(formal.type_str, _strip(item.type))
    found: list[str] = []
    for index, value in enumerate(values):
        if not case.outputs[index] or not spec.outputs:
            continue
        formal = spec.outputs[min(index, len(spec.outputs) - 1)]
        strings = allowed.get(formal.type_str, (formal.type_str,))
        if not any(_value_matches(value, parse_type(s)) for s in strings):
            found.append(
                f"output {index}: {describe_value(value)} is not a type {formal.type_str} "
                f"allows ({', '.join(strings)})"
            )
            continue
        heterogeneous = formal.option == "variadic" and not formal.homogeneous
        want = bound.get(formal.type_str)
        if want is not None and not heterogeneous and not _value_matches(value, want):
            found.append(
                f"output {index}: {describe_value(value)}, but the inputs bind "
                f"{formal.type_str} to {want}"
            )
    return found


# -- inferred types against values ----------------------------------------------------------------


def _symbol_bindings(case: NodeCase) -> dict[str, int]:
    """Symbol -> the actual dim it stands for, from the declared shapes of the graph inputs."""
    bindings: dict[str, int] = {}
    for item in (*case.inputs, *case.captured):
        if item is not None and not item.constant:
            _bind(item.declared_type, item.value, bindings)
    return bindings


def _bind(declared: ValueType | None, value: Any, bindings: dict[str, int]) -> None:
    if isinstance(declared, Tensor) and declared.shape is not None and value is not None:
        for dim, actual in zip(declared.shape, np.shape(value)):
            if isinstance(dim, str):
                bindings[dim] = int(actual)
    elif isinstance(declared, Sequence) and isinstance(value, list):
        for item in value:
            _bind(declared.elem, item, bindings)
    elif isinstance(declared, Optional) and value is not None:
        _bind(declared.elem, value, bindings)


def _contradictions(
    where: str,
    inferred: ValueType | None,
    value: Any,
    bindings: dict[str, int],
    fresh: dict[str, int],
) -> list[str]:
    if inferred is None:
        return []
    if isinstance(inferred, Optional):
        if value is None:
            return []
        return _contradictions(where, inferred.elem, value, bindings, fresh)
    if isinstance(inferred, Sequence):
        if not isinstance(value, list):
            return [f"{where}: inferred {inferred}, got {describe_value(value)}"]
        found: list[str] = []
        for index, item in enumerate(value):
            found.extend(_contradictions(f"{where}[{index}]", inferred.elem, item, bindings, fresh))
        return found
    if isinstance(inferred, Map):
        if not isinstance(value, dict):
            return [f"{where}: inferred {inferred}, got {describe_value(value)}"]
        return []
    if isinstance(inferred, Tensor):
        return _tensor_contradictions(where, inferred, value, bindings, fresh)
    return []


def _tensor_contradictions(
    where: str, inferred: Tensor, value: Any, bindings: dict[str, int], fresh: dict[str, int]
) -> list[str]:
    if not isinstance(value, (np.ndarray, np.generic)):
        return [f"{where}: inferred {inferred}, got {describe_value(value)}"]
    got = f"got {describe_value(value)}"
    found: list[str] = []
    if inferred.elem_type is not None and element_type_of(value.dtype) != inferred.elem_type:
        found.append(f"{where}: inferred {inferred}, {got} (element type differs)")
    if inferred.shape is None:
        return found
    shape = np.shape(value)
    if len(inferred.shape) != len(shape):
        return [*found, f"{where}: inferred {inferred}, {got} (rank differs)"]
    for axis, (dim, actual) in enumerate(zip(inferred.shape, shape)):
        if isinstance(dim, int) and dim != actual:
            found.append(f"{where}: inferred {inferred}, {got} (dim {axis} differs)")
        elif isinstance(dim, str) and dim in bindings and bindings[dim] != actual:
            found.append(
                f"{where}: inferred {inferred}, {got} (dim {axis} is symbol {dim!r}, which the "
                f"inputs bind to {bindings[dim]})"
            )
        elif (
            isinstance(dim, str)
            and dim not in bindings
            and fresh.setdefault(dim, int(actual)) != actual
        ):
            found.append(
                f"{where}: inferred {inferred}, {got} (symbol {dim!r} stands for "
                f"{fresh[dim]} elsewhere)"
            )
    return found
