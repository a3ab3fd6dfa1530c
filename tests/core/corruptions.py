"""Ways to corrupt a valid model, each breaking one rule of the IR or an operator spec.

Every corruption takes a valid ``onnx.ModelProto`` and returns a corrupted copy, or None when
the model has nothing it could break that way (no attribute to retype, no second node). Most
corruptions add what they need (an initializer, an If node, a function) so that they apply to
every model. They are deterministic: the same model gives the same corrupted bytes.

``CORRUPTIONS`` maps each kind's name to its function; ``tests/core/check_vs_onnx.py`` and
``tests/core/test_check_vs_onnx.py`` apply them to the node-test models and compare
``oc.check`` with onnx's checker.
"""

from __future__ import annotations

from collections.abc import Callable

import onnx
from onnx import AttributeProto, TensorProto, helper

Corruption = Callable[[onnx.ModelProto], onnx.ModelProto | None]
CORRUPTIONS: dict[str, Corruption] = {}

A = AttributeProto

# The field each attribute type keeps its value in, and a value to put there.
_PAYLOAD_TYPES = (
    A.FLOAT,
    A.INT,
    A.STRING,
    A.TENSOR,
    A.GRAPH,
    A.SPARSE_TENSOR,
    A.TYPE_PROTO,
    A.FLOATS,
    A.INTS,
    A.STRINGS,
    A.TENSORS,
    A.GRAPHS,
    A.SPARSE_TENSORS,
    A.TYPE_PROTOS,
)


def corruption(name: str) -> Callable[[Corruption], Corruption]:
    def register(function: Corruption) -> Corruption:
        def copy_then(model: onnx.ModelProto) -> onnx.ModelProto | None:
            copy = onnx.ModelProto()
            copy.CopyFrom(model)
            return function(copy)

        CORRUPTIONS[name] = copy_then
        return copy_then

    return register


# -- helpers --------------------------------------------------------------------------------------


def _first_attribute(model: onnx.ModelProto, unless: int | None = None) -> AttributeProto | None:
    """The first attribute (not a reference) of a main-graph node, of a type other than
    ``unless``."""
    for node in model.graph.node:
        for attr in node.attribute:
            if not attr.ref_attr_name and attr.type != unless:
                return attr
    return None


def _default_opset(model: onnx.ModelProto) -> int:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    return 0


def _set_default_opset(model: onnx.ModelProto, version: int) -> onnx.ModelProto | None:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            entry.version = version
            return model
    return None


def _some_value(model: onnx.ModelProto) -> str | None:
    """A value defined in the main graph before any node: a graph input or initializer."""
    for info in model.graph.input:
        if info.name:
            return info.name
    for tensor in model.graph.initializer:
        return tensor.name
    return None


def _add_initializer(model: onnx.ModelProto, tensor: TensorProto) -> onnx.ModelProto:
    """Add ``tensor`` as an initializer (also as an input before IR 4, where it must be one)."""
    model.graph.initializer.append(tensor)
    if model.ir_version < 4:
        model.graph.input.append(
            helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims))
        )
    return model


def _float_tensor(name: str = "__c", count: int = 4) -> TensorProto:
    return helper.make_tensor(name, TensorProto.FLOAT, [count], [1.0] * count)


def _raw_float_tensor(name: str = "__c", count: int = 4) -> TensorProto:
    return helper.make_tensor(name, TensorProto.FLOAT, [count], b"\0\0\x80?" * count, raw=True)


def _if_node(then_outputs: int, node_outputs: int, uses: str) -> onnx.NodeProto:
    """If(__cond) whose branches each output ``then_outputs`` copies of ``uses``."""

    def branch(name: str) -> onnx.GraphProto:
        outs = [f"__{name}_{i}" for i in range(then_outputs)]
        return helper.make_graph(
            [helper.make_node("Identity", [uses], [o]) for o in outs],
            name,
            [],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
        )

    return helper.make_node(
        "If",
        ["__cond"],
        [f"__if_{i}" for i in range(node_outputs)],
        then_branch=branch("then"),
        else_branch=branch("else"),
    )


def _with_if(model: onnx.ModelProto, node: onnx.NodeProto) -> onnx.ModelProto | None:
    if _default_opset(model) < 1:
        return None
    _add_initializer(model, helper.make_tensor("__cond", TensorProto.BOOL, [], [True]))
    _add_initializer(model, _float_tensor())
    model.graph.node.append(node)
    return model


# -- attributes -----------------------------------------------------------------------------------


def _payload(attr_type: int) -> Corruption:
    """Declare the first attribute as ``attr_type`` while its value stays in its own field."""

    def corrupt(model: onnx.ModelProto) -> onnx.ModelProto | None:
        attr = _first_attribute(model, unless=attr_type)
        if attr is None:
            return None
        attr.type = attr_type  # type: ignore[assignment]
        return model

    return corrupt


for _type in _PAYLOAD_TYPES:
    corruption(f"attribute-declared-{A.AttributeType.Name(_type)}")(_payload(_type))


# For each attribute type: its value field, the field its value is moved to, and how one
# value converts on the way.
_ELSEWHERE: dict[int, tuple[str, str, Callable[[object], object]]] = {
    A.INT: ("i", "floats", float),
    A.FLOAT: ("f", "ints", int),
    A.STRING: ("s", "strings", bytes),
    A.INTS: ("ints", "floats", float),
    A.TENSOR: ("t", "tensors", lambda t: t),
    A.GRAPH: ("g", "graphs", lambda g: g),
}
_SINGULAR = {"i", "f", "s", "t", "g", "tp"}


def _move_value(attr: AttributeProto, source: str, target: str, convert: Callable) -> bool:
    values = [getattr(attr, source)] if source in _SINGULAR else list(getattr(attr, source))
    if not values:
        return False
    attr.ClearField(source)  # type: ignore[arg-type]
    if target in ("t", "g", "tp"):
        getattr(attr, target).CopyFrom(values[0])
    elif target in _SINGULAR:
        setattr(attr, target, convert(values[0]))
    elif target in ("tensors", "graphs", "type_protos"):
        getattr(attr, target).extend(values)
    else:
        getattr(attr, target).extend(convert(v) for v in values)
    return True


def _elsewhere(attr_type: int) -> Corruption:
    """The first attribute of ``attr_type`` keeps its type, its value moves to another field
    (an INT whose value sits in ``floats``: read by its type, it would be 0)."""

    def corrupt(model: onnx.ModelProto) -> onnx.ModelProto | None:
        for node in model.graph.node:
            for attr in node.attribute:
                movable = attr.type == attr_type and not attr.ref_attr_name
                if movable and _move_value(attr, *_ELSEWHERE[attr_type]):
                    return model
        return None

    return corrupt


for _type in _ELSEWHERE:
    corruption(f"attribute-{A.AttributeType.Name(_type)}-value-elsewhere")(_elsewhere(_type))


@corruption("attribute-no-type")
def _attribute_no_type(model: onnx.ModelProto) -> onnx.ModelProto | None:
    attr = _first_attribute(model)
    if attr is None:
        return None
    attr.ClearField("type")
    return model


@corruption("attribute-two-payloads")
def _attribute_two_payloads(model: onnx.ModelProto) -> onnx.ModelProto | None:
    attr = _first_attribute(model)
    if attr is None:
        return None
    if attr.type == A.FLOAT:
        attr.i = 3
    else:
        attr.f = 3.0
    return model


@corruption("attribute-duplicate")
def _attribute_duplicate(model: onnx.ModelProto) -> onnx.ModelProto | None:
    for node in model.graph.node:
        if node.attribute and not node.attribute[0].ref_attr_name:
            node.attribute.append(node.attribute[0])
            return model
    return None


@corruption("attribute-ref-outside-function")
def _attribute_ref_outside_function(model: onnx.ModelProto) -> onnx.ModelProto | None:
    attr = _first_attribute(model)
    if attr is None:
        return None
    for field in ("f", "i", "s", "t", "g", "sparse_tensor", "tp"):
        attr.ClearField(field)  # type: ignore[arg-type]
    for repeated in ("floats", "ints", "strings", "tensors", "graphs", "sparse_tensors"):
        attr.ClearField(repeated)  # type: ignore[arg-type]
    attr.ClearField("type_protos")
    attr.ref_attr_name = "outer"
    return model


# -- tensors --------------------------------------------------------------------------------------


@corruption("tensor-raw-data-size")
def _tensor_raw_data_size(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _raw_float_tensor()
    tensor.raw_data = tensor.raw_data[:-4]
    return _add_initializer(model, tensor)


@corruption("tensor-raw-data-partial-element")
def _tensor_raw_partial(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _raw_float_tensor()
    tensor.raw_data = tensor.raw_data[:-1]
    return _add_initializer(model, tensor)


@corruption("tensor-typed-data-size")
def _tensor_typed_data_size(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _float_tensor()
    del tensor.float_data[-1]
    return _add_initializer(model, tensor)


@corruption("tensor-string-data-size")
def _tensor_string_data_size(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = TensorProto(name="__c", data_type=TensorProto.STRING, dims=[3])
    tensor.string_data.extend([b"a", b"b"])
    return _add_initializer(model, tensor)


@corruption("tensor-string-in-raw-data")
def _tensor_string_in_raw(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = TensorProto(name="__c", data_type=TensorProto.STRING, dims=[2], raw_data=b"ab")
    return _add_initializer(model, tensor)


@corruption("tensor-wrong-field")
def _tensor_wrong_field(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = TensorProto(name="__c", data_type=TensorProto.INT64, dims=[2])
    tensor.float_data.extend([1.0, 2.0])
    return _add_initializer(model, tensor)


@corruption("tensor-two-fields")
def _tensor_two_fields(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _raw_float_tensor(count=2)
    tensor.float_data.extend([1.0, 2.0])
    return _add_initializer(model, tensor)


@corruption("tensor-empty-with-data")
def _tensor_empty_with_data(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _float_tensor(count=2)
    del tensor.dims[:]
    tensor.dims.extend([0, 2])
    return _add_initializer(model, tensor)


@corruption("tensor-no-data")
def _tensor_no_data(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = TensorProto(name="__c", data_type=TensorProto.FLOAT, dims=[3])
    return _add_initializer(model, tensor)


@corruption("tensor-negative-dim")
def _tensor_negative_dim(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _float_tensor(count=4)
    del tensor.dims[:]
    tensor.dims.extend([-2, -2])
    return _add_initializer(model, tensor)


@corruption("tensor-undefined-type")
def _tensor_undefined_type(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _raw_float_tensor()
    tensor.data_type = TensorProto.UNDEFINED
    return _add_initializer(model, tensor)


@corruption("tensor-unknown-type")
def _tensor_unknown_type(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _raw_float_tensor()
    tensor.data_type = 99
    return _add_initializer(model, tensor)


@corruption("tensor-external-no-location")
def _tensor_external_no_location(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = TensorProto(name="__c", data_type=TensorProto.FLOAT, dims=[2])
    tensor.data_location = TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "offset", "0"
    return _add_initializer(model, tensor)


@corruption("tensor-external-escaping")
def _tensor_external_escaping(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = TensorProto(name="__c", data_type=TensorProto.FLOAT, dims=[2])
    tensor.data_location = TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "location", "../../etc/passwd"
    return _add_initializer(model, tensor)


@corruption("tensor-external-with-data")
def _tensor_external_with_data(model: onnx.ModelProto) -> onnx.ModelProto:
    tensor = _raw_float_tensor(count=2)
    tensor.data_location = TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    return _add_initializer(model, tensor)


@corruption("constant-value-size")
def _constant_value_size(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """A Constant node whose tensor holds fewer values than its dims say."""
    if _default_opset(model) < 1:
        return None
    tensor = _float_tensor(count=3)
    del tensor.float_data[-1]
    node = helper.make_node("Constant", [], ["__k"], value=tensor)
    model.graph.node.insert(0, node)
    return model


@corruption("sparse-index-out-of-range")
def _sparse_index_out_of_range(model: onnx.ModelProto) -> onnx.ModelProto:
    values = helper.make_tensor("__s", TensorProto.FLOAT, [2], [1.0, 2.0])
    indices = helper.make_tensor("__s_i", TensorProto.INT64, [2], [1, 7])
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [4]))
    return model


@corruption("sparse-indices-unsorted")
def _sparse_indices_unsorted(model: onnx.ModelProto) -> onnx.ModelProto:
    values = helper.make_tensor("__s", TensorProto.FLOAT, [2], [1.0, 2.0])
    indices = helper.make_tensor("__s_i", TensorProto.INT64, [2], [3, 1])
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [4]))
    return model


# -- values and nodes -----------------------------------------------------------------------------


@corruption("undefined-input")
def _undefined_input(model: onnx.ModelProto) -> onnx.ModelProto | None:
    for node in model.graph.node:
        for i, name in enumerate(node.input):
            if name:
                node.input[i] = "__undefined"
                return model
    return None


@corruption("duplicate-node-output")
def _duplicate_node_output(model: onnx.ModelProto) -> onnx.ModelProto | None:
    source = _some_value(model)
    if source is None or not model.graph.node or not model.graph.node[-1].output:
        return None
    target = model.graph.node[-1].output[0]
    model.graph.node.append(helper.make_node("Identity", [source], [target]))
    return model


@corruption("node-output-redefines-input")
def _output_redefines_input(model: onnx.ModelProto) -> onnx.ModelProto | None:
    source = _some_value(model)
    if source is None:
        return None
    model.graph.node.append(helper.make_node("Identity", [source], [source]))
    return model


@corruption("duplicate-graph-input")
def _duplicate_graph_input(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if not model.graph.input:
        return None
    model.graph.input.append(model.graph.input[0])
    return model


@corruption("duplicate-initializer")
def _duplicate_initializer(model: onnx.ModelProto) -> onnx.ModelProto:
    _add_initializer(model, _float_tensor())
    model.graph.initializer.append(_float_tensor())
    return model


@corruption("initializer-shadows-input-type")
def _initializer_input_type(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """An initializer that is also an input, of another element type than the input's."""
    tensor = _float_tensor()
    model.graph.initializer.append(tensor)
    model.graph.input.append(helper.make_tensor_value_info("__c", TensorProto.INT64, [4]))
    return model


@corruption("cycle")
def _cycle(model: onnx.ModelProto) -> onnx.ModelProto:
    model.graph.node.append(helper.make_node("Identity", ["__b"], ["__a"]))
    model.graph.node.append(helper.make_node("Identity", ["__a"], ["__b"]))
    return model


@corruption("nodes-reversed")
def _nodes_reversed(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """Use before definition: the node order reversed (when some node feeds another)."""
    nodes = list(model.graph.node)
    produced = {o for n in nodes for o in n.output}
    if not any(i in produced for n in nodes for i in n.input):
        return None
    del model.graph.node[:]
    model.graph.node.extend(reversed(nodes))
    return model


@corruption("graph-output-undefined")
def _graph_output_undefined(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if not model.graph.output:
        return None
    model.graph.output[0].name = "__nowhere"
    return model


@corruption("empty-graph-input-name")
def _empty_input_name(model: onnx.ModelProto) -> onnx.ModelProto:
    model.graph.input.append(helper.make_tensor_value_info("", TensorProto.FLOAT, [1]))
    return model


@corruption("node-no-op-type")
def _node_no_op_type(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if not model.graph.node:
        return None
    model.graph.node[0].op_type = ""
    return model


# -- types ----------------------------------------------------------------------------------------


def _first_output(model: onnx.ModelProto) -> str | None:
    for node in model.graph.node:
        for name in node.output:
            if name:
                return name
    return None


@corruption("value-info-elem-type-0")
def _value_info_elem_type_0(model: onnx.ModelProto) -> onnx.ModelProto | None:
    name = _first_output(model)
    if name is None:
        return None
    model.graph.value_info.append(helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None))
    return model


@corruption("value-info-map-float-key")
def _value_info_map_float_key(model: onnx.ModelProto) -> onnx.ModelProto | None:
    name = _first_output(model)
    if name is None:
        return None
    value = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
    map_type = helper.make_map_type_proto(TensorProto.FLOAT, value)
    model.graph.value_info.append(helper.make_value_info(name, map_type))
    return model


@corruption("graph-input-no-type")
def _graph_input_no_type(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if not model.graph.input:
        return None
    model.graph.input[0].ClearField("type")
    return model


# -- versions and opsets --------------------------------------------------------------------------


@corruption("opset-999")
def _opset_999(model: onnx.ModelProto) -> onnx.ModelProto | None:
    return _set_default_opset(model, 999)


@corruption("opset-0")
def _opset_0(model: onnx.ModelProto) -> onnx.ModelProto | None:
    return _set_default_opset(model, 0)


@corruption("opset-negative")
def _opset_negative(model: onnx.ModelProto) -> onnx.ModelProto | None:
    return _set_default_opset(model, -3)


@corruption("opset-lowered-to-1")
def _opset_1(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if _default_opset(model) <= 1:
        return None
    return _set_default_opset(model, 1)


@corruption("no-default-opset")
def _no_default_opset(model: onnx.ModelProto) -> onnx.ModelProto | None:
    kept = [e for e in model.opset_import if e.domain not in ("", "ai.onnx")]
    if len(kept) == len(model.opset_import):
        return None
    del model.opset_import[:]
    model.opset_import.extend(kept)
    return model


@corruption("unknown-domain")
def _unknown_domain(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if not model.graph.node:
        return None
    model.graph.node[0].domain = "com.example.unknown"
    return model


@corruption("unknown-operator")
def _unknown_operator(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if not model.graph.node:
        return None
    model.graph.node[0].op_type = "NoSuchOperator"
    return model


@corruption("ir-version-0")
def _ir_version_0(model: onnx.ModelProto) -> onnx.ModelProto:
    model.ir_version = 0
    return model


@corruption("ir-version-too-new")
def _ir_version_too_new(model: onnx.ModelProto) -> onnx.ModelProto:
    model.ir_version = 99
    return model


# -- arity ----------------------------------------------------------------------------------------


@corruption("too-many-inputs")
def _too_many_inputs(model: onnx.ModelProto) -> onnx.ModelProto | None:
    source = _some_value(model)
    if source is None or not model.graph.node:
        return None
    model.graph.node[0].input.extend([source] * 12)
    return model


@corruption("too-few-inputs")
def _too_few_inputs(model: onnx.ModelProto) -> onnx.ModelProto | None:
    for node in model.graph.node:
        if node.input:
            del node.input[:]
            return model
    return None


@corruption("too-many-outputs")
def _too_many_outputs(model: onnx.ModelProto) -> onnx.ModelProto | None:
    if not model.graph.node:
        return None
    model.graph.node[0].output.extend([f"__extra_{i}" for i in range(12)])
    return model


# -- subgraphs ------------------------------------------------------------------------------------


@corruption("if-branch-arity")
def _if_branch_arity(model: onnx.ModelProto) -> onnx.ModelProto | None:
    return _with_if(model, _if_node(then_outputs=2, node_outputs=1, uses="__c"))


@corruption("subgraph-name-not-visible")
def _subgraph_name_not_visible(model: onnx.ModelProto) -> onnx.ModelProto | None:
    return _with_if(model, _if_node(then_outputs=1, node_outputs=1, uses="__later"))


@corruption("subgraph-uses-later-value")
def _subgraph_uses_later_value(model: onnx.ModelProto) -> onnx.ModelProto | None:
    corrupted = _with_if(model, _if_node(then_outputs=1, node_outputs=1, uses="__late"))
    if corrupted is not None:
        corrupted.graph.node.append(helper.make_node("Identity", ["__c"], ["__late"]))
    return corrupted


@corruption("loop-body-arity")
def _loop_body_arity(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """A Loop with one carried value whose body takes only the iteration number."""
    if _default_opset(model) < 1:
        return None
    body = helper.make_graph(
        [helper.make_node("Identity", ["__cond_in"], ["__cond_out"])],
        "body",
        [helper.make_tensor_value_info("__cond_in", TensorProto.BOOL, [])],
        [
            helper.make_tensor_value_info("__cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("__v_out", TensorProto.FLOAT, None),
        ],
    )
    _add_initializer(model, helper.make_tensor("__trip", TensorProto.INT64, [], [2]))
    _add_initializer(model, helper.make_tensor("__cond", TensorProto.BOOL, [], [True]))
    _add_initializer(model, _float_tensor())
    loop = helper.make_node("Loop", ["__trip", "__cond", "__c"], ["__loop_v"], body=body)
    model.graph.node.append(loop)
    return model


# -- functions ------------------------------------------------------------------------------------


def _add_function(model: onnx.ModelProto, function: onnx.FunctionProto) -> None:
    model.functions.append(function)
    model.opset_import.append(helper.make_opsetid(function.domain, 1))
    if model.ir_version < 8:
        model.ir_version = 8


@corruption("recursive-function")
def _recursive_function(model: onnx.ModelProto) -> onnx.ModelProto | None:
    opset = _default_opset(model)
    if opset < 1:
        return None
    function = helper.make_function(
        "local",
        "Again",
        ["x"],
        ["y"],
        [helper.make_node("Again", ["x"], ["y"], domain="local")],
        [helper.make_opsetid("", opset), helper.make_opsetid("local", 1)],
    )
    _add_function(model, function)
    _add_initializer(model, _float_tensor())
    model.graph.node.append(helper.make_node("Again", ["__c"], ["__again"], domain="local"))
    return model


@corruption("function-body-undefined-input")
def _function_body_undefined(model: onnx.ModelProto) -> onnx.ModelProto | None:
    opset = _default_opset(model)
    if opset < 1:
        return None
    function = helper.make_function(
        "local",
        "Broken",
        ["x"],
        ["y"],
        [helper.make_node("Identity", ["__missing"], ["y"])],
        [helper.make_opsetid("", opset)],
    )
    _add_function(model, function)
    _add_initializer(model, _float_tensor())
    model.graph.node.append(helper.make_node("Broken", ["__c"], ["__broken"], domain="local"))
    return model
