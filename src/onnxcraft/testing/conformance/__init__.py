"""Property-test any ONNX runtime against the standard, in one call.

    from onnxcraft.testing.conformance import conformance, OnnxruntimeBackend
    report = conformance(OnnxruntimeBackend(), operators=["TopK"], examples=30, output="out/")
    print(report.markdown())

Every operator version the backend's :class:`Profile` allows is drawn (``examples`` cases per
version, from ``seed``), run on the backend in a child process, and judged against onnxcraft's
evaluator, the operator's function body breaking ties: agree, backend wrong, onnxcraft wrong,
ambiguous, backend refused, backend crashed. See ``docs/testing.md``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from onnxcraft.testing.conformance.backend import Backend, OnnxcraftBackend, Prepared
from onnxcraft.testing.conformance.cli import main
from onnxcraft.testing.conformance.compare import Difference, difference, tolerance_for
from onnxcraft.testing.conformance.judge import CLASSES, Verdict, judge
from onnxcraft.testing.conformance.onnxruntime_backend import OnnxruntimeBackend
from onnxcraft.testing.conformance.report import Cause, Report
from onnxcraft.testing.conformance.runner import conformance, label_of, select_operators
from onnxcraft.testing.profile import Profile

__all__ = [
    "CLASSES",
    "Backend",
    "Cause",
    "Difference",
    "OnnxcraftBackend",
    "OnnxruntimeBackend",
    "Prepared",
    "Profile",
    "Report",
    "Verdict",
    "conformance",
    "difference",
    "judge",
    "label_of",
    "main",
    "select_operators",
    "tolerance_for",
]


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`conformance`: ``onnxcraft.testing.conformance(backend)``
    runs the test, while ``python -m onnxcraft.testing.conformance`` and imports from the
    package keep working (a package and a function cannot otherwise share the name)."""

    def __call__(self, backend: Backend, **options: Any) -> Report:
        return conformance(backend, **options)


sys.modules[__name__].__class__ = _CallableModule
