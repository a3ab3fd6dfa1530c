"""Recipes of the sequence family: strategies drawing valid nodes of SequenceConstruct,
SequenceEmpty, SequenceAt, SequenceErase, SequenceInsert, SequenceLength, SplitToSequence,
ConcatFromSequence, Optional, OptionalHasElement, OptionalGetElement, every version."""

from __future__ import annotations

from collections.abc import Sequence as SequenceOf
from typing import Any

from hypothesis import strategies as st

from onnxcraft.dtypes import ElementType
from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import sequence_elem, sequence_input, sequence_shapes
from onnxcraft.types import Optional, Sequence, Tensor, ValueType

__all__ = ["register"]


@recipe
def sequence_construct(n: NodeDraw) -> NodeCase:
    shapes = sequence_shapes(n, min_size=1)
    return n.case([n.tensor(i, s) for i, s in enumerate(shapes)])


@recipe
def sequence_empty(n: NodeDraw) -> NodeCase:
    elem = sequence_elem(n, "S")
    return n.case([], {"dtype": int(elem)} if elem != ElementType.FLOAT or n.flag() else {})


@recipe
def sequence_at(n: NodeDraw) -> NodeCase:
    shapes = sequence_shapes(n, min_size=1)
    seq = sequence_input(n, sequence_elem(n, "S"), shapes)
    position = n.scalar(n.integer(-len(shapes), len(shapes) - 1), n.elem("I"))
    return n.case([seq, position])


@recipe
def sequence_erase(n: NodeDraw) -> NodeCase:
    shapes = sequence_shapes(n, min_size=1)
    seq = sequence_input(n, sequence_elem(n, "S"), shapes)
    position = n.scalar(n.integer(-len(shapes), len(shapes) - 1), n.elem("I")) if n.flag() else None
    return n.case([seq, position])


@recipe
def sequence_insert(n: NodeDraw) -> NodeCase:
    elem = sequence_elem(n, "S")
    n.bind("T", elem)
    shapes = sequence_shapes(n)
    seq = sequence_input(n, elem, shapes)
    tensor = n.tensor(1, n.shape(max_dims=3, max_side=3))
    position = n.scalar(n.integer(-len(shapes), len(shapes)), n.elem("I")) if n.flag() else None
    return n.case([seq, tensor, position])


@recipe
def sequence_length(n: NodeDraw) -> NodeCase:
    return n.case([sequence_input(n, sequence_elem(n, "S"), sequence_shapes(n))])


@recipe
def split_to_sequence(n: NodeDraw) -> NodeCase:
    shape = list(n.shape(min_dims=1, max_side=4))
    axis = n.axis(len(shape))
    dim = shape[axis]
    x = n.tensor(0, tuple(shape))
    attrs: dict[str, Any] = {"axis": axis}
    form = n.choice(["none", "chunk", "sizes"])
    if form == "none":
        return n.case([x], {**attrs, **n.attrs(keepdims=st.sampled_from([0, 1]))})
    if form == "chunk" and dim:
        return n.case([x, n.scalar(n.integer(1, dim), n.elem("I"))], attrs)
    cuts = sorted(n.integer(0, dim) for _ in range(n.integer(0, 2)))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, dim])]
    return n.case([x, n.ints(sizes, elem=n.elem("I"))], attrs)


@recipe
def concat_from_sequence(n: NodeDraw) -> NodeCase:
    new_axis = n.integer(0, 1)
    base = n.shape(min_dims=1 - new_axis, max_dims=3, max_side=3)
    rank = len(base) + new_axis
    axis = n.integer(-rank, rank - 1)
    count = n.integer(1, 3)
    shapes = []
    for _ in range(count):
        shape = list(base)
        if not new_axis:
            shape[axis] = n.integer(0, 3)
        shapes.append(tuple(shape))
    seq = sequence_input(n, sequence_elem(n, "S"), shapes)
    return n.case([seq], {"axis": axis, "new_axis": new_axis})


def _tensor_or_sequence(n: NodeDraw, allowed: SequenceOf[ValueType]) -> tuple[Any, ValueType]:
    """A value of one of ``allowed`` (tensor or sequence types) and its exact type."""
    chosen = n.choice(allowed)
    if isinstance(chosen, Sequence):
        elem = chosen.elem.elem_type if isinstance(chosen.elem, Tensor) else ElementType.FLOAT
        assert elem is not None
        items = [n.array(elem, s) for s in sequence_shapes(n)]
        return items, Sequence(Tensor(elem, None))
    assert isinstance(chosen, Tensor) and chosen.elem_type is not None
    array = n.array(chosen.elem_type, n.shape(max_dims=3, max_side=3))
    return array, Tensor(chosen.elem_type, array.shape)


def _allowed(n: NodeDraw, param: str) -> list[ValueType]:
    return [ocst.parse_type(s) for s in ocst.allowed_types(n.spec, param)]


@recipe
def optional(n: NodeDraw) -> NodeCase:
    if n.flag():
        value, value_type = _tensor_or_sequence(n, _allowed(n, "V"))
        return n.case([_input(n, value, value_type)])
    inner = n.choice(_allowed(n, "V"))
    return n.case([], {"type": inner})


def _input(n: NodeDraw, value: Any, value_type: ValueType) -> Input:
    return n.given(value) if isinstance(value_type, Tensor) else n.value(value, value_type)


def _optional_input(n: NodeDraw, *, allow_empty: bool) -> Input:
    """An input of the spec's "O": an optional (empty or not), or from opset 18 a plain value."""
    kinds = _allowed(n, "O")
    wrapped = [t.elem for t in kinds if isinstance(t, Optional) and t.elem is not None]
    plain = [t for t in kinds if not isinstance(t, Optional)]
    if plain and n.flag():
        value, value_type = _tensor_or_sequence(n, plain)
        return _input(n, value, value_type)
    inner = n.choice(wrapped)
    if allow_empty and n.flag():
        return n.value(None, Optional(inner))
    value, value_type = _tensor_or_sequence(n, [inner])
    return n.value(value, Optional(value_type))


@recipe
def optional_has_element(n: NodeDraw) -> NodeCase:
    if n.version >= 18 and n.flag():
        return n.case([None])  # an omitted input has no element
    return n.case([_optional_input(n, allow_empty=True)])


@recipe
def optional_get_element(n: NodeDraw) -> NodeCase:
    return n.case([_optional_input(n, allow_empty=False)])


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("SequenceConstruct", sequence_construct)
    recipes.add("SequenceEmpty", sequence_empty)
    recipes.add("SequenceAt", sequence_at)
    recipes.add("SequenceErase", sequence_erase)
    recipes.add("SequenceInsert", sequence_insert)
    recipes.add("SequenceLength", sequence_length)
    recipes.add("SplitToSequence", split_to_sequence)
    recipes.add("ConcatFromSequence", concat_from_sequence)
    recipes.add("Optional", optional)
    recipes.add("OptionalHasElement", optional_has_element)
    recipes.add("OptionalGetElement", optional_get_element)
