"""A plain-Python model representation, free of protobuf.

``build_ir`` produces it (``build`` converts it to a ModelProto), ``proto.serde`` converts it to
and from ModelProto, and the evaluator, ``check``, ``infer_shapes``, ``inline`` and ``save``
read it. Keeping protobuf out of those modules keeps them simple and lets them share one data
model. Tensor data stays lazy (:class:`TensorData`) so that reading a large model's structure
does not decode its weights, and arrays given to the DSL are held, not copied, so that
``save`` writes them from their own memory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, overload

import numpy as np

from onnxcraft.dtypes import ElementType
from onnxcraft.errors import OnnxcraftError
from onnxcraft.types import ValueType

__all__ = [
    "ATTRIBUTE_TYPES",
    "register_encoder",
    "register_printer",
    "register_picture",
    "picture_of",
    "Attribute",
    "Function",
    "Graph",
    "Model",
    "Node",
    "SparseData",
    "TensorData",
    "ValueInfo",
    "copy_structure",
]

# The protobuf encoding of a model, registered by onnxcraft.proto.serde when it loads: the IR
# itself knows nothing of protobuf (DESIGN: only proto/ and io touch it).
_encoder: Callable[[Model], bytes] | None = None


def register_encoder(encode: Callable[[Model], bytes]) -> None:
    """Set the function that ``Model.SerializeToString`` calls (the protobuf layer's)."""
    global _encoder
    _encoder = encode


# The text form of models, graphs, functions and nodes (what str() shows), registered by
# onnxcraft.text.printer, which sits above the IR.
_printer: Callable[[Any], str] | None = None


def register_printer(print_text: Callable[[Any], str]) -> None:
    """Set the function that ``str()`` of a Model, Graph, Function or Node calls."""
    global _printer
    _printer = print_text


def _text(value: Any) -> str:
    """The text form when a printer is registered, else the dataclass's own repr."""
    return repr(value) if _printer is None else _printer(value)


# The picture of a model for notebooks (ModelProto's and Model's ``_repr_svg_`` /
# ``_repr_html_``): (model, "svg" or "html") -> text, or None when it cannot be drawn. The
# package root registers a function that loads onnxcraft.draw on first use.
_picture: Callable[[Any, str], str | None] | None = None


def register_picture(draw: Callable[[Any, str], str | None]) -> None:
    """Set the function that draws models for notebooks."""
    global _picture
    _picture = draw


def picture_of(model: Any, kind: str) -> str | None:
    """``model`` drawn as ``kind`` ("svg" or "html"), None when no drawing function is set."""
    return None if _picture is None else _picture(model, kind)


_NO_METADATA: Mapping[str, str] = MappingProxyType({})


class _StorageVerdict:
    """The ``malformed`` attribute of tensors and attributes read from a file: what is wrong
    with how the file stored the value, or "". A reader may leave the verdict to a judge
    (``judge_storage``) that runs when it is first asked: most readers (inference) never ask.
    Setting it replaces any pending judge. The owner keeps ``_malformed`` and ``_judge``."""

    @overload
    def __get__(self, owner: None, cls: type) -> _StorageVerdict: ...
    @overload
    def __get__(self, owner: object, cls: type | None = None) -> str: ...

    def __get__(self, owner: Any, cls: type | None = None) -> Any:
        if owner is None:
            return self
        judge = owner._judge
        if judge is not None:
            owner._judge = None
            owner._malformed = judge()
        return owner._malformed

    def __set__(self, owner: Any, problem: str) -> None:
        owner._judge = None
        owner._malformed = problem


def _judge_storage(owner: TensorData | Attribute, judge: Callable[[], str]) -> None:
    """Leave the verdict on the file's storage to ``judge``, run on first use of
    ``malformed`` (the reader knows the message; a large model's tensors need not all be
    judged to be inferred or evaluated)."""
    owner._judge = judge


class TensorData:
    """A named tensor whose numpy value is produced on first use."""

    __slots__ = (
        "_array",
        "_judge",
        "_load",
        "_malformed",
        "dims",
        "doc_string",
        "elem_type",
        "metadata",
        "name",
        "source",
    )

    def __init__(
        self,
        name: str,
        elem_type: ElementType,
        dims: tuple[int, ...],
        *,
        array: np.ndarray | None = None,
        load: Callable[[], np.ndarray] | None = None,
        source: Any = None,
        doc_string: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.elem_type = elem_type
        self.dims = dims
        self._array = array
        self._load = load
        self.source = source  # the message it was read from, for lossless re-serialization
        self.doc_string = doc_string
        self.metadata: Mapping[str, str] = metadata or _NO_METADATA  # TensorProto.metadata_props
        self._malformed = ""
        self._judge: Callable[[], str] | None = None

    # What is wrong with how the file stored the data (size against dims, field), or "".
    malformed = _StorageVerdict()

    judge_storage = _judge_storage

    @classmethod
    def from_array(cls, name: str, array: np.ndarray, elem_type: ElementType) -> TensorData:
        return cls(name, elem_type, tuple(map(int, array.shape)), array=array)

    def array(self) -> np.ndarray:
        if self._array is None:
            if self._load is None:
                raise ValueError(f"tensor {self.name!r} has no data")
            self._array = self._load()
        return self._array

    @property
    def is_loaded(self) -> bool:
        return self._array is not None


@dataclass
class SparseData:
    values: TensorData
    indices: TensorData
    dims: tuple[int, ...]


# The attribute types of ONNX (AttributeProto.AttributeType's names): what Attribute.type holds.
ATTRIBUTE_TYPES = (
    "FLOAT",
    "INT",
    "STRING",
    "TENSOR",
    "GRAPH",
    "SPARSE_TENSOR",
    "TYPE_PROTO",
    "FLOATS",
    "INTS",
    "STRINGS",
    "TENSORS",
    "GRAPHS",
    "SPARSE_TENSORS",
    "TYPE_PROTOS",
)


@dataclass
class Attribute:
    """One node attribute. ``ref`` names a function attribute this one refers to."""

    name: str
    type: str  # one of ATTRIBUTE_TYPES
    value: Any = None
    ref: str = ""
    doc_string: str = ""
    _malformed: str = field(default="", repr=False, compare=False)
    _judge: Callable[[], str] | None = field(default=None, repr=False, compare=False)

    # What is wrong with how the file stored it (a value outside its type's field), "" if
    # nothing; judged on first use (see TensorData.judge_storage).
    malformed = _StorageVerdict()
    judge_storage = _judge_storage


@dataclass
class ValueInfo:
    name: str
    type: ValueType | None = None
    doc_string: str = ""
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass
class Node:
    op_type: str
    inputs: list[str]
    outputs: list[str]
    domain: str = ""
    name: str = ""
    attributes: list[Attribute] = field(default_factory=list)
    doc_string: str = ""
    overload: str = ""
    metadata: dict[str, str] = field(default_factory=dict)

    def attribute(self, name: str) -> Attribute | None:
        for attr in self.attributes:
            if attr.name == name:
                return attr
        return None

    __str__ = _text


@dataclass
class Graph:
    name: str = ""
    nodes: list[Node] = field(default_factory=list)
    inputs: list[ValueInfo] = field(default_factory=list)
    outputs: list[ValueInfo] = field(default_factory=list)
    initializers: list[TensorData] = field(default_factory=list)
    sparse_initializers: list[SparseData] = field(default_factory=list)
    value_info: list[ValueInfo] = field(default_factory=list)
    doc_string: str = ""
    metadata: dict[str, str] = field(default_factory=dict)

    __str__ = _text


@dataclass
class Function:
    domain: str
    name: str
    inputs: list[str]
    outputs: list[str]
    nodes: list[Node] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)  # attribute names without defaults
    attribute_defaults: list[Attribute] = field(default_factory=list)
    opset_imports: dict[str, int] = field(default_factory=dict)
    value_info: list[ValueInfo] = field(default_factory=list)
    overload: str = ""
    doc_string: str = ""
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.domain, self.name, self.overload)

    __str__ = _text


@dataclass
class Model:
    graph: Graph
    opset_imports: dict[str, int] = field(default_factory=dict)
    ir_version: int = 0
    producer_name: str = ""
    producer_version: str = ""
    domain: str = ""
    model_version: int = 0
    doc_string: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    functions: list[Function] = field(default_factory=list)

    def SerializeToString(self) -> bytes:
        """The model's protobuf encoding, so that any API taking a ModelProto-like object
        (anything with ``SerializeToString()``) takes this model too."""
        if _encoder is None:
            raise OnnxcraftError(
                "SerializeToString: no protobuf encoder is registered; import onnxcraft (or "
                "onnxcraft.proto.serde) first"
            )
        return _encoder(self)

    def __str__(self) -> str:
        """The model in the ONNX text syntax, large tensors elided (``oc.to_text``)."""
        return _text(self)

    def __repr__(self) -> str:
        """A one-line summary (the text form, which can be long, is ``str()``)."""
        graph = self.graph
        opsets = ", ".join(f"{d or 'ai.onnx'} {v}" for d, v in self.opset_imports.items())
        return (
            f"<onnxcraft.ir.Model {graph.name!r}: {len(graph.inputs)} inputs, "
            f"{len(graph.outputs)} outputs, {len(graph.nodes)} nodes, "
            f"{len(graph.initializers)} initializers, {len(self.functions)} functions; "
            f"opsets {opsets or 'none'}>"
        )

    def _repr_svg_(self) -> str | None:
        return picture_of(self, "svg")

    def _repr_html_(self) -> str | None:
        return picture_of(self, "html")


def copy_structure(model: Model) -> Model:
    """A copy of ``model`` whose graphs, nodes and value infos can be changed independently;
    tensors (immutable here) are shared, so nothing large is copied."""
    return replace(
        model,
        graph=_copy_graph(model.graph),
        opset_imports=dict(model.opset_imports),
        metadata=dict(model.metadata),
        functions=[
            replace(
                f,
                nodes=[_copy_node(n) for n in f.nodes],
                value_info=[replace(v) for v in f.value_info],
                attribute_defaults=[_copy_attribute(a) for a in f.attribute_defaults],
            )
            for f in model.functions
        ],
    )


def _copy_graph(graph: Graph) -> Graph:
    return replace(
        graph,
        nodes=[_copy_node(n) for n in graph.nodes],
        inputs=[replace(v) for v in graph.inputs],
        outputs=[replace(v) for v in graph.outputs],
        value_info=[replace(v) for v in graph.value_info],
        initializers=list(graph.initializers),
        sparse_initializers=list(graph.sparse_initializers),
    )


def _copy_node(node: Node) -> Node:
    return replace(
        node,
        inputs=list(node.inputs),
        outputs=list(node.outputs),
        attributes=[_copy_attribute(a) for a in node.attributes],
    )


def _copy_attribute(attr: Attribute) -> Attribute:
    value = attr.value
    if isinstance(value, Graph):
        value = _copy_graph(value)
    elif isinstance(value, list):
        value = [_copy_graph(v) if isinstance(v, Graph) else v for v in value]
    return replace(attr, value=value)
