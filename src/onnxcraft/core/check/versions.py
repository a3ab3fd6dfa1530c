"""Rules on versions: the model's IR version, and the opsets a model or function imports."""

from __future__ import annotations

from onnxcraft.core.check.problems import Problems, domain_label
from onnxcraft.core.versions import LATEST_IR_VERSION, min_ir_for_opsets
from onnxcraft.ir import Model
from onnxcraft.specs import is_standard_domain, max_opset

__all__ = ["check_ir_needs", "check_ir_version_range", "check_opsets"]


def check_ir_version_range(model: Model, problems: Problems) -> None:
    version = model.ir_version
    if version < 3:
        problems.report("model", "ir-version", f"ir_version {version} is missing or < 3")
    elif version > LATEST_IR_VERSION:
        problems.report(
            "model",
            "ir-version",
            f"ir_version {version} is newer than the latest known ({LATEST_IR_VERSION})",
        )


def check_ir_needs(model: Model, problems: Problems) -> None:
    """The IR version supports the opsets and every feature noted while checking."""
    version = model.ir_version
    opsets = model.opset_imports
    if opsets:
        problems.need_ir(min_ir_for_opsets(opsets), f"the opsets {dict(sorted(opsets.items()))}")
    too_new = sorted((need, reason) for reason, need in problems.ir_needs.items() if version < need)
    if version >= 3 and too_new:
        reasons = "; ".join(f"{reason} need >= {need}" for need, reason in too_new)
        problems.report(
            "model", "ir-version", f"ir_version {version} is too old for this model: {reasons}"
        )


def check_opsets(opsets: dict[str, int], where: str, problems: Problems) -> None:
    for domain, version in opsets.items():
        if version < 1:
            problems.report(
                where,
                "opset-import",
                f"opset_import of {domain_label(domain)!r} has version {version}",
            )
            continue
        top = max_opset(domain) if is_standard_domain(domain) else None
        if top is not None and version > top:
            problems.report(
                where,
                "opset-import",
                f"opset_import {domain_label(domain)!r} version {version} is newer than "
                f"the latest known ({top})",
            )
