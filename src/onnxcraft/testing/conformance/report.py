"""The result of a conformance run: counts per operator version and one line per cause, as
Markdown and HTML."""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from onnxcraft.testing.conformance.judge import AGREE, CLASSES
from onnxcraft.testing.profile import Profile

__all__ = ["Cause", "Report"]


@dataclass
class Cause:
    """Cases of one operator version that one cause explains: how many, the first case's
    detail and where its reproducer is."""

    label: str
    kind: str
    cause: str
    count: int = 0
    detail: str = ""
    decided_by: str = ""
    reproducer: str = ""


@dataclass
class Report:
    """What a run found. ``counts[label][kind]`` counts the cases of each operator version by
    class; ``causes`` has one entry per (operator version, class, cause) that is not agree;
    ``skipped`` says why an operator version was not run."""

    backend: str
    backend_version: str
    profile: Profile
    examples: int
    seed: int
    counts: dict[str, Counter[str]] = field(default_factory=dict)
    causes: dict[tuple[str, str, str], Cause] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def totals(self) -> Counter[str]:
        """Cases per class over every operator version."""
        total: Counter[str] = Counter()
        for counts in self.counts.values():
            total.update(counts)
        return total

    def cases(self, kind: str | None = None) -> int:
        totals = self.totals()
        return sum(totals.values()) if kind is None else totals[kind]

    @property
    def all_agree(self) -> bool:
        """True if every case that ran agreed (refusals count against it too)."""
        return self.cases() == self.cases(AGREE)

    # -- rendering --------------------------------------------------------------------------------

    def _header(self) -> list[str]:
        opsets = ", ".join(f"{d or 'ai.onnx'} {v}" for d, v in sorted(self.profile.opsets.items()))
        return [
            f"Backend: **{f'{self.backend} {self.backend_version}'.strip()}**; "
            f"profile: IR version "
            f"{self.profile.ir_version}, opsets {opsets}"
            + (
                f", {len(self.profile.element_types)} element types"
                if self.profile.element_types is not None
                else ""
            )
            + ".",
            f"Up to {self.examples} drawn cases per operator version (seed {self.seed}); "
            f"{len(self.counts)} operator versions run, {len(self.skipped)} not run; "
            f"{self.cases()} cases in {self.seconds:.0f} s.",
        ]

    def markdown(self) -> str:
        """The report as Markdown: totals, one line per cause, counts per operator version."""
        totals = self.totals()
        lines = ["# Conformance report", "", *self._header(), ""]
        lines += ["| class | cases |", "| --- | ---: |"]
        lines += [f"| {kind} | {totals[kind]} |" for kind in CLASSES]
        lines += ["", "## Causes", ""]
        if not self.causes:
            lines.append("Every case agrees.")
        else:
            lines += [
                "| class | operator | cause | cases | decided by | first case | reproducer |",
                "| --- | --- | --- | ---: | --- | --- | --- |",
            ]
            for entry in self._sorted_causes():
                lines.append(
                    f"| {entry.kind} | {entry.label} | {_cell(entry.cause)} | {entry.count} "
                    f"| {entry.decided_by} | {_cell(_short_detail(entry))} | {entry.reproducer} |"
                )
        lines += ["", "## Per operator version", ""]
        lines += ["| operator | " + " | ".join(CLASSES) + " |"]
        lines += ["| --- |" + " ---: |" * len(CLASSES)]
        for label in sorted(self.counts):
            counts = self.counts[label]
            lines.append(f"| {label} | " + " | ".join(str(counts[k]) for k in CLASSES) + " |")
        if self.skipped:
            lines += ["", "## Not run", ""]
            lines += [f"- {label}: {reason}" for label, reason in sorted(self.skipped.items())]
        return "\n".join(lines) + "\n"

    def html(self) -> str:
        """The report as a self-contained HTML page."""
        totals = self.totals()
        parts = [
            "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Conformance report</title>",
            "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px}td.n{text-align:right}</style>",
            "</head><body><h1>Conformance report</h1>",
        ]
        parts += [f"<p>{html.escape(line.replace('**', ''))}</p>" for line in self._header()]
        parts.append("<table><tr><th>class</th><th>cases</th></tr>")
        parts += [f"<tr><td>{k}</td><td class='n'>{totals[k]}</td></tr>" for k in CLASSES]
        parts.append("</table><h2>Causes</h2>")
        if self.causes:
            parts.append(
                "<table><tr><th>class</th><th>operator</th><th>cause</th><th>cases</th>"
                "<th>decided by</th><th>first case</th><th>reproducer</th></tr>"
            )
            for e in self._sorted_causes():
                cells = [e.kind, e.label, e.cause, str(e.count), e.decided_by, e.detail]
                row = "".join(f"<td>{html.escape(c)}</td>" for c in cells)
                parts.append(f"<tr>{row}<td><code>{html.escape(e.reproducer)}</code></td></tr>")
            parts.append("</table>")
        else:
            parts.append("<p>Every case agrees.</p>")
        parts.append("<h2>Per operator version</h2><table><tr><th>operator</th>")
        parts += [f"<th>{k}</th>" for k in CLASSES]
        parts.append("</tr>")
        for label in sorted(self.counts):
            counts = self.counts[label]
            row = "".join(f"<td class='n'>{counts[k]}</td>" for k in CLASSES)
            parts.append(f"<tr><td>{html.escape(label)}</td>{row}</tr>")
        parts.append("</table></body></html>")
        return "\n".join(parts) + "\n"

    def _sorted_causes(self) -> list[Cause]:
        order = {kind: i for i, kind in enumerate(CLASSES)}
        return sorted(self.causes.values(), key=lambda c: (order[c.kind], c.label, c.cause))

    def write(self, folder: str | Path) -> tuple[Path, Path]:
        """Write ``report.md`` and ``report.html`` into ``folder``; their paths."""
        target = Path(folder)
        target.mkdir(parents=True, exist_ok=True)
        markdown, page = target / "report.md", target / "report.html"
        markdown.write_text(self.markdown(), encoding="utf-8")
        page.write_text(self.html(), encoding="utf-8")
        return markdown, page


def _short_detail(entry: Cause) -> str:
    """The first case's detail, short, and left out where the cause already says it."""
    if entry.detail.startswith(entry.cause) or not entry.detail:
        return ""
    return entry.detail if len(entry.detail) <= 160 else entry.detail[:157] + "..."


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
