"""Each case judged: the backend's outcome set against the standard's value, and classified.

Where the backend and onnxcraft disagree, the operator's function body (when the standard
gives one) breaks the tie: the model runs again in onnxcraft's evaluator with the operator's
kernel left out, so the body runs as a graph of other operators. Without a body, a gross
difference (a shape, a type, an exact value, a NaN, a float far off) is the backend's, by
onnxcraft's reading of the standard's text, and a difference of precision only is left
ambiguous.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft import specs
from onnxcraft.errors import OnnxcraftError
from onnxcraft.evaluate.evaluator import Evaluator
from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.numerics import to_float32
from onnxcraft.ops.kernel_api import KernelEntry, KernelRegistry
from onnxcraft.ops.node_case import NodeCase
from onnxcraft.testing.conformance.compare import Difference, difference
from onnxcraft.testing.conformance.worker import Outcome
from onnxcraft.testing.examples import Example

__all__ = [
    "AGREE",
    "AMBIGUOUS",
    "BACKEND_CRASHED",
    "BACKEND_REFUSED",
    "BACKEND_WRONG",
    "CLASSES",
    "ONNXCRAFT_WRONG",
    "Verdict",
    "judge",
]

AGREE = "agree"
BACKEND_WRONG = "backend wrong"
ONNXCRAFT_WRONG = "onnxcraft wrong"
AMBIGUOUS = "ambiguous"
BACKEND_REFUSED = "backend refused"
BACKEND_CRASHED = "backend crashed"
CLASSES = (AGREE, BACKEND_WRONG, ONNXCRAFT_WRONG, AMBIGUOUS, BACKEND_REFUSED, BACKEND_CRASHED)


@dataclass(frozen=True)
class Verdict:
    """The class of one case, its ``cause`` (grouping cases), this case's ``detail``, what
    decided it and the standard's value of each output (for the reproducer)."""

    kind: str
    cause: str = ""
    detail: str = ""
    decided_by: str = ""
    standard: tuple[Any, ...] | None = None


class _BodyInstead(KernelRegistry):
    """onnxcraft's kernels less the one of operator version ``key``: the evaluator then runs
    that version's function body."""

    def __init__(self, key: tuple[str, str, int]) -> None:
        super().__init__()
        self._key = key
        self._base = default_registry()

    def lookup(self, domain: str, op_type: str, since_version: int) -> KernelEntry | None:
        if (domain, op_type, since_version) == self._key:
            return None
        return self._base.lookup(domain, op_type, since_version)


def judge(example: Example, outcome: Outcome) -> Verdict:
    """The verdict on ``example`` given what the backend did with it."""
    case = example.case
    if outcome.kind == "crashed":
        return Verdict(BACKEND_CRASHED, _first_line(outcome.message), outcome.message, "",
                       example.expected)  # fmt: skip
    if example.expected is None:
        if outcome.kind == "refused":
            return Verdict(AMBIGUOUS, "both refuse the node", example.error or "", "")
        return Verdict(
            ONNXCRAFT_WRONG,
            "onnxcraft's evaluator rejects a node the backend runs",
            example.error or "",
            "the recipe's claim that the node is valid",
            outcome.outputs,
        )
    if outcome.kind == "refused":
        return Verdict(BACKEND_REFUSED, _refusal_cause(outcome.message), outcome.message, "",
                       example.expected)  # fmt: skip
    if len(outcome.outputs) != len(example.expected):
        return Verdict(
            BACKEND_WRONG,
            "the backend returns another number of outputs",
            f"{len(outcome.outputs)} instead of {len(example.expected)}",
            "the operator's signature",
            example.expected,
        )
    op_type = "RandomNormal" if _random_dropout(case) else case.op_type  # types and shapes
    found = _first_difference(op_type, example.expected, outcome.outputs)
    if found is None:
        return Verdict(AGREE)
    unspecified = _unspecified(case)
    if unspecified:
        return Verdict(AMBIGUOUS, f"{found.cause} ({unspecified})", found.detail, "",
                       example.expected)  # fmt: skip
    return _break_tie(example, outcome, found)


def _random_dropout(case: NodeCase) -> bool:
    """Dropout that may drop (a random mask): before opset 12 whether it trains is the
    runtime's mode; from 12 on, the training_mode input says."""
    if case.op_type != "Dropout" or case.domain:
        return False
    if case.since_version < 12:
        return True
    training = case.inputs[2] if len(case.inputs) > 2 else None
    return training is not None and bool(np.asarray(training.value).reshape(-1)[0])


def _unspecified(case: NodeCase) -> str:
    """Why the standard leaves this case's answer open ("" when it does not)."""
    if case.op_type in ("Squeeze", "Unsqueeze") and not case.domain:
        axes = case.attributes.get("axes")
        if axes is None and len(case.inputs) > 1 and case.inputs[1] is not None:
            axes = np.asarray(case.inputs[1].value).reshape(-1).tolist()
        if axes is not None and len(axes) == 0:
            return "the standard does not say whether empty axes name no dimension or all"
    first = case.inputs[0] if case.inputs else None
    x = None if first is None else first.value
    if not isinstance(x, np.ndarray) or case.domain:
        return ""
    if case.op_type == "ReduceMean" and x.size == 0:
        return "the standard leaves the mean of an empty set undefined"
    if case.op_type in _INTEGER_ACCUMULATING and x.dtype.kind in "iu" and x.size:
        wide = np.abs(x.astype(np.float64))
        largest = (
            float(np.prod(np.maximum(wide, 1)))
            if case.op_type == "ReduceProd"
            else float(np.sum(wide * wide if case.op_type == "ReduceSumSquare" else wide))
        )
        if largest > np.iinfo(x.dtype).max:
            return "integer overflow, which the standard does not define"
    return ""


# Reductions whose integer results may overflow their type.
_INTEGER_ACCUMULATING = frozenset({"ReduceProd", "ReduceSum", "ReduceSumSquare", "CumSum"})


def _first_difference(op_type: str, expected: Any, got: Any) -> Difference | None:
    for index, (mine, theirs) in enumerate(zip(expected, got)):
        found = difference(op_type, index, mine, theirs)
        if found is not None:
            return found
    return None


def _break_tie(example: Example, outcome: Outcome, found: Difference) -> Verdict:
    case = example.case
    spec = _spec(case.domain, case.op_type, case.since_version)
    body = _body_values(example) if spec is not None and spec.functions else None
    expected = example.expected or ()
    if body is not None:
        nodes = max(len(f.nodes) for f in spec.functions) if spec is not None else 1
        ours = _near(case.op_type, body, expected, nodes)
        theirs = _near(case.op_type, body, outcome.outputs, nodes)
        by = "the operator's function body"
        if theirs and not ours:
            return Verdict(ONNXCRAFT_WRONG, found.cause, found.detail, by, body)
        if ours and not theirs:
            return Verdict(BACKEND_WRONG, found.cause, found.detail, by, body)
        why = "both within the body's rounding" if ours else "neither matches the body"
        return Verdict(AMBIGUOUS, f"{found.cause} ({why})", found.detail, by, body)
    if found.gross:
        return Verdict(BACKEND_WRONG, found.cause, found.detail, "the standard's text", expected)
    return Verdict(
        AMBIGUOUS,
        f"{found.cause} (precision only; no function body to decide)",
        found.detail,
        "",
        expected,
    )


def _spec(domain: str, op_type: str, version: int) -> Any:
    try:
        return specs.get(op_type, domain, version)
    except OnnxcraftError:
        return None


def _body_values(example: Example) -> tuple[Any, ...] | None:
    """The outputs of the example's model with the operator run through its body."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            results = Evaluator(example.model, kernels=_BodyInstead(example.case.key)).run(
                example.feeds
            )
    except OnnxcraftError:
        return None
    return tuple(results.get(name) for name in example.outputs)


def _near(op_type: str, body: tuple[Any, ...], values: Any, nodes: int) -> bool:
    """True if ``values`` are the body's, within the tolerance plus the body's own rounding
    (each of its ``nodes`` nodes rounds once more)."""
    for index, (want, got) in enumerate(zip(body, values)):
        found = difference(op_type, index, want, got)
        if found is None:
            continue
        if found.gross or not _within_rounding(want, got, nodes):
            return False
    return True


def _within_rounding(want: Any, got: Any, nodes: int) -> bool:
    want, got = np.asarray(want), np.asarray(got)
    if want.shape != got.shape:
        return False
    if want.dtype.names:
        want, got = to_float32(want), to_float32(got)
    if want.dtype.kind != "f" or got.dtype.kind != "f":
        return False
    epsilon = float(np.finfo(want.dtype).eps)
    with np.errstate(all="ignore"):
        a, b = want.astype(np.float64), got.astype(np.float64)
        finite = np.isfinite(a) & np.isfinite(b)
        bound = (nodes + 1) * epsilon * np.maximum(np.abs(a[finite]), 1.0)
        return bool((np.abs(a[finite] - b[finite]) <= bound).all())


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0][:160] if message.strip() else "no message"


def _refusal_cause(message: str) -> str:
    """The refusal's message without the parts that name this case (node and value names)."""
    line = _first_line(message)
    for marker in (" Node (", " node (", "node name:", " for node "):
        if marker in line:
            line = line.split(marker)[0]
    return line
