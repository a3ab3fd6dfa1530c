"""Rules of the attention family: Attention and TensorScatter.

Every dim an output shares with the inputs is taken from whichever input knows it (a static
size first, else a symbol), so symbols propagate; two inputs that state different static sizes
for the same dim are a build-time error. The helpers here are shared with the rules of
LinearAttention and FlexAttention.
"""

from __future__ import annotations

from collections.abc import Sequence

from onnxcraft.ops.attention.shapes import head_size, query_group
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import entry_add, entry_div, entry_mul, normalize_axis
from onnxcraft.types import Dim, Shape, Tensor, ValueType

__all__ = ["agree", "check_rank", "heads_divide", "register", "split_heads"]


def agree(ctx: InferenceContext, what: str, dims: Sequence[tuple[str, Dim]]) -> Dim:
    """The one value several inputs give for the same dim: static first, else a symbol.

    ``dims`` pairs each value with where it comes from, for the error message when two static
    values differ.
    """
    static = [(where, d) for where, d in dims if isinstance(d, int)]
    for where, d in static[1:]:
        if d != static[0][1]:
            raise ctx.fail(f"{what} disagree: {static[0][0]} has {static[0][1]}, {where} has {d}")
    if static:
        return static[0][1]
    return next((d for _, d in dims if isinstance(d, str)), None)


def check_rank(ctx: InferenceContext, index: int, name: str, ranks: tuple[int, ...]) -> Shape:
    """Input ``index``'s shape, failing when its known rank is not one of ``ranks``."""
    shape = ctx.shape(index)
    if shape is not None and len(shape) not in ranks:
        wanted = " or ".join(f"{r}-D" for r in ranks)
        raise ctx.fail(f"{name} must be {wanted}; got shape {list(shape)}")
    return shape


def split_heads(ctx: InferenceContext, name: str, hidden: Dim, heads: int, attr: str) -> Dim:
    """The per-head size of a packed ``heads * size`` dim (a static hidden size must divide)."""
    if not isinstance(hidden, int):
        return entry_div(hidden, heads)  # a symbol is known only for a single head
    size = head_size(hidden, heads)
    if size is None:
        raise ctx.fail(f"{name}: hidden size {hidden} is not divisible by {attr}={heads}")
    return size


def heads_divide(ctx: InferenceContext, q_heads: Dim, kv_heads: Dim) -> None:
    """Query heads come in whole groups per key/value head."""
    if (
        isinstance(q_heads, int)
        and isinstance(kv_heads, int)
        and query_group(q_heads, kv_heads) is None
    ):
        raise ctx.fail(f"{q_heads} query heads are not a multiple of {kv_heads} key/value heads")


# -- Attention ------------------------------------------------------------------------------------


def _as_4d(
    ctx: InferenceContext, shape: Shape, name: str, attr: str
) -> tuple[Dim, Dim, Dim, Dim] | None:
    """(batch, heads, sequence, head_size) of a 3-D or 4-D Q/K/V shape."""
    heads = ctx.attr(attr)
    if shape is None:
        return None
    if len(shape) == 4:
        if heads is not None and isinstance(shape[1], int) and heads != shape[1]:
            raise ctx.fail(f"{attr}={heads} disagrees with the {shape[1]} heads of 4-D {name}")
        return shape[0], shape[1], shape[2], shape[3]
    if heads is None or heads <= 0:
        raise ctx.fail(
            f"{name} is 3-D, so the attribute {attr} (a positive head count) is required"
        )
    return shape[0], heads, shape[1], split_heads(ctx, name, shape[2], heads, attr)


def _output_hidden(q_heads: Dim, kv_heads: Dim, v_head: Dim, v: Shape) -> Dim:
    """q_heads * v_head_size; with as many query as key/value heads, V's own hidden size."""
    hidden = entry_mul(q_heads, v_head)
    same_heads = kv_heads is not None and q_heads == kv_heads
    if hidden is None and same_heads and v is not None and len(v) == 3:
        return v[2]
    return hidden


def _check_options(ctx: InferenceContext, q: Shape, k: Shape, v: Shape) -> None:
    ranks = {len(s) for s in (q, k, v) if s is not None}
    if len(ranks) > 1:
        raise ctx.fail(
            f"Q, K and V must have the same rank; got {list(q or [])}, "
            f"{list(k or [])} and {list(v or [])} (empty: unknown)"
        )
    mode = ctx.attr("qk_matmul_output_mode", 0)
    if mode not in (0, 1, 2, 3):
        raise ctx.fail(f"qk_matmul_output_mode must be 0, 1, 2 or 3; got {mode}")
    if ctx.has_input(4) != ctx.has_input(5):
        raise ctx.fail("past_key and past_value must be given together")
    if ctx.has_input(4) and ctx.has_input(6):
        raise ctx.fail("nonpad_kv_seqlen (an external cache) cannot be combined with past_key")


def _attention(ctx: InferenceContext) -> list[ValueType | None]:
    q = check_rank(ctx, 0, "Q", (3, 4))
    k = check_rank(ctx, 1, "K", (3, 4))
    v = check_rank(ctx, 2, "V", (3, 4))
    _check_options(ctx, q, k, v)
    unknown: tuple[Dim, ...] = (None,) * 4
    q4 = _as_4d(ctx, q, "Q", "q_num_heads") or unknown
    k4 = _as_4d(ctx, k, "K", "kv_num_heads") or unknown
    v4 = _as_4d(ctx, v, "V", "kv_num_heads") or unknown
    past_k = check_rank(ctx, 4, "past_key", (4,)) or unknown
    past_v = check_rank(ctx, 5, "past_value", (4,)) or unknown
    nonpad = check_rank(ctx, 6, "nonpad_kv_seqlen", (1,)) or (None,)
    batch = agree(
        ctx,
        "batch sizes",
        [
            ("Q", q4[0]),
            ("K", k4[0]),
            ("V", v4[0]),
            ("past_key", past_k[0]),
            ("past_value", past_v[0]),
            ("nonpad_kv_seqlen", nonpad[0]),
        ],
    )
    kv_heads = agree(
        ctx,
        "key/value head counts",
        [("K", k4[1]), ("V", v4[1]), ("past_key", past_k[1]), ("past_value", past_v[1])],
    )
    heads_divide(ctx, q4[1], kv_heads)
    head = agree(ctx, "Q/K head sizes", [("Q", q4[3]), ("K", k4[3]), ("past_key", past_k[3])])
    v_head = agree(ctx, "V head sizes", [("V", v4[3]), ("past_value", past_v[3])])
    kv_len = agree(ctx, "K/V sequence lengths", [("K", k4[2]), ("V", v4[2])])
    past_len = agree(
        ctx, "past sequence lengths", [("past_key", past_k[2]), ("past_value", past_v[2])]
    )
    total = entry_add(past_len, kv_len) if ctx.has_input(4) else kv_len
    q_heads, q_len = q4[1], q4[2]
    if q is not None and len(q) == 3:
        y: Shape = (batch, q_len, _output_hidden(q_heads, kv_heads, v_head, v))
    elif q is not None:
        y = (batch, q_heads, q_len, v_head)
    else:
        y = None
    return [
        Tensor(ctx.elem(0), y),
        Tensor(ctx.elem(1), (batch, kv_heads, total, head)),
        Tensor(ctx.elem(2), (batch, kv_heads, total, v_head)),
        Tensor(ctx.elem(0), (batch, q_heads, q_len, total)),
    ]


# -- TensorScatter --------------------------------------------------------------------------------


def _tensor_scatter(ctx: InferenceContext) -> list[ValueType | None]:
    cache, update = ctx.shape(0), ctx.shape(1)
    if ctx.attr("mode", "linear") not in ("linear", "circular"):
        raise ctx.fail(f"mode must be 'linear' or 'circular'; got {ctx.attr('mode')!r}")
    known = cache if cache is not None else update
    if known is None:
        return [Tensor(ctx.elem(0), None)]
    rank = len(known)
    if rank < 2:
        raise ctx.fail(f"past_cache needs a batch and a sequence axis; got shape {list(known)}")
    axis = normalize_axis(ctx, int(ctx.attr("axis", -2)), rank)
    if axis == 0:
        raise ctx.fail("axis must not be 0: axis 0 is the batch dimension")
    if cache is not None and update is not None and len(update) != rank:
        raise ctx.fail(f"update must have the rank of past_cache ({rank}); got {list(update)}")
    cache = cache or (None,) * rank
    update = update or (None,) * rank
    c_len, u_len = cache[axis], update[axis]
    if isinstance(c_len, int) and isinstance(u_len, int) and u_len > c_len:
        raise ctx.fail(
            f"update's sequence length {u_len} exceeds the cache's {c_len} (axis {axis})"
        )
    write = check_rank(ctx, 2, "write_indices", (1,)) or (None,)
    dims = [
        cache[i]
        if i == axis
        else agree(
            ctx,
            f"dimension {i} of past_cache and update",
            [("past_cache", cache[i]), ("update", update[i])]
            + ([("write_indices", write[0])] if i == 0 else []),
        )
        for i in range(rank)
    ]
    return [Tensor(ctx.elem(0), tuple(dims))]


def register(rules: RuleRegistry) -> None:
    rules.add("Attention", _attention, since=ALL_VERSIONS)
    rules.add("TensorScatter", _tensor_scatter, since=ALL_VERSIONS)
