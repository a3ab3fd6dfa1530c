"""Constant folding: a node whose inputs are all small known values is computed by its kernel.

The value found becomes the output's known value (kept only when its shape and element type are
those inferred), so shapes computed from constants propagate exactly. Only deterministic
operators are folded, and only those whose attributes a kernel can receive from inference.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from onnxcraft.core.opinfo import OpInfo
from onnxcraft.dtypes import element_type_of
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.evaluate.plan import spec_default
from onnxcraft.ops.infer_api import VALUE_LIMIT, InferenceContext
from onnxcraft.ops.kernel_api import KernelContext
from onnxcraft.types import Tensor, ValueType

__all__ = ["fold"]

# Attribute kinds a kernel cannot receive from the inference side: such nodes are not folded.
_UNFOLDABLE_ATTRIBUTES = frozenset(
    {"GRAPH", "GRAPHS", "TYPE_PROTO", "TYPE_PROTOS", "SPARSE_TENSOR", "SPARSE_TENSORS"}
)


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


def fold(ctx: InferenceContext, types: list[ValueType | None], opset: int) -> None:
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
