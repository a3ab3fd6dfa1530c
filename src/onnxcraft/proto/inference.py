"""What ``oc.infer_shapes`` reads of a ModelProto, and how it writes the inferred types back.

Inference reads a model only to type its values: of a node its operator, inputs, outputs,
name and attributes; of an initializer its name, element type and dims (its value only when
small, decoded on first use). :func:`read_for_inference` reads just that into the IR (the
main graph's initializers as plain entries beside it: a model has hundreds), where
:func:`onnxcraft.proto.serde.model_from_proto` reads everything for every other caller (doc
strings, metadata, the storage judgments ``oc.check`` asks for); it was half of inferring a
model with its weights stored elsewhere. List attributes are read as tuples, as the DSL gives
them to rules, so that inference can compare them without converting them first.

:func:`write_inferred_types` writes the types back into the message the model was read from:
graph inputs and outputs retyped, value_info replaced. A graph's value_info (one entry per
value) is encoded here, straight from each name and the cached encoding of its type, and
parsed in one call, rather than built message by message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import copysign, prod
from operator import attrgetter, is_
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType
from onnxcraft.proto.encoded_graph import encoded_graph
from onnxcraft.proto.onnx_pb2 import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    TensorProto,
    TypeProto,
    ValueInfoProto,
)
from onnxcraft.proto.serde import (
    _ATTR_NAMES,
    _ELEMENTS,
    _decode,
    _guess_attribute_type,
    _load_tensor,
    _Reader,
    _value_info_to_proto,
    type_from_proto,
    type_to_proto,
)
from onnxcraft.proto.type_bytes import DIM_ENTRIES, tensor_type_from_bytes
from onnxcraft.types import Tensor, ValueType, shared_tensor

__all__ = [
    "InferenceInput",
    "Initializer",
    "TypedInitializers",
    "read_for_inference",
    "read_with_bodies",
    "write_inferred_types",
]

_UNDEFINED = ElementType.UNDEFINED
_NO_METADATA: Mapping[str, str] = MappingProxyType({})

# An initializer as inference sees it: name, element type, dims, and its data when it is small
# (None otherwise: inference never reads a large tensor's value).
Initializer = tuple[str, ElementType, tuple[int, ...], ir.TensorData | None]


# The main graph's initializers typed by the reader: the type of each by name (in order), the
# small ones' tensors by name, and how many distinct types they have (one object each).
TypedInitializers = tuple[dict[str, ValueType], dict[str, ir.TensorData], int]


class InferenceInput(NamedTuple):
    """A model read for inference: the IR (its main graph without initializers) and the main
    graph's initializers, typed (``typed``) when their names are distinct and their element
    types and dims valid, else as entries (``initializers``, empty when ``typed`` is given)."""

    model: ir.Model
    initializers: list[Initializer]
    typed: TypedInitializers | None


# The attribute kinds read as plain values (and shared between nodes), by their field value.
_PLAIN_KINDS = {
    getattr(AttributeProto, kind): kind
    for kind in ("INT", "INTS", "FLOAT", "FLOATS", "STRING", "STRINGS")
}
_PLAIN_FIELD_KINDS = frozenset(_PLAIN_KINDS)
_FLOAT_KINDS = ("FLOAT", "FLOATS")
# What inference reads of a node, fetched in one call per node.
_NODE_FIELDS = attrgetter("op_type", "input", "output", "domain", "name", "attribute")
# ... of a value_info entry of the graph view (its type's bytes).
_VALUE_FIELDS = attrgetter("name", "type", "doc_string", "metadata_props")


def _signed_zeros(value: Any) -> Any:
    """A float attribute's value with each zero told apart from its negative (equal as
    floats, so equal as keys, yet not the same value)."""
    if type(value) is float:
        return (value, copysign(1.0, value)) if value == 0.0 else value
    if type(value) is tuple and 0.0 in value:
        return tuple(_signed_zeros(v) for v in value)
    return value


class _ReadTensor(ir.TensorData):
    """A tensor read for inference: its data decoded from its message on first use.

    Every slot is set here, without the keyword parsing and the loader object of
    ``TensorData``'s own constructor: a chain of 10k steps reads 10k small constants.
    """

    __slots__ = ()

    def __init__(
        self,
        proto: TensorProto,
        read: tuple[str, ElementType, tuple[int, ...]] | None = None,
    ) -> None:
        if read is None:
            self.name = proto.name
            self.elem_type = _ELEMENTS.get(proto.data_type, _UNDEFINED)
            self.dims = tuple(proto.dims[:])  # one call (tuple() of the field walks it in Python)
        else:  # (name, element type and dims read already)
            self.name, self.elem_type, self.dims = read
        self.source = proto
        self.doc_string = ""
        self.metadata = _NO_METADATA
        self._array = None
        self._load = None
        self._malformed = ""
        self._judge = None

    def array(self) -> np.ndarray:
        if self._array is None:
            found = _int64_array(self.source, self.elem_type, self.dims)
            self._array = _load_tensor(self.source, None) if found is None else found
        return self._array


_INT64 = ElementType.INT64
_LITTLE_INT64 = np.dtype("<i8")


def _int64_array(proto: TensorProto, elem: ElementType, dims: tuple[int, ...]) -> np.ndarray | None:
    """The value of an int64 tensor stored as raw bytes of the right length, as ``to_array``
    gives it (a native, writeable copy), without its general checks: the shapes and axes
    rules read (ShuffleNet's Reshapes) are such. None in any other case (``to_array``
    decodes it, or says what is wrong)."""
    if elem is not _INT64 or min(dims, default=0) < 0:
        return None
    raw = proto.raw_data
    if len(raw) != prod(dims) * 8 or not raw:
        return None
    if proto.data_location == TensorProto.EXTERNAL or proto.HasField("segment"):
        return None
    return np.frombuffer(raw, _LITTLE_INT64).astype(np.int64).reshape(dims)


_new = object.__new__


def _node(
    op_type: str,
    inputs: list[str],
    outputs: list[str],
    domain: str,
    name: str,
    attributes: list[ir.Attribute],
) -> ir.Node:
    """``ir.Node(op_type, inputs, outputs, domain, name, attributes)``, its fields set one by
    one in their declared order (0.25 µs against the dataclass's ``__init__``'s 0.38: a model
    has a node of these per node; tests/proto/test_encoded_graph.py checks every field)."""
    node = _new(ir.Node)
    node.op_type = op_type
    node.inputs = inputs
    node.outputs = outputs
    node.domain = domain
    node.name = name
    node.attributes = attributes
    node.doc_string = ""
    node.overload = ""
    node.metadata = {}
    return node


class _InferenceReader(_Reader):
    """The reader of :mod:`onnxcraft.proto.serde`, keeping only what inference reads."""

    def __init__(self) -> None:
        super().__init__(None)
        self._shared_attributes: dict[tuple[Any, ...], list[ir.Attribute]] = {}
        # The same lists by their attributes' encodings: alike nodes mostly encode their
        # attributes alike, and comparing bytes costs less than reading each field.
        self._encoded_attributes: dict[tuple[bytes, ...], list[ir.Attribute]] = {}
        self._types: dict[bytes, ValueType | None] = {}  # value types by their encoding
        # Whether some node read has an attribute list other than a shared plain one (only
        # such a list can hold a graph, whose types the writer writes back too).
        self.unshared = False

    def tensor(self, proto: TensorProto) -> ir.TensorData:
        return _ReadTensor(proto)

    def value_info(self, proto: ValueInfoProto) -> ir.ValueInfo:
        """A value's name and type, each distinct type read once (by its encoding): a model
        that was inferred before has a value_info entry for every value, sharing a few
        types, and reading a TypeProto's fields costs ten times encoding it."""
        if proto.doc_string or proto.metadata_props or not proto.HasField("type"):
            return super().value_info(proto)
        return ir.ValueInfo(proto.name, self._type_of(proto.type.SerializeToString()))

    def encoded_value_infos(self, entries: Any, protos: Any) -> list[ir.ValueInfo]:
        """A graph's value_info from the entries of the view of
        :mod:`onnxcraft.proto.encoded_graph` (each type still its bytes), as
        :meth:`value_info` reads them; an entry with a doc string or metadata from its
        message, ``protos[i]``."""
        infos = []
        for i, (name, encoded, doc, metadata) in enumerate(map(_VALUE_FIELDS, entries)):
            if doc or metadata:
                infos.append(super().value_info(protos[i]))
            else:  # (no type, or an empty one, encodes as b"": read as None either way)
                infos.append(ir.ValueInfo(name, self._type_of(encoded)))
        return infos

    def _type_of(self, encoded: bytes) -> ValueType | None:
        """The value type a TypeProto's encoding holds, each distinct one read once."""
        try:
            return self._types[encoded]
        except KeyError:  # (a type read as None is an answer too)
            found: ValueType | None = tensor_type_from_bytes(encoded)  # (the common form)
            if found is None:
                found = type_from_proto(TypeProto.FromString(encoded))
            self._types[encoded] = found
            return found

    def attribute(self, proto: AttributeProto) -> ir.Attribute:
        kind = _ATTR_NAMES.get(proto.type)
        if kind is None:
            kind = _guess_attribute_type(proto)
        ref = proto.ref_attr_name
        if ref:
            return ir.Attribute(proto.name, kind, None, ref)
        value: Any = None
        if kind == "INT":
            value = proto.i
        elif kind == "INTS":
            value = tuple(proto.ints[:])
        elif kind == "FLOAT":
            value = proto.f
        elif kind == "FLOATS":
            value = tuple(proto.floats[:])
        elif kind == "STRING":
            value = _decode(proto.s)
        elif kind == "STRINGS":
            value = tuple(_decode(v) for v in proto.strings)
        elif kind == "TENSOR":
            value = self.tensor(proto.t)
        elif kind == "GRAPH":
            value = self.graph(proto.g)
        elif kind == "SPARSE_TENSOR":
            value = self.sparse(proto.sparse_tensor)
        elif kind == "TYPE_PROTO":
            value = type_from_proto(proto.tp)
        elif kind == "TENSORS":
            value = [self.tensor(t) for t in proto.tensors]
        elif kind == "GRAPHS":
            value = [self.graph(g) for g in proto.graphs]
        elif kind == "SPARSE_TENSORS":
            value = [self.sparse(s) for s in proto.sparse_tensors]
        elif kind == "TYPE_PROTOS":
            value = [type_from_proto(t) for t in proto.type_protos]
        return ir.Attribute(proto.name, kind, value)

    def node(self, proto: NodeProto) -> ir.Node:
        attributes, domain = proto.attribute, proto.domain
        return ir.Node(
            proto.op_type,
            proto.input[:],
            proto.output[:],
            "" if domain == "ai.onnx" else domain,
            proto.name,
            self.attributes(attributes) if attributes else [],
        )

    def nodes(self, protos: Any) -> list[ir.Node]:
        """A graph's nodes, as :meth:`node` reads each (its fields fetched in one call)."""
        return self._nodes(protos, self.attributes)

    def encoded_nodes(self, protos: Sequence[Any]) -> list[ir.Node]:
        """A graph's nodes as :meth:`nodes` reads them, from the view of
        :mod:`onnxcraft.proto.encoded_graph` (each attribute still its bytes): a list seen
        before is one look-up, inline (this runs for every node)."""
        nodes: list[ir.Node] = []
        append = nodes.append
        seen = self._encoded_attributes
        node_class = ir.Node
        for op_type, inputs, outputs, domain, name, attrs in map(_NODE_FIELDS, protos):
            if attrs:
                encoded = tuple(attrs[:])  # (one C call; tuple() of the field walks it in Python)
                attributes = seen.get(encoded)
                if attributes is None:
                    attributes = self._decoded_attributes(encoded)
            else:
                attributes = []
            # _node, inline (a call a node less)
            node = _new(node_class)
            node.op_type = op_type
            node.inputs = inputs[:]
            node.outputs = outputs[:]
            node.domain = "" if domain == "ai.onnx" else domain
            node.name = name
            node.attributes = attributes
            node.doc_string = ""
            node.overload = ""
            node.metadata = {}
            append(node)
        return nodes

    def _nodes(self, protos: Any, attributes_of: Any) -> list[ir.Node]:
        return [
            _node(
                op_type,
                inputs[:],
                outputs[:],
                "" if domain == "ai.onnx" else domain,
                name,
                attributes_of(attrs) if attrs else [],
            )
            for op_type, inputs, outputs, domain, name, attrs in map(_NODE_FIELDS, protos)
        ]

    def _decoded_attributes(self, encoded: tuple[bytes, ...]) -> list[ir.Attribute]:
        """The attributes of these encodings, shared as :meth:`attributes` shares them."""
        protos = [AttributeProto.FromString(e) for e in encoded]
        for proto in protos:
            if proto.type not in _PLAIN_FIELD_KINDS:
                self.unshared = True
                return [self.attribute(a) for a in protos]
        return self._shared_list(encoded, protos)

    def attributes(self, protos: Any) -> list[ir.Attribute]:
        """A node's attributes. Nodes of a model share a few lists of plain attributes (a
        CNN's convolutions, a few kernel sizes and paddings): each distinct list is made once
        and shared (inference never changes them), and the walk keys its memory by it."""
        encodings = []
        for proto in protos:
            if proto.type not in _PLAIN_FIELD_KINDS:  # (a graph is costly to encode)
                self.unshared = True
                return [self.attribute(a) for a in protos]
            encodings.append(proto.SerializeToString())
        return self._shared_list(tuple(encodings), protos)

    def _shared_list(self, encoded: tuple[bytes, ...], protos: Any) -> list[ir.Attribute]:
        """The shared list of plain attributes ``protos``, encoded as ``encoded``."""
        found = self._encoded_attributes.get(encoded)
        if found is None:
            found = self._plain_attributes(protos)
            if found is not None:  # (a reference to a function's attribute is not shared)
                self._encoded_attributes[encoded] = found
            else:
                self.unshared = True
                found = [self.attribute(a) for a in protos]
        return found

    def _plain_attributes(self, protos: Any) -> list[ir.Attribute] | None:
        """The shared list of these attributes, equal by value (None: one refers to a
        function's attribute)."""
        plain = []
        for proto in protos:
            kind = _PLAIN_KINDS.get(proto.type)
            if kind is None or proto.ref_attr_name:
                return None
            if kind == "INTS":
                value: Any = tuple(proto.ints[:])
            elif kind == "INT":
                value = proto.i
            elif kind == "FLOAT":
                value = proto.f
            elif kind == "FLOATS":
                value = tuple(proto.floats[:])
            elif kind == "STRING":
                value = _decode(proto.s)
            else:
                value = tuple(_decode(v) for v in proto.strings)
            plain.append((proto.name, kind, value))
        key = tuple(
            [(n, k, _signed_zeros(v)) if k in _FLOAT_KINDS else (n, k, v) for n, k, v in plain]
        )
        found = self._shared_attributes.get(key)
        if found is None:
            found = self._shared_attributes[key] = [ir.Attribute(n, k, v) for n, k, v in plain]
        return found

    def main_graph(self, proto: GraphProto, view: Any = None) -> ir.Graph:
        """A graph without its initializers (see :meth:`initializers`); its nodes and
        value_info from ``view`` when given (see :mod:`onnxcraft.proto.encoded_graph`)."""
        if view is None:
            nodes = self.nodes(proto.node)
            value_info = [self.value_info(v) for v in proto.value_info]
        else:
            nodes = self.encoded_nodes(view.node)
            value_info = self.encoded_value_infos(view.value_info, proto.value_info)
        return ir.Graph(
            name=proto.name,
            nodes=nodes,
            inputs=[self.value_info(v) for v in proto.input],
            outputs=[self.value_info(v) for v in proto.output],
            sparse_initializers=[self.sparse(s) for s in proto.sparse_initializer],
            value_info=value_info,
        )

    def initializers(self, proto: GraphProto, values_up_to: int) -> list[Initializer]:
        entries: list[Initializer] = []
        elements = _ELEMENTS
        for tensor in proto.initializer:
            dims = tuple(tensor.dims[:])
            if prod(dims) <= values_up_to:
                data = _ReadTensor(tensor)
                entries.append((data.name, data.elem_type, data.dims, data))
            else:
                entries.append(
                    (tensor.name, elements.get(tensor.data_type, _UNDEFINED), dims, None)
                )
        return entries

    def typed_initializers(self, proto: GraphProto, values_up_to: int) -> TypedInitializers | None:
        """The initializers' types by name, the small ones' tensors and the number of
        distinct types, in one pass (one Tensor per distinct element type and dims, as a
        model's weights share a few). None
        when a name repeats or an element type or dims are invalid: :meth:`initializers`
        then gives them as entries, for the walk to judge in order."""
        typed: dict[str, ValueType] = {}
        small: dict[str, ir.TensorData] = {}
        # (element type, dims) -> the type, and the element type when the tensor is small
        made: dict[tuple[int, tuple[int, ...]], tuple[ValueType, ElementType | None]] = {}
        initializers = proto.initializer
        for tensor in initializers:
            name = tensor.name
            key = (tensor.data_type, tuple(tensor.dims[:]))
            found = made.get(key)
            if found is None:
                data_type, dims = key
                elem = _ELEMENTS.get(data_type, _UNDEFINED)
                if elem is _UNDEFINED or min(dims, default=0) < 0:
                    return None
                found = made[key] = (
                    shared_tensor(elem, dims),
                    elem if prod(dims) <= values_up_to else None,
                )
            typed[name] = found[0]
            small_elem = found[1]
            if small_elem is not None:
                # _ReadTensor(tensor, (name, small_elem, dims)), its slots set inline (a
                # CNN's biases are small: a call and a tuple fewer each)
                data = _new(_ReadTensor)
                data.name = name
                data.elem_type = small_elem
                data.dims = key[1]
                data.source = tensor
                data.doc_string = ""
                data.metadata = _NO_METADATA
                data._array = None
                data._load = None
                data._malformed = ""
                data._judge = None
                small[name] = data
        return (typed, small, len(made)) if len(typed) == len(initializers) else None


def read_for_inference(
    proto: ModelProto, *, values_up_to: int, data: bytes | None = None
) -> InferenceInput:
    """``proto`` as inference needs it (see the module's docstring), to be inferred and
    written back with :func:`write_inferred_types`, not to be saved. Initializers of at most
    ``values_up_to`` elements keep their data (decoded on first use). ``data``: the bytes
    ``proto`` was parsed from, if at hand (the main graph's attributes and value types are
    read from them, :mod:`onnxcraft.proto.encoded_graph`)."""
    return read_with_bodies(proto, values_up_to=values_up_to, data=data)[0]


def read_with_bodies(
    proto: ModelProto, *, values_up_to: int, data: bytes | None = None
) -> tuple[InferenceInput, bool]:
    """:func:`read_for_inference`'s answer, and whether a main-graph node may hold a graph
    (False: every node's attributes are none or a shared list of plain ones, and
    :func:`write_inferred_types` is told ``bodies=False``)."""
    reader = _InferenceReader()
    graph = proto.graph
    view = None if data is None else encoded_graph(data, len(graph.node))
    model = ir.Model(
        graph=reader.main_graph(graph, view),
        opset_imports={
            "" if o.domain == "ai.onnx" else o.domain: int(o.version) for o in proto.opset_import
        },
        ir_version=int(proto.ir_version),
        functions=[reader.function(f) for f in proto.functions],
    )
    typed = reader.typed_initializers(graph, values_up_to)
    bodies = reader.unshared  # (any other list is a shared one of plain attributes)
    if typed is not None:
        return InferenceInput(model, [], typed), bodies
    return InferenceInput(model, reader.initializers(graph, values_up_to), None), bodies


# -- writing the types back -----------------------------------------------------------------------

_VALUE_INFO_FIELD = b"\x6a"  # GraphProto.value_info: field 13, length-delimited
_NAME_FIELD = b"\x0a"  # ValueInfoProto.name: field 1
_TYPE_FIELD = b"\x12"  # ValueInfoProto.type: field 2
_SHORT_LENGTHS = [bytes((n,)) for n in range(128)]  # a varint below 128 is its one byte


def _length(n: int) -> bytes:
    if n < 128:
        return _SHORT_LENGTHS[n]
    out = bytearray()
    while n >= 128:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _type_encoding(value: ValueType) -> bytes:
    """A value type's TypeProto, encoded: a tensor's by :func:`_tensor_type_encoding`, any
    other through the message. Nothing is kept between calls (a model's values share a few
    types: the writer encodes each distinct one once per call, by identity)."""
    if type(value) is Tensor:
        found = _tensor_type_encoding(value)
        if found is not None:
            return found
    message = TypeProto()
    type_to_proto(value, message)
    return message.SerializeToString()


_TENSOR_TYPE_FIELD = b"\x0a"  # TypeProto.tensor_type: field 1, length-delimited
_ELEM_TYPE_FIELD = b"\x08"  # TypeProto.Tensor.elem_type: field 1, varint
_SHAPE_FIELD = b"\x12"  # TypeProto.Tensor.shape: field 2, length-delimited
_DIM_FIELD = b"\x0a"  # TensorShapeProto.dim: field 1, length-delimited
_DIM_VALUE_FIELD = b"\x08"  # Dimension.dim_value: field 1, varint
_DIM_PARAM_FIELD = b"\x12"  # Dimension.dim_param: field 2, length-delimited
_UNKNOWN_DIM = _DIM_FIELD + b"\x00"  # a Dimension with neither field set


def _dim_entry(dim: int) -> bytes:
    """A TensorShapeProto.dim entry of a dim by value, encoded."""
    encoded = _DIM_VALUE_FIELD + _length(dim)
    return _DIM_FIELD + _length(len(encoded)) + encoded


# The dim entries of the dims below 4096, made once (a fact of the encoding, like the lengths
# above; proto/type_bytes.py reads them back with the same table): most dims of most models,
# each then one look-up. Their bytes written out (the dim entry's tag and length, dim_value's
# tag, the dim's varint of one or two bytes): 1 ms at import, against 4.7 ms through
# _dim_entry (timed on the loaded machine).
_DIM_ENTRIES = DIM_ENTRIES


# elem_type's field of each element type (a fact of the encoding too).
_ELEM_TYPE_FIELDS = {elem: _ELEM_TYPE_FIELD + _length(int(elem)) for elem in ElementType}


def _tensor_type_encoding(value: Tensor) -> bytes | None:
    """The TypeProto :func:`type_to_proto` writes for a tensor type, encoded as protobuf
    encodes it (fields in number order, elem_type always set, a dim by value, by name or
    neither), straight from its parts: a tenth of building the message (9 µs a type, which a
    model inferred anew pays for each of its distinct types). None for a dim that is neither
    a non-negative int, an ASCII str nor None (the message then does what it does with it)."""
    elem = value.elem_type
    body = _ELEM_TYPE_FIELDS.get(elem) if elem else None
    if body is None:
        body = _ELEM_TYPE_FIELD + _length(int(elem or 0))
    shape = value.shape
    if shape is not None:
        parts = []
        entries = _DIM_ENTRIES
        for dim in shape:
            if type(dim) is int:
                entry = entries.get(dim)
                if entry is None:
                    if dim < 0:
                        return None
                    entry = _dim_entry(dim)
            elif type(dim) is str and dim.isascii():  # (others: the message's encoding)
                name = dim.encode()
                encoded = _DIM_PARAM_FIELD + _length(len(name)) + name
                entry = _DIM_FIELD + _length(len(encoded)) + encoded
            elif dim is None:
                entry = _UNKNOWN_DIM
            else:
                return None
            parts.append(entry)
        dims = b"".join(parts)
        size = len(dims)
        body += _SHAPE_FIELD + (_SHORT_LENGTHS[size] if size < 128 else _length(size)) + dims
    size = len(body)
    return _TENSOR_TYPE_FIELD + (_SHORT_LENGTHS[size] if size < 128 else _length(size)) + body


def _value_info_encoding(info: ir.ValueInfo) -> bytes:
    """One ValueInfoProto, encoded (``str.encode`` refuses a name protobuf could not write)."""
    if info.doc_string or info.metadata or type(info.name) is not str:
        # rare (a name read as bytes is not UTF-8): the message does it, refusing what it must
        message = ValueInfoProto()
        _value_info_to_proto(info, message)
        body = message.SerializeToString()
    else:
        name = info.name.encode("utf-8")  # written even when empty, as protobuf does
        body = _NAME_FIELD + _length(len(name)) + name
        if info.type is not None:
            encoded = _type_encoding(info.type)
            body += _TYPE_FIELD + _length(len(encoded)) + encoded
    return _VALUE_INFO_FIELD + _length(len(body)) + body


def _value_infos_encoding(
    infos: list[ir.ValueInfo], added: Sequence[tuple[str, ValueType]]
) -> bytes:
    """GraphProto.value_info entries, encoded: those of ``infos``, then one per (name, type)
    of ``added``. A model's values share a few types, each encoded once here (by the type
    object: the values of one graph are alive meanwhile). The entries of ``infos`` are
    appended to one bytearray, those of ``added`` listed as their parts and joined (an
    entry's head made once per length: 0.8x the time of appending each part, for
    SqueezeNet's 65 entries)."""
    out = bytearray()
    type_fields: dict[int, bytes] = {}
    for info in infos:
        if info.doc_string or info.metadata or type(info.name) is not str:
            out += _value_info_encoding(info)
        else:
            _add_entry(out, info.name, info.type, type_fields)
    parts: list[bytes] = []
    extend = parts.extend
    heads, lengths = _ENTRY_HEADS, _SHORT_LENGTHS
    for name, value in added:
        if type(name) is not str:  # a name read as bytes (not UTF-8): the message refuses it
            parts.append(_value_info_encoding(ir.ValueInfo(name, value)))
            continue
        # _add_entry, inline: this runs for every value of the graph.
        field = type_fields.get(id(value))
        if field is None:
            field = type_fields[id(value)] = _type_field(value)
        encoded_name = name.encode("utf-8")
        size = len(encoded_name)
        body = 2 + size + len(field)  # the name's tag and length, the name, the type field
        if body < 128:  # (both lengths one byte, as nearly always)
            extend((heads[body], lengths[size], encoded_name, field))
        else:
            entry = bytearray()
            _add_encoded_entry(entry, encoded_name, field)
            parts.append(bytes(entry))
    if not out:  # (no entries kept: the parts' bytes are the answer, copied once)
        return b"".join(parts)
    out += b"".join(parts)
    return bytes(out)


# A value_info entry's head for a body below 128 bytes, by its length: the entry's tag, its
# length, the name's tag (the name's length and the name follow).
_ENTRY_HEADS = [_VALUE_INFO_FIELD + bytes((n,)) + _NAME_FIELD for n in range(128)]


def _type_field(value: ValueType | None) -> bytes:
    """A ValueInfoProto's type field, encoded (nothing for no type)."""
    if value is None:
        return b""
    encoded = _type_encoding(value)
    return _TYPE_FIELD + _length(len(encoded)) + encoded


def _add_entry(
    out: bytearray, name: str, value: ValueType | None, type_fields: dict[int, bytes]
) -> None:
    """One ValueInfoProto of a name and a type, encoded as a GraphProto.value_info entry."""
    field = type_fields.get(id(value))
    if field is None:
        field = type_fields[id(value)] = _type_field(value)
    _add_encoded_entry(out, name.encode("utf-8"), field)


def _add_encoded_entry(out: bytearray, encoded_name: bytes, field: bytes) -> None:
    """A value_info entry of an encoded name and an encoded type field, any lengths."""
    name_length = _length(len(encoded_name))
    body = 1 + len(name_length) + len(encoded_name) + len(field)
    out += _VALUE_INFO_FIELD
    out += _length(body)
    out += _NAME_FIELD
    out += name_length
    out += encoded_name
    out += field


def write_inferred_types(
    proto: ModelProto,
    model: ir.Model,
    added: Sequence[tuple[str, ValueType]] = (),
    *,
    bodies: bool = True,
    read_types: Sequence[ValueType | None] | None = None,
) -> None:
    """Write the types recorded in ``model`` into ``proto``, which it was read from by
    :func:`read_for_inference` and which still lines up with it node for node. ``added``
    holds the main graph's values to add to its value_info, as (name, type). ``bodies=False``
    (the reader's ``InferenceInput.bodies``): no main-graph node holds a graph, so none is
    looked at. ``read_types``: the main graph's value_info types as read, before inference;
    when every entry still holds the very object read, the entries are left as they are
    (a model inferred before: nothing to rewrite but the values added)."""
    _retype_graph(model.graph, proto.graph, added, bodies, read_types)


def _retype_graph(
    graph: ir.Graph,
    out: GraphProto,
    added: Sequence[tuple[str, ValueType]] = (),
    bodies: bool = True,
    read_types: Sequence[ValueType | None] | None = None,
) -> None:
    for info, proto in zip(graph.inputs, out.input):
        _retype(info, proto)
    for info, proto in zip(graph.outputs, out.output):
        _retype(info, proto)
    if _unchanged(graph.value_info, read_types):
        if added:  # (appended after the entries kept, as they would be written)
            out.MergeFromString(_value_infos_encoding([], added))
    else:
        del out.value_info[:]
        if graph.value_info or added:
            out.MergeFromString(_value_infos_encoding(graph.value_info, added))
    if not bodies:
        return
    nodes = out.node
    # Alike nodes share their attribute list (the reader's): whether a list holds a graph is
    # asked once per list (by id: the lists live as long as the graph), not at every node.
    holds_graph: dict[int, bool] = {}
    for index, node in enumerate(graph.nodes):
        attributes = node.attributes
        if attributes:
            holds = holds_graph.get(id(attributes))
            if holds is None:
                holds = holds_graph[id(attributes)] = any(
                    a.type in _GRAPH_KINDS and not a.ref for a in attributes
                )
            if holds:
                _retype_bodies(node, nodes[index])


def _unchanged(infos: list[ir.ValueInfo], read_types: Sequence[ValueType | None] | None) -> bool:
    """Whether each value_info entry holds the type object it was read with (so its message,
    as read, says the same; types are compared by identity, as the walk keeps what it read)."""
    return (
        read_types is not None
        and len(read_types) == len(infos)
        and all(map(is_, map(_INFO_TYPE, infos), read_types))
    )


_INFO_TYPE = attrgetter("type")
_GRAPH_KINDS = ("GRAPH", "GRAPHS")


def _retype_bodies(node: ir.Node, out: NodeProto) -> None:
    """The graphs a node holds in attributes (If branches, Loop and Scan bodies)."""
    for attr in node.attributes:
        if attr.ref or attr.type not in ("GRAPH", "GRAPHS"):
            continue
        proto = next(a for a in out.attribute if a.name == attr.name)
        if attr.type == "GRAPH":
            _retype_graph(attr.value, proto.g)
        else:
            for body, body_proto in zip(attr.value, proto.graphs):
                _retype_graph(body, body_proto)


def _retype(info: ir.ValueInfo, out: ValueInfoProto) -> None:
    out.ClearField("type")
    if info.type is not None:
        encoded = _type_encoding(info.type)
        if encoded:  # merging even nothing would mark the field as set
            out.type.MergeFromString(encoded)
