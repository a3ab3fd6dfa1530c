"""From a model's IR to the scenes a picture is made of.

Every graph becomes a :class:`~onnxcraft.draw.scene.Scene`: a box per graph input, operator
node and graph output; an initializer is a line (name, type, size) inside the box of every
node that reads it, as Netron shows weights, rather than a box whose edges would run across the
whole graph (a shared bias read by every layer); and a label item per value whose type is
known, between its producer and its consumers, so that a value's type is written once however
many nodes read it. The bodies of If, Loop and Scan (any graph attribute)
and the bodies of the model's own functions at their calls are scenes drawn inside the node's
box; a value a body takes from the graph around it is an ``outer`` box in the body and a link
to the node in the graph around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from onnxcraft import ir
from onnxcraft.draw.scene import Item, Scene
from onnxcraft.draw.text import attribute_text, clip, short_attribute, tensor_summary, type_label
from onnxcraft.types import ValueType

__all__ = ["EXPANDED_FUNCTION_NODES", "scene_of_model"]

KEY_ATTRIBUTES = 4  # attributes written in a box; the side panel has them all
# Function bodies are drawn at their calls until this many of their nodes are drawn; calls past
# it are plain boxes (the panel names the function), so a model calling a large function
# thousands of times stays drawable.
EXPANDED_FUNCTION_NODES = 600
_MAX_FUNCTION_DEPTH = 4  # nested calls drawn inside each other


@dataclass
class _Budget:
    left: int = EXPANDED_FUNCTION_NODES


@dataclass
class _Context:
    functions: dict[tuple[str, str], ir.Function]
    budget: _Budget = field(default_factory=_Budget)


def scene_of_model(model: ir.Model) -> Scene:
    """The scene of ``model``'s main graph (its bodies nested inside)."""
    functions = {(f.domain, f.name): f for f in model.functions}
    context = _Context(functions)
    graph = model.graph
    return _GraphScene(context, graph.name or "graph", _types_of(graph), 0).graph(graph)


def _types_of(graph: ir.Graph) -> dict[str, ValueType | None]:
    types: dict[str, ValueType | None] = {}
    for info in (*graph.inputs, *graph.value_info, *graph.outputs):
        if info.type is not None:
            types[info.name] = info.type
    return types


class _GraphScene:
    """The scene of one graph or function body; names it does not define are outer values."""

    def __init__(
        self,
        context: _Context,
        title: str,
        types: dict[str, ValueType | None],
        depth: int,
        initializers: dict[str, ir.TensorData] | None = None,
    ) -> None:
        self.context = context
        self.scene = Scene(title)
        self.types = types
        self.depth = depth
        self.sources: dict[str, int] = {}  # value name -> the item its edges leave from
        # initializers drawn inside their readers' boxes: this graph's and those around it
        self.inlined: dict[str, ir.TensorData] = dict(initializers or {})
        self.outer: list[str] = []  # names taken from the graph around, in order of first use

    # -- graphs and function bodies ---------------------------------------------------------

    def graph(self, graph: ir.Graph) -> Scene:
        initializers = {t.name: t for t in graph.initializers}
        for info in graph.inputs:
            if info.name not in initializers:
                self._box_source(info.name, "input", type_label(info.type), info.type)
            else:  # an input with a default value (IR version 3): a box, it can be fed
                self._initializer_box(initializers.pop(info.name))
        self.inlined.update(initializers)
        for info in graph.outputs:  # an initializer that is an output has a box to link from
            tensor = self.inlined.get(info.name)
            if tensor is not None and info.name not in self.sources:
                self._initializer_box(tensor)
        for sparse in graph.sparse_initializers:
            dims = ",".join(str(d) for d in sparse.dims)
            self._box_source(sparse.values.name, "initializer", f"sparse [{dims}]", None)
        self._nodes(graph.nodes)
        for info in graph.outputs:
            self._output(info.name, info.type)
        return self.scene

    def function(self, function: ir.Function, call: ir.Node) -> Scene:
        for index, name in enumerate(function.inputs):
            given = index < len(call.inputs) and bool(call.inputs[index])
            label = type_label(self.types.get(name)) if given else "(omitted by the call)"
            self._box_source(name, "input", label, self.types.get(name))
        self._nodes(function.nodes)
        for name in function.outputs:
            self._output(name, self.types.get(name))
        return self.scene

    # -- items ------------------------------------------------------------------------------

    def _box_source(self, name: str, kind: str, line: str, value_type: ValueType | None) -> None:
        details = {"kind": kind, "name": name, "type": type_label(value_type)}
        self.sources[name] = self.scene.add(
            Item(kind, clip(name), [clip(line)], name=name, details=details)
        )

    def _initializer_box(self, tensor: ir.TensorData) -> None:
        summary = tensor_summary(tensor)
        details = {"kind": "initializer", "name": tensor.name, "type": summary}
        item = Item("initializer", clip(tensor.name), [clip(summary)], name=tensor.name)
        item.details = details
        self.sources[tensor.name] = self.scene.add(item)

    def _output(self, name: str, value_type: ValueType | None) -> None:
        label = type_label(value_type if value_type is not None else self.types.get(name))
        details = {"kind": "output", "name": name, "type": label}
        index = self.scene.add(
            Item("output", clip(name), [clip(label)], name=name, details=details)
        )
        self._link_from(name, index)

    def _link_from(self, name: str, target: int) -> None:
        source = self.sources.get(name)
        if source is None:
            source = self._outer_box(name)
        self.scene.link(source, target)

    def _outer_box(self, name: str) -> int:
        """A value the graph does not define: taken from the graph around (a subgraph's
        capture), or missing altogether in a broken model's main graph."""
        kind_line = "from outside" if self.depth else "not defined"
        self.outer.append(name)
        details = {"kind": "outer", "name": name, "type": type_label(self.types.get(name))}
        index = self.scene.add(Item("outer", clip(name), [kind_line], name=name, details=details))
        self.sources[name] = index
        return index

    def _nodes(self, nodes: list[ir.Node]) -> None:
        # Every node's outputs are known before any input is linked: a graph out of
        # topological order (invalid, but worth a picture) is drawn as it connects.
        produced = {name for node in nodes for name in node.outputs if name}
        pending = [self._node(node, produced) for node in nodes]
        for index, names in pending:
            for name in names:
                self._link_from(name, index)

    def _node(self, node: ir.Node, produced: set[str]) -> tuple[int, list[str]]:
        """The node's box and its values' labels; returns the box and the names it reads
        (its inputs, then what its bodies take from outside), linked once all are made."""
        op = node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
        lines = [clip(node.name)] if node.name else []
        shown = 0
        for attr in node.attributes:
            if attr.type in ("GRAPH", "GRAPHS") or shown >= KEY_ATTRIBUTES:
                continue
            lines.append(short_attribute(attr))
            shown += 1
        read: list[int] = []
        for slot, name in enumerate(node.inputs):
            tensor = None if name in produced else self.inlined.get(name)
            if tensor is not None:
                lines.append(clip(f"{clip(name, 16)}: {tensor_summary(tensor)}"))
            elif name:
                read.append(slot)
        item = Item("op", op, lines, name=node.name, op=node.op_type)
        item.details = self._node_details(node, op)
        item.bodies, captured = self._bodies(node)
        index = self.scene.add(item)
        for name in node.outputs:
            if name:
                self._produced(name, index)
        # the values its bodies take from this graph (or from further out) enter through it
        return index, [node.inputs[slot] for slot in read] + captured

    def _produced(self, name: str, producer: int) -> None:
        value_type = self.types.get(name)
        if value_type is None:
            self.sources[name] = producer
            return
        label = type_label(value_type)
        details = {"kind": "value", "name": name, "type": label}
        index = self.scene.add(Item("value", label, name=name, details=details))
        self.scene.link(producer, index)
        self.sources[name] = index

    def _node_details(self, node: ir.Node, op: str) -> dict[str, object]:
        def typed(name: str) -> list[str]:
            tensor = None if name in self.sources else self.inlined.get(name)
            if tensor is not None:
                return [name, tensor_summary(tensor)]
            return [name, type_label(self.types.get(name)) if name else "(omitted)"]

        return {
            "kind": "op",
            "op": op,
            "name": node.name,
            "attributes": [[a.name, attribute_text(a)] for a in node.attributes],
            "inputs": [typed(n) for n in node.inputs],
            "outputs": [typed(n) for n in node.outputs],
            "doc": node.doc_string,
        }

    # -- bodies -----------------------------------------------------------------------------

    def _bodies(self, node: ir.Node) -> tuple[list[tuple[str, Scene]], list[str]]:
        """The scenes drawn inside ``node``'s box, and the names they take from outside."""
        bodies: list[tuple[str, Scene]] = []
        captured: list[str] = []
        for attr in node.attributes:
            graphs = attr.value if isinstance(attr.value, list) else [attr.value]
            for position, graph in enumerate(graphs):
                if not isinstance(graph, ir.Graph):
                    continue
                label = attr.name if len(graphs) == 1 else f"{attr.name}[{position}]"
                types = {**self.types, **_types_of(graph)}
                inner = _GraphScene(self.context, label, types, self.depth + 1, self.inlined)
                bodies.append((label, inner.graph(graph)))
                captured.extend(n for n in inner.outer if n not in captured)
        function = self.context.functions.get((node.domain, node.op_type))
        if function is not None:
            self._function_body(node, function, bodies)
        return bodies, captured

    def _function_body(
        self, node: ir.Node, function: ir.Function, bodies: list[tuple[str, Scene]]
    ) -> None:
        budget = self.context.budget
        size = _node_count(function.nodes)
        if self.depth >= _MAX_FUNCTION_DEPTH or size > budget.left:
            return
        budget.left -= size
        # a function body sees only its own names: nothing of the caller's graph
        types = _function_types(function, node, self)
        title = f"function {function.domain}.{function.name}"
        inner = _GraphScene(self.context, title, types, self.depth + 1)
        bodies.append((title, inner.function(function, node)))


def _function_types(
    function: ir.Function, call: ir.Node, caller: _GraphScene
) -> dict[str, ValueType | None]:
    """The types inside a function body at one call: its value_info, and the call's input
    and output types for the formal inputs and outputs."""
    types: dict[str, ValueType | None] = {v.name: v.type for v in function.value_info if v.type}
    for formal, actual in zip(function.inputs, call.inputs):
        if actual and caller.types.get(actual) is not None:
            types[formal] = caller.types[actual]
    for formal, actual in zip(function.outputs, call.outputs):
        if actual and caller.types.get(actual) is not None:
            types[formal] = caller.types[actual]
    return types


def _node_count(nodes: list[ir.Node]) -> int:
    count = 0
    stack = list(nodes)
    while stack:
        node = stack.pop()
        count += 1
        for attr in node.attributes:
            graphs = attr.value if isinstance(attr.value, list) else [attr.value]
            stack.extend(n for g in graphs if isinstance(g, ir.Graph) for n in g.nodes)
    return count
