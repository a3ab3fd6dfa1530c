"""A value made with a channel of ones after its own, for the 1x1 convolutions that read it.

A prepared 1x1 convolution with a bias (``fuse=True``, ``ops/conv/prepared.py``) gets the
bias into its product when its input has a row of ones under the channels and the weights
the bias as a last column; otherwise it adds the bias in a pass of its own over the output,
or copies its input with a row of ones when the input is the smaller of the two. The step
that makes the input can give it that row for free: its output array gets one channel more,
filled with ones, and the value handed on is the view of the channels before it.

A :class:`OnesChannel` links the step making the value with the convolutions reading it
(:mod:`onnxcraft.evaluate.ones_channels` makes the links). The maker asks it for its output
array; a reader asks it whether its input is exactly that view of the last array made (in
this thread), so any other array (a fallback path's, another run's) runs as before. The
link keeps only a weak reference: the run still frees the value after its last reader.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

__all__ = ["OnesChannel"]


class OnesChannel:
    """The link between the step making one value and the 1x1 convolutions reading it."""

    def __init__(self) -> None:
        self._local = threading.local()  # the array last made, per thread (runs may overlap)

    def array(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray | None:
        """An output array of ``shape`` (1, C, ...): a view of a new (1, C + 1, ...) array
        whose last channel holds ones. None for a batch of several images, whose view would
        be strided (:mod:`onnxcraft.evaluate.ones_channels` says why not)."""
        if shape[0] != 1:
            return None
        whole = np.empty((shape[0], shape[1] + 1, *shape[2:]), dtype)
        whole[:, shape[1]] = 1
        view = whole[:, : shape[1]]
        self._local.made = weakref.ref(view)
        return view

    def extended(self, x: Any) -> np.ndarray | None:
        """``x`` with its channel of ones, (N, C + 1, ...), when ``x`` is the very view
        :meth:`array` handed out last in this thread; else None."""
        made = getattr(self._local, "made", None)
        if made is None or made() is not x:
            return None
        whole: np.ndarray = x.base
        return whole
