"""``oc.check`` is at least as strict as onnx's full checker on corrupted node-test models.

Every node-test model (a deterministic sample in the suite; all of them with
``ONNXCRAFT_CHECK_VS_ONNX=all``) is corrupted in each way of ``tests/core/corruptions.py``.
Every model onnx's checker (``full_check=True``) rejects must be rejected by
``oc.check(full_check=True)``, or be a listed gap. Every model only onnxcraft rejects must be of a
kind listed in ``check_stricter.json`` with the rule of the standard it breaks, and the
message must carry that rule. ``tests/core/check_vs_onnx.py`` prints the table.
"""

from __future__ import annotations

import os
from functools import cache

import pytest

from tests.core.check_vs_onnx import (
    BASELINE,
    Verdict,
    known_gaps,
    sample,
    stricter_rules,
    verdicts,
)
from tests.core.corruptions import CORRUPTIONS
from tests.node_cases import case_names

ENV_VAR = "ONNXCRAFT_CHECK_VS_ONNX"
SAMPLE = 60  # models; with 80-odd corruptions each, a few seconds


@cache
def _verdicts() -> tuple[Verdict, ...]:
    everything = os.environ.get(ENV_VAR) == "all"
    cases = sample(case_names(), None if everything else SAMPLE)
    return tuple(verdicts(cases, [BASELINE, *CORRUPTIONS]))


def _describe(verdict: Verdict) -> str:
    return (
        f"{verdict.kind} on {verdict.case}:\n  onnx: {verdict.onnx_error[:400]}\n"
        f"  onnxcraft: {verdict.ours_error[:400]}"
    )


def test_check_never_crashes() -> None:
    crashes = [_describe(v) for v in _verdicts() if v.crashed]
    assert not crashes, "\n".join(crashes)


def test_unchanged_models_pass_both() -> None:
    rejected = [_describe(v) for v in _verdicts() if v.kind == BASELINE and v.ours_error]
    assert not rejected, "\n".join(rejected)


def test_check_rejects_what_onnx_rejects() -> None:
    gaps = known_gaps()
    missed = []
    for verdict in _verdicts():
        if not verdict.onnx_error or verdict.ours_error:
            continue
        if verdict.case in gaps.get(verdict.kind, {}).get("cases", ()):
            continue
        missed.append(_describe(verdict))
    assert not missed, f"{len(missed)} models onnx rejects pass oc.check:\n" + "\n".join(missed)


def test_what_only_onnxcraft_rejects_is_listed_with_its_rule() -> None:
    stricter = stricter_rules()
    unlisted = []
    for verdict in _verdicts():
        if verdict.onnx_error or not verdict.ours_error:
            continue
        listed = stricter.get(verdict.kind)
        if listed is None or f"[{listed['rule']}]" not in verdict.ours_error:
            unlisted.append(_describe(verdict))
    assert not unlisted, "only onnxcraft rejects, and no listed rule says why:\n" + "\n".join(
        unlisted
    )


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_every_corruption_applies_somewhere(kind: str) -> None:
    assert any(v.kind == kind for v in _verdicts()), f"{kind} applies to no sampled model"


def test_listed_kinds_exist() -> None:
    for kind in [*stricter_rules(), *known_gaps()]:
        assert kind in CORRUPTIONS or kind == BASELINE, (
            f"check_stricter.json lists the unknown kind {kind!r}"
        )
