"""The conformance run: draw cases of every operator version, run them on the backend (in a
child process), judge each, and write the report and reproducers."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from onnxcraft import specs
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing.conformance.backend import Backend
from onnxcraft.testing.conformance.judge import AGREE, judge
from onnxcraft.testing.conformance.report import Cause, Report
from onnxcraft.testing.conformance.reproducer import folder_name, write_reproducer
from onnxcraft.testing.conformance.worker import Worker
from onnxcraft.testing.examples import draw_cases, example_of
from onnxcraft.testing.profile import Profile
from onnxcraft.testing.recipes import exclusion_reason, recipe_for

__all__ = ["conformance", "label_of", "select_operators"]

_DOMAINS = ("", "ai.onnx.ml")


def label_of(spec: OpSpec) -> str:
    """``TopK-11``, ``ai.onnx.ml::TreeEnsemble-5``: an operator version in the report."""
    prefix = f"{spec.domain}::" if spec.domain else ""
    return f"{prefix}{spec.name}-{spec.since_version}"


def select_operators(
    operators: Iterable[OpSpec | str] | None, profile: Profile
) -> tuple[list[OpSpec], dict[str, str]]:
    """The operator versions to run, and why the others named (or all, for None) are not.

    A name selects every version of the operator (``TopK``, ``ai.onnx.ml::TreeEnsemble``);
    ``TopK-11`` one version.
    """
    if operators is None:
        candidates = [s for s in specs.schemas() if s.domain in _DOMAINS]
    else:
        candidates = []
        for item in operators:
            candidates.extend([item] if isinstance(item, OpSpec) else _named(item))
    chosen: list[OpSpec] = []
    skipped: dict[str, str] = {}
    for spec in candidates:
        label = label_of(spec)
        if not profile.allows_operator(spec.domain, spec.since_version):
            skipped[label] = "past the profile's opset"
        elif recipe_for(spec) is None:
            skipped[label] = f"no recipe: {exclusion_reason(spec) or 'none written'}"
        else:
            chosen.append(spec)
    return chosen, skipped


def _named(text: str) -> list[OpSpec]:
    domain, _, name = text.rpartition("::")
    domain = "" if domain == "ai.onnx" else domain
    match = re.fullmatch(r"(.+)-(\d+)", name)
    if match:
        spec = specs.get(match.group(1), domain, int(match.group(2)))
        if spec.since_version != int(match.group(2)):
            raise ValueError(f"{text}: {match.group(1)} has no version {match.group(2)}")
        return [spec]
    return [specs.get(name, domain, v) for v in specs.versions(name, domain)]


def conformance(
    backend: Backend,
    *,
    operators: Iterable[OpSpec | str] | None = None,
    examples: int = 30,
    seed: int = 0,
    profile: Profile | None = None,
    output: str | Path | None = None,
    timeout: float = 20.0,
    progress: Callable[[str, Counter[str]], Any] | None = None,
) -> Report:
    """Test ``backend`` against the standard on drawn cases of every operator version.

    ``operators`` narrows the run (names or OpSpecs; None: every ai.onnx and ai.onnx.ml
    version the profile allows); ``examples`` cases are drawn per version from ``seed``;
    ``profile`` defaults to the backend's. Each case runs in a child process (a crash or a
    case slower than ``timeout`` seconds is a crash). With ``output``, the report
    (``report.md``, ``report.html``) and one reproducer per (operator version, cause) are
    written there. ``progress(label, counts)`` is called after each operator version.
    """
    profile = profile if profile is not None else backend.profile
    started = time.monotonic()
    chosen, skipped = select_operators(operators, profile)
    report = Report(
        backend=getattr(backend, "name", type(backend).__name__),
        backend_version=str(getattr(backend, "version", "")),
        profile=profile,
        examples=examples,
        seed=seed,
        skipped=skipped,
    )
    target = None if output is None else Path(output)
    with Worker(backend, timeout=timeout) as worker:
        for spec in chosen:
            label = label_of(spec)
            counts: Counter[str] = Counter()
            for case in draw_cases(spec, examples, seed=seed, profile=profile):
                example = example_of(case, profile)
                feeds = example.feeds_as(backend.representation)
                verdict = judge(example, worker.run(example.model, feeds, example.outputs))
                counts[verdict.kind] += 1
                if verdict.kind == AGREE:
                    continue
                key = (label, verdict.kind, verdict.cause)
                entry = report.causes.get(key)
                if entry is None:
                    entry = Cause(label, verdict.kind, verdict.cause, 0, verdict.detail,
                                  verdict.decided_by)  # fmt: skip
                    report.causes[key] = entry
                    if target is not None:
                        folder = (
                            target
                            / verdict.kind.replace(" ", "_")
                            / folder_name(label, verdict.cause)
                        )
                        write_reproducer(folder, example, verdict, report.backend)
                        entry.reproducer = str(folder.relative_to(target))
                entry.count += 1
            report.counts[label] = counts
            if progress is not None:
                progress(label, counts)
    report.seconds = time.monotonic() - started
    if target is not None:
        report.write(target)
    return report
