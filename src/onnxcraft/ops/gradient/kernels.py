"""The Gradient operator of ai.onnx.preview.training: reverse-mode differentiation of the graph
around the node.

A Gradient node names tensors of the graph it sits in: ``y``, the tensor differentiated, and
the independent variables that determine it, ``xs`` (differentiated) and ``zs`` (held
constant). Its inputs are values for xs then zs — the point at which the derivatives are
taken, not necessarily what the graph computes under those names — and output i is dy/dx_i,
with the type and shape of x_i. The kernel reads its graph through its context
(:attr:`~onnxcraft.ops.kernel_api.KernelContext.graph`) and:

1. selects the steps that compute ``y`` from xs and zs, walking back from ``y`` and stopping
   at their names; any other value reached must be a constant (initializer) of the graph;
2. runs those steps forward on the node's inputs, keeping every intermediate value;
3. walks them backwards from a cotangent of ones for ``y``, asking each node's
   vector-Jacobian product rule (:mod:`onnxcraft.ops.vjp_api`) for its inputs' cotangents
   and adding up the cotangents of values read more than once.

Only float tensors that depend on an x carry a gradient: integer and bool results (shapes,
indices, masks) stop it, and a node none of whose inputs carries one is just evaluated. A node
that would pass a gradient on but has no rule is an error naming it. A node that runs through a
function body (a model-local function, or an operator the evaluator computes by its function
body) is differentiated through that body, node by node.

The standard does not require ``y`` to be a scalar and gives every output the shape of its x,
so a non-scalar ``y`` is differentiated as the sum of its elements (the seed is all ones).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from onnxcraft.errors import OnnxcraftError
from onnxcraft.ops.kernel_api import (
    GraphPlan,
    GraphView,
    KernelContext,
    KernelRegistry,
    Step,
)
from onnxcraft.ops.kernel_common import fail
from onnxcraft.ops.versions import versions
from onnxcraft.ops.vjp_api import VjpCall, VjpRegistry, default_vjp_rules

__all__ = ["gradient", "register"]

_DOMAIN = "ai.onnx.preview.training"
_FLOAT_KINDS = "f"
# Element kinds that carry no derivative: bool, integers, strings, dates.
_CONSTANT_KINDS = "biuSUOMm"


@dataclass(frozen=True)
class _Request:
    """What one Gradient node asks for: the names from its attributes, checked."""

    op: str  # "Gradient" and the node's name, for error messages
    xs: tuple[str, ...]
    zs: tuple[str, ...]
    y: str


@dataclass(frozen=True)
class _Program:
    """The steps computing ``y`` from xs and zs, in graph order, and the constants they read."""

    steps: list[Step]
    constants: dict[str, Any]


# -- the kernel -----------------------------------------------------------------------------------


def gradient(
    ctx: KernelContext,
    *inputs: Any,
    xs: Sequence[str] | None = None,
    y: str | None = None,
    zs: Sequence[str] | None = None,
) -> tuple[np.ndarray | None, ...]:
    """Gradient-1: dy/dx for every x of ``xs`` at the point given by the inputs."""
    request = _request(ctx, inputs, xs, y, zs)
    if ctx.graph is None:
        fail(request.op, "needs the graph around the node: evaluate it inside a model")
    program = _select(ctx.graph, ctx, request)
    values = _forward(ctx.graph, program, request, inputs)
    asked = ctx.outputs_requested
    sources = {x for x, wanted in zip(request.xs, asked) if wanted}
    cotangents = {request.y: _seed(request, values)}
    walk = _Walk(request.op, default_vjp_rules(), ctx.graph)
    walk.backward(program.steps, values, cotangents, _activity(program.steps, values, sources))
    return tuple(
        _result(cotangents.get(x), value) if wanted else None
        for x, value, wanted in zip(request.xs, inputs, asked)
    )


def _forward(
    graph: GraphView, program: _Program, request: _Request, inputs: tuple[Any, ...]
) -> dict[str, Any]:
    """Every value of the program, computed from the node's inputs and the graph constants."""
    env: dict[str, Any] = dict(program.constants)
    env.update(zip(request.xs + request.zs, inputs))
    plan = GraphPlan(inputs=[], outputs=[], constants={}, steps=program.steps, free_names=[])
    return graph.run(plan, env)


def _result(cotangent: np.ndarray | None, x: Any) -> np.ndarray:
    """dy/dx typed as x: zeros when y does not depend on x."""
    if cotangent is None:
        return np.zeros(np.shape(x), x.dtype)
    return np.asarray(cotangent, dtype=x.dtype)


def _request(
    ctx: KernelContext,
    inputs: tuple[Any, ...],
    xs: Sequence[str] | None,
    y: str | None,
    zs: Sequence[str] | None,
) -> _Request:
    op = f"Gradient node {ctx.node_name!r}" if ctx.node_name else "Gradient"
    if not xs:
        fail(op, "attribute xs is required: the names of the tensors to differentiate by")
    if not y:
        fail(op, "attribute y is required: the name of the tensor to differentiate")
    request = _Request(op, tuple(xs), tuple(zs or ()), y)
    names = request.xs + request.zs
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        fail(op, f"xs and zs must name distinct tensors, got {repeated} more than once")
    if len(inputs) != len(names):
        fail(
            op,
            f"expects {len(names)} inputs, the values of xs {list(request.xs)} then of zs "
            f"{list(request.zs)}, got {len(inputs)}",
        )
    if ctx.num_outputs > len(request.xs):
        fail(op, f"has {ctx.num_outputs} outputs but xs names {len(request.xs)} tensors")
    for index, (name, value) in enumerate(zip(request.xs, inputs)):
        if not _is_float(value):
            fail(
                op,
                f"input {index} (the value of x {name!r}) must be a float16, float or double "
                f"tensor, got {_describe(value)}",
            )
    return request


def _seed(request: _Request, values: dict[str, Any]) -> np.ndarray:
    """The cotangent of ``y``: ones, as y is differentiated as the sum of its elements."""
    value = values[request.y]
    if not _is_float(value):
        fail(
            request.op,
            f"y {request.y!r} must be a float16, float or double tensor, got {_describe(value)}",
        )
    return np.ones(np.shape(value), value.dtype)


# -- selecting the differentiated subgraph ------------------------------------------------------


def _select(graph: GraphView, ctx: KernelContext, request: _Request) -> _Program:
    """The steps between xs/zs and y, and the graph constants they read."""
    steps: Sequence[Step] = graph.steps
    producer = {name: i for i, step in enumerate(steps) for name in step.outputs if name}
    inputs = set(graph.input_names)
    _check_names(request, set(producer) | inputs | set(graph.constants))
    cut = set(request.xs) | set(request.zs)
    needed: set[int] = set()
    used: dict[str, Any] = {}
    pending, seen = [request.y], set()
    while pending:  # walk back from y; xs and zs end the walk
        name = pending.pop()
        if name in seen or name in cut:
            continue
        seen.add(name)
        index = producer.get(name)
        if index is not None:
            if steps[index].context is ctx:
                fail(request.op, f"y {request.y!r} depends on the outputs of this node itself")
            needed.add(index)
            pending.extend(_reads(steps[index]))
        elif name in graph.constants and name not in inputs:
            used[name] = graph.constants[name]
        else:
            _undetermined(request, name, name in inputs)
    return _Program([_cut_outputs(steps[i], cut) for i in sorted(needed)], used)


def _check_names(request: _Request, defined: set[str]) -> None:
    """y, xs and zs must name values of the graph holding the node."""
    for role, names in (("y", (request.y,)), ("xs", request.xs), ("zs", request.zs)):
        unknown = [n for n in names if n not in defined]
        if unknown:
            fail(
                request.op,
                f"{role} names {unknown}, which the graph holding the node does not define",
            )


def _undetermined(request: _Request, name: str, is_input: bool) -> NoReturn:
    """y reads a value that neither xs, zs nor the graph's constants determine."""
    where = "a graph input" if is_input else "a value of an enclosing graph"
    fail(
        request.op,
        f"y {request.y!r} depends on {name!r}, {where} named neither in xs nor in zs "
        f"(xs and zs must determine y; add {name!r} to zs to hold it constant)",
    )


def _reads(step: Step) -> list[str]:
    """Every value a step reads: its inputs and what its graph attributes capture."""
    return [n for n in step.inputs if n] + _captured(step)


def _captured(step: Step) -> list[str]:
    """The enclosing values the graph attributes of a step (If, Loop ...) read."""
    names: list[str] = []
    for attribute in step.subgraph_attributes:
        value = step.attributes[attribute]
        for ref in value if isinstance(value, list) else [value]:
            names.extend(ref.plan.free_names)
    return names


def _cut_outputs(step: Step, cut: set[str]) -> Step:
    """The step without the outputs named in xs or zs: those keep the node's input values."""
    if not any(name in cut for name in step.outputs):
        return step
    return dataclasses.replace(step, outputs=["" if n in cut else n for n in step.outputs])


# -- the backward walk ----------------------------------------------------------------------------


def _activity(steps: Sequence[Step], values: dict[str, Any], sources: set[str]) -> set[str]:
    """The values that depend on ``sources`` and may carry a gradient (not int, bool ...)."""
    active = set(sources)
    for step in steps:
        if any(name in active for name in _reads(step)):
            active.update(n for n in step.outputs if n and _may_carry(values.get(n)))
    return active


@dataclass(frozen=True)
class _Walk:
    """The backward walk of one Gradient node: its label for errors, the rules it uses and
    the graph that runs steps again (rules that trace data movement rerun their node)."""

    op: str
    rules: VjpRegistry
    graph: GraphView

    def backward(
        self,
        steps: Sequence[Step],
        values: dict[str, Any],
        cotangents: dict[str, np.ndarray],
        active: set[str],
    ) -> None:
        """Propagate ``cotangents`` from outputs to inputs through ``steps``, last step first."""
        for step in reversed(steps):
            flowing = tuple(cotangents.pop(n, None) if n else None for n in step.outputs)
            if all(g is None for g in flowing):
                continue
            wanted = tuple(bool(n) and n in active for n in step.inputs)
            if not any(wanted) and not any(n in active for n in _captured(step)):
                continue
            grads = self.step_vjp(step, values, flowing, wanted)
            for name, want, grad in zip(step.inputs, wanted, grads):
                if want and grad is not None:
                    self.accumulate(cotangents, name, grad, values[name], step)

    def step_vjp(
        self,
        step: Step,
        values: dict[str, Any],
        flowing: tuple[np.ndarray | None, ...],
        wanted: tuple[bool, ...],
    ) -> Sequence[np.ndarray | None]:
        """The cotangents of one step's inputs, by its rule or through its function body."""
        node = step.node
        args = tuple(values[n] if n else None for n in step.inputs)
        for name, want, value in zip(step.inputs, wanted, args):
            if want and not _is_float(value):
                fail(
                    self.op,
                    f"cannot differentiate {_label(step)} with respect to its input {name!r}: "
                    f"{_describe(value)} carries no gradient (float16, float and double do)",
                )
        if step.function_plan is not None:  # what runs is the body, so differentiate it
            return self.through_body(step.function_plan, args, flowing, wanted)
        rule = self.rules.lookup(node.domain, node.op_type, step.since_version)
        if rule is None:
            fail(
                self.op,
                f"{_label(step)} ({node.domain or 'ai.onnx'}, version {step.since_version}) lies "
                f"on the path from xs to y, but its operator has no vector-Jacobian product rule",
            )
        call = VjpCall(
            op_type=node.op_type,
            since_version=step.since_version,
            inputs=args,
            outputs=tuple(values.get(n) if n else None for n in step.outputs),
            attributes=step.attributes,
            cotangents=flowing,
            wanted=wanted,
            rerun=lambda *inputs: self.graph.run_step(step, list(inputs)),
        )
        try:
            return rule(call)
        except OnnxcraftError:
            raise
        except Exception as exc:  # a rule's numpy error must still say which node failed
            fail(self.op, f"differentiating {_label(step)}: {type(exc).__name__}: {exc}")

    def through_body(
        self,
        body: GraphPlan,
        args: tuple[Any, ...],
        flowing: tuple[np.ndarray | None, ...],
        wanted: tuple[bool, ...],
    ) -> list[np.ndarray | None]:
        """Differentiate a node that runs through a function body, node by node."""
        names = [i.name for i in body.inputs]
        values = self.graph.run(body, dict(zip(names, args)))
        sources = {name for name, want in zip(names, wanted) if want}
        cotangents: dict[str, np.ndarray] = {}
        for name, grad in zip(body.outputs, flowing):
            if name and grad is not None:
                self.accumulate(cotangents, name, grad, values[name], None)
        self.backward(body.steps, values, cotangents, _activity(body.steps, values, sources))
        return [cotangents.get(name) if want else None for name, want in zip(names, wanted)]

    def accumulate(
        self,
        cotangents: dict[str, np.ndarray],
        name: str,
        grad: Any,
        value: Any,
        step: Step | None,
    ) -> None:
        """Add ``grad`` to the cotangent of ``name`` (a value read twice gets both)."""
        grad = np.asarray(grad)
        shape = np.shape(value)
        if grad.shape != shape:
            fail(
                self.op,
                f"the rule of {_label(step)} gave a cotangent of shape {list(grad.shape)} for "
                f"{name!r} of shape {list(shape)}",
            )
        grad = grad.astype(np.asarray(value).dtype, copy=False)
        previous = cotangents.get(name)
        cotangents[name] = grad if previous is None else np.asarray(previous + grad)


# -- values ---------------------------------------------------------------------------------------


def _is_float(value: Any) -> bool:
    """A float16, float or double tensor (some kernels return 0-D results as numpy scalars)."""
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in _FLOAT_KINDS


def _may_carry(value: Any) -> bool:
    """Whether a value computed from a differentiated one may carry its gradient on.

    Integer, bool and string tensors cannot; anything else can (a float tensor, but also a
    sequence or a bfloat16 tensor, which then fail clearly where a rule would be needed).
    """
    if value is None:
        return False
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind not in _CONSTANT_KINDS
    return True


def _describe(value: Any) -> str:
    if isinstance(value, (np.ndarray, np.generic)):
        return f"a {value.dtype} tensor of shape {list(np.shape(value))}"
    if isinstance(value, list):
        return "a sequence"
    if value is None:
        return "no value"
    return f"a {type(value).__name__}"


def _label(step: Step | None) -> str:
    if step is None:
        return "a function body"
    node = step.node
    return f"{node.op_type} node {node.name!r}" if node.name else f"{node.op_type} node"


def register(kernels: KernelRegistry) -> None:
    """Add the Gradient kernel; it reads its graph, so it takes the kernel context."""
    kernels.add(
        "Gradient", gradient, since=versions("Gradient", _DOMAIN), domain=_DOMAIN, context=True
    )
