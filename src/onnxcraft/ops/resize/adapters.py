"""Version adapters of Upsample and Resize.

Upsample-7..9 and Resize-10 compute the same thing (asymmetric coordinates; nearest rounds down
when enlarging and up when shrinking); Resize-11 names those choices as attributes, with other
defaults (half_pixel, round_prefer_floor), so the step 10 <-> 11 writes or checks them.
"""

from __future__ import annotations

import numpy as np

from onnxcraft.ops.adapter_api import (
    ABSENT,
    AdapterContext,
    AdapterRegistry,
    attribute_to_input,
    input_to_attribute,
    refuse_value,
)


def _text(value: object, default: str) -> str:
    if value is None:
        return default
    return value.decode() if isinstance(value, bytes) else str(value)


def _upsample_to_resize(ctx: AdapterContext) -> None:
    """Upsample-9 -> 10 (deprecated there): Resize-10, which means the same; for a target of
    11 or later, Resize-11 directly: Upsample's scales are at least 1, so its nearest
    rounding is floor even when the scales are known only at run time."""
    node = ctx.node
    mode = _text(ctx.attr("mode"), "nearest")
    if ctx.target_opset < 11:
        attributes = {"mode": ("STRING", mode)}
        ctx.emit("Resize", list(node.inputs), list(node.outputs), attributes, opset=10)
        ctx.remove()
        return
    attributes = {
        "mode": ("STRING", mode),
        "coordinate_transformation_mode": ("STRING", "asymmetric"),
    }
    if mode == "nearest":
        attributes["nearest_mode"] = ("STRING", "floor")
    roi = ctx.add_constant(np.zeros((0,), np.float32), "resize_roi")
    inputs = [node.inputs[0], roi, node.inputs[1]]
    ctx.emit("Resize", inputs, list(node.outputs), attributes, opset=11)
    ctx.remove()


def _resize_to_upsample(ctx: AdapterContext) -> None:
    """Resize-10 -> before 10: Upsample-9, which means the same for scales of at least 1
    (the only ones Upsample takes)."""
    node = ctx.node
    scales = ctx.constant(ctx.input(1))
    if scales is None:
        ctx.fail("the scales are computed at run time and may be below 1, which Upsample refuses")
    if np.any(np.asarray(scales) < 1):
        ctx.fail(f"scales {np.asarray(scales).tolist()} shrink, and Upsample takes scales >= 1")
    attributes = {"mode": ("STRING", _text(ctx.attr("mode"), "nearest"))}
    ctx.emit("Upsample", list(node.inputs), list(node.outputs), attributes, opset=9)
    ctx.remove()


def _scales(ctx: AdapterContext, index: int) -> np.ndarray:
    scales = ctx.constant_input(index, "scales")
    if scales is None or scales.size == 0:
        ctx.fail("the scales must be a constant (sizes have no equivalent at version 10)")
    return np.asarray(scales, np.float64).reshape(-1)


def _resize_10_to_11(ctx: AdapterContext) -> None:
    mode = _text(ctx.attr("mode"), "nearest")
    scales_name = ctx.input(1)
    attributes = {"coordinate_transformation_mode": "asymmetric", "mode": mode}
    if mode == "nearest":
        scales = _scales(ctx, 1)
        enlarging, shrinking = _needs(scales)
        if enlarging and shrinking:
            ctx.fail("nearest enlarges some axes and shrinks others: no one nearest_mode")
        attributes["nearest_mode"] = "ceil" if shrinking else "floor"
    for name, value in attributes.items():
        ctx.set_attr(name, "STRING", value)
    roi = ctx.add_constant(np.zeros((0,), np.float32), "resize_roi")
    ctx.node.inputs[1:] = [roi, scales_name]


def _needs(scales: np.ndarray) -> tuple[bool, bool]:
    """Whether some axis needs rounding down (enlarged) or up (shrunk by a non-integer)."""
    enlarging = bool(np.any(scales > 1))
    shrinking = bool(np.any((scales < 1) & (np.mod(1 / scales, 1) != 0)))
    return enlarging, shrinking


def _scales_of_sizes(ctx: AdapterContext) -> np.ndarray:
    """Version 10 takes scales only: constant sizes over a static input become the scales
    sizes / shape, when each is exactly a float32 (version 10 computes with the float32 scale,
    11 with the ratio itself) and gives back the size (floor(shape * scale))."""
    sizes = ctx.constant_input(3, "sizes")
    assert sizes is not None
    shape = ctx.shape(ctx.input(0))
    if shape is None or not all(isinstance(d, int) and d > 0 for d in shape):
        ctx.fail(f"sizes become scales at version 10 only over a static input shape (got {shape})")
    wanted = [int(v) for v in np.asarray(sizes).reshape(-1)]
    if len(wanted) != len(shape):
        ctx.fail(f"sizes {wanted} must have one entry per input axis ({len(shape)})")
    scales = np.asarray([w / int(n) for w, n in zip(wanted, shape)], np.float32)
    for w, n, scale in zip(wanted, shape, scales):
        if float(scale) != w / int(n) or int(np.floor(float(scale) * int(n))) != w:
            ctx.fail(
                f"size {w} over {n} is the scale {w}/{n}, which a float32 scale (version 10) "
                f"does not hold exactly"
            )
    return scales


def _resize_11_to_10(ctx: AdapterContext) -> None:
    mode = _text(ctx.attr("mode"), "nearest")
    coordinates = _text(ctx.attr("coordinate_transformation_mode"), "half_pixel")
    if mode not in ("nearest", "linear"):
        ctx.fail(f"mode={mode!r} has no equivalent at version 10")
    if ctx.input(3):
        ctx.set_input(2, ctx.add_constant(_scales_of_sizes(ctx), "resize_scales"))
        ctx.drop_inputs_from(3)
    scales = _scales(ctx, 2)
    if coordinates != "asymmetric" and not np.all(scales == 1):
        ctx.fail(f"coordinate_transformation_mode={coordinates!r}: version 10 is asymmetric")
    if mode == "nearest":
        nearest = _text(ctx.attr("nearest_mode"), "round_prefer_floor")
        enlarging, shrinking = _needs(scales)
        if (enlarging and nearest != "floor") or (shrinking and nearest != "ceil"):
            ctx.fail(f"nearest_mode={nearest!r} rounds differently from version 10")
    for name in (
        "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
        "extrapolation_value", "nearest_mode",
    ):  # fmt: skip
        ctx.drop_attr(name)
    ctx.node.inputs[1:] = [ctx.input(2)]


def _resize_13_to_11(ctx: AdapterContext) -> None:
    """Version 11 requires roi and scales (empty when unused)."""
    for index in (1, 2):
        if not ctx.input(index):
            ctx.set_input(index, ctx.add_constant(np.zeros((0,), np.float32), "resize_empty"))
    if not ctx.input(2):
        ctx.fail("neither scales nor sizes")


def _resize_axes_down(ctx: AdapterContext) -> None:
    """18 -> 13: the axes attribute folded into full-rank scales (1 elsewhere) or sizes (the
    input's own dims elsewhere, which must be known)."""
    axes = ctx.attr("axes")
    if axes is None:
        return
    shape = ctx.shape(ctx.input(0))
    if shape is None:
        ctx.fail("axes needs the input's rank, which is unknown")
    if ctx.input(1):
        ctx.fail("roi with axes is not rewritten")
    rank = len(shape)
    chosen = [int(a) + rank if int(a) < 0 else int(a) for a in axes]
    if ctx.input(2):
        scales = ctx.constant_input(2, "scales")
        assert scales is not None
        full = np.ones(rank, np.float32)
        full[chosen] = scales.reshape(-1)
        ctx.set_input(2, ctx.add_constant(full, "resize_scales"))
    if ctx.input(3):
        sizes = ctx.constant_input(3, "sizes")
        assert sizes is not None
        if not all(isinstance(d, int) for d in shape):
            ctx.fail("sizes with axes needs the input's other dims, which are not all known")
        whole = np.asarray(shape, np.int64)
        whole[chosen] = sizes.reshape(-1)
        ctx.set_input(3, ctx.add_constant(whole, "resize_sizes"))
    ctx.drop_attr("axes")


def register(table: AdapterRegistry) -> None:
    table.add("Resize", 18, 13, _resize_axes_down, "axes folded into full-rank scales/sizes")
    table.add("Upsample", 7, 9, attribute_to_input("scales", 1, dtype=np.float32),
              "scales attribute -> input")  # fmt: skip
    table.add("Upsample", 9, 7, input_to_attribute(1, "scales", kind="FLOATS"),
              "scales input (a constant) -> attribute")  # fmt: skip
    table.add("Upsample", 9, 10, _upsample_to_resize, "deprecated at 10: Resize-10")
    table.add("Resize", 10, ABSENT, _resize_to_upsample, "before 10: Upsample-9")
    table.add("Resize", 10, 11, _resize_10_to_11, "asymmetric coordinates, rounding written")
    table.add("Resize", 11, 10, _resize_11_to_10, "asymmetric nearest/linear with scales only")
    table.add("Resize", 13, 11, _resize_13_to_11, "empty roi/scales inputs written")
    table.add(
        "Resize", 19, 18,
        refuse_value("coordinate_transformation_mode", ["half_pixel_symmetric"],
                     "is new in version 19"),
        "half_pixel_symmetric refused",
    )  # fmt: skip
