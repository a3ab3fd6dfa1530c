"""Walking a model's graphs: the rules of graphs, their values and nodes.

A graph has a name; its inputs, initializers and node outputs define each value once (SSA);
a node uses only values defined before it, in its graph or an enclosing one; every output is
defined in its graph. Each node is then checked against its operator (or the model-local
function it calls), and its graph attributes are walked as subgraphs.
"""

from __future__ import annotations

from onnxcraft.core.check.attributes import check_attribute
from onnxcraft.core.check.operators import (
    check_arity,
    check_attribute_values,
    check_attributes,
    check_function_call,
    check_types,
    operator_info,
)
from onnxcraft.core.check.problems import Problems, domain_label, node_place
from onnxcraft.core.check.scope import Defined, Scope
from onnxcraft.core.check.subgraphs import check_subgraph_arity
from onnxcraft.core.check.value_types import (
    check_io_type,
    check_sparse,
    check_tensor,
    note_metadata,
    note_type,
)
from onnxcraft.core.typestr import type_to_string
from onnxcraft.core.versions import FEATURE_IR
from onnxcraft.ir import Attribute, Graph, Model, Node, SparseData, TensorData
from onnxcraft.types import Tensor, ValueType

__all__ = ["GraphChecker"]


class GraphChecker:
    """Checks graphs (and function bodies' nodes) of one model, reporting to ``problems``."""

    def __init__(self, model: Model, problems: Problems) -> None:
        self.model = model
        self.problems = problems
        self.functions = {(f.domain, f.name): f for f in model.functions}

    # -- graphs -----------------------------------------------------------------------------------

    def graph(self, graph: Graph, scope: Scope, where: str) -> None:
        problems = self.problems
        if not graph.name:
            problems.report(where, "graph-name", "a graph must have a name")
        defined = Defined()
        self._graph_inputs(graph, scope, where, defined)
        self._initializers(graph, scope, where, defined)
        for info in graph.value_info:
            place = f"{where} value_info {info.name!r}"
            if not info.name:
                problems.report(place, "value-name", "a value_info has no name")
            defined.types.setdefault(info.name, info.type)
            note_type(info.type, place, problems)
            note_metadata(info.metadata, "metadata_props on value_info", problems)
        for info in graph.outputs:
            defined.types.setdefault(info.name, info.type)
        note_metadata(graph.metadata, "metadata_props on graphs", problems)
        self.nodes(graph.nodes, scope, where, defined)
        self._graph_outputs(graph, scope, where, defined)

    def _define(
        self, name: str, place: str, scope: Scope, defined: Defined, *, is_node_output: bool
    ) -> None:
        if name in defined.names:
            self.problems.report(place, "ssa", f"value {name!r} is defined more than once")
        elif is_node_output and scope.has(name):
            self.problems.report(
                place, "ssa", f"value {name!r} shadows a value of an enclosing graph or function"
            )
        defined.names.add(name)

    def _graph_inputs(self, graph: Graph, scope: Scope, where: str, defined: Defined) -> None:
        problems = self.problems
        for info in graph.inputs:
            place = f"{where} input {info.name!r}"
            if not info.name:
                problems.report(place, "value-name", "a graph input has no name")
                continue
            self._define(info.name, place, scope, defined, is_node_output=False)
            defined.types[info.name] = info.type
            if scope.top:
                check_io_type(place, info.type, problems)
            note_type(info.type, place, problems)
            note_metadata(info.metadata, "metadata_props on value_info", problems)

    def _initializers(self, graph: Graph, scope: Scope, where: str, defined: Defined) -> None:
        problems = self.problems
        inputs = {i.name: i.type for i in graph.inputs}
        seen: set[str] = set()
        tensors: list[tuple[TensorData, SparseData | None]] = [
            (t, None) for t in graph.initializers
        ]
        for one in graph.sparse_initializers:
            problems.need_ir(FEATURE_IR["sparse_initializer"], "sparse initializers")
            tensors.append((one.values, one))
        for tensor, sparse in tensors:
            place = f"{where} initializer {tensor.name!r}"
            if not tensor.name:
                problems.report(place, "value-name", "an initializer has no name")
                continue
            if tensor.name in seen:
                problems.report(place, "ssa", f"initializer {tensor.name!r} is given twice")
                continue
            seen.add(tensor.name)
            if sparse is None:
                trusted = check_tensor(place, tensor, problems)
                dims = tensor.dims
            else:
                trusted = check_sparse(place, sparse, problems)
                dims = sparse.dims
            known = Tensor(tensor.elem_type, dims) if trusted else None
            if tensor.name in inputs:
                self._initializer_is_input(place, tensor.name, scope)
                self._initializer_fits_input(place, known, inputs[tensor.name])
            else:
                problems.need_ir(
                    FEATURE_IR["initializer_not_input"], "initializers that are not inputs"
                )
                self._define(tensor.name, place, scope, defined, is_node_output=False)
            defined.types[tensor.name] = known

    def _initializer_fits_input(
        self, place: str, known: Tensor | None, declared: ValueType | None
    ) -> None:
        """IR.md: an initializer that is also an input is its default value, of its type."""
        if known is None or not isinstance(declared, Tensor) or declared.elem_type is None:
            return
        text = type_to_string(declared)
        dims = known.shape or ()
        if declared.elem_type != known.elem_type:
            problem = f"the input is declared {text}, the initializer is {type_to_string(known)}"
        elif declared.shape is not None and (
            len(declared.shape) != len(dims)
            or any(isinstance(d, int) and d != k for d, k in zip(declared.shape, dims))
        ):
            problem = f"the input is declared {text}, the initializer has dims {list(dims)}"
        else:
            return
        self.problems.report(place, "initializer", problem)

    def _initializer_is_input(self, place: str, name: str, scope: Scope) -> None:
        # IR.md: from IR 4 on, a nested graph's initializer may not share an input's name.
        if not scope.top and self.model.ir_version >= 4:
            self.problems.report(
                place,
                "initializer",
                f"{name!r} is both an input and an initializer of a subgraph (IR >= 4)",
            )

    def _graph_outputs(self, graph: Graph, scope: Scope, where: str, defined: Defined) -> None:
        problems = self.problems
        for info in graph.outputs:
            place = f"{where} output {info.name!r}"
            if not info.name:
                problems.report(place, "value-name", "a graph output has no name")
                continue
            if info.name not in defined.names:
                outer = scope.has(info.name)
                problems.report(
                    place,
                    "graph-output",
                    "is a value of an enclosing graph; a subgraph output must be defined in the "
                    "subgraph (pass it through Identity)"
                    if outer
                    else "is not produced by any node, input or initializer of this graph",
                )
            if scope.top:
                check_io_type(place, info.type, problems)
            note_type(info.type, place, problems)
            note_metadata(info.metadata, "metadata_props on value_info", problems)

    # -- nodes ------------------------------------------------------------------------------------

    def nodes(self, nodes: list[Node], scope: Scope, where: str, defined: Defined) -> None:
        """Check ``nodes`` in order, defining their outputs in ``defined``."""
        problems = self.problems
        later = {o for n in nodes for o in n.outputs if o}
        names: set[str] = set()
        for index, node in enumerate(nodes):
            place = node_place(where, index, node)
            if node.name:
                if node.name in names:
                    problems.report(place, "node", f"node name {node.name!r} is used twice")
                names.add(node.name)
            for name in node.inputs:
                if name and name not in defined.names and not scope.has(name):
                    if name in later:
                        problems.report(
                            place,
                            "topological-order",
                            f"input {name!r} is produced by a later node",
                        )
                    else:
                        problems.report(place, "scope", f"input {name!r} is not defined in scope")
            self._node(node, place, scope, defined)
            for name in node.outputs:
                if name:
                    self._define(name, place, scope, defined, is_node_output=True)

    def _node(self, node: Node, place: str, scope: Scope, defined: Defined) -> None:
        problems = self.problems
        self._node_shape(node, place)
        self._attributes(node, place, scope, defined)
        if not node.op_type:
            return
        domain = node.domain
        if domain not in scope.opsets:
            problems.report(
                place, "opset-import", f"domain {domain_label(domain)!r} has no opset_import"
            )
            return
        function = self.functions.get((domain, node.op_type))
        if function is not None:
            check_function_call(node, place, function, problems)
            return
        info = operator_info(node, place, scope.opsets[domain], problems)
        if info is None:
            return
        check_arity(info, node, place, problems)
        check_attributes(info, node, place, problems)
        check_types(info, node, place, scope, defined, problems)
        check_attribute_values(info, node, place, scope, defined, problems)
        check_subgraph_arity(node, info.since_version, place, problems)

    def _node_shape(self, node: Node, place: str) -> None:
        problems = self.problems
        if not node.op_type:
            problems.report(place, "node", "a node must have an op_type")
        if not node.inputs and not node.outputs:
            problems.report(place, "node", "a node must have at least one input or output")
        if node.overload:
            problems.need_ir(FEATURE_IR["overload"], "the overload field")
        note_metadata(node.metadata, "metadata_props on nodes", problems)

    # -- attribute values -------------------------------------------------------------------------

    def _attributes(self, node: Node, place: str, scope: Scope, defined: Defined) -> None:
        seen: set[str] = set()
        for attr in node.attributes:
            if check_attribute(attr, place, scope, seen, self.problems):
                self._attribute_value(attr, place, scope.inner(defined))

    def _attribute_value(self, attr: Attribute, place: str, inner: Scope) -> None:
        """Subgraphs are checked in the node's scope; tensors and types like the graph's."""
        value = attr.value
        if value is None:
            return
        where = f"{place} attribute {attr.name!r}"
        if attr.type == "GRAPH":
            self.graph(value, inner, where)
        elif attr.type == "GRAPHS":
            for i, graph in enumerate(value):
                self.graph(graph, inner, f"{where}[{i}]")
        elif attr.type == "TENSOR":
            check_tensor(where, value, self.problems)
        elif attr.type == "TENSORS":
            for tensor in value:
                check_tensor(where, tensor, self.problems)
        elif attr.type == "SPARSE_TENSOR":
            check_sparse(where, value, self.problems)
        elif attr.type == "SPARSE_TENSORS":
            for sparse in value:
                check_sparse(where, sparse, self.problems)
        elif attr.type in ("TYPE_PROTO", "TYPE_PROTOS"):
            for item in value if attr.type == "TYPE_PROTOS" else [value]:
                note_type(item, where, self.problems)
