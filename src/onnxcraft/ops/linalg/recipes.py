"""Recipes of the linalg family: strategies drawing valid nodes of MatMul, Gemm, Det, every
version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe

__all__ = ["register"]


def _matmul_shapes(n: NodeDraw) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Operands of a (batched) matrix product; either may be 1-D."""
    batch_a, batch_b = n.draw(ocst.broadcastable_shapes(2, max_dims=2, max_side=3)).input_shapes
    m, k, cols = n.integer(0, 3), n.integer(0, 3), n.integer(0, 3)
    rarely = (False, False, True)
    a = (k,) if n.choice(rarely) else (*batch_a, m, k)
    b = (k,) if n.choice(rarely) else (*batch_b, k, cols)
    return a, b


@recipe
def matmul(n: NodeDraw) -> NodeCase:
    a, b = _matmul_shapes(n)
    return n.case([n.tensor(0, a, low=-2, high=2), n.tensor(1, b, low=-2, high=2)])


@recipe
def gemm(n: NodeDraw) -> NodeCase:
    m, k, cols = n.integer(1, 3), n.integer(1, 3), n.integer(1, 3)
    trans_a, trans_b = n.integer(0, 1), n.integer(0, 1)
    a = n.tensor(0, (k, m) if trans_a else (m, k), low=-2, high=2)
    b = n.tensor(1, (cols, k) if trans_b else (k, cols), low=-2, high=2)
    attrs: dict[str, Any] = {"transA": trans_a, "transB": trans_b}
    attrs.update(n.attrs(alpha=st.sampled_from([1.0, 0.5]), beta=st.sampled_from([1.0, 2.0])))
    if "broadcast" in n.attribute_names:
        broadcast = n.integer(0, 1)
        attrs["broadcast"] = broadcast
        c_shape = (m, cols) if not broadcast else n.choice([(m, cols), (cols,), (1, cols)])
    else:
        c_shape = n.choice([(m, cols), (cols,), (1, cols), (m, 1), (), (1,)])
    c: Input | None = n.tensor(2, c_shape)
    if n.version >= 11 and n.flag():
        c = None
    return n.case([a, b, c], attrs)


@recipe
def det(n: NodeDraw) -> NodeCase:
    size = n.integer(0, 3)
    batch = n.shape(max_dims=2, max_side=2)
    return n.case([n.tensor(0, (*batch, size, size), low=-2, high=2)])


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("MatMul", matmul)
    recipes.add("Gemm", gemm)
    recipes.add("Det", det)
