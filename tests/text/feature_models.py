"""Models that hold what the node-test models do not: every element type as an initializer,
sparse initializers, every attribute kind, every value type, local functions with attribute
defaults, references and typed values, and names that need quotes. Built with onnx.helper."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSETS = [helper.make_opsetid("", 21)]


def _model(graph: onnx.GraphProto, **kwargs: object) -> onnx.ModelProto:
    kwargs.setdefault("opset_imports", OPSETS)
    model = helper.make_model(graph, **kwargs)  # type: ignore[arg-type]
    model.ir_version = 10
    return model


def _identity_graph(inits: list[onnx.TensorProto], name: str = "g") -> onnx.GraphProto:
    outputs = [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in inits]
    nodes = []
    return helper.make_graph(nodes, name, [], outputs, initializer=inits)


def every_element_type() -> onnx.ModelProto:
    """One initializer of each element type, raw_data and typed fields both."""
    rng = np.random.default_rng(0)
    inits = []
    for elem in sorted(set(helper.get_all_tensor_dtypes()) - {TensorProto.UNDEFINED}):
        name = TensorProto.DataType.Name(elem).lower()
        if elem == TensorProto.STRING:
            inits.append(helper.make_tensor(name, elem, [3], [b"a", b'q"uo\\te', b"line\nbreak"]))
            continue
        np_type = helper.tensor_dtype_to_np_dtype(elem)
        if elem in (TensorProto.FLOAT, TensorProto.DOUBLE):
            values = np.array([0.1, -2.5, np.inf, -np.inf, np.nan, 1e-30, 3.4e38, -0.0], np_type)
            values[4] = -values[4] if elem == TensorProto.DOUBLE else values[4]
        elif elem in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
            values = np.array([1 + 2j, -0.5j, 3], np_type)
        elif elem == TensorProto.BOOL:
            values = np.array([True, False, True])
        elif np.dtype(np_type).kind in "iu":
            info = np.iinfo(np_type)
            values = np.array([info.min, info.max, 0, 7, 1], np_type)
        else:  # float16 and the ml_dtypes types: a few values they hold
            values = np.array([0.5, -1.0, 0.0, 1.5, 2.0], np.float32).astype(np_type)
        tensor = numpy_helper.from_array(values, name)
        inits.append(tensor)
        if elem not in (TensorProto.STRING,):
            typed = (
                helper.make_tensor(
                    name + "_typed",
                    elem,
                    list(values.shape),
                    values.tolist()
                    if elem not in (TensorProto.BFLOAT16,)
                    else values.astype(np.float32).tolist(),
                )
                if np.dtype(np_type).kind in "iubfc" and elem not in (TensorProto.FLOAT16,)
                else None
            )
            if typed is not None:
                inits.append(typed)
    # odd element counts of the packed types, and empty and scalar tensors
    inits.append(
        numpy_helper.from_array(
            np.array([1, -8, 7], dtype=helper.tensor_dtype_to_np_dtype(TensorProto.INT4)),
            "int4_odd",
        )
    )
    inits.append(
        numpy_helper.from_array(
            np.array([1, -2, 0, 1, -1], dtype=helper.tensor_dtype_to_np_dtype(TensorProto.INT2)),
            "int2_five",
        )
    )
    inits.append(numpy_helper.from_array(np.zeros((0, 3), np.float32), "empty"))
    inits.append(numpy_helper.from_array(np.array(2.5, np.float32), "scalar"))
    inits.append(numpy_helper.from_array(rng.standard_normal((4, 5)).astype(np.float32), "matrix"))
    return _model(_identity_graph(inits, "every_element_type"))


def value_types() -> onnx.ModelProto:
    """Inputs and value_info of every value type; dims of every kind; names needing quotes."""
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, ["N", None, 3])
    opt = helper.make_value_info(
        "o", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.INT64, []))
    )
    mp = helper.make_value_info(
        "m",
        helper.make_map_type_proto(
            TensorProto.STRING,
            helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None)),
        ),
    )
    sparse = helper.make_value_info(
        "sp", helper.make_sparse_tensor_type_proto(TensorProto.FLOAT, [10, "M"])
    )
    unknown_rank = helper.make_tensor_value_info("u", TensorProto.BFLOAT16, None)
    quoted = helper.make_tensor_value_info("a value-name", TensorProto.UINT4, ["batch size", 2])
    keyword = helper.make_tensor_value_info("float", TensorProto.FLOAT8E4M3FN, [1])
    untyped = onnx.ValueInfoProto(name="untyped")
    node = helper.make_node("Identity", ["a value-name"], ["y"], name="node name")
    graph = helper.make_graph(
        [node],
        "value types",
        [seq, opt, mp, sparse, unknown_rank, quoted, keyword],
        [helper.make_tensor_value_info("y", TensorProto.UINT4, ["batch size", 2])],
        value_info=[untyped, helper.make_tensor_value_info("nan", TensorProto.FLOAT, [])],
    )
    return _model(
        graph,
        producer_name="p",
        producer_version="1",
        domain="my.models",
        model_version=3,
        doc_string='a "model"\nwith lines',
    )


def metadata() -> onnx.ModelProto:
    model = value_types()
    helper.set_model_props(model, {"key": "value", 'quote"d': "back\\slash"})
    return model


def _body(name: str, inner: bool = False) -> onnx.GraphProto:
    """A subgraph; with ``inner``, one holding an initializer and value_info of its own."""
    if not inner:
        return helper.make_graph(
            [helper.make_node("Neg", ["x"], ["y"])],
            name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        )
    return helper.make_graph(
        [helper.make_node("Neg", ["x"], ["n"]), helper.make_node("Add", ["n", "k"], ["y"])],
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.array([0.25, -1.0], np.float32), "k")],
        value_info=[helper.make_tensor_value_info("n", TensorProto.FLOAT, [2])],
    )


def _sparse(name: str) -> onnx.SparseTensorProto:
    values = numpy_helper.from_array(np.array([1.5, -2.0], np.float32), name)
    indices = numpy_helper.from_array(np.array([1, 7], np.int64), "")
    return helper.make_sparse_tensor(values, indices, [10])


def attribute_kinds(*, sparse: bool = False, lists: bool = False) -> onnx.ModelProto:
    """A custom-domain node with an attribute of every single kind; with ``sparse``, sparse
    tensor attributes (onnx's syntax has none); with ``lists``, the lists of tensors, graphs
    and type protos, whose items onnx's parser drops."""
    tensor = numpy_helper.from_array(np.arange(6, dtype=np.int64).reshape(2, 3), "t")
    attrs = {
        "f": 0.1,
        "f_neg_inf": float("-inf"),
        "i": -(2**63),
        "s": 'he said "hi"\\',
        "t": tensor,
        "tp": helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(TensorProto.INT8, ["N"])
        ),
        "floats": [1.0, 2.5e-10, float("nan")],
        "ints": [1, -2, 2**62],
        "strings": ["a", "b c"],
    }
    node = helper.make_node("Custom", ["x", ""], ["y", ""], domain="my.ops", name="n", **attrs)
    node.attribute.append(
        helper.make_attribute("empty_ints", [], attr_type=onnx.AttributeProto.INTS)
    )
    if sparse:
        node.attribute.append(helper.make_attribute("sp", _sparse("sp_values")))
        node.attribute.append(helper.make_attribute("sps", [_sparse("a"), _sparse("b")]))
    extra = []
    if lists:
        node.attribute.append(helper.make_attribute("ts", [tensor, tensor]))
        node.attribute.append(
            helper.make_attribute(
                "tps",
                [
                    helper.make_tensor_type_proto(TensorProto.FLOAT, [1]),
                    helper.make_optional_type_proto(
                        helper.make_tensor_type_proto(TensorProto.BOOL, [])
                    ),
                ],
            )
        )
        extra.append(
            helper.make_node("Custom", ["x"], ["z"], domain="my.ops", gs=[_body("b1"), _body("b2")])
        )
    node_if = helper.make_node(
        "If", ["c"], ["w"], then_branch=_body("then_g", inner=True), else_branch=_body("else_g")
    )
    graph = helper.make_graph(
        [node, node_if, *extra],
        "attrs",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return _model(graph, opset_imports=[*OPSETS, helper.make_opsetid("my.ops", 1)])


def sparse_initializer() -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["y"])],
        "sparse",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [10])],
        sparse_initializer=[_sparse("w")],
    )
    return _model(graph)


def functions(full: bool) -> onnx.ModelProto:
    """Local functions; with ``full``, what onnx's printer does not write: attribute defaults,
    typed values, a doc string and an overload."""
    body = [
        helper.make_node("Constant", [], ["alpha"], value_float=1.0),
        helper.make_node("Mul", ["x", "alpha"], ["ax"]),
        helper.make_node("LeakyRelu", ["ax"], ["y"]),
    ]
    body[2].attribute.append(
        onnx.AttributeProto(name="alpha", ref_attr_name="slope", type=onnx.AttributeProto.FLOAT)
    )
    fn = helper.make_function(
        "my.fns", "Scaled", ["x"], ["y"], body, [helper.make_opsetid("", 21)], attributes=["slope"]
    )
    if full:
        fn.attribute_proto.append(helper.make_attribute("gain", 2.0))
        fn.value_info.append(helper.make_tensor_value_info("ax", TensorProto.FLOAT, ["N"]))
        fn.doc_string = "scales"
        fn.overload = "v2"
    call = helper.make_node("Scaled", ["X"], ["Y"], domain="my.fns", slope=0.2)
    if full:
        call.overload = "v2"
    graph = helper.make_graph(
        [call],
        "calls",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N"])],
    )
    return _model(graph, opset_imports=[*OPSETS, helper.make_opsetid("my.fns", 1)], functions=[fn])
