"""The operator families of ``onnxcraft.ops``: one folder per family, one family per operator.

Every operator whose rule, kernel, gradient or recipe is registered is registered by one family
only, and the same family holds all of them; each family has rules and kernels. Building the rule
and kernel tables never loads hypothesis (only the recipes need it).
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache

import pytest

from onnxcraft import ops
from onnxcraft.ops.infer_api import RuleRegistry
from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.recipe_api import RecipeRegistry
from onnxcraft.ops.vjp_api import VjpRegistry

Op = tuple[str, str]  # (domain, op_type)
TABLES = {
    "rules": RuleRegistry,
    "kernels": KernelRegistry,
    "vjp": VjpRegistry,
    "recipes": RecipeRegistry,
}


@cache
def homes(part: str) -> dict[Op, set[str]]:
    """(domain, op_type) -> the families whose ``part`` registers it."""
    found: dict[Op, set[str]] = {}
    for family, module in ops.family_modules(part):  # type: ignore[arg-type]
        table = TABLES[part]()
        module.register(table)
        for key in table:  # (domain, op_type, since_version); recipes: (domain, op_type)
            found.setdefault((key[0], key[1]), set()).add(family)
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


@pytest.mark.parametrize("part", ["rules", "kernels", "vjp", "recipes"])
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


def test_each_recipe_sits_in_the_family_of_its_kernel() -> None:
    kernels = homes("kernels")
    apart = {
        op: (sorted(families), sorted(kernels.get(op, ())))
        for op, families in homes("recipes").items()
        if families != kernels.get(op)
    }
    assert not apart, f"recipes away from their kernel's family (recipe, kernel): {apart}"


def test_the_rule_and_kernel_tables_do_not_load_hypothesis() -> None:
    script = (
        "import onnxcraft; from onnxcraft.infer.rules import default_rules; "
        "from onnxcraft.evaluate.kernels import default_registry; "
        "default_rules(); default_registry(); import sys; "
        "assert 'hypothesis' not in sys.modules, 'hypothesis was imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
