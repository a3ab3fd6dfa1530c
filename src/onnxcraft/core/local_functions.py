"""The model-local functions a model carries: collected from the calls, told apart by content.

A definition is anything with ``to_ir()`` returning its :class:`onnxcraft.ir.Function` and the
definitions of the functions it calls: an ``@oc.function`` or a function carried over by
``oc.inline``. A model holds one function per (domain, name); two definitions of one key are
the same function when their bodies, and the functions those call, are the same.
"""

from __future__ import annotations

from typing import Any

from onnxcraft.core.constants import content_key
from onnxcraft.errors import BuildError
from onnxcraft.ir import Attribute, Function, Graph, Node, TensorData

__all__ = ["FunctionKey", "collect_functions", "ir_key", "register_function"]

FunctionKey = tuple[str, str]  # (domain, name)


def collect_functions(definitions: dict[FunctionKey, Any]) -> list[Function]:
    """The functions of ``definitions`` and every function they call, sorted by key."""
    done: dict[FunctionKey, Function] = {}
    every = dict(definitions)  # what each key stands for, to catch clashes
    pending = dict(definitions)
    while pending:
        key = min(pending)
        function, nested = pending.pop(key).to_ir()
        done[key] = function
        for nested_key, nested_def in nested.items():
            register_function(every, nested_key, nested_def)
            if nested_key not in done:
                pending[nested_key] = every[nested_key]
    return [done[k] for k in sorted(done)]


def register_function(known: dict[FunctionKey, Any], key: FunctionKey, definition: Any) -> None:
    """Record the definition of function ``key``; two different bodies of one key clash."""
    first = known.setdefault(key, definition)
    if first is definition:
        return
    if _definition_key(first, key) != _definition_key(definition, key):
        raise BuildError(
            f"build: two different functions are named {key[0]}::{key[1]} (from @oc.function "
            f"or inlined models; their bodies or the functions they call differ); a model "
            f"holds one function per domain and name: rename one"
        )


def _definition_key(
    definition: Any, key: FunctionKey, visiting: frozenset[FunctionKey] = frozenset()
) -> tuple[Any, ...]:
    """The content of a function definition and of the functions it calls (computed once).

    The callees count: two models may carry the same body calling different helpers.
    """
    cached: tuple[Any, ...] | None = getattr(definition, "content_key", None)
    if cached is not None:
        return cached
    function, nested = definition.to_ir()
    inner = visiting | {key}
    callees = tuple(
        (k, ("recursive",) if k in inner else _definition_key(d, k, inner))
        for k, d in sorted(nested.items())
    )
    cached = (
        tuple(function.inputs),
        tuple(function.outputs),
        tuple(function.attributes),
        tuple(ir_key(a) for a in function.attribute_defaults),
        tuple(ir_key(n) for n in function.nodes),
        callees,
    )
    definition.content_key = cached
    return cached


def ir_key(value: Any) -> Any:
    """A hashable, comparable rendering of an IR value (nodes, attributes, graphs, tensors)."""
    if isinstance(value, Node):
        attributes = tuple(ir_key(a) for a in value.attributes)
        return (value.op_type, value.domain, tuple(value.inputs), tuple(value.outputs), attributes)
    if isinstance(value, Attribute):
        return (value.name, value.type, value.ref, ir_key(value.value))
    if isinstance(value, Graph):
        infos = [*value.inputs, *value.outputs, *value.value_info]
        return (
            value.name,
            tuple((i.name, str(i.type)) for i in infos),
            tuple(ir_key(n) for n in value.nodes),
            tuple(ir_key(t) for t in value.initializers),
        )
    if isinstance(value, TensorData):
        array = value.array()
        return (value.name, value.elem_type, value.dims, content_key(array, value.elem_type))
    if isinstance(value, (list, tuple)):
        return tuple(ir_key(v) for v in value)
    return repr(value)
