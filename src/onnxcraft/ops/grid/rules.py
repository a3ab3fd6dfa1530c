"""Rules for GridSample (2-D from version 16, N-D from 20) and AffineGrid.

GridSample samples X (N, C, D1..Dn) at the grid's points (N, O1..On, n): the output is
(N, C, O1..On). AffineGrid makes such a grid, (N, H, W, 2) or (N, D, H, W, 3), from theta
(N, n, n + 1) and the constant ``size`` (N, C, H, W) or (N, C, D, H, W).
"""

from __future__ import annotations

from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.windows import require_rank, show_shape, unify_dim
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["register"]


def _sample_rank(ctx: InferenceContext, x_shape: Shape, grid_shape: Shape) -> int | None:
    """The common rank of X and grid (4 for version 16), checked."""
    ranks = {len(s) for s in (x_shape, grid_shape) if s is not None}
    if len(ranks) > 1:
        raise ctx.fail(
            f"grid must have the rank of X: X {show_shape(x_shape or ())} vs grid "
            f"{show_shape(grid_shape or ())}"
        )
    rank = ranks.pop() if ranks else None
    if rank is not None and ctx.op.since_version < 20 and rank != 4:
        raise ctx.fail(f"version 16 samples 4-D inputs (N, C, H, W), got rank {rank}")
    return rank


def _grid_sample(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    x_shape = require_rank(ctx, 0, "X", at_least=3)
    grid_shape = require_rank(ctx, 1, "grid", at_least=3)
    rank = _sample_rank(ctx, x_shape, grid_shape)
    if rank is None:
        return [Tensor(elem, None)]
    nd = rank - 2
    batch = unify_dim(
        ctx,
        None if x_shape is None else x_shape[0],
        None if grid_shape is None else grid_shape[0],
        "grid's batch (dim 0) must equal X's",
    )
    if grid_shape is not None:
        unify_dim(ctx, grid_shape[-1], nd, f"grid's last dim must be the {nd} spatial axes of X")
    channels = None if x_shape is None else x_shape[1]
    points: tuple[Dim, ...] = (None,) * nd if grid_shape is None else tuple(grid_shape[1:-1])
    return [Tensor(elem, (batch, channels, *points))]


def _affine_grid(ctx: InferenceContext) -> list[ValueType | None]:
    elem = ctx.elem(0)
    theta = require_rank(ctx, 0, "theta", exactly=3)
    size_shape = require_rank(ctx, 1, "size", exactly=1)
    size = ctx.dims_value(1)  # entries may be symbols
    length = len(size) if size is not None else None
    if length is None and size_shape is not None and isinstance(size_shape[0], int):
        length = size_shape[0]
    if length is None and theta is not None and isinstance(theta[1], int):
        length = theta[1] + 2
    if length is None:
        return [Tensor(elem, None)]
    if length not in (4, 5):
        raise ctx.fail(f"size must be (N, C, H, W) or (N, C, D, H, W), got {length} entries")
    nd = length - 2
    batch: Dim = size[0] if size is not None else None
    if theta is not None:
        batch = unify_dim(ctx, theta[0], batch, "theta's batch (dim 0) must equal size[0]")
        unify_dim(ctx, theta[1], nd, f"theta must be (N, {nd}, {nd + 1}) for {nd}-D sizes, dim 1")
        unify_dim(ctx, theta[2], nd + 1, f"theta must be (N, {nd}, {nd + 1}), dim 2")
    spatial: tuple[Dim, ...] = tuple(size[2:]) if size is not None else (None,) * nd
    return [Tensor(elem, (batch, *spatial, nd))]


def register(rules: RuleRegistry) -> None:
    rules.add("GridSample", _grid_sample, since=ALL_VERSIONS)
    rules.add("AffineGrid", _affine_grid, since=ALL_VERSIONS)
