"""The ONNX text syntax read into onnxcraft's IR.

The grammar is onnx's (``onnx/defs/parser.cc``), read by recursive descent; on top of it this
parser reads what onnx's cannot: lists of tensors, graphs and type protos as attribute values
(onnx's parser drops their items), sparse tensors (``sparse_tensor(float[10]) {values,
indices}``, onnxcraft's spelling), quoted graph names where an attribute is declared a graph,
and quoted domains and operator names. Every error is a :class:`TextSyntaxError` giving the
line, the column, what the grammar expects there and what the text holds.
"""

from __future__ import annotations

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import TextSyntaxError
from onnxcraft.text.elide import ELIDED_MARK
from onnxcraft.text.lexer import END, IDENT, NUMBER, PUNCT, STRING, Lexer, Token, describe, unquote
from onnxcraft.text.syntax import (
    ATTRIBUTE_TYPES,
    ELEMENT_NAMES,
    ELEMENT_TYPES,
    FLOAT_WORDS,
    TYPE_KEYWORDS,
    UNDEFINED_ELEMENT,
)
from onnxcraft.text.values import (
    array_from_entries,
    check_entries,
    entries_from_body,
    entries_from_items,
    is_float_written,
    item_count,
    strings_array,
)
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor, ValueType

__all__ = ["parse_function", "parse_graph", "parse_model", "parse_node"]

_INT64 = (-(2**63), 2**63 - 1)
_MODEL_KEYS = (
    "ir_version",
    "opset_import",
    "producer_name",
    "producer_version",
    "domain",
    "model_version",
    "doc_string",
    "metadata_props",
)
_FUNCTION_KEYS = ("domain", "opset_import", "overload", "doc_string")
_ELIDED_HINT = (
    "tensor values (this text has large tensors elided, '{...}'; print the model with "
    "oc.to_text(model, full_tensors=True) to get text that parses)"
)


def _domain(domain: str) -> str:
    return "" if domain == "ai.onnx" else domain


class _Parser:
    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TextSyntaxError(1, 1, "the text as a str", type(text).__name__)
        self.lex = Lexer(text)

    # -- small pieces -------------------------------------------------------------------------

    def error(self, expected: str, token: Token | None = None) -> TextSyntaxError:
        return self.lex.error(expected, token or self.lex.peek())

    def end(self) -> None:
        token = self.lex.peek()
        if token.kind != END:
            raise self.error("the end of the text", token)

    def name(self, what: str) -> str:
        """An identifier or a string literal."""
        token = self.lex.peek()
        if token.kind == IDENT:
            return self.lex.take().text
        if token.kind == STRING:
            return unquote(self.lex.take().text)
        raise self.error(what, token)

    def string(self, what: str) -> str:
        token = self.lex.peek()
        if token.kind != STRING:
            raise self.error(what, token)
        return unquote(self.lex.take().text)

    def integer(self, what: str, low: int = _INT64[0], high: int = _INT64[1]) -> int:
        token = self.lex.peek()
        if token.kind != NUMBER or not _is_integer(token.text):
            raise self.error(what, token)
        value = int(token.text)
        if not low <= value <= high:
            raise self.error(f"{what} between {low} and {high}", token)
        self.lex.take()
        return value

    def names(self, close: str) -> list[str]:
        """``name, name, ...`` up to ``close`` (not consumed)."""
        found: list[str] = []
        if self.lex.at(close):
            return found
        while True:
            found.append(self.name("a value name"))
            if not self.lex.accept(","):
                return found

    # -- types --------------------------------------------------------------------------------

    def next_is_type(self) -> bool:
        token = self.lex.peek()
        return token.kind == IDENT and (
            token.text in ELEMENT_TYPES
            or token.text in TYPE_KEYWORDS
            or token.text == UNDEFINED_ELEMENT
        )

    def element(self) -> ElementType | None:
        token = self.lex.peek()
        if token.kind == IDENT and token.text == UNDEFINED_ELEMENT:
            self.lex.take()
            return None
        if token.kind != IDENT or token.text not in ELEMENT_TYPES:
            raise self.error("an element type (float, int64, float8e4m3fn, ...)", token)
        self.lex.take()
        return ELEMENT_TYPES[token.text]

    def shape(self) -> tuple[int | str | None, ...] | None:
        """``[dims]`` after an element type: no brackets a scalar, ``[]`` an unknown rank."""
        if not self.lex.accept("["):
            return ()
        if self.lex.accept("]"):
            return None
        dims: list[int | str | None] = []
        while True:
            token = self.lex.peek()
            if self.lex.accept("?"):
                dims.append(None)
            elif token.kind == NUMBER:
                dims.append(self.integer("a dimension (an integer >= 0)", 0))
            elif token.kind in (IDENT, STRING):
                dims.append(self.name("a dimension") or None)
            else:
                raise self.error("a dimension (an integer, a name or '?')", token)
            if not self.lex.accept(","):
                break
        self.lex.expect("]", "',' or ']' in the shape")
        return tuple(dims)

    def type(self) -> ValueType | None:
        token = self.lex.peek()
        if token.kind != IDENT:
            raise self.error("a type", token)
        word = token.text
        if word in ELEMENT_TYPES or word == UNDEFINED_ELEMENT:
            elem = self.element()
            return Tensor(elem, self.shape())
        if word not in TYPE_KEYWORDS:
            raise self.error("a type (float[N], seq(...), map(...), optional(...), ...)", token)
        self.lex.take()
        if word == "opaque":
            raise self.error("a type onnxcraft holds (opaque types are not supported)", token)
        self.lex.expect("(", f"'(' after {word}")
        result: ValueType | None
        if word == "sparse_tensor":
            elem = self.element()
            result = SparseTensor(elem, self.shape())
        elif word == "map":
            key = self.element()
            if key is None:
                raise self.error("the element type of the map's keys", token)
            self.lex.expect(",", "',' after the map's key type")
            result = Map(key, None if self.lex.at(")") else self.type())
        else:
            inner = None if self.lex.at(")") else self.type()
            result = Sequence(inner) if word == "seq" else Optional(inner)
        self.lex.expect(")", f"')' closing {word}(")
        return result

    def value_info(self) -> ir.ValueInfo:
        value_type = self.type() if self.next_is_type() else None
        return ir.ValueInfo(self.name("a value name"), value_type)

    # -- tensors ------------------------------------------------------------------------------

    def tensor_literal(self) -> ir.TensorData:
        """``float[2] [name] [=] {values}``"""
        start = self.lex.peek()
        value_type = self.type()
        name = ""
        token = self.lex.peek()
        if token.kind in (IDENT, STRING):
            name = self.name("a tensor name")
        self.lex.accept("=")
        return self.tensor_values(value_type, name, start)

    def tensor_values(self, value_type: ValueType | None, name: str, start: Token) -> ir.TensorData:
        """The values of a tensor of type ``value_type`` (read from ``start``)."""
        if not isinstance(value_type, Tensor) or value_type.elem_type is None:
            raise self.error("a tensor type with a known element type", start)
        if value_type.shape is None or not all(isinstance(d, int) for d in value_type.shape):
            raise self.error("a tensor type with numeric dims (float[2,3])", start)
        elem = value_type.elem_type
        dims = tuple(int(d) for d in value_type.shape)  # type: ignore[arg-type]
        brace = self.lex.peek()
        if brace.kind == PUNCT and brace.text == "[":
            raise self.error("tensor values in braces (external data is not read from text)")
        self.lex.expect("{", "'{' and the tensor's values")
        if self.lex.text.startswith(ELIDED_MARK, self.lex.skip_space()):
            raise self.lex.error_at(self.lex.pos, _ELIDED_HINT, "elided values '{...'")
        if elem == ElementType.STRING:
            items = self.tensor_items(elem)
            count = len(items)
        else:
            entries = self.tensor_entries(elem)
            count = entries.size
        expected = item_count(elem, dims)
        if count != expected:
            raise self.lex.error_at(
                brace.start,
                f"{expected} values for {ELEMENT_NAMES[elem]}{list(dims)}",
                f"{count} values",
            )
        if elem == ElementType.STRING:
            array = strings_array(items, dims)
        else:
            try:
                check_entries(entries, elem)
            except ValueError as exc:
                raise self.lex.error_at(
                    brace.start, f"values of {ELEMENT_NAMES[elem]}", str(exc)
                ) from None
            array = array_from_entries(entries, elem, dims)
        return ir.TensorData.from_array(name, array, elem)

    def tensor_entries(self, elem: ElementType) -> np.ndarray:
        """The numbers between a tensor literal's braces (the closing one consumed)."""
        lex = self.lex
        saved = lex.pos
        body, _ = lex.scan_until("}")
        if "#" not in body:
            entries = entries_from_body(body, elem)
            if entries is not None:
                return entries
        lex.pos = saved  # read it token by token, which finds the error's place
        try:
            return entries_from_items(self.tensor_items(elem), elem)
        except OverflowError:
            raise self.lex.error_at(
                saved, f"values of {ELEMENT_NAMES[elem]}", "a value out of range"
            ) from None

    def tensor_items(self, elem: ElementType) -> list[str]:
        lex = self.lex
        items: list[str] = []
        if lex.accept("}"):
            return items
        floats = is_float_written(elem)
        while True:
            items.append(self.tensor_item(elem, floats))
            if not lex.accept(","):
                break
        lex.expect("}", "',' or '}' after a value")
        return items

    def tensor_item(self, elem: ElementType, floats: bool) -> str:
        lex = self.lex
        token = lex.peek()
        if elem == ElementType.STRING:
            return self.string("a string literal")
        if token.kind == NUMBER and (floats or _is_integer(token.text)):
            return lex.take().text
        if floats:
            sign = "-" if lex.accept("-") else ""
            word = lex.peek()
            if word.kind == IDENT and word.text.lower() in FLOAT_WORDS:
                return sign + lex.take().text
            raise self.error("a number, inf or nan", word)
        raise self.error("an integer", token)

    def sparse_literal(self, value_type: SparseTensor, name: str, start: Token) -> ir.SparseData:
        """``{values tensor, indices tensor}`` of a sparse tensor (onnxcraft's spelling)."""
        if value_type.shape is None or not all(isinstance(d, int) for d in value_type.shape):
            raise self.error("a sparse tensor type with numeric dims", start)
        self.lex.expect("{", "'{' and the sparse tensor's values and indices")
        values = self.tensor_literal()
        self.lex.expect(",", "',' and the indices tensor")
        indices = self.tensor_literal()
        self.lex.expect("}", "'}' closing the sparse tensor")
        if name and not values.name:
            values.name = name
        dims = tuple(int(d) for d in value_type.shape)  # type: ignore[arg-type]
        return ir.SparseData(values, indices, dims)

    # -- attributes ---------------------------------------------------------------------------

    def attribute_list(self) -> list[ir.Attribute]:
        self.lex.expect("<")
        found = [self.attribute(self.name("an attribute name"))]
        while self.lex.accept(","):
            found.append(self.attribute(self.name("an attribute name")))
        self.lex.expect(">", "',' or '>' after an attribute")
        return found

    def attribute(self, name: str) -> ir.Attribute:
        declared = ""
        if self.lex.accept(":"):
            token = self.lex.peek()
            if token.kind != IDENT or token.text not in ATTRIBUTE_TYPES:
                raise self.error("an attribute type (int, float, string, tensor, graph, ints, ...)")
            declared = ATTRIBUTE_TYPES[self.lex.take().text]
        self.lex.expect("=", "'=' and the attribute's value")
        token = self.lex.peek()
        if self.lex.accept("@"):
            if not declared:
                raise self.error("a declared type before a reference (name: int = @ref)", token)
            return ir.Attribute(name, declared, None, self.name("the referenced attribute's name"))
        if self.lex.at("["):
            return self.attribute_list_value(name, declared)
        if declared.endswith("S") and declared != "SPARSE_TENSOR":
            raise self.error(f"'[' and a list of values (the attribute is {declared.lower()})")
        kind, value = self.single_value(declared)
        return ir.Attribute(name, kind, value)

    def attribute_list_value(self, name: str, declared: str) -> ir.Attribute:
        open_bracket = self.lex.take()
        if declared and not (declared.endswith("S") and declared != "SPARSE_TENSOR"):
            raise self.error(f"a single value (the attribute is {declared.lower()})", open_bracket)
        single = declared[:-1] if declared else ""
        kinds: list[str] = []
        values: list[object] = []
        if not self.lex.at("]"):
            while True:
                kind, value = self.single_value(single)
                kinds.append(kind)
                values.append(value)
                if not self.lex.accept(","):
                    break
        self.lex.expect("]", "',' or ']' in the list")
        if not declared:
            if not kinds:
                raise self.error(
                    "a declared type for an empty list (name: ints = [])", open_bracket
                )
            distinct = set(kinds)
            if distinct == {"INT", "FLOAT"}:
                values = [float(np.float32(v)) for v in values]  # type: ignore[arg-type]
                distinct = {"FLOAT"}
            if len(distinct) != 1:
                raise self.error("values of one type in the list", open_bracket)
            single = distinct.pop()
        return ir.Attribute(name, single + "S", values)

    def single_value(self, expected: str) -> tuple[str, object]:
        token = self.lex.peek()
        kind: str
        value: object
        if token.kind == IDENT and self.next_is_type():
            value_type = self.type()
            follows = self.lex.peek()
            literal = follows.kind in (IDENT, STRING) or (
                follows.kind == PUNCT and follows.text in ("{", "=")
            )
            if literal and isinstance(value_type, SparseTensor):
                name = "" if follows.kind == PUNCT else self.name("a tensor name")
                self.lex.accept("=")
                kind, value = "SPARSE_TENSOR", self.sparse_literal(value_type, name, token)
            elif literal:
                name = "" if follows.kind == PUNCT else self.name("a tensor name")
                self.lex.accept("=")
                kind, value = "TENSOR", self.tensor_values(value_type, name, token)
            else:
                kind, value = "TYPE_PROTO", value_type
        elif token.kind == IDENT and token.text.lower() in FLOAT_WORDS:
            kind, value = "FLOAT", float(np.float32(self.lex.take().text))
        elif token.kind == IDENT or (token.kind == STRING and expected == "GRAPH"):
            kind, value = "GRAPH", self.graph()
        elif token.kind == STRING:
            kind, value = "STRING", unquote(self.lex.take().text)
        elif token.kind == NUMBER:
            text = self.lex.take().text
            if _is_integer(text) and expected != "FLOAT":
                kind, value = "INT", int(text)
                if not _INT64[0] <= int(text) <= _INT64[1]:
                    raise self.error("an integer within int64", token)
            else:
                kind, value = "FLOAT", float(np.float32(text))
        elif self.lex.accept("-"):
            word = self.lex.peek()
            if word.kind != IDENT or word.text.lower() not in FLOAT_WORDS:
                raise self.error("a number, inf or nan after '-'", word)
            kind, value = "FLOAT", float(np.float32("-" + self.lex.take().text))
        else:
            raise self.error("an attribute value", token)
        if expected and kind != expected:
            raise self.lex.error_at(
                token.start,
                f"a value of type {expected.lower()}",
                f"a {kind.lower()} value ({describe(token)})",
            )
        return kind, value

    # -- nodes, graphs, functions -------------------------------------------------------------

    def node(self) -> ir.Node:
        name = ""
        if self.lex.accept("["):
            name = "" if self.lex.at("]") else self.name("a node name")
            self.lex.expect("]", "']' closing the node name")
        outputs = self.names("=")
        self.lex.expect("=", "'=' after the node's outputs")
        parts = [self.name("an operator name")]
        while self.lex.accept("."):
            parts.append(self.name("an operator name after '.'"))
        overload = self.name("an overload name") if self.lex.accept(":") else ""
        attributes = self.attribute_list() if self.lex.at("<") else []
        self.lex.expect("(", "'(' and the node's inputs")
        inputs = self.names(")")
        self.lex.expect(")", "',' or ')' after an input")
        if not attributes and self.lex.at("<"):
            attributes = self.attribute_list()
        return ir.Node(
            parts[-1],
            inputs,
            outputs,
            _domain(".".join(parts[:-1])),
            name,
            attributes,
            overload=overload,
        )

    def node_block(self) -> list[ir.Node]:
        self.lex.expect("{", "'{' and the nodes")
        nodes = []
        while not self.lex.accept("}"):
            if self.lex.peek().kind == END:
                raise self.error("a node or '}'")
            nodes.append(self.node())
        return nodes

    def graph(self) -> ir.Graph:
        graph = ir.Graph(name=self.name("a graph name"))
        self.lex.expect("(", "'(' and the graph's inputs")
        if not self.lex.at(")"):
            while True:
                start = self.lex.peek()
                info = self.value_info()
                graph.inputs.append(info)
                if self.lex.accept("="):
                    graph.initializers.append(self.tensor_values(info.type, info.name, start))
                if not self.lex.accept(","):
                    break
        self.lex.expect(")", "',' or ')' after an input")
        self.lex.expect("=>", "'=>' and the graph's outputs")
        self.lex.expect("(", "'(' and the graph's outputs")
        if not self.lex.at(")"):
            graph.outputs.append(self.value_info())
            while self.lex.accept(","):
                graph.outputs.append(self.value_info())
        self.lex.expect(")", "',' or ')' after an output")
        if self.lex.accept("<") and not self.lex.accept(">"):
            while True:
                self.graph_entry(graph)
                if not self.lex.accept(","):
                    break
            self.lex.expect(">", "',' or '>' after an initializer or value info")
        graph.nodes = self.node_block()
        return graph

    def graph_entry(self, graph: ir.Graph) -> None:
        """An initializer (``type name = values``) or a value info (``type name``)."""
        start = self.lex.peek()
        info = self.value_info()
        if not self.lex.accept("="):
            graph.value_info.append(info)
        elif isinstance(info.type, SparseTensor):
            graph.sparse_initializers.append(self.sparse_literal(info.type, info.name, start))
        else:
            graph.initializers.append(self.tensor_values(info.type, info.name, start))

    def header(self, keys: tuple[str, ...], what: str) -> dict[str, object]:
        """``<key: value, ...>`` of a model or a function."""
        found: dict[str, object] = {}
        if not self.lex.accept("<"):
            return found
        while True:
            token = self.lex.peek()
            if token.kind != IDENT or token.text not in keys:
                raise self.error(f"a {what} header key ({', '.join(keys)})", token)
            key = self.lex.take().text
            self.lex.expect(":", f"':' after {key}")
            if key in ("ir_version", "model_version"):
                found[key] = self.integer(f"the {key} (an integer)")
            elif key == "opset_import":
                found[key] = self.opsets()
            elif key == "metadata_props":
                found[key] = self.metadata()
            else:
                found[key] = self.string(f"the {key} (a string literal)")
            if not self.lex.accept(","):
                break
        self.lex.expect(">", f"',' or '>' closing the {what} header")
        return found

    def opsets(self) -> dict[str, int]:
        self.lex.expect("[", "'[' and the opset imports")
        found: dict[str, int] = {}
        if not self.lex.accept("]"):
            while True:
                domain = self.string("an opset's domain (a string literal)")
                self.lex.expect(":", "':' and the opset version")
                found[_domain(domain)] = self.integer("an opset version")
                if not self.lex.accept(","):
                    break
            self.lex.expect("]", "',' or ']' after an opset import")
        return found

    def metadata(self) -> dict[str, str]:
        self.lex.expect("[", "'[' and the metadata entries")
        found: dict[str, str] = {}
        if not self.lex.accept("]"):
            while True:
                key = self.string("a metadata key (a string literal)")
                self.lex.expect(":", "':' and the metadata value")
                found[key] = self.string("a metadata value (a string literal)")
                if not self.lex.accept(","):
                    break
            self.lex.expect("]", "',' or ']' after a metadata entry")
        return found

    def function_signature(self, infos: list[ir.ValueInfo]) -> list[str]:
        """``(x, float[N] y)``: the names; typed ones also go to ``infos``."""
        self.lex.expect("(", "'(' and the function's values")
        names: list[str] = []
        if not self.lex.at(")"):
            while True:
                info = self.value_info()
                names.append(info.name)
                if info.type is not None:
                    infos.append(info)
                if not self.lex.accept(","):
                    break
        self.lex.expect(")", "',' or ')' after a value")
        return names

    def function(self) -> ir.Function:
        header = self.header(_FUNCTION_KEYS, "function")
        name = self.name("a function name")
        names: list[str] = []
        defaults: list[ir.Attribute] = []
        if self.lex.accept("<"):
            while True:
                attribute = self.name("an attribute name")
                if self.lex.at(":") or self.lex.at("="):
                    defaults.append(self.attribute(attribute))
                else:
                    names.append(attribute)
                if not self.lex.accept(","):
                    break
            self.lex.expect(">", "',' or '>' after an attribute")
        infos: list[ir.ValueInfo] = []
        inputs = self.function_signature(infos)
        self.lex.expect("=>", "'=>' and the function's outputs")
        outputs = self.function_signature(infos)
        if self.lex.accept("<") and not self.lex.accept(">"):
            infos.append(self.value_info())
            while self.lex.accept(","):
                infos.append(self.value_info())
            self.lex.expect(">", "',' or '>' after a value info")
        nodes = self.node_block()
        opsets = header.get("opset_import", {})
        assert isinstance(opsets, dict)
        return ir.Function(
            domain=str(header.get("domain", "")),
            name=name,
            inputs=inputs,
            outputs=outputs,
            nodes=nodes,
            attributes=names,
            attribute_defaults=defaults,
            opset_imports=opsets,
            value_info=infos,
            overload=str(header.get("overload", "")),
            doc_string=str(header.get("doc_string", "")),
        )

    def model(self) -> ir.Model:
        header = self.header(_MODEL_KEYS, "model")
        graph = self.graph()
        functions = []
        while self.lex.peek().kind != END:
            functions.append(self.function())
        opsets = header.get("opset_import", {})
        metadata = header.get("metadata_props", {})
        assert isinstance(opsets, dict) and isinstance(metadata, dict)
        return ir.Model(
            graph=graph,
            opset_imports=opsets,
            ir_version=int(header.get("ir_version", 0)),  # type: ignore[call-overload]
            producer_name=str(header.get("producer_name", "")),
            producer_version=str(header.get("producer_version", "")),
            domain=str(header.get("domain", "")),
            model_version=int(header.get("model_version", 0)),  # type: ignore[call-overload]
            doc_string=str(header.get("doc_string", "")),
            metadata=metadata,
            functions=functions,
        )


def _is_integer(text: str) -> bool:
    return not any(c in text for c in ".eE")


def parse_model(text: str) -> ir.Model:
    parser = _Parser(text)
    model = parser.model()
    parser.end()
    return model


def parse_graph(text: str) -> ir.Graph:
    parser = _Parser(text)
    graph = parser.graph()
    parser.end()
    return graph


def parse_function(text: str) -> ir.Function:
    parser = _Parser(text)
    function = parser.function()
    parser.end()
    return function


def parse_node(text: str) -> ir.Node:
    parser = _Parser(text)
    node = parser.node()
    parser.end()
    return node
