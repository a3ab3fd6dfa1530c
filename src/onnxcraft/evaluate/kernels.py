"""The default kernel table, filled by the ``kernels`` part of every :mod:`onnxcraft.ops` family."""

from __future__ import annotations

from functools import cache

from onnxcraft import ops
from onnxcraft.errors import EvaluationError
from onnxcraft.ops.kernel_api import Kernel, KernelRegistry

__all__ = ["default_registry", "register_kernel"]


@cache
def default_registry() -> KernelRegistry:
    """The kernel table of every family, built once on first use."""
    kernels = KernelRegistry()
    ops.load("kernels", kernels)
    return kernels


def register_kernel(
    domain: str,
    op_type: str,
    since_version: int | tuple[int, ...],
    fn: Kernel,
    *,
    context: bool = False,
) -> None:
    """Let the evaluator run an operator of your own (or replace nothing: duplicates are errors).

    ``fn`` is called as ``fn(*inputs, **attributes)`` (``fn(ctx, *inputs, **attributes)`` with
    ``context=True``) and returns one value or a tuple, one per output; see
    :mod:`onnxcraft.ops.kernel_api` for the exact contract.
    """
    if not callable(fn):
        raise EvaluationError(f"register_kernel: fn must be callable, got {type(fn).__name__}")
    try:
        default_registry().add(
            op_type,
            fn,
            since=since_version,
            domain="" if domain == "ai.onnx" else domain,
            context=context,
        )
    except ValueError as exc:
        raise EvaluationError(f"register_kernel: {exc}") from exc
