"""Recipes of the attention family: strategies drawing valid nodes of TensorScatter, Attention,
every version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


@recipe
def tensor_scatter(n: NodeDraw) -> NodeCase:
    shape = list(n.shape(min_dims=2, max_dims=4, min_side=1, max_side=3))
    axis = n.integer(1, len(shape) - 1)
    longest = shape[axis]
    length = n.integer(0, longest)
    update_shape = list(shape)
    update_shape[axis] = length
    mode = n.choice(["linear", "circular"])
    limit = longest - 1 if mode == "circular" else longest - length
    writes = n.ints([n.integer(0, max(limit, 0)) for _ in range(shape[0])]) if n.flag() else None
    axis_attr = axis - len(shape) if n.flag() else axis
    past = n.tensor(0, tuple(shape))
    update = n.tensor(1, tuple(update_shape))
    return n.case([past, update, writes], {"axis": axis_attr, "mode": mode})


@recipe
def attention(n: NodeDraw) -> NodeCase:
    batch, kv_heads = n.integer(1, 2), n.integer(1, 2)
    q_heads = kv_heads * n.integer(1, 2)
    q_len, kv_len, past_len = n.integer(1, 3), n.integer(1, 3), n.integer(0, 2)
    head, value_head = n.integer(1, 3), n.integer(1, 3)
    packed = n.flag()  # 3-D inputs with heads folded into the last axis

    def layout(heads: int, length: int, size: int) -> tuple[int, ...]:
        return (batch, length, heads * size) if packed else (batch, heads, length, size)

    q = n.tensor(0, layout(q_heads, q_len, head), low=-1, high=1)
    k = n.tensor(1, layout(kv_heads, kv_len, head), low=-1, high=1)
    v = n.tensor(2, layout(kv_heads, kv_len, value_head), low=-1, high=1)
    with_past = n.flag()
    total = kv_len + (past_len if with_past else 0)
    mask = None
    if n.flag():
        mask_elem = n.elem("U")
        low = 0 if mask_elem == ElementType.BOOL else -1
        mask = n.tensor(
            3,
            n.choice([(q_len, total), (batch, q_heads, q_len, total), (1, 1, q_len, total)]),
            low=low,
            high=0,
        )
    past: list[Input | None] = [None, None]
    if with_past:
        past = [
            n.tensor(4, (batch, kv_heads, past_len, head), low=-1, high=1),
            n.tensor(5, (batch, kv_heads, past_len, value_head), low=-1, high=1),
        ]
    nonpad = None
    if "nonpad_kv_seqlen" in [f.name for f in n.spec.inputs] and not with_past and n.flag():
        nonpad = n.ints([n.integer(1, kv_len) for _ in range(batch)])
    attrs: dict[str, Any] = n.attrs(
        is_causal=st.sampled_from([0, 1]),
        scale=st.sampled_from([None, 0.5]),
        softcap=st.sampled_from([0.0, 2.0]),
        qk_matmul_output_mode=st.sampled_from([0, 1, 2, 3]),
        left_window_size=st.sampled_from([-1, 1]),
        right_window_size=st.sampled_from([-1, 0]),
    )
    if packed:
        attrs.update(q_num_heads=q_heads, kv_num_heads=kv_heads)
    outputs = [True, with_past, with_past, n.flag()]
    return n.case([q, k, v, mask, *past, nonpad][: len(n.spec.inputs)], attrs, outputs=outputs)


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("TensorScatter", tensor_scatter)
    recipes.add("Attention", attention)
