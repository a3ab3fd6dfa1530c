"""GlobalAveragePool as one matrix-vector product (``fuse=True``): the classifier heads of
every CNN.

The written kernel takes ``np.mean`` over the spatial axes: numpy sums each (N, C) row of a
few dozen values with its pairwise loop, paying its overhead per row (70 µs for
SqueezeNet's 1000 x 13 x 13, 37 µs for ShuffleNet's 1024 x 7 x 7). Here the input, seen as
(N * C, H * W) rows, multiplies one vector of 1 / (H * W): OpenBLAS's matrix-vector product,
5-15 µs on the same shapes (`tests/benchmarks/ab_rewrites.py --off average_by_product`).

Each mean is then sum_i x_i * fl(1 / HW) in BLAS's order instead of fl(sum_i x_i) / HW in
numpy's: a few units in the last place of the terms' magnitude apart (1.1e-7 to 1.9e-7 of
the output's largest value in float32 on the zoo's shapes), within the fusion's bound
(``tests/evaluate/test_global_means.py``). NaN and infinities come out as the mean's (a NaN
or both infinities in a row: NaN; one infinity: that infinity). One difference beyond
rounding: a float32 row whose sum passes float32's largest value averages to a finite mean
here, where the written kernel's float32 sum overflows to infinity first.

Taken for GlobalAveragePool steps running onnxcraft's kernel; at run time, float32 and
float64 arrays of rank 3 or more with spatial values; anything else (float16, an empty
spatial axis, another type) runs the kernel.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.evaluate.step_links import with_kernels_wrapped
from onnxcraft.ops.kernel_api import Step

__all__ = ["average_by_product"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def average_by_product(
    steps: list[Step], is_library_step: Callable[[Step, str], bool]
) -> list[Step]:
    """``steps`` with each GlobalAveragePool of onnxcraft's kernel run as a product."""
    return with_kernels_wrapped(steps, "GlobalAveragePool", _by_product, is_library_step)


def _by_product(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: Any) -> Any:
        if not isinstance(x, np.ndarray) or x.dtype not in _FLOATS or x.ndim < 3:
            return kernel(x)
        n, c = x.shape[:2]
        spatial = math.prod(x.shape[2:])
        if spatial == 0:
            return kernel(x)  # (the mean of nothing: the kernel's answer)
        means = x.reshape(n * c, spatial) @ _reciprocals(spatial, x.dtype)
        return means.reshape(n, c, *(1,) * (x.ndim - 2))

    return run


@functools.lru_cache(maxsize=64)
def _reciprocals(size: int, dtype: np.dtype[Any]) -> np.ndarray:
    """A read-only vector of ``size`` values 1 / size, rounded once to ``dtype``."""
    vector = np.full(size, 1.0 / size, dtype)
    vector.flags.writeable = False
    return vector
