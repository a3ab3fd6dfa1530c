"""The round trip of ``oc.to_python`` on the ONNX node-test models.

``check_case(name, folder)`` returns None for an exact round trip (structure per
``roundtrip.differences`` and the same outputs, bit for bit, from ``oc.evaluate`` on the case's
inputs), else what went wrong. Run as a script it checks every case and prints the counts and
each failure:

    PYTHONPATH=src python -m tests.pycode.node_roundtrip
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import onnxcraft as oc
from onnxcraft.io import model_ir
from onnxcraft.ir import Graph, Node
from onnxcraft.pycode.walk import live_nodes
from tests.node_cases import case_names, load_case
from tests.pycode.roundtrip import differences, normalized, rebuild, same_values


def dead_nodes(graph: Graph) -> int:
    """How many nodes of ``graph`` and its bodies no output of their graph depends on."""
    count = len(graph.nodes) - len(live_nodes(graph))
    for node in graph.nodes:
        count += sum(dead_nodes(body) for body in _bodies(node))
    return count


def _bodies(node: Node) -> list[Graph]:
    """The graphs ``node`` holds in attributes (If branches, Loop and Scan bodies)."""
    bodies: list[Graph] = []
    for attr in node.attributes:
        if attr.type == "GRAPH":
            bodies.append(attr.value)
        elif attr.type == "GRAPHS":
            bodies.extend(attr.value)
    return bodies


# Operators that draw random numbers; without a seed, two runs of one model differ.
_RANDOM_OPS = {
    "Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform",
    "RandomUniformLike",
}  # fmt: skip


def draws_unseeded(nodes: list[Node]) -> bool:
    """Whether ``nodes`` or a body of theirs draw random numbers without a seed."""
    for node in nodes:
        if node.op_type in _RANDOM_OPS and node.attribute("seed") is None:
            return True
        if any(draws_unseeded(body.nodes) for body in _bodies(node)):
            return True
    return False


def check_case(name: str, folder: Path) -> str | None:
    case = load_case(name)
    try:
        _, rebuilt = rebuild(case.model, folder)
    except oc.CodeGenerationError as exc:
        return f"to_python: {exc}"
    except oc.OnnxcraftError as exc:
        return f"running the generated code: {type(exc).__name__}: {exc}"
    found = differences(case.model, rebuilt)
    if found:
        dead = dead_nodes(model_ir(case.model).graph)
        if dead:
            return (
                f"dead nodes: {dead} node(s) no output depends on (the DSL builds only what the "
                f"outputs reach)"
            )
        return "; ".join(found)
    model = model_ir(case.model)
    if draws_unseeded(model.graph.nodes) or any(draws_unseeded(f.nodes) for f in model.functions):
        return None  # two runs differ anyway: the structure, compared above, is all
    try:
        expected = oc.evaluate(case.model, case.inputs)
    except oc.OnnxcraftError:
        return None  # the original does not evaluate (known failures): structure is all
    got = oc.evaluate(rebuilt, case.inputs)
    for key, value in expected.items():
        if not same_values(value, got.get(key)):
            again = oc.evaluate(case.model, case.inputs)
            if not same_values(value, again.get(key)):
                continue  # the model draws random numbers: two runs differ anyway
            return f"output {key!r} differs"
    return None


def main() -> int:
    names = case_names()
    failures: dict[str, str] = {}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            try:
                reason = check_case(name, Path(tmp))
            except Exception as exc:
                reason = f"CRASH {type(exc).__name__}: {exc}"
            if reason is not None:
                failures[name] = reason
    elapsed = time.perf_counter() - start
    for name, reason in sorted(failures.items()):
        print(f"{name}: {reason[:300]}")
    print(f"{len(names) - len(failures)} of {len(names)} exact; {elapsed:.1f} s")
    print(f"normalized in the comparison (occurrences): {normalized}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
