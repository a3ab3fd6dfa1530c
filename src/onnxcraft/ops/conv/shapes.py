"""The channel arithmetic of a grouped convolution, checked alike by the rule and the kernels.

X is (N, C, ...) and W is (M, C / group, ...): ``group`` divides C and M, and W's channels per
group times ``group`` is C. The rule knows some counts only (``None`` for the others); the kernels
know them all. Each side words its own error from the broken rule this module names. The output
sizes along the spatial axes are :mod:`onnxcraft.ops.windows`'.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["GroupMismatch", "group_mismatch"]

GroupMismatch = Literal["input channels", "output channels", "channels per group"]


def group_mismatch(
    channels: int | None, out_channels: int | None, per_group: int | None, group: int
) -> GroupMismatch | None:
    """The first grouped-channel rule the known counts break, or None (``group`` >= 1).

    In order: ``group`` divides the input ``channels`` C; it divides the ``out_channels`` M
    (W's dim 0); ``per_group`` (W's dim 1) times ``group`` is C.
    """
    if channels is not None and channels % group:
        return "input channels"
    if out_channels is not None and out_channels % group:
        return "output channels"
    if channels is not None and per_group is not None and per_group * group != channels:
        return "channels per group"
    return None
