"""``oc.to_python(model)``: the source of a Python module that rebuilds ``model`` with the DSL.

The module imports numpy, onnxcraft and each opset module it calls once, defines the model's
local functions as ``@oc.function``s and a ``build_model()`` that declares the inputs with
``oc.arg``, the initializers with ``oc.initializer``, writes one statement per node (bodies as
nested functions) and returns ``oc.build(...)`` with the model's names, opsets, IR version and
metadata; run as a script, it saves the model beside itself.
"""

from __future__ import annotations

import os
from typing import Any

from onnxcraft.errors import ArgumentError, CodeGenerationError
from onnxcraft.io import model_ir
from onnxcraft.ir import Graph, Model
from onnxcraft.pycode.graphs import GraphWriter, Scope
from onnxcraft.pycode.identifiers import Identifiers
from onnxcraft.pycode.layout import LINE_LENGTH, Expr, Group, call, layout, shortened
from onnxcraft.pycode.modules import MAIN_ALIASES, OpsetModules
from onnxcraft.pycode.texts import check_texts
from onnxcraft.pycode.values import Imports, dtype_expr, shape_expr, string_text, type_expr
from onnxcraft.pycode.walk import live_nodes
from onnxcraft.pycode.weights import WEIGHTS_VARIABLE, Weights
from onnxcraft.types import Tensor
from onnxcraft.version import __version__

__all__ = ["DEFAULT_INLINE_LIMIT", "to_python"]

DEFAULT_INLINE_LIMIT = 64  # elements; larger tensors go to the side file when there is one
_INDENT = "    "
_BUILD_FUNCTION = "build_model"


def to_python(
    model: Any,
    *,
    weights_path: str | os.PathLike[str] | None = None,
    inline_limit: int = DEFAULT_INLINE_LIMIT,
    keep_names: bool = False,
) -> str:
    """The source of a Python module whose ``build_model()`` rebuilds ``model`` with the DSL.

    ``model`` is any model (a ModelProto, onnx's too, an IR model, bytes or a path). Tensors of
    more than ``inline_limit`` elements are written to the ``.npz`` file ``weights_path`` when
    it is given (the module loads it from its own folder: keep the two files together), and as
    literals otherwise. The names of inputs, outputs and initializers are kept; ``keep_names``
    keeps every value's name (``.named()`` on each node output).
    """
    if not isinstance(keep_names, bool):
        raise ArgumentError(f"to_python: keep_names must be a bool, got {keep_names!r}")
    weights = Weights(weights_path, inline_limit)
    ir = model_ir(model, what="to_python: model")
    check_texts(ir)
    source = _ModuleWriter(ir, weights, keep_names).source()
    weights.write()
    return source


class _ModuleWriter:
    def __init__(self, model: Model, weights: Weights, keep_names: bool) -> None:
        self.model = model
        self.weights = weights
        self.ids = Identifiers(set(MAIN_ALIASES) | {WEIGHTS_VARIABLE})
        self.imports = Imports()
        self.modules = OpsetModules(model.opset_imports, self.ids)
        self.writer = GraphWriter(model, self.ids, self.modules, self.imports, weights, keep_names)
        self.uses_numpy = False

    def source(self) -> str:
        functions = [self.writer.function(f) for f in self.model.functions]
        body = self.build_function()
        self.uses_numpy = any("np." in line for part in [*functions, body] for line in part)
        lines = [*self.header(), ""]
        for function in functions:
            lines.extend(["", *function, ""])
        lines.extend(["", *body, "", ""])
        lines.extend(
            [
                'if __name__ == "__main__":',
                f'{_INDENT}oc.save({_BUILD_FUNCTION}(), Path(__file__).with_suffix(".onnx"))',
            ]
        )
        return "\n".join(lines) + "\n"

    def header(self) -> list[str]:
        name = shortened(string_text(self.model.graph.name), LINE_LENGTH - 40)
        lines = [
            f'"""onnxcraft code rebuilding the model {name}.',
            "",
            f"Written by oc.to_python (onnxcraft {__version__}); run it to save the model.",
            '"""',
            "",
            "from pathlib import Path",
            "",
        ]
        if self.uses_numpy:
            lines.extend(["import numpy as np", ""])
        lines.append("import onnxcraft as oc")
        if self.imports.numpy_dtype:
            lines.append("from onnxcraft.dtypes import numpy_dtype")
        lines.extend(self.modules.import_lines())
        if self.weights.stored:
            file_name = self.weights.path.name if self.weights.path else ""
            lines.extend(["", f"WEIGHTS = Path(__file__).with_name({string_text(file_name)})"])
        return lines

    def build_function(self) -> list[str]:
        model, graph = self.model, self.model.graph
        scope = Scope(
            {}, {("" if d == "ai.onnx" else d): v for d, v in model.opset_imports.items()}
        )
        shown = shortened(string_text(graph.name), LINE_LENGTH - 30)
        lines = [f"def {_BUILD_FUNCTION}():", f'{_INDENT}"""Build the model {shown}."""']
        statements: list[str] = []
        initializer_names = {t.name for t in graph.initializers}
        inputs = []
        statements.append(f"{_INDENT}# inputs")
        for info in graph.inputs:
            identifier = self.ids.fresh(info.name, "input")
            scope.env[info.name] = identifier
            inputs.append(identifier)
            if info.name in initializer_names:
                # The DSL has no inputs with default values: the input stays, its value goes.
                statements.append(f"{_INDENT}# (its initializer, a default value, is left out)")
            statements.extend(layout(self.arg(info.name, info.type), _INDENT, f"{identifier} = "))
        own = [t for t in graph.initializers if t.name not in scope.env]
        if own:
            statements.append(f"{_INDENT}# initializers")
            saved = graph.initializers
            graph.initializers = own
            try:
                statements.extend(self.writer.initializers(graph, scope, _INDENT))
            finally:
                graph.initializers = saved
        statements.append(f"{_INDENT}# nodes of the main graph {shown}")
        statements.extend(self.writer.nodes(graph.nodes, scope, _INDENT))
        keep = self.dead_ends(graph, scope)
        outputs = {}
        for info in graph.outputs:
            if info.name not in scope.env:
                raise CodeGenerationError(
                    f"to_python: graph output {info.name!r} is not produced by any node"
                )
            outputs[info.name] = scope.env[info.name]
        if self.weights.stored:
            lines.append(f"{_INDENT}{WEIGHTS_VARIABLE} = np.load(WEIGHTS)")
        lines.extend(statements)
        lines.extend(self.build_call(inputs, outputs, keep))
        return lines

    def dead_ends(self, graph: Graph, scope: Scope) -> list[str]:
        """A value of each node no output depends on and no node reads: build keeps them
        (and through them the nodes before them), as it builds only what outputs reach."""
        live = {id(n) for n in live_nodes(graph)}
        result = []
        for node in graph.nodes:
            if id(node) in live:
                continue
            names = [n for n in node.outputs if n]
            if names and not any(n in self.writer.consumed for n in names):
                result.append(scope.env[names[0]])
        return result

    def arg(self, name: str, value_type: Any) -> Expr:
        if isinstance(value_type, Tensor) and value_type.elem_type is not None:
            dtype = dtype_expr(value_type.elem_type, self.imports)
            if value_type.shape is None:
                return call("oc.arg", string_text(name), dtype)
            return call("oc.arg", string_text(name), dtype, shape_expr(value_type.shape))
        return call("oc.arg", string_text(name), type_expr(value_type, self.imports))

    def build_call(self, inputs: list[str], outputs: dict[str, str], keep: list[str]) -> list[str]:
        model, graph = self.model, self.model.graph
        outputs_expr = Group("{", tuple(f"{string_text(k)}: {v}" for k, v in outputs.items()), "}")
        opsets = Group(
            "{", tuple(f"{string_text(d)}: {v}" for d, v in model.opset_imports.items()), "}"
        )
        keywords: list[Expr] = [
            Group("inputs=[", tuple(inputs), "]"),
            Group("outputs=" + outputs_expr.opening, outputs_expr.items, "}"),
            f"name={string_text(graph.name)}",
        ]
        if model.doc_string:
            keywords.append(f"doc_string={string_text(model.doc_string)}")
        if graph.doc_string != model.doc_string:
            keywords.append(f"graph_doc_string={string_text(graph.doc_string)}")
        keywords.append(Group("opset={", opsets.items, "}"))
        keywords.append(f"ir_version={model.ir_version}")
        if model.metadata:
            items = tuple(f"{string_text(k)}: {string_text(v)}" for k, v in model.metadata.items())
            keywords.append(Group("metadata={", items, "}"))
        keywords.append(f"producer_name={string_text(model.producer_name)}")
        keywords.append(f"producer_version={string_text(model.producer_version)}")
        if model.model_version:
            keywords.append(f"model_version={model.model_version}")
        if model.domain:
            keywords.append(f"domain={string_text(model.domain)}")
        if keep:
            keywords.append(Group("keep=[", tuple(keep), "]", fill=True))
        return layout(Group("oc.build(", tuple(keywords), ")"), _INDENT, prefix="return ")
