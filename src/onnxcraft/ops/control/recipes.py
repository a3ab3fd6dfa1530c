"""Recipes of the control family: strategies drawing valid nodes of If, Loop, Scan, SequenceMap,
every version.

The bodies of the graph attributes are small graphs of Identity nodes.
"""

from __future__ import annotations

from collections.abc import Sequence as SequenceOf
from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType, element_type_of
from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.ops.recipe_api import NodeDraw, RecipeRegistry, recipe
from onnxcraft.ops.recipe_common import sequence_elem, sequence_input, sequence_shapes
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]


def _identity_body(
    name: str,
    inputs: SequenceOf[tuple[str, ValueType]],
    outputs: SequenceOf[tuple[str, str, ValueType]],
) -> ir.Graph:
    """A graph whose outputs are Identity copies: (output name, source name, type)."""
    nodes = [ir.Node("Identity", [source], [out]) for out, source, _ in outputs]
    return ir.Graph(
        name=name,
        nodes=nodes,
        inputs=[ir.ValueInfo(i, t) for i, t in inputs],
        outputs=[ir.ValueInfo(out, t) for out, _, t in outputs],
    )


def _tensor_type(array: np.ndarray) -> Tensor:
    return Tensor(element_type_of(array.dtype), array.shape)


@recipe
def if_(n: NodeDraw) -> NodeCase:
    count = n.integer(1, 2)
    elem = n.draw(ocst.element_types(["tensor(float)", "tensor(int64)", "tensor(bool)"]))
    values = [n.array(elem, n.shape(max_dims=2, max_side=3)) for _ in range(2 * count)]
    if n.version < 11:
        # If-1's branches return values of one shape (onnx's inference merges them); If-11
        # on allows the shapes to differ
        values[count:] = [n.array(elem, v.shape) for v in values[:count]]
    # Each branch returns values of the enclosing graph (cap0, cap1 ...), as exporters do.
    then_branch = _identity_body(
        "then", [], [(f"t{i}", f"cap{i}", _tensor_type(values[i])) for i in range(count)]
    )
    else_branch = _identity_body(
        "else",
        [],
        [(f"e{i}", f"cap{count + i}", _tensor_type(values[count + i])) for i in range(count)],
    )
    cond = n.scalar(n.flag(), ElementType.BOOL, rank=n.choice([0, 1]))
    attrs = {"then_branch": then_branch, "else_branch": else_branch}
    return n.case([cond], attrs, outputs=count, captured=[n.given(v) for v in values])


@recipe
def loop(n: NodeDraw) -> NodeCase:
    trips = n.integer(0, 3)
    carried = [
        n.array(ElementType.FLOAT, n.shape(max_dims=2, max_side=3)) for _ in range(n.integer(1, 2))
    ]
    scanned = n.integer(0, len(carried))
    body_inputs: list[tuple[str, ValueType]] = [
        ("i", Tensor(ElementType.INT64, ())),
        ("cond", Tensor(ElementType.BOOL, ())),
        *((f"v{k}", _tensor_type(v)) for k, v in enumerate(carried)),
    ]
    body_outputs = [
        ("cond_out", "cond", Tensor(ElementType.BOOL, ())),
        *((f"v{k}_out", f"v{k}", _tensor_type(v)) for k, v in enumerate(carried)),
        *((f"s{k}", f"v{k}", _tensor_type(carried[k])) for k in range(scanned)),
    ]
    body = _identity_body("body", body_inputs, body_outputs)
    trip_count = n.scalar(trips, ElementType.INT64)
    cond = n.scalar(True, ElementType.BOOL) if n.flag() else None
    inputs = [trip_count, cond, *(n.given(v) for v in carried)]
    return n.case(inputs, {"body": body}, outputs=len(carried) + scanned)


@recipe
def scan(n: NodeDraw) -> NodeCase:
    steps = n.integer(1, 3)
    elem = ElementType.FLOAT
    states = [n.array(elem, n.shape(max_dims=2, max_side=2)) for _ in range(n.integer(0, 1))]
    inner_shapes = [n.shape(max_dims=2, max_side=2) for _ in range(n.integer(1, 2))]
    batch = n.integer(1, 2) if n.version == 8 else None
    attrs: dict[str, Any] = {"num_scan_inputs": len(inner_shapes)}
    if batch is not None:
        state_arrays = [np.broadcast_to(s, (batch, *s.shape)).copy() for s in states]
        scans = [n.array(elem, (batch, steps, *shape)) for shape in inner_shapes]
    else:
        state_arrays = states
        axes = [n.integer(0, len(shape)) for shape in inner_shapes]
        scans = [
            n.array(elem, _insert(shape, axis, steps)) for shape, axis in zip(inner_shapes, axes)
        ]
        if any(axes) or n.flag():
            attrs["scan_input_axes"] = axes
        if n.flag():
            attrs["scan_input_directions"] = [n.integer(0, 1) for _ in axes]
    body_inputs = [(f"st{k}", _tensor_type(s)) for k, s in enumerate(states)]
    body_inputs += [(f"sc{k}", Tensor(elem, shape)) for k, shape in enumerate(inner_shapes)]
    body_outputs = [(f"st{k}_out", f"st{k}", _tensor_type(s)) for k, s in enumerate(states)]
    body_outputs += [
        (f"y{k}", f"sc{k}", Tensor(elem, shape)) for k, shape in enumerate(inner_shapes)
    ]
    attrs["body"] = _identity_body("body", body_inputs, body_outputs)
    if batch is None and n.flag():
        attrs["scan_output_axes"] = [n.integer(0, len(s)) for s in inner_shapes]
    inputs: list[Input | None] = [n.given(v) for v in state_arrays + scans]
    if batch is not None:  # Scan-8 takes sequence lengths first
        inputs.insert(0, n.ints([steps] * batch) if n.flag() else None)
    return n.case(inputs, attrs, outputs=len(states) + len(inner_shapes))


def _insert(shape: tuple[int, ...], axis: int, size: int) -> tuple[int, ...]:
    return (*shape[:axis], size, *shape[axis:])


@recipe
def sequence_map(n: NodeDraw) -> NodeCase:
    elem = sequence_elem(n, "S")
    shapes = sequence_shapes(n, min_size=0)
    seq = sequence_input(n, elem, shapes)
    extra = [n.array(n.elem("V"), n.shape(max_dims=2, max_side=2)) for _ in range(n.integer(0, 1))]
    body_inputs: list[tuple[str, ValueType]] = [("x", Tensor(elem, None))]
    body_inputs += [(f"a{k}", _tensor_type(a)) for k, a in enumerate(extra)]
    body_outputs = [("y0", "x", Tensor(elem, None))]
    body_outputs += [(f"y{1 + k}", f"a{k}", _tensor_type(a)) for k, a in enumerate(extra)]
    body = _identity_body("body", body_inputs, body_outputs)
    inputs = [seq, *(n.given(a) for a in extra)]
    return n.case(inputs, {"body": body}, outputs=len(body_outputs))


def register(recipes: RecipeRegistry) -> None:
    """Add the recipes of this family."""
    recipes.add("If", if_)
    recipes.add("Loop", loop)
    recipes.add("Scan", scan)
    recipes.add("SequenceMap", sequence_map)
