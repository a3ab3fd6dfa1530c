"""Recipes of the activation family: strategies drawing valid nodes of Relu, Sigmoid, Softplus,
Softsign, HardSwish, Mish, Celu, Elu, LeakyRelu, ThresholdedRelu, HardSigmoid, Selu, Shrink, Gelu,
Swish, Clip, Softmax, LogSoftmax, Hardmax, PRelu, SwiGLU, every version."""

from __future__ import annotations

from hypothesis import strategies as st

from onnxcraft.ops.node_case import NodeCase
from onnxcraft.ops.recipe_api import UNSIGNED, NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import ALPHA, along_axis, unary

__all__ = ["register"]

_ANY_FLOAT = st.floats(-2.0, 2.0, width=32)


@recipe
def prelu(n: NodeDraw) -> NodeCase:
    if n.version >= 7:
        return _prelu_modern(n)
    x_shape = n.shape(min_dims=1)
    slope_shape = x_shape if n.flag() else (1,)
    return n.case([n.tensor(0, x_shape), n.tensor(1, slope_shape)])


def _prelu_modern(n: NodeDraw) -> NodeCase:
    x_shape = n.shape()
    # Unidirectional broadcasting: a suffix of X's shape, any dim of it possibly 1.
    suffix = x_shape[len(x_shape) - n.integer(0, len(x_shape)) :]
    slope = tuple(1 if n.flag() else d for d in suffix)
    return n.case([n.tensor(0, x_shape), n.tensor(1, slope)])


@recipe
def clip(n: NodeDraw) -> NodeCase:
    x = n.tensor(0, n.shape())
    if n.version < 11:
        return n.case(
            [x], n.attrs(min=st.sampled_from([None, -1.0]), max=st.sampled_from([None, 2.0]))
        )
    elem = n.elem("T")
    low = n.scalar(0 if elem in UNSIGNED else -1, elem) if n.flag() else None
    high = n.scalar(2, elem) if n.flag() else None
    return n.case([x, low, high])


@recipe
def swiglu(n: NodeDraw) -> NodeCase:
    shape = n.shape()
    return n.case([n.tensor(0, shape), n.tensor(1, shape)], n.attrs(alpha=ALPHA))


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    for op_type in ("Relu", "Sigmoid", "Softplus", "Softsign", "HardSwish", "Mish"):
        recipes.add(op_type, unary())
    recipes.add("Celu", unary(alpha=ALPHA))
    recipes.add("Elu", unary(alpha=ALPHA))
    recipes.add("LeakyRelu", unary(alpha=ALPHA))
    recipes.add("ThresholdedRelu", unary(alpha=_ANY_FLOAT))
    recipes.add("HardSigmoid", unary(alpha=ALPHA, beta=ALPHA))
    recipes.add("Selu", unary(alpha=ALPHA, gamma=ALPHA))
    recipes.add(
        "Shrink", unary(bias=st.sampled_from([0.0, 1.0]), lambd=st.sampled_from([0.5, 1.0]))
    )
    recipes.add("Gelu", unary(approximate=st.sampled_from(["none", "tanh"])))
    recipes.add("Swish", unary(alpha=ALPHA))
    recipes.add("Clip", clip)
    recipes.add("Softmax", along_axis())
    recipes.add("LogSoftmax", along_axis())
    recipes.add("Hardmax", along_axis())
    recipes.add("PRelu", prelu)
    recipes.add("SwiGLU", swiglu)
