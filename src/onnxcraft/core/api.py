"""Entry points of the DSL that are not operators: inputs, forced constants, ad hoc operators."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from onnxcraft.core import literals
from onnxcraft.core.emit import emit, emit_node
from onnxcraft.core.naming import check_name
from onnxcraft.core.opinfo import CustomRule, custom_op_info
from onnxcraft.core.scope import current_scope
from onnxcraft.core.var import ARG, Var
from onnxcraft.core.versions import DEFAULT_OPSET
from onnxcraft.dtypes import MAP_KEY_TYPES
from onnxcraft.errors import ArgumentError, BuildError
from onnxcraft.specs import resolve_since_version
from onnxcraft.types import (
    Map,
    Optional,
    SparseTensor,
    Tensor,
    ValueType,
    as_element_type,
    as_shape,
)
from onnxcraft.types import Sequence as SequenceType

__all__ = ["DEFAULT_OPSET", "arg", "const", "custom_op", "initializer"]

_TYPES = (Tensor, SparseTensor, SequenceType, Optional, Map)


def arg(name: str, dtype: Any = None, shape: Iterable[Any] | None = None) -> Var:
    """A graph input: ``arg("X", np.float32, ("N", 4))`` or ``arg("S", oc.Sequence(...))``.

    Dims are ints, str symbols or None (unknown); ``shape=None`` leaves the rank unknown.
    """
    check_name("arg: name", name)
    if isinstance(dtype, _TYPES):
        if shape is not None:
            raise ArgumentError(
                f"arg {name!r}: pass either a type ({dtype}) or a dtype and shape, not both"
            )
        _check_type(name, dtype)
        value_type: ValueType = dtype
    else:
        if dtype is None:
            raise ArgumentError(
                f"arg {name!r}: a dtype (e.g. np.float32) or a type (oc.Tensor(...)) is required"
            )
        what = f"arg {name!r}"
        value_type = Tensor(
            as_element_type(dtype, what=f"{what}: dtype"), as_shape(shape, what=f"{what}: shape")
        )
    if current_scope() != 0:
        raise BuildError(f"arg {name!r}: graph inputs cannot be created inside a subgraph body")
    return Var(value_type, kind=ARG, name=name)


def _check_type(name: str, value: Any) -> None:
    """Every part of a composite type is a type (or None, unknown); onnx.proto: a map's key
    type is an integral type or string."""
    if value is None or isinstance(value, (Tensor, SparseTensor)):
        return
    if isinstance(value, Map):
        if value.key not in MAP_KEY_TYPES:
            raise ArgumentError(
                f"arg {name!r}: a map key must be an integer type or string, got "
                f"{value.key.name.lower()} (in {value})"
            )
        _check_type(name, value.value)
    elif isinstance(value, (SequenceType, Optional)):
        _check_type(name, value.elem)
    else:
        raise ArgumentError(
            f"arg {name!r}: the element of a sequence, optional or map must be an onnxcraft "
            f"type (oc.Tensor, oc.Sequence, ...) or None, got {type(value).__name__} {value!r}"
        )


def const(value: Any, dtype: Any = None) -> Var:
    """A constant emitted as a Constant node (instead of an initializer)."""
    array = literals.literal_array("const", "value", value)
    if dtype is not None:
        elem = as_element_type(dtype, what="const: dtype")
        if elem is None:
            raise ArgumentError(f"const: dtype {dtype!r} is UNDEFINED: give an element type")
        array = literals.convert("const", "value", array, elem)
    since = resolve_since_version("", "Constant", DEFAULT_OPSET)
    assert since is not None
    return emit(("", "Constant", since), DEFAULT_OPSET, (), {"value": np.asarray(array)})[0]


def initializer(value: Any, dtype: Any = None) -> Var:
    """A constant stored as an initializer, as a Var: what a literal passed to an operator
    becomes, but a value of its own, which ``named()`` can name (a named initializer keeps its
    name and is never merged with an identical one). ``dtype`` converts the value first."""
    array = literals.literal_array("initializer", "value", value)
    if dtype is None:
        elem = literals.default_elem_type(array, False, frozenset())
    else:
        given = as_element_type(dtype, what="initializer: dtype")
        if given is None:
            raise ArgumentError(f"initializer: dtype {dtype!r} is UNDEFINED: give an element type")
        elem = given
        array = literals.convert("initializer", "value", array, elem)
    return literals.lift(array, elem, current_scope())


_INT64_MAX = 2**63 - 1
_MAX_CUSTOM_OUTPUTS = 2**16  # far beyond any real operator; keeps a typo from allocating


def _check_count(op_type: str, what: str, value: Any, maximum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentError(f"custom_op {op_type!r}: {what} must be an int, got {value!r}")
    if not 1 <= value <= maximum:
        raise ArgumentError(
            f"custom_op {op_type!r}: {what} must be between 1 and {maximum}, got {value}"
        )


def custom_op(
    op_type: str,
    *inputs: Any,
    domain: str,
    version: int = 1,
    outputs: int = 1,
    infer: Callable[[Sequence[ValueType | None], dict[str, Any]], Sequence[ValueType | None]]
    | None = None,
    **attributes: Any,
) -> tuple[Var, ...]:
    """Emit a node of any operator, e.g. one your runtime provides.

    ``infer`` optionally maps (input types, attributes) to the output types; without it the
    outputs' types are unknown. Attribute types follow from the Python values given.
    """
    if not isinstance(op_type, str) or not op_type:
        raise ArgumentError(f"custom_op: op_type must be a non-empty str, got {op_type!r}")
    if not isinstance(domain, str):
        raise ArgumentError(f"custom_op {op_type!r}: domain must be a str, got {domain!r}")
    if domain in ("", "ai.onnx"):
        raise BuildError(
            f"custom_op {op_type!r}: domain {domain!r} is the standard one; use the generated "
            f"opset modules (onnxcraft.opset.ai.onnx) for standard operators"
        )
    _check_count(op_type, "outputs", outputs, _MAX_CUSTOM_OUTPUTS)
    _check_count(op_type, "version", version, _INT64_MAX)
    if infer is not None and not callable(infer):
        raise ArgumentError(f"custom_op {op_type!r}: infer must be callable, got {infer!r}")
    rule: CustomRule | None = None
    if infer is not None:

        def rule(ctx: Any) -> Sequence[ValueType | None]:
            return infer(list(ctx.input_types), dict(ctx.attributes))

    op = custom_op_info(domain, op_type, len(inputs), outputs, since_version=version, rule=rule)
    return emit_node(op, version, inputs, attributes)
