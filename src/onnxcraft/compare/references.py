"""The reference side of a comparison: what ``against`` names, run or read into values by name.

- ``"float64"``: the same model widened to float64 (:mod:`onnxcraft.compare.widen`), evaluated;
- ``"onnxruntime"``: the optional backend :mod:`onnxcraft.compare.onnxruntime_backend`;
- another model (a ModelProto, an IR model, bytes, or the path of a ``.onnx`` file): evaluated
  on the same feeds; values are matched by name;
- expected values: a dict name -> value, or a folder of ``.npy``/``.pb`` files;
- a callable ``run(model, feeds) -> {name: value}``: any other backend.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from onnxcraft import ir
from onnxcraft.compare.value_files import read_expected_folder
from onnxcraft.compare.widen import widen_model, widen_value
from onnxcraft.errors import CompareError, OnnxcraftError
from onnxcraft.evaluate.evaluator import Evaluator
from onnxcraft.evaluate.limits import Limits
from onnxcraft.io import model_ir
from onnxcraft.ops.run_guard import CancelToken

__all__ = ["Reference", "evaluate_every_value", "reference_values"]

Runner = Callable[[ir.Model, dict[str, Any]], Mapping[str, Any]]
_BACKENDS = {"onnxruntime": "onnxcraft.compare.onnxruntime_backend"}


@dataclass(frozen=True)
class Reference:
    label: str  # what the values came from, for the report
    values: Mapping[str, Any]
    # Only what the reference names is compared; a value it lacks is "unmatched" only when
    # it was expected to have every value (a run rather than a list of expected outputs).
    complete: bool


def evaluate_every_value(
    model: ir.Model, feeds: Mapping[str, Any], limits: Limits | None, cancel: CancelToken | None
) -> dict[str, Any]:
    """Every value of the top-level graph (inputs, initializers, node outputs) by name."""
    return Evaluator(model, limits=limits).run(feeds, intermediates=True, cancel=cancel)


def _backend(name: str) -> Runner:
    try:
        # Optional backends are loaded by name, on request only, so that onnxcraft never
        # needs them installed (DESIGN.md: the runtime is numpy, protobuf, typing-extensions).
        module = importlib.import_module(_BACKENDS[name])
    except ModuleNotFoundError as exc:
        raise CompareError(
            f"compare: against={name!r} needs the {exc.name} package, which is not installed "
            f"(pip install {exc.name})"
        ) from None
    run: Runner = module.run
    return run


def _run_reference(
    label: str, run: Callable[[], Mapping[str, Any]], *, complete: bool
) -> Reference:
    try:
        values = run()
    except CompareError:
        raise
    except OnnxcraftError as exc:
        raise CompareError(f"compare: the reference ({label}) cannot run: {exc}") from None
    if not isinstance(values, Mapping):
        raise CompareError(
            f"compare: the reference ({label}) must give a dict name -> value, "
            f"got {type(values).__name__}"
        )
    return Reference(label, values, complete)


def reference_values(
    model: ir.Model,
    feeds: Mapping[str, Any],
    against: Any,
    limits: Limits | None,
    cancel: CancelToken | None,
) -> Reference:
    """The reference values ``against`` gives for ``model`` on ``feeds``."""
    if isinstance(against, str) and against == "float64":
        wide_feeds = {name: widen_value(value) for name, value in feeds.items()}
        return _run_reference(
            "float64",
            lambda: evaluate_every_value(widen_model(model), wide_feeds, limits, cancel),
            complete=True,
        )
    if isinstance(against, str) and against in _BACKENDS:
        runner = _backend(against)
        return _run_reference(against, lambda: runner(model, dict(feeds)), complete=True)
    if isinstance(against, (str, os.PathLike)):
        path = Path(against)
        if path.is_dir():
            return _run_reference(
                str(path), lambda: read_expected_folder(path, model), complete=False
            )
        if not path.exists():
            raise CompareError(
                f"compare: against={str(against)!r} is neither 'float64', 'onnxruntime', a model "
                f"file nor a folder of expected values (no such file or folder)"
            )
        other = model_ir(path, what="compare: against")
        return _run_reference(
            str(path), lambda: evaluate_every_value(other, feeds, limits, cancel), complete=True
        )
    if isinstance(against, Mapping):
        return Reference("expected values", against, complete=False)
    if isinstance(against, (ir.Model, bytes, bytearray, memoryview)) or hasattr(
        against, "SerializeToString"
    ):
        other = model_ir(against, what="compare: against")
        label = f"model {other.graph.name!r}" if other.graph.name else "the second model"
        return _run_reference(
            label, lambda: evaluate_every_value(other, feeds, limits, cancel), complete=True
        )
    if callable(against):
        label = getattr(against, "__name__", type(against).__name__)
        call: Runner = against
        return _run_reference(label, lambda: call(model, dict(feeds)), complete=True)
    raise CompareError(
        f"compare: against must be 'float64', 'onnxruntime', a model, a dict of expected "
        f"values, a folder of value files or a callable, got {type(against).__name__}"
    )
