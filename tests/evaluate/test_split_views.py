"""Split's kernel takes its parts as views between running totals of the sizes: the same
parts as ``np.split`` at those totals (the kernel's earlier form), for any sizes (zeros
too), axis (negative too), rank and element type."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxcraft.ops.kernel_api import KernelContext
from onnxcraft.ops.shape.kernels import split


@settings(max_examples=200, deadline=None)
@given(
    shape=st.lists(st.integers(0, 5), min_size=1, max_size=4),
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float16, np.int64, np.bool_]),
)
def test_split_parts_are_np_split_at_the_running_totals(
    shape: list[int], data: Any, dtype: Any
) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    length = shape[axis]
    cuts = sorted(data.draw(st.lists(st.integers(0, length), max_size=3)))
    sizes = [hi - lo for lo, hi in zip([0, *cuts], [*cuts, length], strict=True)]
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    context = KernelContext("", "Split", 18, 18, len(sizes), (True,) * len(sizes))
    parts = split(context, x, np.array(sizes, np.int64), axis=axis)
    expected = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    assert len(parts) == len(expected)
    for part, want in zip(parts, expected, strict=True):
        assert part.shape == want.shape and part.dtype == want.dtype
        assert part.tobytes() == want.tobytes()
        assert part.size == 0 or np.shares_memory(part, x)  # a view, as np.split gives
