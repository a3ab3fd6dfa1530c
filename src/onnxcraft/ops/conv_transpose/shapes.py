"""ConvTranspose's output channels, computed alike by the rule and the kernel.

W is (C, M / group, k1..kn): the output has W's channels per group times ``group``. The spatial
output sizes and the SAME pads are :mod:`onnxcraft.ops.windows`' (``transposed_window_size``,
``same_transposed_size``, ``split_padding``), as are Col2Im's block counts (``window_count``).
"""

from __future__ import annotations

__all__ = ["transposed_output_channels"]


def transposed_output_channels(per_group: int, group: int) -> int:
    """M, the output channels: ``per_group`` (W's dim 1) in each of ``group`` groups."""
    return per_group * group
