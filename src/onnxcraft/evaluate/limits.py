"""``oc.Limits``: how far one evaluation may go before it stops with an EvaluationLimitError."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

from onnxcraft.errors import EvaluationError
from onnxcraft.ops.run_guard import CancelToken, RunGuard

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """Bounds of one evaluation run; ``None`` leaves a bound at its default.

    - ``max_loop_iterations``: Loop and Scan iterations, summed over the whole run (nested
      loops included). Default: no limit (a Loop runs its trip count, as the standard says).
    - ``max_value_bytes``: the size of any one value. Checked before allocating where an
      operator's output can outgrow its inputs: sizes it reads in its inputs or attributes
      (ConstantOfShape, Expand, Tile, Range, Pad, OneHot, Resize, Upsample, RandomNormal,
      RandomUniform, RoiAlign, MaxRoiPool, the stacked outputs of Loop and Scan), broadcasting
      (the elementwise arithmetic, comparison, bitwise and logical operators, Where) and
      matrix products (MatMul, Gemm, MatMulInteger, QLinearMatMul). A limit you set is also
      held against every value after its step. Default: the machine's physical memory, so a
      value that cannot fit is refused rather than swapped or killed.
    - ``timeout``: seconds of wall time for the run. Default: none.

    Limits are checked between steps, between loop iterations, before those allocations and
    between the rounds of kernels that loop on their own (the time steps of RNN, GRU and LSTM,
    the classes of NonMaxSuppression, the regions of RoiAlign and MaxRoiPool); one numpy call
    (a single large MatMul, say) is not interrupted.
    Reaching one raises :class:`~onnxcraft.errors.EvaluationLimitError` naming the limit, its
    value and the node.
    """

    max_loop_iterations: int | None = None
    max_value_bytes: int | None = None
    timeout: float | None = None

    def __post_init__(self) -> None:
        # Numpy numbers are taken too, stored as Python ones.
        for name, minimum in (("max_loop_iterations", 0), ("max_value_bytes", 1)):
            object.__setattr__(self, name, _count(name, getattr(self, name), minimum))
        timeout = self.timeout
        if timeout is not None:
            if (
                isinstance(timeout, bool)
                or not isinstance(timeout, Real)
                or not math.isfinite(timeout)
                or timeout <= 0
            ):
                raise EvaluationError(
                    f"Limits: timeout must be a positive number of seconds or None, got {timeout!r}"
                )
            object.__setattr__(self, "timeout", float(timeout))

    def guard(self, cancel: CancelToken | None = None) -> RunGuard:
        """The guard of one run under these limits (its clock starts now)."""
        if cancel is not None and not callable(getattr(cancel, "is_set", None)):
            raise EvaluationError(
                f"evaluate: cancel must be a threading.Event (or have is_set()), "
                f"got {type(cancel).__name__}"
            )
        return RunGuard(
            max_loop_iterations=self.max_loop_iterations,
            max_value_bytes=self.max_value_bytes,
            timeout=self.timeout,
            cancel=cancel,
        )


def _count(name: str, value: object, minimum: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise EvaluationError(f"Limits: {name} must be an int >= {minimum} or None, got {value!r}")
    return int(value)
