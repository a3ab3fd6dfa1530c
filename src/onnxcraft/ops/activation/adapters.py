"""Version adapters of the activations: Softmax's axis semantics (13), Clip's bounds (11)."""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import ABSENT, AdapterContext, AdapterRegistry, nonnegative_axes

_FLT_MAX = float(np.finfo(np.float32).max)
_SOFTMAX = ("Softmax", "LogSoftmax", "Hardmax")


def _softmax_up(ctx: AdapterContext) -> None:
    """11 -> 13: version 11 flattens the input to 2-D at ``axis`` (default 1) and normalizes
    over everything after it; version 13 normalizes over the one ``axis`` (default -1). The
    same when ``axis`` is the last axis; otherwise Flatten, the operator, Reshape back."""
    axis = int(ctx.attr("axis", 1))
    name = ctx.input(0)
    rank = ctx.rank(name)
    if rank is not None and axis < 0:
        axis += rank
    if rank is not None and axis == rank - 1:
        ctx.set_attr("axis", "INT", -1)
        return
    if rank is not None and rank == 0:
        ctx.set_attr("axis", "INT", -1)
        return
    op = ctx.node.op_type
    (flat,) = ctx.emit("Flatten", [name], 1, {"axis": ("INT", axis)}, opset=13)
    (shape,) = ctx.emit("Shape", [name], 1, opset=13)
    (result,) = ctx.emit(op, [flat], 1, {"axis": ("INT", -1)}, opset=13)
    ctx.emit("Reshape", [result, shape], list(ctx.node.outputs), opset=13)
    ctx.remove()


def _softmax_down(ctx: AdapterContext) -> None:
    """13 -> 11: the same when ``axis`` is the last axis (rank known); otherwise Transpose the
    axis last, apply, Transpose back."""
    axis = int(ctx.attr("axis", -1))
    name = ctx.input(0)
    rank = ctx.rank(name)
    if rank is None:
        if axis == -1:
            ctx.fail("the input's rank is unknown, which version 11 needs to name the last axis")
        ctx.fail(f"axis={axis} over an input of unknown rank")
    if axis < 0:
        axis += rank
    if rank == 0:
        ctx.fail("a scalar input")
    if axis == rank - 1:
        ctx.set_attr("axis", "INT", rank - 1)
        return
    perm = [i for i in range(rank) if i != axis] + [axis]
    inverse = [int(i) for i in np.argsort(perm)]
    op = ctx.node.op_type
    (moved,) = ctx.emit("Transpose", [name], 1, {"perm": ("INTS", perm)}, opset=11)
    (result,) = ctx.emit(op, [moved], 1, {"axis": ("INT", rank - 1)}, opset=11)
    ctx.emit("Transpose", [result], list(ctx.node.outputs), {"perm": ("INTS", inverse)}, opset=11)
    ctx.remove()


def _clip_up(ctx: AdapterContext) -> None:
    """6 -> 11: min/max attributes -> inputs, in the input's element type."""
    low, high = ctx.attr("min"), ctx.attr("max")
    ctx.drop_attr("min")
    ctx.drop_attr("max")
    elem = ctx.elem_type(ctx.input(0))
    if elem is None:
        if low is None and high is None:
            ctx.fail("the input's element type is unknown (version 6 clips to float32's range)")
        ctx.fail("the input's element type is unknown, which the min/max inputs need")
    dtype = {1: np.float32, 10: np.float16, 11: np.float64}.get(int(elem))
    if dtype is None:
        ctx.fail(f"element type {elem.name} at version 6")
    if int(elem) == 11:  # version 6's bounds default to float32's range, also for double
        low = -_FLT_MAX if low is None else low
        high = _FLT_MAX if high is None else high
    if low is not None:
        ctx.set_input(1, ctx.add_constant(np.asarray(low, dtype), "clip_min"))
    if high is not None:
        ctx.set_input(2, ctx.add_constant(np.asarray(high, dtype), "clip_max"))


def _clip_down(ctx: AdapterContext) -> None:
    """11 -> 6: min/max inputs (constants) -> attributes (float, exact for float16/32)."""
    values = {}
    for index, attr in ((1, "min"), (2, "max")):
        value = ctx.constant_input(index, attr)
        if value is not None:
            if value.size != 1:
                ctx.fail(f"{attr} must hold one value")
            number = value.reshape(-1)[0]
            if np.float32(number) != number and not np.isnan(number):
                ctx.fail(f"{attr}={number!r} is not exactly a float attribute")
            values[attr] = float(number)
    ctx.drop_inputs_from(1)
    for attr, attr_value in values.items():
        ctx.set_attr(attr, "FLOAT", attr_value)


def _gelu_absent(ctx: AdapterContext) -> None:
    """Gelu-20 -> before 20: its definition written out (the standard's body depends on the
    node's type, so it is not stored): 0.5 x (1 + erf(x / sqrt 2)), or with
    approximate="tanh" 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."""
    name = ctx.input(0)
    elem = ctx.elem_type(name)
    dtype = {1: np.float32, 10: np.float16, 11: np.float64}.get(int(elem) if elem else 0)
    if dtype is None:
        ctx.fail("the input's element type is unknown or not float16/float/double")
    approximate = ctx.attr("approximate", "none")
    approximate = approximate.decode() if isinstance(approximate, bytes) else approximate

    def const(value: float, base: str) -> str:
        return ctx.add_constant(np.asarray(value, dtype), f"gelu_{base}")

    if approximate == "tanh":
        (cube,) = ctx.emit("Mul", [name, name], 1, opset=14)
        (cube,) = ctx.emit("Mul", [cube, name], 1, opset=14)
        (scaled,) = ctx.emit("Mul", [cube, const(0.044715, "c")], 1, opset=14)
        (inner,) = ctx.emit("Add", [name, scaled], 1, opset=14)
        (inner,) = ctx.emit("Mul", [inner, const(np.sqrt(2 / np.pi), "k")], 1, opset=14)
        (curve,) = ctx.emit("Tanh", [inner], 1, opset=13)
    else:
        (inner,) = ctx.emit("Div", [name, const(np.sqrt(2.0), "sqrt2")], 1, opset=14)
        (curve,) = ctx.emit("Erf", [inner], 1, opset=13)
    (plus,) = ctx.emit("Add", [curve, const(1.0, "one")], 1, opset=14)
    (half,) = ctx.emit("Mul", [name, const(0.5, "half")], 1, opset=14)
    ctx.emit("Mul", [half, plus], list(ctx.node.outputs), opset=14)
    ctx.remove()


def _celu_absent(ctx: AdapterContext) -> None:
    """Celu-12 -> before 12: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), in float (the
    only type Celu takes)."""
    name = ctx.input(0)
    if ctx.elem_type(name) is None or int(ctx.elem_type(name) or 0) != 1:
        ctx.fail("Celu takes float only, and the input's type is not known to be float")
    alpha = np.asarray(float(ctx.attr("alpha", 1.0)), np.float32)
    zero = ctx.add_constant(np.asarray(0.0, np.float32), "celu_zero")
    one = ctx.add_constant(np.asarray(1.0, np.float32), "celu_one")
    scale = ctx.add_constant(alpha, "celu_alpha")
    (scaled,) = ctx.emit("Div", [name, scale], 1, opset=14)
    (grown,) = ctx.emit("Exp", [scaled], 1, opset=13)
    (shifted,) = ctx.emit("Sub", [grown, one], 1, opset=14)
    (negative,) = ctx.emit("Mul", [scale, shifted], 1, opset=14)
    (low,) = ctx.emit("Min", [zero, negative], 1, opset=13)
    (high,) = ctx.emit("Max", [zero, name], 1, opset=13)
    ctx.emit("Add", [high, low], list(ctx.node.outputs), opset=14)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("Celu", 12, ABSENT, _celu_absent, "before 12: its formula")
    table.add("Gelu", 20, ABSENT, _gelu_absent, "before 20: its formula (erf or tanh form)")
    for op in _SOFTMAX:
        table.add(op, 11, 13, _softmax_up, "axis: 2-D coercion -> one axis (Flatten/Reshape)")
        table.add(op, 13, 11, _softmax_down, "one axis -> 2-D coercion (Transpose around)")
        table.add(op, 11, 1, nonnegative_axes("axis"), "negative axis made non-negative")
    table.add("Clip", 6, 11, _clip_up, "min/max attributes -> inputs")
    table.add("Clip", 11, 6, _clip_down, "min/max inputs (constants) -> attributes")
