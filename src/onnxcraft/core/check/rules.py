"""The rules ``oc.check`` reports, by name, with what each requires.

Every problem carries one of these names in brackets; ``check_ir(skip=...)`` takes them.
"""

from __future__ import annotations

__all__ = ["RULES"]

RULES = {
    "proto": "the model's messages can be read: no negative dimension in a type's shape "
    "(raised when the model is read, by every entry point)",
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
    "attribute-value": "an attribute has a type and holds its value in that type's field only",
    "tensor-data": "a tensor's data sits in the one field its type uses (or in a relative "
    "external location) and holds exactly as many values as its dims",
    "sparse-tensor": "sparse tensors: 1-D values, INT64 indices inside dims, in increasing order",
    "subgraph": "If branches, Loop and Scan bodies have the inputs and outputs their node implies",
    "value-type": "types are well formed: map keys are integers or strings",
    "function": "model-local functions are well formed, unique and not recursive",
}
