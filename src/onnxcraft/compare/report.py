"""The result of ``oc.compare``: every value's errors, and where the runs first part ways.

A report is a read-only mapping from value name to :class:`ValueDiff`, in the order the model
computes the values (inputs, initializers, then node outputs in topological order);
``to_dict()`` gives plain JSON-ready data and ``str()`` a table for a terminal.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from onnxcraft.compare.metrics import ValueDiff

__all__ = ["CompareReport", "Divergence", "node_label"]


def node_label(index: int, name: str, op_type: str, domain: str) -> str:
    """How a report names a node: ``node 12 'mul_3' (Mul)``."""
    named = f" {name!r}" if name else ""
    op = f"{domain}.{op_type}" if domain else op_type
    return f"node {index}{named} ({op})"


@dataclass(frozen=True)
class Divergence:
    """The first node (in topological order) with an output beyond tolerance while every
    input it reads that other nodes compute agrees: where the two runs part ways. ``sources``
    are the graph inputs or initializers it reads that differ (a wrong weight), if any."""

    index: int  # the node's position in the graph
    name: str
    op_type: str
    domain: str
    outputs: tuple[str, ...]  # its outputs that differ
    inputs: tuple[str, ...]  # every input it reads
    sources: tuple[str, ...] = ()  # inputs and initializers it reads that differ

    @property
    def label(self) -> str:
        return node_label(self.index, self.name, self.op_type, self.domain)

    def __str__(self) -> str:
        outputs = ", ".join(repr(o) for o in self.outputs)
        if not self.sources:
            return f"{self.label}: output {outputs} differs while its inputs agree"
        sources = ", ".join(repr(s) for s in self.sources)
        verb = "differs" if len(self.sources) == 1 else "differ"
        return (
            f"{self.label}: output {outputs} differs while the inputs other nodes compute "
            f"agree; it reads {sources}, which {verb}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "op_type": self.op_type,
            "domain": self.domain,
            "outputs": list(self.outputs),
            "inputs": list(self.inputs),
            "sources": list(self.sources),
        }


@dataclass
class CompareReport(Mapping[str, ValueDiff]):
    """Every compared value of ``model`` against ``against`` (labels saying what they are)."""

    model: str
    against: str
    diffs: list[ValueDiff]  # in the order the model computes the values
    outputs: list[str]  # the model's outputs, in order
    first_divergence: Divergence | None
    unmatched: list[str] = field(default_factory=list)  # values the reference does not have

    def __getitem__(self, name: str) -> ValueDiff:
        for diff in self.diffs:
            if diff.name == name:
                return diff
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (diff.name for diff in self.diffs)

    def __len__(self) -> int:
        return len(self.diffs)

    @property
    def agrees(self) -> bool:
        """Whether every output of the model was compared and is within tolerance."""
        compared = {d.name: d for d in self.diffs}
        return all(name in compared and compared[name].agrees for name in self.outputs)

    @property
    def first_difference(self) -> str | None:
        """The first value, in the order the model computes them, beyond tolerance."""
        return next((d.name for d in self.diffs if not d.agrees), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "against": self.against,
            "agrees": self.agrees,
            "outputs": [self[name].to_dict() for name in self.outputs if name in self],
            "first_divergence": None
            if self.first_divergence is None
            else self.first_divergence.to_dict(),
            "first_difference": self.first_difference,
            "values": [d.to_dict() for d in self.diffs],
            "unmatched": list(self.unmatched),
        }

    def __str__(self) -> str:
        return self.table()

    def table(self, *, rows: int | None = None) -> str:
        """The report as text: a summary, then one row per value (``rows`` limits how many
        intermediate values are listed; the differing ones come first then)."""
        lines = [f"compare {self.model} against {self.against}"]
        differing = [d for d in self.diffs if not d.agrees]
        lines.append(
            f"  {len(self.diffs)} values compared, {len(differing)} beyond tolerance"
            + (f", {len(self.unmatched)} without a reference value" if self.unmatched else "")
        )
        if self.first_divergence is not None:
            lines.append(f"  first divergence: {self.first_divergence}")
        elif differing:
            lines.append(
                f"  first difference: {differing[0].name!r} (no node has every compared input "
                f"agreeing while its output differs)"
            )
        lines.append(f"  outputs {'agree' if self.agrees else 'DIFFER'}")
        shown = self.diffs
        if rows is not None and len(shown) > rows:
            outputs = set(self.outputs)
            keep = {d.name for d in self.diffs if d.name in outputs}
            keep |= {d.name for d in differing[: max(rows - len(keep), 0)]}
            shown = [d for d in self.diffs if d.name in keep]
            lines.append(f"  (showing {len(shown)} of {len(self.diffs)} values)")
        lines.append("")
        lines.extend(_table(shown))
        return "\n".join(lines)


_HEADER = ("value", "kind", "type", "max abs", "max rel", "max ulp", "beyond tol", "")


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    return f"{value:.3g}"


def _row(diff: ValueDiff) -> tuple[str, ...]:
    verdict = "ok" if diff.agrees else "DIFFERS" + (f" ({diff.note})" if diff.note else "")
    return (
        diff.name,
        diff.kind,
        diff.type,
        _number(diff.max_abs),
        _number(diff.max_rel),
        _number(diff.max_ulp),
        f"{diff.mismatched}/{diff.size}",
        verdict,
    )


def _table(values: list[ValueDiff]) -> list[str]:
    rows = [_HEADER, *(_row(d) for d in values)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)]
        lines.append(("  ".join(cells) + "  " + row[-1]).rstrip())
    return lines
