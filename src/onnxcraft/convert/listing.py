"""Which conversions exist per operator: the adapters and the steps marked as needing one."""

from __future__ import annotations

from dataclasses import dataclass

from onnxcraft.convert.engine import default_adapters

__all__ = ["Conversion", "conversions"]


@dataclass(frozen=True)
class Conversion:
    """One registered adapter, or (``adapter`` False) a step refused for want of one."""

    domain: str
    op_type: str
    from_version: int
    to_version: int  # 0: replaced by other operators (absent at the older opset)
    adapter: bool
    summary: str


def conversions(op_type: str | None = None, domain: str = "") -> list[Conversion]:
    """The adapters (and the steps known to need one) of ``op_type``, or of every operator."""
    table = default_adapters()
    found = [
        Conversion(e.domain, e.op_type, e.from_version, e.to_version, True, e.summary)
        for e in table.entries()
    ]
    for (dom, op, older, newer), reason in table.changes():
        for a, b in ((older, newer), (newer, older)):
            if table.lookup(dom, op, a, b) is None:
                found.append(Conversion(dom, op, a, b, False, reason))
    found.sort(key=lambda c: (c.domain, c.op_type, c.from_version, c.to_version))
    if op_type is None:
        return found
    return [c for c in found if c.op_type == op_type and c.domain == domain]
