"""Operators the standard defines as functions, run through their bodies.

When the evaluator has no kernel for an operator version whose spec carries a function body,
the body (stored in the spec as JSON) becomes an IR function, evaluated like a model-local one.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from onnxcraft import ir, specs
from onnxcraft.dtypes import from_type_string, numpy_dtype

__all__ = ["function_from_spec"]


def _attribute(item: dict[str, Any]) -> ir.Attribute:
    kind = item["type"]
    if "ref" in item:
        return ir.Attribute(item["name"], kind, None, ref=item["ref"])
    value = item.get("value")
    if kind == "TENSOR" and isinstance(value, dict):
        elem = from_type_string(value["dtype"])
        array = np.asarray(value.get("values", []), dtype=numpy_dtype(elem)).reshape(value["dims"])
        value = ir.TensorData.from_array("", array, elem)
    return ir.Attribute(item["name"], kind, value)


@cache
def function_from_spec(domain: str, op_type: str, since: int) -> ir.Function | None:
    """The body of ``domain::op_type`` version ``since`` as an IR function, if it has one."""
    spec = specs.get(op_type, domain=domain, opset=since)
    if not spec.functions:
        return None
    # A function body may be written for a later opset than the operator's own version; take
    # the one for the operator's version or the oldest after it.
    bodies = sorted(spec.functions, key=lambda b: b.opset)
    body = next((b for b in bodies if b.opset >= since), bodies[-1])
    nodes = [
        ir.Node(
            op_type=n["op_type"],
            inputs=list(n["inputs"]),
            outputs=list(n["outputs"]),
            domain="" if n.get("domain", "") in ("", "ai.onnx") else n["domain"],
            attributes=[_attribute(a) for a in n.get("attributes", [])],
        )
        for n in body.nodes
    ]
    opsets = {("" if d in ("", "ai.onnx") else d): v for d, v in body.opset_imports}
    opsets.setdefault("", body.opset)
    return ir.Function(
        domain=domain,
        name=op_type,
        inputs=[p.name for p in spec.inputs],
        outputs=[p.name for p in spec.outputs],
        nodes=nodes,
        attributes=[a.name for a in spec.attributes],
        attribute_defaults=[
            ir.Attribute(a.name, a.type, a.default)
            for a in spec.attributes
            if a.default is not None and not isinstance(a.default, dict)
        ],
        opset_imports=opsets,
    )
