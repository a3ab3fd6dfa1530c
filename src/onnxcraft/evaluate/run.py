"""Running a prepared graph: a loop over its steps, values held in one dict of names.

Between steps the run's guard (:mod:`onnxcraft.ops.run_guard`) looks at the clock and the
cancel token when the run has either; a limit reached anywhere is reported with the path of
nodes that led to it.

Values no later step reads are dropped as soon as they are used (unless every value is asked
for), so intermediate arrays are freed while the graph runs. Graph attributes reach kernels as
:class:`BoundSubgraph`: the body's plan with the enclosing values it reads.
"""

from __future__ import annotations

from typing import Any

from onnxcraft.errors import EvaluationError, EvaluationLimitError, OnnxcraftError
from onnxcraft.ops.kernel_api import GraphPlan, Step, SubgraphRef
from onnxcraft.ops.run_guard import RunGuard, current_guard

__all__ = ["BoundSubgraph", "run_plan", "run_step", "step_label"]


class BoundSubgraph:
    """A graph attribute bound to the values of its enclosing scope, callable by kernels."""

    __slots__ = ("_outer", "_plan", "input_names", "output_names", "output_types")

    def __init__(self, plan: GraphPlan, env: dict[str, Any]) -> None:
        self._plan = plan
        self._outer = {name: env[name] for name in plan.free_names}
        self.input_names = tuple(i.name for i in plan.inputs)
        self.output_names = tuple(plan.outputs)
        self.output_types = tuple(plan.output_types)  # declared; None where the body omits it

    def __call__(self, *inputs: Any) -> list[Any]:
        if len(inputs) != len(self.input_names):
            raise EvaluationError(
                f"subgraph expects {len(self.input_names)} inputs, got {len(inputs)}"
            )
        env = dict(self._plan.constants)
        env.update(self._outer)
        env.update(zip(self.input_names, inputs))
        values = run_plan(self._plan, env, keep_all=False)
        return [values[name] for name in self._plan.outputs]


def run_plan(plan: GraphPlan, env: dict[str, Any], *, keep_all: bool) -> dict[str, Any]:
    protected = set(plan.outputs)
    guard = current_guard()
    between_steps = guard.check if guard.per_step else None
    for index, step in enumerate(plan.steps):
        if between_steps is not None:
            try:
                between_steps()
            except EvaluationLimitError as exc:
                raise exc.at(step_label(step)) from None
        try:
            args = [env[name] if name else None for name in step.inputs]
        except KeyError as exc:
            raise EvaluationError(
                f"{step_label(step)}: input {exc.args[0]!r} has no value"
            ) from None
        results = run_step(step, args, env)
        if guard.values_limited:
            _check_sizes(guard, step, results)
        for name, value in zip(step.outputs, results):
            if name:
                env[name] = value
        if not keep_all:
            for name in step.inputs:
                if name and plan.last_use.get(name) == index and name not in protected:
                    env.pop(name, None)
    return env


def _check_sizes(guard: RunGuard, step: Step, results: tuple[Any, ...]) -> None:
    # Values whose size follows from shapes the kernel already checked before allocating;
    # this catches the rest (a Concat of many inputs, a Gather of many indices ...).
    try:
        for value in results:
            guard.produced(step.node.op_type, value)
    except EvaluationLimitError as exc:
        raise exc.at(step_label(step)) from None


def run_step(step: Step, args: list[Any], env: dict[str, Any]) -> tuple[Any, ...]:
    try:
        return _run_step(step, args, env)
    except EvaluationLimitError as exc:  # say in which node (and which enclosing ones)
        raise exc.at(step_label(step)) from None


def _run_step(step: Step, args: list[Any], env: dict[str, Any]) -> tuple[Any, ...]:
    if step.function_plan is not None:
        # the body's constants: the values its Constant nodes made when it was prepared
        inner_env = dict(step.function_plan.constants)
        inner_env.update(zip((i.name for i in step.function_plan.inputs), args))
        values = run_plan(step.function_plan, inner_env, keep_all=False)
        return tuple(values.get(name) for name in step.function_plan.outputs)
    attributes = step.attributes
    if step.subgraph_attributes:
        attributes = dict(attributes)
        for name in step.subgraph_attributes:
            value = attributes[name]
            if isinstance(value, list):
                attributes[name] = [BoundSubgraph(ref.plan, env) for ref in value]
            else:
                attributes[name] = (
                    BoundSubgraph(value.plan, env) if isinstance(value, SubgraphRef) else value
                )
    fn = step.fn
    assert fn is not None
    try:
        if step.context is not None:
            result = fn(step.context, *args, **attributes)
        else:
            result = fn(*args, **attributes)
    except OnnxcraftError:
        raise
    except Exception as exc:  # a kernel's numpy error must still say which node failed
        raise EvaluationError(f"{step_label(step)}: {type(exc).__name__}: {exc}") from exc
    return result if isinstance(result, tuple) else (result,)


def step_label(step: Step) -> str:
    node = step.node
    name = f" {node.name!r}" if node.name else ""
    return f"{node.op_type} node{name}"
