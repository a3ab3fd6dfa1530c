"""Version adapters of GridSample: mode names and ranks (16 <-> 20)."""

from __future__ import annotations

from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry

_OLD_TO_NEW = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest"}
_NEW_TO_OLD = {new: old for old, new in _OLD_TO_NEW.items()}


def _text(value: object, default: str) -> str:
    if value is None:
        return default
    return value.decode() if isinstance(value, bytes) else str(value)


def _up(ctx: AdapterContext) -> None:
    mode = _text(ctx.attr("mode"), "bilinear")
    ctx.set_attr("mode", "STRING", _OLD_TO_NEW.get(mode, mode))


def _down(ctx: AdapterContext) -> None:
    mode = _text(ctx.attr("mode"), "linear")
    if mode not in _NEW_TO_OLD:
        ctx.fail(f"mode={mode!r} has no equivalent at version 16")
    if ctx.rank(ctx.input(0)) != 4:
        ctx.fail("version 16 samples 4-D inputs only, and this input's rank is not known to be 4")
    ctx.set_attr("mode", "STRING", _NEW_TO_OLD[mode])


def register(table: AdapterRegistry) -> None:
    table.add("GridSample", 16, 20, _up, "mode names bilinear/bicubic -> linear/cubic")
    table.add("GridSample", 20, 16, _down, "mode names back; 4-D inputs only")
