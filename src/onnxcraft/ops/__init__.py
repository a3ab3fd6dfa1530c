"""Everything known about the operators, one folder per family.

A family folder ``ops/<family>/`` holds up to five parts, each a module exposing
``register(table)``:

    rules.py    shape and type inference rules      (a ``RuleRegistry``, ops/infer_api.py)
    kernels.py  numpy kernels of the evaluator       (a ``KernelRegistry``, ops/kernel_api.py)
    vjp.py      vector-Jacobian products             (a ``VjpRegistry``, ops/vjp_api.py)
    recipes.py  hypothesis recipes of valid nodes    (a ``RecipeRegistry``, ops/recipe_api.py;
                                                      loaded only by :mod:`onnxcraft.testing`)
    adapters.py version adapters                     (an ``AdapterRegistry``, ops/adapter_api.py;
                                                      loaded by :mod:`onnxcraft.convert`)

plus ``shapes.py``: the formulas its rules and kernels compute alike (output sizes, index
clamping), written once and called by both; sliding-window arithmetic shared by several families
is in ``ops/windows.py``. The modules directly in ``ops/`` are the kit that parts are written
with (contexts, tables, shared helpers). The list of families is the list of folders, read
once; the engines (:mod:`onnxcraft.infer`, :mod:`onnxcraft.evaluate`) and the testing toolkit
fill their tables through :func:`load`.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from types import ModuleType
from typing import Any, Literal

__all__ = ["FAMILIES", "Part", "families", "family_modules", "load"]

Part = Literal["rules", "kernels", "vjp", "recipes", "adapters"]


_HERE = os.path.dirname(__file__)


def _read_families() -> tuple[str, ...]:
    return tuple(
        sorted(
            entry.name
            for entry in os.scandir(_HERE)
            if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py"))
        )
    )


def __getattr__(name: str) -> Any:
    # FAMILIES is read from the folders on first use: building no table, `import onnxcraft`
    # does not list them.
    if name == "FAMILIES":
        return families()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def families() -> tuple[str, ...]:
    """The operator families: the folders of this package, read once."""
    return _read_families()


def family_modules(part: Part) -> list[tuple[str, ModuleType]]:
    """(family, module) for every family that has ``part``, in family order."""
    return [
        (family, importlib.import_module(f"{__name__}.{family}.{part}"))
        for family in families()
        if os.path.isfile(os.path.join(_HERE, family, f"{part}.py"))
    ]


def load(part: Part, table: Any) -> None:
    """Let every family's ``part`` module register its entries into ``table``."""
    for _, module in family_modules(part):
        module.register(table)
