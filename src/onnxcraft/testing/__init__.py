"""Property-based testing of operators and converters with hypothesis.

This package imports hypothesis (a test dependency): import it from tests only; nothing else
in onnxcraft imports it.

    from onnxcraft.testing import strategies as ocst, node_cases, check_case
    ocst.arrays(oc.ElementType.FLOAT8E4M3FN, (2, 3))   # values of any ONNX element type
    ocst.broadcastable_shapes(2)                        # shapes that broadcast together
    node_cases("Add", opset=21)                         # valid Add nodes: inputs, attributes
    check_case(case)   # evaluator, inference rules and checker agree on one drawn node
    examples("TopK", 20, seed=1)                        # concrete cases, outside pytest
    conformance(OnnxruntimeBackend(), operators=["TopK"])   # test a runtime (.conformance)

See ``docs/testing.md`` for a walk-through.
"""

from __future__ import annotations

from typing import Any

try:
    from hypothesis import strategies as st
except ImportError as exc:  # a test dependency, not a runtime one
    raise ImportError(
        "onnxcraft.testing needs hypothesis, a test dependency: pip install 'onnxcraft[test]'"
    ) from exc
from hypothesis.errors import InvalidArgument

from onnxcraft import specs
from onnxcraft.specs.model import OpSpec
from onnxcraft.testing import strategies
from onnxcraft.testing.examples import Example, backend_value, example_of, examples
from onnxcraft.testing.harness import (
    CaseFailure,
    Input,
    NodeCase,
    build_model,
    check_case,
    compare_backends,
    evaluate_case,
    infer_case,
    problems,
)
from onnxcraft.testing.profile import Profile
from onnxcraft.testing.recipes import (
    EXCLUDED,
    NodeDraw,
    Recipe,
    exclusion_reason,
    recipe,
    recipe_for,
)
from onnxcraft.testing.recipes import node_cases as _node_cases_of_spec

__all__ = [
    # strategies
    "node_cases",
    "strategies",
    # writing recipes
    "EXCLUDED",
    "NodeDraw",
    "Recipe",
    "exclusion_reason",
    "recipe",
    "recipe_for",
    # running and checking a drawn node
    "CaseFailure",
    "Input",
    "NodeCase",
    "build_model",
    "check_case",
    "compare_backends",
    "evaluate_case",
    "infer_case",
    "problems",
    # drawn cases outside pytest, and testing a runtime (onnxcraft.testing.conformance)
    "Example",
    "Profile",
    "backend_value",
    "example_of",
    "examples",
    "conformance",
]


def node_cases(
    operator: OpSpec | str, *, domain: str = "", opset: int | None = None
) -> st.SearchStrategy[NodeCase]:
    """Valid nodes of an operator: an OpSpec, or its op_type (the version in force at
    ``opset`` of ``domain``, the newest when None)."""
    spec: Any = operator
    if isinstance(operator, str):
        spec = specs.get(operator, domain, opset)
    elif not isinstance(operator, OpSpec):
        raise InvalidArgument(
            f"node_cases: expected an OpSpec or an op_type string, got {type(operator).__name__}"
        )
    return _node_cases_of_spec(spec)


# The conformance runner, callable as onnxcraft.testing.conformance(backend, ...); imported last,
# as it builds on everything above.
from onnxcraft.testing import conformance  # noqa: E402
