"""Running the inference of one node: its rule, else its function body, else its type constraints.

After the rule, a node whose inputs all have known small values and whose rule gave no value
is folded: the evaluator's kernel computes its outputs, so values keep flowing (data
propagation) through operators whose rules only know shapes. A folded value is kept only when
it agrees with the inferred type; anything the kernel cannot do simply leaves the value unknown.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from onnxcraft.core import hooks
from onnxcraft.core.opinfo import OpInfo
from onnxcraft.dtypes import element_type_of
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.evaluate.plan import spec_default
from onnxcraft.infer.fallback import types_from_constraints
from onnxcraft.infer.rules import rule_for
from onnxcraft.ops.infer_api import VALUE_LIMIT, InferenceContext, SymbolicValue
from onnxcraft.ops.kernel_api import KernelContext
from onnxcraft.types import Tensor, ValueType

__all__ = ["BodyInference", "infer_types", "set_body_inference"]

# Attribute kinds a kernel cannot receive from the inference side: such nodes are not folded.
_UNFOLDABLE_ATTRIBUTES = frozenset(
    {"GRAPH", "GRAPHS", "TYPE_PROTO", "TYPE_PROTOS", "SPARSE_TENSOR", "SPARSE_TENSORS"}
)


BodyInference = Callable[
    [OpInfo, Sequence[ValueType | None], Sequence[Any], dict[str, Any], int],
    tuple[list[ValueType | None], dict[int, Any]] | None,
]

# Inference through an operator's function body walks a graph, which is the model walker's job
# (infer/model.py): it registers itself here when it loads, as `onnxcraft.infer` makes sure.
_through_body: BodyInference | None = None


def set_body_inference(infer: BodyInference) -> None:
    """Let operators without a rule be inferred through their function bodies."""
    global _through_body
    _through_body = infer


def infer_types(
    op: OpInfo,
    input_types: Sequence[ValueType | None],
    input_values: Sequence[Any],
    attributes: dict[str, Any],
    num_outputs: int,
    opset: int,
    bodies: dict[str, Any] | None = None,
    present: Sequence[bool] | None = None,
) -> tuple[list[ValueType | None], dict[int, Any]]:
    """Output types (None: unknown) and known output values of one node.

    ``present`` tells which inputs the node gives (an input may be given yet of unknown
    type); by default an input is present when its type or value is known.
    """
    rule = op.custom_rule if op.custom else rule_for(op)
    if rule is None:
        if not op.custom and _through_body is not None:
            found = _through_body(op, input_types, input_values, attributes, num_outputs)
            if found is not None:
                return found
        return types_from_constraints(op, input_types, num_outputs), {}
    ctx = InferenceContext(
        op, input_types, input_values, attributes, num_outputs, opset, bodies, present
    )
    types = rule(ctx)
    if type(types) is not list or len(types) != num_outputs:
        types = list(types)[:num_outputs]
        types.extend([None] * (num_outputs - len(types)))
    values = ctx.output_values
    if len(values) < num_outputs and input_values and _all_inputs_known(ctx):
        _fold(ctx, types, opset)
    return types, values


def _all_inputs_known(ctx: InferenceContext) -> bool:
    """Every given input has a known value (a missing optional input is fine)."""
    for i, value in enumerate(ctx.input_values):
        if value is None:
            if ctx.has_input(i):
                return False
        elif type(value) is SymbolicValue:
            return False
    return any(v is not None for v in ctx.input_values)


# The kernel entry (None: not folded) of each operator version met, decided once.
_fold_kernels: dict[OpInfo, Any] = {}


def _kernel(op: OpInfo) -> Any:
    """The evaluator's kernel entry of ``op`` when its nodes may be folded (memoized)."""
    if op.custom:
        return None  # no spec says it is deterministic; and each custom call has its own op
    cached = _fold_kernels.get(op, False)
    if cached is not False:
        return cached
    entry = None
    spec = op.spec
    deterministic = spec is not None and spec.deterministic
    kinds = {a.type for a in op.attributes.values()}
    if deterministic and not kinds & _UNFOLDABLE_ATTRIBUTES:
        entry = default_registry().lookup(op.domain, op.op_type, op.since_version)
    _fold_kernels[op] = entry
    return entry


def _static_small(t: ValueType | None) -> bool:
    if type(t) is not Tensor or t.elem_type is None or t.shape is None:
        return False
    size = 1
    for d in t.shape:
        if type(d) is not int:
            return False
        size *= d
    return size <= VALUE_LIMIT


def _fold(ctx: InferenceContext, types: list[ValueType | None], opset: int) -> None:
    """Compute the outputs of a node with known inputs through its kernel."""
    op = ctx.op
    if not all(_static_small(t) for t in types):
        return  # the output could be large, or its type is unknown: nothing to check it by
    entry = _kernel(op)
    if entry is None:
        return
    args = [ctx.value(i) for i in range(len(ctx.input_values))]
    if any(a is not None and a.size > VALUE_LIMIT for a in args):
        return
    kwargs = _kernel_attributes(op, ctx.attributes)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if entry.context:
                result = entry.fn(_kernel_context(ctx, opset), *args, **kwargs)
            else:
                result = entry.fn(*args, **kwargs)
    except Exception:  # the kernel cannot do it: the value stays unknown, the type stands
        return
    results = result if isinstance(result, tuple) else (result,)
    for i, (t, value) in enumerate(zip(types, results)):
        if i in ctx.output_values or not isinstance(value, np.ndarray):
            continue
        assert isinstance(t, Tensor)
        try:
            elem = element_type_of(value.dtype)
        except (TypeError, ValueError):
            continue
        if value.shape == t.shape and elem == t.elem_type:
            ctx.output_values[i] = value


def _kernel_attributes(op: OpInfo, attributes: dict[str, Any]) -> dict[str, Any]:
    """The node's attributes as kernels receive them: spec defaults filled in, lists."""
    result: dict[str, Any] = {}
    for name, value in attributes.items():
        result[name] = list(value) if isinstance(value, tuple) else value
    for name, info in op.attributes.items():
        if name not in result and info.default is not None:
            result[name] = spec_default(info.type, info.default)
    return result


def _kernel_context(ctx: InferenceContext, opset: int) -> Any:
    op = ctx.op
    elems = tuple(
        None if (e := ctx.elem(i)) is None else int(e) for i in range(len(ctx.input_types))
    )
    return KernelContext(
        op.domain,
        op.op_type,
        op.since_version,
        opset,
        ctx.num_outputs,
        (True,) * ctx.num_outputs,
        "",
        elems,
    )


# The DSL infers every operator call through this engine.
hooks.infer_types.fill(infer_types)
