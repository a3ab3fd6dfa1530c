"""Gelu of float32 values in float32 arithmetic (``fuse=True``): the BERT encoder's
feed-forward activations.

The written kernel computes Gelu in float64 to within half a float32 ulp; for float32
inputs the prepared plan runs :func:`onnxcraft.ops.fast_gelu.gelu_float32` instead, a third
of the time, within 12 float32 ulp of the true value for |x| < 3 and 130 beyond (the module
says where, and why). ``fuse=False`` runs the written kernel.

Taken for Gelu steps running onnxcraft's kernel; at run time for float32 arrays with the
exact form (``approximate="none"``); anything else (float16, float64, the tanh form, a
value of another kind) runs the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from onnxcraft.evaluate.step_links import with_kernels_wrapped
from onnxcraft.ops.fast_gelu import gelu_float32
from onnxcraft.ops.kernel_api import Step

__all__ = ["float32_gelus"]


def float32_gelus(steps: list[Step], is_library_step: Callable[[Step, str], bool]) -> list[Step]:
    """``steps`` with each Gelu of onnxcraft's kernel taking float32 input in float32."""
    return with_kernels_wrapped(steps, "Gelu", _in_float32, is_library_step)


def _in_float32(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: Any, **attributes: Any) -> Any:
        if (
            type(x) is np.ndarray
            and x.dtype == np.float32
            and attributes.get("approximate", "none") == "none"
            and not attributes.keys() - {"approximate"}
        ):
            return gelu_float32(x)
        return kernel(x, **attributes)

    return run
