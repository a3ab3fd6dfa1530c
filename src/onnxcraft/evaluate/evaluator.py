"""Running a model on numpy: ``oc.Evaluator(model)`` prepares once, ``run`` evaluates many times."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from onnxcraft.core.build import build_ir
from onnxcraft.core.var import Var
from onnxcraft.dtypes import (
    ElementType,
    as_representation,
    element_type_of,
    numpy_dtype,
    type_string,
)
from onnxcraft.errors import EvaluationError
from onnxcraft.evaluate.admission import admit_model
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.evaluate.limits import Limits
from onnxcraft.evaluate.plan import GraphPlan, Preparer
from onnxcraft.evaluate.run import run_plan
from onnxcraft.gcpause import gc_paused
from onnxcraft.io import model_ir as read_model_ir
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.run_guard import CancelToken, guarded
from onnxcraft.types import Map, Optional, Sequence, Tensor, ValueType, format_shape

__all__ = ["Evaluator", "evaluate"]


class Evaluator:
    """A model prepared for evaluation: kernels, attributes and constants resolved once.

    ``model`` is any model: a ModelProto (onnxcraft's or onnx's), an IR model, its bytes or
    the path of its file (whose external data is memory-mapped); ``base_dir`` is where the
    external data of a ModelProto or of bytes is found. ``limits`` bound every run (see
    :class:`Limits`; ``run`` may give others). ``fuse`` folds each BatchNormalization into
    the Conv before it, which saves a pass over the activations but rounds differently
    (within the float type's precision, see ``docs/evaluation-speed.md``); ``fuse=False``
    runs every node as written, for exact checking. A run asked for ``intermediates`` runs
    every node as written too (the fused Conv's own output would be missing).
    """

    def __init__(
        self,
        model: Any,
        *,
        kernels: KernelRegistry | None = None,
        base_dir: str | Path | None = None,
        limits: Limits | None = None,
        fuse: bool = True,
    ) -> None:
        self.limits = _limits(limits)
        if not isinstance(fuse, bool):
            raise EvaluationError(f"Evaluator: fuse must be True or False, got {fuse!r}")
        with gc_paused():  # preparing makes long-lived objects per node: nothing to collect
            model_ir = read_model_ir(model, what="Evaluator: model", base_dir=base_dir)
            self.model = model_ir
            functions = {(f.domain, f.name): f for f in model_ir.functions}
            registry = kernels if kernels is not None else default_registry()  # an empty table too
            admit_model(model_ir)
            self._preparer = Preparer(model_ir.opset_imports, functions, registry, fuse=fuse)
            self._plan = self._preparer.graph(model_ir.graph, None)
        self._as_written = None if fuse else self._plan
        self.input_names = [
            i.name for i in model_ir.graph.inputs if i.name not in self._plan.constants
        ]
        self.output_names = [o.name for o in model_ir.graph.outputs]

    def run(
        self,
        feeds: Mapping[str, Any],
        *,
        outputs: Iterable[str] | None = None,
        intermediates: bool = False,
        limits: Limits | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, Any]:
        """Evaluate the model; returns output name -> value (every value if ``intermediates``).

        ``limits`` replace the Evaluator's for this run; ``cancel`` (a ``threading.Event``)
        stops the run, from another thread, at the next step or loop iteration once it is set.
        """
        guard = (self.limits if limits is None else _limits(limits)).guard(cancel)
        plan = self._plan_as_written() if intermediates else self._plan
        env = self._feeds(feeds, plan)
        wanted = list(outputs) if outputs is not None else self.output_names
        unknown = [n for n in wanted if n not in self.output_names and not intermediates]
        if unknown:
            raise EvaluationError(
                f"evaluate: unknown output(s) {unknown}; "
                f"the model's outputs are {self.output_names}"
            )
        # IEEE arithmetic is the standard's: an infinity or NaN a kernel makes (inf - inf,
        # 0 * inf, an overflow) is a result, not a numpy RuntimeWarning (set once per run:
        # most kernels also say so themselves, for callers of the kernels alone)
        with guarded(guard), np.errstate(all="ignore"):
            values = run_plan(plan, env, keep_all=intermediates)
        if intermediates:
            return values
        missing = [name for name in wanted if name not in values]
        if missing:
            # A node named more outputs than its operator gave (Split with num_outputs=2 and
            # three outputs, say): say so rather than fail on a missing key.
            raise EvaluationError(f"evaluate: no node produced the output(s) {missing}")
        return {name: values[name] for name in wanted}

    def _plan_as_written(self) -> GraphPlan:
        """The plan without fusions (prepared on first use): every node's value exists."""
        if self._as_written is None:
            with gc_paused():  # preparing makes long-lived objects per node: nothing to collect
                preparer = self._preparer
                unfused = Preparer(
                    preparer.opsets, preparer.functions, preparer.kernels, fuse=False
                )
                self._as_written = unfused.graph(self.model.graph, None)
        return self._as_written

    def _feeds(self, feeds: Mapping[str, Any], plan: GraphPlan) -> dict[str, Any]:
        if not isinstance(feeds, Mapping):
            raise EvaluationError(
                f"evaluate: feeds must be a dict name -> value, got {type(feeds).__name__}"
            )
        declared = {i.name: i for i in self._plan.inputs}
        extra = [k for k in feeds if k not in declared]
        if extra:
            raise EvaluationError(
                f"evaluate: unexpected feed(s) {extra}; the model's inputs are {self.input_names}"
            )
        env: dict[str, Any] = dict(plan.constants)
        missing = [n for n in self.input_names if n not in feeds]
        if missing:
            raise EvaluationError(f"evaluate: missing feed(s) for input(s) {missing}")
        for name, value in feeds.items():
            env[name] = _check_feed(name, value, declared[name].type)
        return env


def _limits(limits: Any) -> Limits:
    if limits is None:
        return Limits()
    if not isinstance(limits, Limits):
        raise EvaluationError(f"evaluate: limits must be an oc.Limits, got {type(limits).__name__}")
    return limits


def _check_feed(name: str, value: Any, declared: ValueType | None) -> Any:
    if isinstance(declared, Tensor):
        if not isinstance(value, np.ndarray):
            if isinstance(value, (list, tuple, dict)) or value is None:
                raise EvaluationError(
                    f"evaluate: input {name!r} expects a tensor, got {type(value).__name__}"
                )
            value = np.asarray(value)
        value = as_representation(value)  # an ml_dtypes array: the same values, our dtype
        if declared.elem_type is not None:
            try:
                actual = element_type_of(value.dtype)
            except (TypeError, ValueError) as exc:
                raise EvaluationError(
                    f"evaluate: input {name!r}: unsupported dtype {value.dtype}"
                ) from exc
            if actual != declared.elem_type:
                raise EvaluationError(
                    f"evaluate: input {name!r} expects element type "
                    f"{type_string(declared.elem_type)}, got {type_string(actual)} "
                    f"(numpy dtype {value.dtype})"
                )
        if declared.shape is not None:
            if value.ndim != len(declared.shape):
                raise EvaluationError(
                    f"evaluate: input {name!r} expects rank {len(declared.shape)} "
                    f"{format_shape(declared.shape)}, got shape {list(value.shape)}"
                )
            for axis, (want, got) in enumerate(zip(declared.shape, value.shape)):
                if isinstance(want, int) and want != got:
                    raise EvaluationError(
                        f"evaluate: input {name!r} expects shape {format_shape(declared.shape)}, "
                        f"got {list(value.shape)} (dim {axis} differs)"
                    )
        return value
    if isinstance(declared, Sequence):
        if not isinstance(value, list):
            raise EvaluationError(
                f"evaluate: input {name!r} expects a sequence (list), got {type(value).__name__}"
            )
        return [_check_feed(f"{name}[{i}]", item, declared.elem) for i, item in enumerate(value)]
    if isinstance(declared, Map):
        if not isinstance(value, dict):
            raise EvaluationError(
                f"evaluate: input {name!r} expects a map (dict), got {type(value).__name__}"
            )
        return {
            _map_key(name, key, declared.key): _check_feed(
                f"{name}[{key!r}]", _typed_scalar(item, declared.value), declared.value
            )
            for key, item in value.items()
        }
    if isinstance(declared, Optional) and value is not None:
        return _check_feed(name, value, declared.elem)
    return value


def _map_key(name: str, key: Any, declared: ElementType) -> Any:
    """A map key as the declared key type: str for string maps, int for integer ones."""
    if declared == ElementType.STRING:
        if not isinstance(key, str):
            raise EvaluationError(
                f"evaluate: input {name!r} is a map with string keys, got key {key!r}"
            )
        return key
    if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
        raise EvaluationError(
            f"evaluate: input {name!r} is a map with {type_string(declared)} keys, got key {key!r}"
        )
    return int(key)


def _typed_scalar(value: Any, declared: ValueType | None) -> Any:
    """A Python number or string fed as a map value, as an array of the declared type.

    Python scalars carry no element type, so they take the declared one; numpy values keep
    theirs and are checked like any tensor feed.
    """
    if not isinstance(declared, Tensor) or declared.elem_type is None:
        return value
    if isinstance(value, (bool, int, float, str)):
        return np.asarray(value, dtype=numpy_dtype(declared.elem_type))
    return value


def evaluate(
    model: Any,
    feeds: Mapping[Any, Any],
    *,
    outputs: Iterable[str] | None = None,
    intermediates: bool = False,
    limits: Limits | None = None,
    cancel: CancelToken | None = None,
    fuse: bool = True,
) -> dict[str, Any]:
    """Evaluate a model (or DSL outputs: a Var or a dict name -> Var) on numpy.

    For DSL outputs, ``feeds`` maps the input Vars (or their names) to values. ``limits``
    (:class:`Limits`) bound the run and ``cancel`` (a ``threading.Event``) stops it from
    another thread; either ends it with an ``EvaluationLimitError``. ``fuse=False`` runs
    every node as written (no BatchNormalization folded into its Conv; see
    :class:`Evaluator`).
    """
    run: dict[str, Any] = {
        "outputs": outputs,
        "intermediates": intermediates,
        "limits": limits,
        "cancel": cancel,
    }
    if isinstance(model, (Var, dict)) and (
        isinstance(model, Var) or any(isinstance(v, Var) for v in model.values())
    ):
        return _evaluate_expression(model, feeds, fuse, **run)
    return Evaluator(model, fuse=fuse).run(feeds, **run)


def _evaluate_expression(
    targets: Any, feeds: Mapping[Any, Any], fuse: bool, **run: Any
) -> dict[str, Any]:
    out_map = {"output": targets} if isinstance(targets, Var) else dict(targets)
    input_vars = [k for k in feeds if isinstance(k, Var)]
    if len(input_vars) != len(feeds):
        raise EvaluationError(
            "evaluate: when evaluating Vars, feeds must be keyed by the input Vars"
        )
    model = build_ir(input_vars, out_map)
    named_feeds = {model.graph.inputs[i].name: feeds[v] for i, v in enumerate(input_vars)}
    return Evaluator(model, fuse=fuse).run(named_feeds, **run)
