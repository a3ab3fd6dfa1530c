"""``oc.check``: validate a model against the ONNX IR rules and the operator specs.

Every problem found is collected (not just the first) and reported in one ValidationError.
Each problem says where it is (graph path, node index and name, function) and, in brackets,
the rule broken, e.g. ``graph node 1 ('relu', Relu): [ssa] value 'h' is defined more than once``.

The rules follow docs/IR.md and onnx.proto of ONNX and the operator specs. Where onnx's own
checker is more lenient (unique node names, ``ref_attr_name`` outside functions, the outputs
and call sites of model-local functions, map key types, the IR version an opset was released
with), this checker follows the specification; where the specification leaves a point open
(a subgraph input may reuse an outer name), it follows onnx's checker.

The rules are grouped by what they check: :mod:`.versions` (IR version, opset imports),
:mod:`.graphs` (graphs, values, nodes), :mod:`.operators` (a node against its operator's
spec), :mod:`.attributes`, :mod:`.value_types` and :mod:`.functions`; :data:`RULES` names them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from onnxcraft.core import hooks
from onnxcraft.core.check.functions import FunctionChecker
from onnxcraft.core.check.graphs import GraphChecker
from onnxcraft.core.check.problems import Problems
from onnxcraft.core.check.rules import RULES
from onnxcraft.core.check.scope import Scope
from onnxcraft.core.check.versions import check_ir_needs, check_ir_version_range, check_opsets
from onnxcraft.core.versions import min_ir_for_opsets
from onnxcraft.errors import ArgumentError, ValidationError
from onnxcraft.ir import Model

__all__ = ["RULES", "check", "check_ir", "required_ir_version"]


def check(model: Any, *, full_check: bool = False) -> None:
    """Raise ValidationError listing every problem of ``model``: a ModelProto (onnxcraft's or
    onnx's), an IR model, its bytes or the path of its file.

    ``full_check=True`` also runs strict type inference on a model that passes the rules (as
    onnx's ``check_model(full_check=True)`` runs its shape inference): a node whose inputs do
    not fit it, or an inferred type that contradicts a declared one, is a problem too.
    """
    # Lazy: check_ir works on the IR alone; reading any other model loads protobuf.
    from onnxcraft.io import model_ir  # noqa: PLC0415

    if not isinstance(full_check, bool):
        raise ArgumentError(f"check: full_check must be a bool, got {full_check!r}")
    ir_model = model_ir(model, what="check: model")
    found = check_ir(ir_model)
    if not found and full_check:
        found = hooks.check_types.get()(ir_model)
    if found:
        raise ValidationError(found)


def check_ir(model: Model, *, skip: Collection[str] = ()) -> list[str]:
    """Every problem of ``model``, as ``"where: [rule] what"`` strings (empty when valid).

    ``skip`` names rules (keys of :data:`RULES`) to leave out, for tools that build models
    which are incomplete on purpose (a test harness declaring inputs of unknown rank).
    """
    unknown = sorted(set(skip) - set(RULES))
    if unknown:
        raise ValueError(f"check_ir: unknown rule(s) {unknown}; rules: {', '.join(RULES)}")
    problems = Problems()
    check_ir_version_range(model, problems)
    check_opsets(model.opset_imports, "model", problems)
    if not model.opset_imports and model.ir_version >= 3:
        problems.report("model", "opset-import", "the model imports no opset")
    graphs = GraphChecker(model, problems)
    graphs.graph(model.graph, Scope((), dict(model.opset_imports), top=True), "graph")
    FunctionChecker(graphs).run()
    check_ir_needs(model, problems)
    return [f"{where}: [{rule}] {what}" for where, rule, what in problems.found if rule not in skip]


def required_ir_version(model: Model) -> int:
    """The lowest IR version that supports everything ``model`` uses: its opsets and the
    features the checks note on the way (element types, functions, metadata, ...)."""
    problems = Problems()
    graphs = GraphChecker(model, problems)
    graphs.graph(model.graph, Scope((), dict(model.opset_imports), top=True), "graph")
    FunctionChecker(graphs).run()
    return max(3, min_ir_for_opsets(model.opset_imports), *problems.ir_needs.values())
