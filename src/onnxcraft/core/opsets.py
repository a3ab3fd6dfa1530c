"""The opsets a built model imports: one version per domain, agreeing with every node.

Each domain is imported at the highest opset of the modules its nodes were built from (or at
the version the user asks for); every node must then be the version in force at that opset.
A graph whose ai.onnx nodes are only the Identity copies and Constant nodes that ``build``
adds (or that has no node at all) imports ai.onnx at the default opset (newer if a copied
type needs it), and model-local functions share the model's version of each domain they use.
"""

from __future__ import annotations

from collections.abc import Mapping

from onnxcraft.core.opinfo import op_info
from onnxcraft.core.typestr import matches
from onnxcraft.core.var import OpCall
from onnxcraft.core.versions import DEFAULT_OPSET
from onnxcraft.errors import BuildError
from onnxcraft.ir import Function
from onnxcraft.specs import get as spec_at
from onnxcraft.specs import resolve_since_version
from onnxcraft.specs import versions as spec_versions
from onnxcraft.types import ValueType

__all__ = ["merge_function_opsets", "model_opsets"]


def model_opsets(
    calls: list[OpCall],
    uses_constant_node: bool,
    identity_types: list[tuple[str, ValueType | None]],
    override: int | Mapping[str, int] | None,
    default_opset: int = DEFAULT_OPSET,
) -> dict[str, int]:
    """The opset of each domain of a graph made of ``calls`` (sorted by domain).

    ``identity_types`` lists the Identity copies added (output name, copied type);
    ``override`` is the user's ``opset=`` (an int: ai.onnx's); ``default_opset`` is ai.onnx's
    when no operator of that domain chose one.
    """
    # A model repeats a few (operator version, opset module) pairs: each is looked at once,
    # in the order of its first call (the first disagreement is the one reported).
    pairs = dict.fromkeys([(node.op, node.opset) for node in calls])
    requested: dict[str, int] = {}
    for op, opset in pairs:
        requested[op.domain] = max(requested.get(op.domain, 0), opset)
    if "" not in requested and (uses_constant_node or identity_types or not requested):
        # No ai.onnx operator chose the opset, yet the graph needs one (IR.md: a model imports
        # at least one; Constant nodes and Identity copies are ai.onnx's): the default opset,
        # which runtimes know (opset 1 and its IR version 3 draw warnings), or the first whose
        # Identity carries the copies' types if that is newer.
        needed = max((_identity_opset(label, t) for label, t in identity_types), default=1)
        requested[""] = max(default_opset, needed)
    if isinstance(override, int):
        override = {"": override}
    for domain, version in (override or {}).items():
        requested["" if domain == "ai.onnx" else domain] = int(version)
    for op, opset in pairs:
        if op.custom or op.function is not None:
            continue
        chosen = requested[op.domain]
        in_force = resolve_since_version(op.domain, op.op_type, chosen)
        if in_force != op.since_version:
            raise BuildError(
                f"build: a {op.op_type} node was built with version "
                f"{op.since_version} (from an opset {opset} module), but at the model's "
                f"{op.domain or 'ai.onnx'} opset {chosen} {op.op_type} is "
                f"{_status_at(op.domain, op.op_type, chosen, in_force)}; build "
                f"every node of one domain from opset modules that agree on its version"
            )
    for label, value_type in identity_types:
        _check_identity_at(label, value_type, requested[""])
    return dict(sorted(requested.items()))


def _status_at(domain: str, op_type: str, opset: int, in_force: int | None) -> str:
    """What an operator is at ``opset``: missing, deprecated (removed) or a version."""
    if in_force is None:
        return "not available"
    if spec_at(op_type, domain, opset).deprecated:
        # A deprecated version removes the operator (ai.onnx.ml 5 removes the tree ensembles
        # of version 3 for TreeEnsemble); "is version 5" would read as if it still existed.
        name = domain or "ai.onnx"
        return f"deprecated (removed by version {in_force}; keep {name} below opset {in_force})"
    return f"version {in_force}"


def merge_function_opsets(opsets: dict[str, int], functions: list[Function]) -> None:
    """The model imports every domain its functions use, at one version per domain."""
    for function in functions:
        for domain, version in function.opset_imports.items():
            model_version = opsets.setdefault(domain, version)
            if model_version == version:
                continue
            for node in function.nodes:
                if node.domain != domain:
                    continue
                at_function = resolve_since_version(domain, node.op_type, version)
                at_model = resolve_since_version(domain, node.op_type, model_version)
                if at_function != at_model:
                    raise BuildError(
                        f"build: function {function.name!r} uses {node.op_type} version "
                        f"{at_function} ({domain or 'ai.onnx'} opset {version}) but the model's "
                        f"opset {model_version} has version {at_model}; build the function and "
                        f"the model from the same opset module"
                    )
            function.opset_imports[domain] = model_version


def _identity_accepts(since: int, value_type: ValueType | None) -> bool:
    formal = op_info("", "Identity", since).inputs[0]
    return any(matches(value_type, allowed) for allowed in formal.allowed)


def _identity_opset(label: str, value_type: ValueType | None) -> int:
    """The lowest ai.onnx opset whose Identity can copy a value of ``value_type``."""
    for since in spec_versions("Identity"):
        if _identity_accepts(since, value_type):
            return since
    raise BuildError(
        f"build: {label!r} needs a copy of a value of type {value_type}, and no Identity "
        f"version accepts that type; make the value itself the output (an input is an "
        f"output when the output has its name)"
    )


def _check_identity_at(label: str, value_type: ValueType | None, opset: int) -> None:
    since = resolve_since_version("", "Identity", opset)
    if since is None or not _identity_accepts(since, value_type):
        raise BuildError(
            f"build: {label!r} needs an Identity copying a value of type {value_type}, which "
            f"Identity at ai.onnx opset {opset} does not accept; use opset >= "
            f"{_identity_opset(label, value_type)}"
        )
