"""Rules of the training family (domain ai.onnx.preview.training): Adagrad, Adam, Momentum.

An optimizer's inputs are ``R, T`` and then groups of tensors, one tensor per optimized variable
in each group (``X.., G.., H..`` for Adagrad, ``X.., G.., V.., H..`` for Adam, ``X.., G.., V..``
for Momentum). Its outputs are the groups other than the gradients, updated: each output has the
type of the input it replaces. ``Gradient``'s rule is in ``infer/gradient.py``, beside its kernel.
"""

from __future__ import annotations

from collections.abc import Callable

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]

_DOMAIN = "ai.onnx.preview.training"
# Per optimizer, the input groups after R and T; the gradient group "G" has no output.
_GROUPS = {
    "Adagrad": ("X", "G", "H"),
    "Adam": ("X", "G", "V", "H"),
    "Momentum": ("X", "G", "V"),
}


def _conflict(a: Tensor, b: Tensor) -> bool:
    """True when two tensor types cannot describe the same tensor."""
    if a.elem_type is not None and b.elem_type is not None and a.elem_type != b.elem_type:
        return True
    if a.shape is None or b.shape is None:
        return False
    if len(a.shape) != len(b.shape):
        return True
    return any(
        isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(a.shape, b.shape)
    )


def _check_same_as_x(ctx: InferenceContext, names: tuple[str, ...], n: int, i: int) -> None:
    """The gradient and state of variable ``i`` must have the variable's type and shape."""
    x = ctx.tensor(2 + i)
    if x is None:
        return
    for group, name in enumerate(names[1:], start=1):
        other = ctx.tensor(2 + group * n + i)
        if other is not None and _conflict(x, other):
            raise ctx.fail(
                f"input {name}{i + 1} must have the type and shape of X{i + 1} ({x}), got {other}"
            )


def _updated_inputs(ctx: InferenceContext) -> list[ValueType | None]:
    names = _GROUPS[ctx.op.op_type]
    tensors = len(ctx.input_types) - 2
    if tensors <= 0 or tensors % len(names):
        raise ctx.fail(
            f"after R and T the inputs must be {len(names)} groups of equal size "
            f"({', '.join(names)}), got {max(tensors, 0)} tensors"
        )
    n = tensors // len(names)
    expected = n * (len(names) - 1)
    if ctx.num_outputs != expected:
        raise ctx.fail(
            f"{n} optimized tensor(s) need {expected} outputs "
            f"(the new {', '.join(x for x in names if x != 'G')}), got {ctx.num_outputs}"
        )
    for i in range(n):
        _check_same_as_x(ctx, names, n, i)
    result: list[ValueType | None] = []
    for group, name in enumerate(names):
        if name != "G":
            first = 2 + group * n
            result.extend(ctx.input_types[first : first + n])
    return result


def register(rules: RuleRegistry) -> None:
    rule: Callable[[InferenceContext], list[ValueType | None]] = _updated_inputs
    for op_type in _GROUPS:
        rules.add(op_type, rule, since=ALL_VERSIONS, domain=_DOMAIN)
