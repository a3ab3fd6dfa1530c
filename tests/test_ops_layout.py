"""The operator families of ``onnxcraft.ops``: one folder per family, one family per operator.

Every operator whose rule, kernel or gradient is registered is registered by one family only,
and the same family holds all of them; each family has rules and kernels.
"""

from __future__ import annotations

from functools import cache

import pytest

from onnxcraft import ops
from onnxcraft.ops.infer_api import RuleRegistry
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.vjp_api import VjpRegistry

Op = tuple[str, str]  # (domain, op_type)
TABLES = {"rules": RuleRegistry, "kernels": KernelRegistry, "vjp": VjpRegistry}


@cache
def homes(part: str) -> dict[Op, set[str]]:
    """(domain, op_type) -> the families whose ``part`` registers it."""
    found: dict[Op, set[str]] = {}
    for family, module in ops.family_modules(part):  # type: ignore[arg-type]
        table = TABLES[part]()
        module.register(table)
        for domain, op_type, _ in table:
            found.setdefault((domain, op_type), set()).add(family)
    return found


def test_families_are_the_folders() -> None:
    assert tuple(sorted(ops.FAMILIES)) == ops.FAMILIES
    assert len(ops.FAMILIES) >= 40
    for family in ops.FAMILIES:
        assert family.isidentifier() and not family.startswith("_")


@pytest.mark.parametrize("part", ["rules", "kernels"])
def test_every_family_has_the_part(part: str) -> None:
    having = {family for family, _ in ops.family_modules(part)}  # type: ignore[arg-type]
    assert having == set(ops.FAMILIES), f"families without {part}: {set(ops.FAMILIES) - having}"


@pytest.mark.parametrize("part", ["rules", "kernels", "vjp"])
def test_one_family_registers_each_operator(part: str) -> None:
    shared = {op: sorted(f) for op, f in homes(part).items() if len(f) > 1}
    assert not shared, f"operators whose {part} sit in several families: {shared}"


def test_rule_kernel_and_gradient_of_an_operator_share_a_family() -> None:
    kernels = homes("kernels")
    apart = {}
    for part in ("rules", "vjp"):
        for op, families in homes(part).items():
            if op in kernels and families != kernels[op]:
                apart[op] = (part, sorted(families), sorted(kernels[op]))
    assert not apart, f"operators whose parts sit in different families: {apart}"
