"""The rules ``oc.check`` reports, by name, with what each requires.

Every problem carries one of these names in brackets; ``check_ir(skip=...)`` takes them.
"""

from __future__ import annotations

__all__ = ["RULES"]

RULES = {
    "ir-version": "ir_version is set, known, and supports every opset and feature used",
    "opset-import": "every domain used is imported at a known version, by functions too",
    "graph-name": "every graph has a name",
    "value-name": "graph inputs, outputs, initializers and value_info have names",
    "io-type": "main graph inputs and outputs have a complete type, tensors a rank",
    "ssa": "every value is defined once; node outputs do not reuse outer names",
    "topological-order": "a node only uses values defined before it",
    "scope": "a node only uses values defined in its graph or enclosing graphs",
    "graph-output": "a graph output is defined in that graph",
    "initializer": "tensors have an element type; subgraph initializers are not inputs",
    "node": "a node has an op_type, some input or output, and a unique name",
    "operator": "the operator exists at the imported opset and is not deprecated",
    "arity": "input and output counts fit the operator's optional/variadic signature",
    "attribute": "attributes are known, typed as specified, given once, required ones set",
    "type-constraint": "input and output types satisfy the operator's type constraints",
    "value-type": "types are well formed: map keys are integers or strings",
    "function": "model-local functions are well formed, unique and not recursive",
}
