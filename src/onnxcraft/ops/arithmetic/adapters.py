"""Version adapters of the elementwise operators: the legacy broadcast attributes of versions
1 and 6 against numpy-style broadcasting (7), and the variadic ones before broadcasting (8)."""

from __future__ import annotations

import numpy as np

from onnxcraft.dtypes import INTEGER_TYPES
from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry

BINARY_LEGACY = {"Add": 6, "Sub": 6, "Mul": 6, "Div": 6, "Pow": 1}
LOGICAL_LEGACY = ("And", "Or", "Xor", "Equal", "Greater", "Less")
VARIADIC = ("Sum", "Max", "Min", "Mean")


def broadcast_up(ctx: AdapterContext) -> None:
    """broadcast/axis -> numpy broadcasting: the same when B aligns with A's last axes;
    otherwise B gets trailing size-1 axes first."""
    broadcast = int(ctx.attr("broadcast", 0))
    axis = ctx.attr("axis")
    ctx.drop_attr("broadcast")
    ctx.drop_attr("axis")
    ctx.drop_attr("consumed_inputs")
    if not broadcast or axis is None:
        return
    a_rank, b_rank = ctx.rank(ctx.input(0)), ctx.rank(ctx.input(1))
    if a_rank is None or b_rank is None:
        ctx.fail("broadcast with an axis needs the ranks of A and B, which are unknown")
    axis = int(axis) + a_rank if int(axis) < 0 else int(axis)
    trailing = a_rank - axis - b_rank
    if trailing < 0:
        ctx.fail(f"B (rank {b_rank}) does not fit in A (rank {a_rank}) at axis {axis}")
    if trailing == 0:
        return
    axes = ctx.add_constant(np.arange(b_rank, b_rank + trailing, dtype=np.int64), "bcast_axes")
    (aligned,) = ctx.emit("Unsqueeze", [ctx.input(1), axes], 1, opset=13)
    ctx.node.inputs[1] = aligned


def _same(a: tuple[object, ...] | None, b: tuple[object, ...] | None) -> bool:
    return a is not None and b is not None and a == b and all(d is not None for d in a)


def broadcast_down(ctx: AdapterContext) -> None:
    """numpy broadcasting -> broadcast=1 when B's shape is a suffix of A's (each dim equal or
    1) and the result has A's shape; equal shapes need nothing; anything else is refused."""
    a, b = ctx.shape(ctx.input(0)), ctx.shape(ctx.input(1))
    if _same(a, b):
        return
    out = ctx.shape(ctx.node.outputs[0])
    if a is None or b is None or out is None or not _same(a, out) or len(b) > len(a):
        ctx.fail("the inputs' shapes differ (or are unknown) and version 6 broadcasts only B")
    tail = a[len(a) - len(b) :]
    if not all(bd == 1 or (bd == ad and bd is not None) for ad, bd in zip(tail, b)):
        ctx.fail(f"B's shape {b} is not a suffix of A's {a}")
    ctx.set_attr("broadcast", "INT", 1)


def same_shapes_down(ctx: AdapterContext) -> None:
    """Broadcasting -> none: every input must have the same known shape."""
    shapes = [ctx.shape(name) for name in ctx.node.inputs if name]
    if not all(_same(shapes[0], s) for s in shapes):
        ctx.fail("the inputs' shapes differ (or are unknown), and this version does not broadcast")


def _gemm_up(ctx: AdapterContext) -> None:
    ctx.drop_attr("broadcast")


def _gemm_down(ctx: AdapterContext) -> None:
    ctx.set_attr("broadcast", "INT", 1)


def _same_dims(a: tuple[object, ...] | None, b: tuple[object, ...] | None) -> bool:
    return a is not None and b is not None and a == b and all(isinstance(d, int) for d in a)


def _prelu_up(ctx: AdapterContext) -> None:
    """6 -> 7: version 6's slope has one element (shared) or X's shape; both broadcast the same
    way at 7 (a one-element slope of higher rank than X is reshaped to one axis)."""
    x, slope = ctx.input(0), ctx.input(1)
    x_shape, slope_shape = ctx.shape(x), ctx.shape(slope)
    if slope_shape is not None and all(d == 1 for d in slope_shape):
        if x_shape is not None and len(slope_shape) > len(x_shape):
            one = ctx.add_constant(np.asarray([1], np.int64), "prelu_shape")
            (flat,) = ctx.emit("Reshape", [slope, one], 1, opset=13)
            ctx.set_input(1, flat)
        return
    if not _same_dims(x_shape, slope_shape):
        ctx.fail(
            f"version 6 takes a one-element slope or one of X's shape; shapes {slope_shape} and "
            f"{x_shape} are not known to be either"
        )


def _prelu_down(ctx: AdapterContext) -> None:
    """7 -> 6: a slope that broadcasts to X must become one element or X's shape: kept when
    it is one, broadcast when it is a constant and X's shape is static; else refused."""
    x, slope = ctx.input(0), ctx.input(1)
    x_shape, slope_shape = ctx.shape(x), ctx.shape(slope)
    if slope_shape is not None and all(d == 1 for d in slope_shape):
        return
    if _same_dims(x_shape, slope_shape):
        return
    value = ctx.constant(slope)
    if value is None or x_shape is None or not all(isinstance(d, int) for d in x_shape):
        ctx.fail(
            f"the slope (shape {slope_shape}) broadcasts to X (shape {x_shape}), which version "
            f"6 does not; only a constant slope and a static X can be broadcast beforehand"
        )
    full = np.broadcast_to(value, tuple(int(d) for d in x_shape)).copy()
    ctx.set_input(1, ctx.add_constant(full, "prelu_slope"))


# integer element types, the only ones Mod takes with fmod=0 before version 28
_INTEGERS = INTEGER_TYPES


def _mod_down(ctx: AdapterContext) -> None:
    """Mod 28 -> 13: versions before 28 allow fmod=0 (the floored remainder) on integers
    only; on floating-point inputs it is outside what they define."""
    if ctx.attr("fmod", 0) == 1:
        return
    elem = ctx.elem_type(ctx.input(0))
    if elem not in _INTEGERS:
        ctx.fail(
            f"fmod=0 (the floored remainder) on {elem.name if elem else 'an unknown type'}: "
            f"versions before 28 take fmod=0 on integer inputs only"
        )


def register(table: AdapterRegistry) -> None:
    table.add("Mod", 28, 13, _mod_down, "fmod=0 on integer inputs only")
    table.add("PRelu", 6, 7, _prelu_up, "one-element or same-shape slope")
    table.add("PRelu", 7, 6, _prelu_down, "slope broadcast beforehand (constant)")
    for op, legacy in BINARY_LEGACY.items():
        table.add(op, legacy, 7, broadcast_up, "broadcast/axis -> numpy broadcasting")
        table.add(op, 7, legacy, broadcast_down, "numpy broadcasting -> broadcast=1 (B a suffix)")
    for op in VARIADIC:
        table.add(op, 8, 6, same_shapes_down, "equal input shapes only")
    table.add("Gemm", 6, 7, _gemm_up, "broadcast attribute dropped (C always broadcasts)")
    table.add("Gemm", 7, 6, _gemm_down, "broadcast=1 written")
    table.changed("PRelu", 6, 7, "slope broadcasting changed at version 7")
