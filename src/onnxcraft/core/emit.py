"""The operator call path: every generated op function ends in :func:`emit`.

``emit`` checks the inputs against the spec (count, kinds, element types per type constraint),
lifts literals to typed constants, checks and normalizes attributes, traces graph attributes,
infers the output types and returns the output Vars. Errors are raised here, at the call that
caused them, naming the operator, the argument, what was expected and what was received.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxcraft.core import hooks, literals
from onnxcraft.core.attribute_bounds import (
    axis_problem,
    bounding_input,
    rank_of,
    value_problem,
)
from onnxcraft.core.attributes import infer_attribute_type, normalize_attribute
from onnxcraft.core.bodies import body_tracer, variadic_output_count
from onnxcraft.core.function_ref import AttrRef
from onnxcraft.core.opinfo import OPTIONAL, VARIADIC, FormalInfo, OpInfo, op_info
from onnxcraft.core.scope import current_scope
from onnxcraft.core.typestr import matches, type_to_string
from onnxcraft.core.var import NODE_OUTPUT, Body, OpCall, Var
from onnxcraft.dtypes import element_type_of
from onnxcraft.errors import InferenceError, OpAttributeError, OpInputError
from onnxcraft.optable import OpKey
from onnxcraft.types import Tensor, ValueType

__all__ = ["MAX_OUTPUTS", "REQUIRED", "emit", "emit_node"]


class _Required:
    """The default of required attributes in generated signatures."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()

# The most outputs one node may have: far beyond any real model, and a count from a typo
# (outputs_count=10**9, num_outputs=2**40) is refused before a Var is made for each.
MAX_OUTPUTS = 2**16


def emit(
    key: OpKey,
    opset: int,
    inputs: Sequence[Any],
    attributes: dict[str, Any],
    num_outputs: int | None = None,
) -> tuple[Var, ...]:
    """Emit one node of the standard operator ``key`` called from opset module ``opset``."""
    op = _OPS.get(key)
    if op is None:  # once per operator version: every later call is a dict lookup
        op = _OPS[key] = op_info(*key)
    return emit_node(op, opset, inputs, attributes, num_outputs)


_OPS: dict[OpKey, OpInfo] = {}  # (domain, op_type, since_version) -> its OpInfo


def emit_node(
    op: OpInfo,
    opset: int,
    inputs: Sequence[Any],
    attributes: dict[str, Any],
    num_outputs: int | None = None,
) -> tuple[Var, ...]:
    scope = current_scope()
    vars_ = _prepare_inputs(op, list(inputs), scope)
    attrs = (
        _prepare_attributes(op, attributes, vars_)
        if attributes or op.required_attributes
        else {}  # no attribute given and none required: nothing to check
    )
    outputs = op.outputs
    if num_outputs is None and not op.custom and outputs and outputs[-1].option != VARIADIC:
        count = len(outputs)  # a fixed number of outputs, none asked for: no checks to make
    else:
        count = _output_count(op, num_outputs, vars_, attrs)
    node = OpCall(op, vars_, attrs, opset, scope)
    types, values = _infer(op, node, count, opset)
    if count == 1:  # most operators: no loop
        node.outputs = (
            Var(types[0], kind=NODE_OUTPUT, producer=node, value=values.get(0), scope=scope),
        )
    else:
        node.outputs = tuple(
            Var(
                types[i], kind=NODE_OUTPUT, producer=node, index=i, value=values.get(i), scope=scope
            )
            for i in range(count)
        )
    return node.outputs


# -- inputs -------------------------------------------------------------------------------------


def _prepare_inputs(op: OpInfo, given: list[Any], scope: int) -> tuple[Var | None, ...]:
    while given and given[-1] is None:
        given.pop()
    name = op.op_type
    if op.custom:
        return tuple(_custom_input(name, i, v, scope) for i, v in enumerate(given))
    maximum = op.max_inputs
    if maximum is not None and len(given) > maximum:
        raise OpInputError(f"{name}: too many inputs: expected at most {maximum}, got {len(given)}")
    if len(given) < op.min_inputs:
        missing = [f.name for f in op.inputs if f.option != OPTIONAL][len(given) :]
        raise OpInputError(
            f"{name}: missing required input(s) {', '.join(repr(m) for m in missing)}: "
            f"expected at least {op.min_inputs} inputs, got {len(given)}"
        )

    # Pass 1: bind type parameters from the Var inputs, checking each against its constraint.
    bound: dict[str, ValueType] = {}
    bound_by: dict[str, str] = {}
    formals = op.inputs
    last = len(formals) - 1
    literal = False
    for i, value in enumerate(given):
        formal = formals[i] if i < last else formals[last]
        if value is None:
            if formal.option not in (OPTIONAL,):
                raise OpInputError(f"{name}: input {formal.name!r} is required, got None")
            continue
        if not isinstance(value, Var):
            if isinstance(value, AttrRef):
                raise OpInputError(
                    f"{name}: input {formal.name!r}: function attribute {value.name!r} is not a "
                    f"tensor; pass it to an operator attribute, or make it a function input"
                )
            if not literals.is_literal(value):
                raise OpInputError(
                    f"{name}: input {formal.name!r} expects a Var, a numpy array or a scalar, "
                    f"got {type(value).__name__}"
                )
            literal = True
            continue
        actual = value.type
        elems = formal.tensor_elems
        # The common case inline (a tensor of an allowed element type); the rest is checked
        # and explained by _check_allowed.
        if not (
            elems is not None
            and type(actual) is Tensor
            and (actual.elem_type is None or actual.elem_type in elems)
        ):
            _check_allowed(name, formal, actual)
        if formal.constraint is not None and actual is not None:
            if formal.constraint in bound:
                first = bound[formal.constraint]
                if actual is not first and (formal.homogeneous or formal.option != VARIADIC):
                    _check_same(
                        name,
                        formal,
                        actual,
                        first,
                        bound_by[formal.constraint],
                    )
            elif not (isinstance(actual, Tensor) and actual.elem_type is None):
                bound[formal.constraint] = actual
                bound_by[formal.constraint] = formal.name
    if not literal:  # every input a Var (or None): nothing to lift
        return tuple(given)

    # Pass 2: lift literals to constants of the bound (or their own) element type.
    result: list[Var | None] = []
    for i, value in enumerate(given):
        if value is None or isinstance(value, Var):
            result.append(value)
            continue
        formal = formals[i] if i < last else formals[last]
        result.append(_lift(name, formal, value, bound, bound_by, scope))
    return tuple(result)


def _check_allowed(op: str, formal: FormalInfo, actual: ValueType | None) -> None:
    if actual is None or not formal.allowed:
        return
    elems = formal.tensor_elems
    if elems is not None and type(actual) is Tensor:
        if actual.elem_type is None or actual.elem_type in elems:
            return
    elif any(matches(actual, allowed) for allowed in formal.allowed):
        return
    allowed = ", ".join(type_to_string(t) for t in formal.allowed)
    raise OpInputError(
        f"{op}: input {formal.name!r} has type {type_to_string(actual)}, expected one of "
        f"{{{allowed}}}" + (f" (type parameter {formal.constraint})" if formal.constraint else "")
    )


def _check_same(
    op: str, formal: FormalInfo, actual: ValueType, first: ValueType, first_name: str
) -> None:
    if actual != first and type_to_string(actual) != type_to_string(first):
        if isinstance(actual, Tensor) and actual.elem_type is None:
            return
        raise OpInputError(
            f"{op}: input {formal.name!r} has type {type_to_string(actual)} but input "
            f"{first_name!r} has {type_to_string(first)}; both are bound to type parameter "
            f"{formal.constraint} and must match (cast one with op.Cast)"
        )


def _lift(
    op: str,
    formal: FormalInfo,
    value: Any,
    bound: dict[str, ValueType],
    bound_by: dict[str, str],
    scope: int,
) -> Var:
    target_type = bound.get(formal.constraint) if formal.constraint is not None else None
    if type(value) is np.ndarray and isinstance(target_type, Tensor):
        # An array already of the bound element type's own dtype (Mul(y, weights)): the
        # checks and conversion below would return it as it is.
        elem = target_type.elem_type
        if elem is not None and literals.plain_elem(value.dtype) is elem:
            return literals.lift(value, elem, scope)
    array = literals.literal_array(op, formal.name, value)
    allowed = formal.tensor_elems or literals.allowed_elems(formal.allowed)
    if isinstance(target_type, Tensor) and target_type.elem_type is not None:
        elem = target_type.elem_type
    elif formal.constraint is None and len(allowed) == 1:
        elem = next(iter(allowed))
    else:
        from_python = not isinstance(value, (np.ndarray, np.generic))
        elem = literals.default_elem_type(array, from_python, allowed)
        if allowed and elem not in allowed:
            names = ", ".join(sorted(e.name.lower() for e in allowed))
            raise OpInputError(
                f"{op}: input {formal.name!r}: a literal of type {elem.name.lower()} is not "
                f"allowed, expected one of {{{names}}}"
            )
    converted = literals.convert(op, formal.name, array, elem)
    if formal.constraint is not None and formal.constraint not in bound:
        bound[formal.constraint] = Tensor(elem)
        bound_by[formal.constraint] = formal.name
    return literals.lift(converted, elem, scope)


def _custom_input(op: str, index: int, value: Any, scope: int) -> Var | None:
    if value is None or isinstance(value, Var):
        return value
    array = literals.literal_array(op, f"input_{index}", value)
    return literals.lift(array, element_type_of(array.dtype), scope)


# -- attributes ---------------------------------------------------------------------------------


def _prepare_attributes(
    op: OpInfo, given: dict[str, Any], inputs: tuple[Var | None, ...]
) -> dict[str, Any]:
    name = op.op_type
    result: dict[str, Any] = {}
    for attr_name, value in given.items():
        if value is None or value is REQUIRED:
            continue
        if isinstance(value, AttrRef):
            result[attr_name] = _reference(op, attr_name, value)
            continue
        info = op.attributes.get(attr_name)
        if info is None:
            if op.custom:
                attr_type = infer_attribute_type(name, attr_name, value)
                result[attr_name] = normalize_attribute(name, attr_name, attr_type, value, None)
                continue
            known = ", ".join(sorted(op.attributes)) or "none"
            raise OpAttributeError(
                f"{name}: unknown attribute {attr_name!r} (attributes of {op.qualified}: {known})"
            )
        tracer = None
        if info.type in ("GRAPH", "GRAPHS"):
            tracer = body_tracer(op, inputs, given)
        normalized = normalize_attribute(name, attr_name, info.type, value, tracer)
        if info.allowed:
            problem = value_problem(info, normalized)
            if problem is not None:
                raise OpAttributeError(f"{name}: {problem}")
        if info.default is not None and _equals_default(normalized, info.default):
            continue
        result[attr_name] = normalized
    for info in op.required_attributes:
        if info.name not in result:
            raise OpAttributeError(
                f"{name}: missing required attribute {info.name!r} (of type {info.type})"
            )
    if op.has_axis_attributes:
        _check_axes(op, result, inputs)
    return result


def _check_axes(op: OpInfo, attributes: dict[str, Any], inputs: tuple[Var | None, ...]) -> None:
    """Axis attributes within the rank of the input that bounds them, where it is known."""
    for attr_name, value in attributes.items():
        info = op.attributes.get(attr_name)
        index = None if info is None else bounding_input(op, info)
        if info is None or index is None or index >= len(inputs) or isinstance(value, AttrRef):
            continue
        var = inputs[index]
        rank = None if var is None else rank_of(var.type)
        if rank is None:
            continue
        problem = axis_problem(info, value, rank, op.defaults | attributes)
        if problem is not None:
            raise OpAttributeError(f"{op.op_type}: {problem}")


def _reference(op: OpInfo, attr_name: str, ref: AttrRef) -> AttrRef:
    """A function attribute passed on to an operator: checked with the traced call's value."""
    info = op.attributes.get(attr_name)
    if info is None and not op.custom:
        known = ", ".join(sorted(op.attributes)) or "none"
        raise OpAttributeError(
            f"{op.op_type}: unknown attribute {attr_name!r} (attributes: {known})"
        )
    if info is not None:
        value = normalize_attribute(op.op_type, attr_name, info.type, ref.value)
    else:
        kind = infer_attribute_type(op.op_type, attr_name, ref.value)
        value = normalize_attribute(op.op_type, attr_name, kind, ref.value)
    return AttrRef(ref.name, value)


def _equals_default(value: Any, default: Any) -> bool:
    if isinstance(value, np.ndarray) or isinstance(default, (dict, np.ndarray)):
        return False
    if isinstance(value, tuple) and isinstance(default, (list, tuple)):
        return tuple(value) == tuple(default)
    if isinstance(value, Body):
        return False
    return bool(value == default) and type(value) is type(default)


# -- outputs ------------------------------------------------------------------------------------


def _output_count(
    op: OpInfo, requested: int | None, inputs: tuple[Var | None, ...], attrs: dict[str, Any]
) -> int:
    outputs = op.outputs
    if op.custom:
        return len(outputs)
    if requested is not None and (
        not isinstance(requested, (int, np.integer)) or isinstance(requested, bool)
    ):
        raise OpInputError(
            f"{op.op_type}: outputs_count must be an int, got {type(requested).__name__} "
            f"{requested!r}"
        )
    variadic = bool(outputs) and outputs[-1].option == VARIADIC
    if not variadic:
        if requested is not None and requested > len(outputs):
            raise OpInputError(
                f"{op.op_type}: has {len(outputs)} outputs, cannot produce {requested}"
            )
        return len(outputs)
    if requested is None:
        requested = variadic_output_count(op, inputs, attrs)
    if requested is None:
        raise OpInputError(
            f"{op.op_type}: the number of outputs cannot be derived from the inputs; "
            f"pass outputs_count=N"
        )
    if requested < len(outputs) - 1 + outputs[-1].min_arity:
        raise OpInputError(f"{op.op_type}: outputs_count={requested} is too small")
    if requested > MAX_OUTPUTS:
        raise OpInputError(
            f"{op.op_type}: {requested} outputs requested; at most {MAX_OUTPUTS} are supported"
        )
    return int(requested)


def _infer(
    op: OpInfo, node: OpCall, count: int, opset: int
) -> tuple[list[ValueType | None], dict[int, Any]]:
    types: list[ValueType | None] = []
    values: list[Any] = []
    present: list[bool] = []
    for v in node.inputs:
        if v is None:
            types.append(None)
            values.append(None)
            present.append(False)
        else:
            types.append(v.type)
            values.append(v.value)
            present.append(True)
    attributes = node.attributes
    bodies: dict[str, list[ValueType | None]] = {}
    if attributes:
        bodies = {
            k: [v.type for v in b.outputs] for k, b in attributes.items() if isinstance(b, Body)
        }
        attributes = {k: (v.value if isinstance(v, AttrRef) else v) for k, v in attributes.items()}
    try:
        infer_types = hooks.infer_types.get()
        return infer_types(op, types, values, attributes, count, opset, bodies, present)
    except InferenceError:
        raise
    # A rule's own failure on odd input must still name the operator, as an onnxcraft error.
    except (ValueError, TypeError, LookupError, ArithmeticError, AttributeError) as exc:
        raise InferenceError(f"{op.op_type}: shape inference failed: {exc}") from exc
