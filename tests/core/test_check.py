"""``oc.check`` rule by rule.

Each case starts from a valid model (written with ``onnx.helper`` and, separately, built with
the DSL), breaks exactly one rule and expects a problem naming the place (node name or index,
graph input, function) and the rule. Where onnx's checker also rejects the broken model it is
asserted to: the oracle that the rule is real. Where it accepts, the case says which sentence
of ONNX's IR.md (or onnx.proto) makes the model invalid anyway, and the test pins onnx's
leniency so that a change on either side is noticed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import onnxcraft as oc
from onnxcraft.core.check import RULES, check_ir
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.proto.serde import model_from_proto
from tests.core.oracle import onnx_model
from tests.node_cases import case_names, node_tests_root

F32 = np.float32
FLOAT, BOOL = TensorProto.FLOAT, TensorProto.BOOL


# -- the two valid starting points ---------------------------------------------------------------


def _scale_function() -> onnx.FunctionProto:
    """my.fn::Scale(x) <alpha> = x * CastLike(alpha, x)."""
    alpha = helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT)
    alpha.ref_attr_name = "alpha"
    constant = helper.make_node("Constant", [], ["a"], name="f_const")
    constant.attribute.append(alpha)
    return helper.make_function(
        "my.fn",
        "Scale",
        ["x"],
        ["out"],
        [
            constant,
            helper.make_node("CastLike", ["a", "x"], ["a2"], name="f_cast"),
            helper.make_node("Mul", ["x", "a2"], ["out"], name="f_mul"),
        ],
        [helper.make_opsetid("", 21)],
        ["alpha"],
    )


@cache
def _helper_model() -> bytes:
    """z = Scale(If(C, -relu(X @ W), relu(X @ W)), alpha=2), written with onnx.helper."""
    branch_type = [helper.make_tensor_value_info("b_out", FLOAT, ["N", 3])]
    then_branch = helper.make_graph(
        [helper.make_node("Neg", ["r"], ["b_out"], name="neg")], "then_g", [], branch_type
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["r"], ["b_out"], name="ident")], "else_g", [], branch_type
    )
    nodes = [
        helper.make_node("MatMul", ["X", "W"], ["h"], name="mm"),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node(
            "If", ["C"], ["y"], name="if", then_branch=then_branch, else_branch=else_branch
        ),
        helper.make_node("Scale", ["y"], ["z"], name="fn", domain="my.fn", alpha=2.0),
    ]
    graph = helper.make_graph(
        nodes,
        "main",
        [
            helper.make_tensor_value_info("X", FLOAT, ["N", 3]),
            helper.make_tensor_value_info("C", BOOL, []),
        ],
        [helper.make_tensor_value_info("z", FLOAT, ["N", 3])],
        [numpy_helper.from_array(np.eye(3, dtype=F32), "W")],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("my.fn", 1)],
        functions=[_scale_function()],
        ir_version=10,
    )
    return model.SerializeToString()


@cache
def _dsl_model() -> bytes:
    """The same computation built with the DSL."""

    @oc.function("my.fn", "Scale")
    def scale(x: oc.Var, *, alpha: float = 1.0) -> oc.Var:
        return op.Mul(x, op.CastLike(op.Constant(value_float=alpha), x))

    X = oc.arg("X", F32, ("N", 3))
    C = oc.arg("C", np.bool_, ())
    r = op.Relu(op.MatMul(X, np.eye(3, dtype=F32)))
    (y,) = op.If(C, then_branch=lambda: [op.Neg(r)], else_branch=lambda: [op.Identity(r)])
    model = oc.build([X, C], {"z": scale(y, alpha=2.0)})
    return onnx_model(model).SerializeToString()


BASES = {"helper": _helper_model, "dsl": _dsl_model}


def _fresh(base: str) -> onnx.ModelProto:
    return onnx.load_from_string(BASES[base]())


# -- locating what a case breaks ------------------------------------------------------------------


def _node(graph: onnx.GraphProto | onnx.FunctionProto, op_type: str) -> onnx.NodeProto:
    return next(n for n in graph.node if n.op_type == op_type)


def _at(node: onnx.NodeProto) -> str:
    """How oc.check names a node: its index in the graph, then its name and op_type."""
    return f"({node.name!r}, {node.op_type})" if node.name else f"({node.op_type})"


def _branch(model: onnx.ModelProto, which: str = "then_branch") -> onnx.GraphProto:
    if_node = _node(model.graph, "If")
    return next(a.g for a in if_node.attribute if a.name == which)


def _function(model: onnx.ModelProto) -> onnx.FunctionProto:
    return model.functions[0]


def _fn_where(model: onnx.ModelProto) -> str:
    return f"function {_function(model).domain}::{_function(model).name}"


def _add(model: onnx.ModelProto, node: onnx.NodeProto) -> str:
    model.graph.node.append(node)
    return _at(node)


def _relu_out(model: onnx.ModelProto) -> str:
    return _node(model.graph, "Relu").output[0]


# -- the cases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    rule: str
    breaks: Callable[[onnx.ModelProto], str]  # mutates the model, returns where it broke it
    onnx_rejects: bool = True
    why: str = ""  # when onnx's checker accepts: the IR.md / onnx.proto text it overlooks


def _ssa_node_output(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.output[0] = _node(m.graph, "MatMul").output[0]
    for branch in ("then_branch", "else_branch"):
        _branch(m, branch).node[0].input[0] = relu.output[0]
    return _at(relu)


def _ssa_input_twice(m: onnx.ModelProto) -> str:
    m.graph.input.append(copy.deepcopy(m.graph.input[0]))
    return f"graph input {m.graph.input[0].name!r}"


def _ssa_initializer_twice(m: onnx.ModelProto) -> str:
    m.graph.initializer.append(copy.deepcopy(m.graph.initializer[0]))
    return f"graph initializer {m.graph.initializer[0].name!r}"


def _ssa_output_is_input(m: onnx.ModelProto) -> str:
    node = helper.make_node("Neg", ["X"], ["X"], name="neg_x")
    return _add(m, node)


def _ssa_shadowing(m: onnx.ModelProto) -> str:
    branch = _branch(m)
    branch.node[0].output[0] = "X"
    branch.output[0].name = "X"
    return _at(branch.node[0])


def _ssa_in_function(m: onnx.ModelProto) -> str:
    fn = _function(m)
    cast = _node(fn, "CastLike")
    cast.output[0] = _node(fn, "Constant").output[0]
    _node(fn, "Mul").input[1] = cast.output[0]
    return _at(cast)


def _unsorted(m: onnx.ModelProto) -> str:
    nodes = [copy.deepcopy(n) for n in m.graph.node]
    nodes[0], nodes[1] = nodes[1], nodes[0]
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    return f"node 0 {_at(nodes[0])}"


def _undefined_input(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.input[0] = "nowhere"
    return f"node 1 {_at(relu)}"


def _undefined_in_subgraph(m: onnx.ModelProto) -> str:
    branch = _branch(m)
    branch.node[0].input[0] = "nowhere"
    return f"attribute 'then_branch' node 0 {_at(branch.node[0])}"


def _later_value_in_subgraph(m: onnx.ModelProto) -> str:
    branch = _branch(m)
    branch.node[0].input[0] = m.graph.output[0].name  # defined after the If node
    return f"attribute 'then_branch' node 0 {_at(branch.node[0])}"


def _undefined_in_function(m: onnx.ModelProto) -> str:
    mul = _node(_function(m), "Mul")
    mul.input[1] = "nowhere"
    return f"{_fn_where(m)} node 2 {_at(mul)}"


def _output_not_produced(m: onnx.ModelProto) -> str:
    m.graph.output[0].name = "nowhere"
    return "graph output 'nowhere'"


def _subgraph_output_is_outer(m: onnx.ModelProto) -> str:
    branch = _branch(m, "else_branch")
    del branch.node[:]
    branch.output[0].name = _relu_out(m)
    return f"attribute 'else_branch' output {_relu_out(m)!r}"


def _graph_unnamed(m: onnx.ModelProto) -> str:
    m.graph.name = ""
    return "graph"


def _subgraph_unnamed(m: onnx.ModelProto) -> str:
    _branch(m).name = ""
    return "attribute 'then_branch'"


def _input_unnamed(m: onnx.ModelProto) -> str:
    m.graph.input[1].name = ""
    return "graph input ''"


def _input_without_rank(m: onnx.ModelProto) -> str:
    m.graph.input[0].type.tensor_type.ClearField("shape")
    return f"graph input {m.graph.input[0].name!r}"


def _output_without_type(m: onnx.ModelProto) -> str:
    m.graph.output[0].ClearField("type")
    return f"graph output {m.graph.output[0].name!r}"


def _sequence_input_without_elem(m: onnx.ModelProto) -> str:
    info = onnx.ValueInfoProto(name="S")
    info.type.sequence_type.SetInParent()
    m.graph.input.append(info)
    return "graph input 'S'"


def _map_with_float_keys(m: onnx.ModelProto) -> str:
    value = helper.make_tensor_type_proto(FLOAT, [])
    m.graph.input.append(helper.make_value_info("M", helper.make_map_type_proto(FLOAT, value)))
    return "graph input 'M'"


def _initializer_undefined(m: onnx.ModelProto) -> str:
    m.graph.initializer[0].data_type = TensorProto.UNDEFINED
    return f"graph initializer {m.graph.initializer[0].name!r}"


def _subgraph_initializer_named_like_its_input(m: onnx.ModelProto) -> str:
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond"], ["cond_out"]),
            helper.make_node("Neg", ["v"], ["v_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond", BOOL, []),
            helper.make_tensor_value_info("v", FLOAT, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", BOOL, []),
            helper.make_tensor_value_info("v_out", FLOAT, None),
        ],
        [numpy_helper.from_array(np.zeros((1, 3), F32), "v")],
    )
    node = helper.make_node("Loop", ["", m.graph.input[1].name, _relu_out(m)], ["lo"], body=body)
    node.name = "loop"
    m.graph.node.append(node)
    return "attribute 'body' initializer 'v'"


def _no_op_type(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.op_type = ""
    return f"node 1 {_at(relu)}"


def _no_inputs_or_outputs(m: onnx.ModelProto) -> str:
    return _add(m, helper.make_node("Nothing", [], [], name="nothing", domain="my.fn"))


def _node_name_twice(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.name = _node(m.graph, "MatMul").name = "twice"
    return f"node 1 {_at(relu)}"


def _custom_domain_not_imported(m: onnx.ModelProto) -> str:
    return _add(m, helper.make_node("Foo", [_relu_out(m)], ["foo"], name="foo", domain="other"))


def _function_domain_not_imported(m: onnx.ModelProto) -> str:
    del m.opset_import[1]
    return _at(_node(m.graph, "Scale"))


def _no_opset_at_all(m: onnx.ModelProto) -> str:
    del m.opset_import[:]
    return "model"


def _opset_unknown(m: onnx.ModelProto) -> str:
    m.opset_import[0].version = 99
    return "model"


def _function_without_import(m: onnx.ModelProto) -> str:
    fn = _function(m)
    del fn.opset_import[:]
    return f"{_fn_where(m)} node 0 {_at(fn.node[0])}"


def _function_incompatible_import(m: onnx.ModelProto) -> str:
    _function(m).opset_import[0].version = 20  # Constant and CastLike differ at 20 and 21
    return _fn_where(m)


def _unknown_operator(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.op_type = "Rellu"
    return _at(relu)


def _operator_newer_than_opset(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.op_type = "Gelu"  # Gelu is ai.onnx 20
    m.opset_import[0].version = 19
    _function(m).opset_import[0].version = 19
    return _at(relu)


def _deprecated_operator(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.op_type = "Upsample"
    relu.input.append(m.graph.initializer[0].name)
    return _at(relu)


def _too_many_inputs(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.input.append("X")
    return _at(relu)


def _missing_input(m: onnx.ModelProto) -> str:
    matmul = _node(m.graph, "MatMul")
    del matmul.input[1]
    return _at(matmul)


def _empty_required_input(m: onnx.ModelProto) -> str:
    matmul = _node(m.graph, "MatMul")
    matmul.input[1] = ""
    return _at(matmul)


def _trailing_empty_beyond_signature(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.input.append("")
    return _at(relu)


def _too_many_outputs(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.output.append("extra")
    return _at(relu)


def _variadic_below_min_arity(m: onnx.ModelProto) -> str:
    return _add(m, helper.make_node("Concat", [], ["cat"], name="cat", axis=0))


def _function_call_too_many_inputs(m: onnx.ModelProto) -> str:
    call = _node(m.graph, "Scale")
    call.input.append("X")
    return _at(call)


def _unknown_attribute(m: onnx.ModelProto) -> str:
    relu = _node(m.graph, "Relu")
    relu.attribute.append(helper.make_attribute("alpha", 1.0))
    return _at(relu)


def _attribute_of_wrong_type(m: onnx.ModelProto) -> str:
    return _add(m, helper.make_node("Softmax", [_relu_out(m)], ["sm"], name="sm", axis=1.5))


def _required_attribute_missing(m: onnx.ModelProto) -> str:
    return _add(m, helper.make_node("Cast", [_relu_out(m)], ["cast"], name="cast"))


def _attribute_twice(m: onnx.ModelProto) -> str:
    node = helper.make_node("Softmax", [_relu_out(m)], ["sm"], name="sm", axis=1)
    node.attribute.append(helper.make_attribute("axis", 0))
    return _add(m, node)


def _custom_attribute_twice(m: onnx.ModelProto) -> str:
    call = _node(m.graph, "Scale")
    call.attribute.append(helper.make_attribute("alpha", 3.0))
    return _at(call)


def _reference_outside_function(m: onnx.ModelProto) -> str:
    ref = helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT)
    node = helper.make_node("LeakyRelu", [_relu_out(m)], ["lr"], name="lr")
    node.attribute.append(ref)
    return _add(m, node)


def _reference_to_unknown_attribute(m: onnx.ModelProto) -> str:
    constant = _node(_function(m), "Constant")
    constant.attribute[0].ref_attr_name = "beta"
    return f"{_fn_where(m)} node 0 {_at(constant)}"


def _function_call_unknown_attribute(m: onnx.ModelProto) -> str:
    call = _node(m.graph, "Scale")
    call.attribute.append(helper.make_attribute("beta", 1.0))
    return _at(call)


def _input_type_not_allowed(m: onnx.ModelProto) -> str:
    m.graph.input[1].type.tensor_type.elem_type = FLOAT  # If's cond must be bool
    return _at(_node(m.graph, "If"))


def _inputs_of_one_parameter_differ(m: onnx.ModelProto) -> str:
    init = m.graph.initializer[0]
    init.CopyFrom(numpy_helper.from_array(np.eye(3), init.name))  # float64
    return _at(_node(m.graph, "MatMul"))


def _declared_output_type_differs(m: onnx.ModelProto) -> str:
    matmul = _node(m.graph, "MatMul")  # both inputs are typed: X and the initializer
    out = matmul.output[0]
    infos = [i for i in m.graph.value_info if i.name != out]
    del m.graph.value_info[:]
    m.graph.value_info.extend(infos)
    m.graph.value_info.append(helper.make_tensor_value_info(out, TensorProto.DOUBLE, None))
    return _at(matmul)


def _outer_type_not_allowed_in_subgraph(m: onnx.ModelProto) -> str:
    branch = _branch(m)
    branch.node[0].op_type = "Not"  # bool only; its input is the outer float relu output
    return f"attribute 'then_branch' node 0 {_at(branch.node[0])}"


def _function_twice(m: onnx.ModelProto) -> str:
    m.functions.append(copy.deepcopy(m.functions[0]))
    return _fn_where(m)


def _function_recursion(m: onnx.ModelProto) -> str:
    fn = _function(m)
    mul = _node(fn, "Mul")
    mul.op_type, mul.domain = fn.name, fn.domain
    del mul.input[1]
    fn.opset_import.append(helper.make_opsetid(fn.domain, 1))
    return _fn_where(m)


def _function_output_twice(m: onnx.ModelProto) -> str:
    _function(m).output.append(_function(m).output[0])
    return _fn_where(m)


def _function_attribute_twice(m: onnx.ModelProto) -> str:
    _function(m).attribute.append("alpha")
    return _fn_where(m)


def _function_output_not_produced(m: onnx.ModelProto) -> str:
    _function(m).output[0] = "nowhere"
    return _fn_where(m)


def _function_unnamed(m: onnx.ModelProto) -> str:
    _function(m).name = ""
    _node(m.graph, "Scale").op_type = ""
    return "function my.fn::"


def _ir_version_too_new(m: onnx.ModelProto) -> str:
    m.ir_version = 99
    return "model"


def _ir_version_missing(m: onnx.ModelProto) -> str:
    m.ir_version = 0
    return "model"


def _ir_version_too_old_for_opset(m: onnx.ModelProto) -> str:
    standard = [o for o in m.opset_import if o.domain in ("", "ai.onnx.ml")]
    m.ir_version = onnx.helper.find_min_ir_version_for(standard) - 1
    return "model"


def _initializer_not_an_input_at_ir3(m: onnx.ModelProto) -> str:
    # First make it a model IR 3 can describe (opset 8, no function, no If), then drop to 3.
    if_node, call = _node(m.graph, "If"), _node(m.graph, "Scale")
    for node in (if_node, call):
        node.op_type, node.domain = "Identity", ""
        del node.attribute[:]
    if_node.input[0] = _relu_out(m)
    del m.functions[:]
    del m.opset_import[1]
    m.opset_import[0].version = 8
    m.ir_version = 3
    return "model"


LENIENT_SHADOW = "IR.md: a node output in a nested subgraph MUST differ from outer names"

# -- how values are stored (onnx.proto: one field per type, as many values as the dims) ----------


def _flatten(m: onnx.ModelProto) -> onnx.NodeProto:
    m.graph.node.append(helper.make_node("Flatten", ["X"], ["flat"], name="flat", axis=1))
    return m.graph.node[-1]  # append copies: change the model's own node


def _int_attribute_in_floats(m: onnx.ModelProto) -> str:
    """The issue's example: declared INT, its value in ``floats`` (read by type it is 0)."""
    attr = _flatten(m).attribute[0]
    attr.ClearField("i")
    attr.floats.append(1.0)
    return _at(_node(m.graph, "Flatten"))


def _attribute_without_type(m: onnx.ModelProto) -> str:
    node = _flatten(m)
    node.attribute[0].ClearField("type")
    return _at(node)


def _initializer_raw_data_short(m: onnx.ModelProto) -> str:
    tensor = m.graph.initializer[0]
    tensor.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(tensor), tensor.name))
    tensor.raw_data = tensor.raw_data[:-4]
    return f"graph initializer {tensor.name!r}"


def _constant_float_data_short(m: onnx.ModelProto) -> str:
    value = helper.make_tensor("k", FLOAT, [3], [1.0, 2.0, 3.0])
    del value.float_data[-1]
    node = helper.make_node("Constant", [], ["k"], name="k", value=value)
    m.graph.node.insert(0, node)
    return "graph node 0 ('k', Constant) attribute 'value'"


def _external_without_location(m: onnx.ModelProto) -> str:
    tensor = m.graph.initializer[0]
    tensor.ClearField("raw_data")
    tensor.ClearField("float_data")
    tensor.data_location = TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "offset", "0"
    return f"graph initializer {tensor.name!r}"


def _sparse_index_out_of_range(m: onnx.ModelProto) -> str:
    values = helper.make_tensor("sp", FLOAT, [2], [1.0, 2.0])
    indices = helper.make_tensor("sp_i", TensorProto.INT64, [2], [1, 9])
    m.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [2, 3]))
    return "graph initializer 'sp'"


def _initializer_type_differs_from_input(m: onnx.ModelProto) -> str:
    m.graph.initializer.append(numpy_helper.from_array(np.zeros(3, F32), "X"))
    return "graph initializer 'X'"


def _if_branch_with_extra_output(m: onnx.ModelProto) -> str:
    branch = _branch(m)
    branch.node.append(helper.make_node("Identity", ["r"], ["extra"], name="extra"))
    branch.output.append(helper.make_tensor_value_info("extra", FLOAT, ["N", 3]))
    return _at(_node(m.graph, "If"))


def _negative_dim_in_input_type(m: onnx.ModelProto) -> str:
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_value = -3
    return "a type"


CASES = [
    Case("node output defined twice", "ssa", _ssa_node_output),
    Case("graph input listed twice", "ssa", _ssa_input_twice),
    Case("initializer given twice", "ssa", _ssa_initializer_twice),
    Case("node output named like a graph input", "ssa", _ssa_output_is_input),
    Case("subgraph node output shadows an outer value", "ssa", _ssa_shadowing),
    Case("function value defined twice", "ssa", _ssa_in_function),
    Case("nodes out of order", "topological-order", _unsorted),
    Case("input defined nowhere", "scope", _undefined_input),
    Case("subgraph input defined nowhere", "scope", _undefined_in_subgraph),
    Case("subgraph uses a value defined after its node", "scope", _later_value_in_subgraph),
    Case("function input defined nowhere", "scope", _undefined_in_function),
    Case("graph output produced by nothing", "graph-output", _output_not_produced),
    Case("subgraph output is an outer value", "graph-output", _subgraph_output_is_outer),
    Case("main graph without a name", "graph-name", _graph_unnamed),
    Case("subgraph without a name", "graph-name", _subgraph_unnamed),
    Case("graph input without a name", "value-name", _input_unnamed),
    Case("main input of unknown rank", "io-type", _input_without_rank),
    Case("main output without a type", "io-type", _output_without_type),
    Case("sequence input without element type", "io-type", _sequence_input_without_elem),
    Case(
        "map with float keys",
        "value-type",
        _map_with_float_keys,
        onnx_rejects=False,
        why="onnx.proto TypeProto.Map.key_type MUST be an integral type or STRING",
    ),
    Case("initializer of UNDEFINED type", "initializer", _initializer_undefined),
    Case(
        "subgraph initializer named like its input",
        "initializer",
        _subgraph_initializer_named_like_its_input,
    ),
    Case("node without op_type", "node", _no_op_type),
    Case("node without inputs and outputs", "node", _no_inputs_or_outputs),
    Case(
        "two nodes of one name",
        "node",
        _node_name_twice,
        onnx_rejects=False,
        why="IR.md 'Names Within a Graph': node names are a namespace, unique per graph",
    ),
    Case("custom domain not imported", "opset-import", _custom_domain_not_imported),
    Case("function domain not imported", "opset-import", _function_domain_not_imported),
    Case("no opset imported at all", "opset-import", _no_opset_at_all),
    Case("opset newer than any known", "opset-import", _opset_unknown),
    Case("function body without its own import", "opset-import", _function_without_import),
    Case("function import incompatible", "opset-import", _function_incompatible_import),
    Case("unknown operator", "operator", _unknown_operator),
    Case("operator newer than the opset", "operator", _operator_newer_than_opset),
    Case("deprecated operator", "operator", _deprecated_operator),
    Case("too many inputs", "arity", _too_many_inputs),
    Case("required input left out", "arity", _missing_input),
    Case("required input empty", "arity", _empty_required_input),
    Case("empty input beyond the signature", "arity", _trailing_empty_beyond_signature),
    Case("too many outputs", "arity", _too_many_outputs),
    Case("variadic input below its minimum arity", "arity", _variadic_below_min_arity),
    Case(
        "function call with too many inputs",
        "arity",
        _function_call_too_many_inputs,
        onnx_rejects=False,
        why="IR.md 'Nodes': input counts MUST satisfy the signature of the node's operator",
    ),
    Case("unknown attribute", "attribute", _unknown_attribute),
    Case("attribute of the wrong type", "attribute", _attribute_of_wrong_type),
    Case("required attribute missing", "attribute", _required_attribute_missing),
    Case("attribute given twice", "attribute", _attribute_twice),
    Case("attribute of a function call given twice", "attribute", _custom_attribute_twice),
    Case(
        "ref_attr_name in the main graph",
        "attribute",
        _reference_outside_function,
        onnx_rejects=False,
        why="onnx.proto AttributeProto.ref_attr_name: invalid to be used in the main graph",
    ),
    Case("reference to no function attribute", "attribute", _reference_to_unknown_attribute),
    Case(
        "function call with an unknown attribute",
        "attribute",
        _function_call_unknown_attribute,
        onnx_rejects=False,
        why="IR.md 'Nodes': attributes MUST satisfy the signature of the node's operator",
    ),
    Case("input type outside the constraint", "type-constraint", _input_type_not_allowed),
    Case("inputs of one type parameter differ", "type-constraint", _inputs_of_one_parameter_differ),
    Case("declared output type differs", "type-constraint", _declared_output_type_differs),
    Case(
        "outer value of a wrong type in a subgraph",
        "type-constraint",
        _outer_type_not_allowed_in_subgraph,
    ),
    Case("function defined twice", "function", _function_twice),
    Case("recursive function", "function", _function_recursion),
    Case("function output listed twice", "function", _function_output_twice),
    Case("function attribute listed twice", "function", _function_attribute_twice),
    Case(
        "function output produced by nothing",
        "function",
        _function_output_not_produced,
        onnx_rejects=False,
        why="IR.md 'Functions': the outputs are values the body computes",
    ),
    Case("function without a name", "function", _function_unnamed),
    Case("ir_version newer than any known", "ir-version", _ir_version_too_new),
    Case("ir_version missing", "ir-version", _ir_version_missing),
    Case(
        "ir_version older than the opsets",
        "ir-version",
        _ir_version_too_old_for_opset,
        onnx_rejects=False,
        why="ONNX's release table (onnx.helper.VERSION_TABLE) ties each opset to an IR version",
    ),
    Case("initializer not an input at IR 3", "ir-version", _initializer_not_an_input_at_ir3),
    Case("INT attribute with its value in floats", "attribute-value", _int_attribute_in_floats),
    Case("attribute without a type", "attribute-value", _attribute_without_type),
    Case("initializer raw_data shorter than dims", "tensor-data", _initializer_raw_data_short),
    Case("Constant value with too few floats", "tensor-data", _constant_float_data_short),
    Case("external tensor without location", "tensor-data", _external_without_location),
    Case("sparse index outside dims", "sparse-tensor", _sparse_index_out_of_range),
    Case(
        "initializer of another type than its input",
        "initializer",
        _initializer_type_differs_from_input,
    ),
    Case("If branch with more outputs than the node", "subgraph", _if_branch_with_extra_output),
    Case("negative dimension in an input type", "proto", _negative_dim_in_input_type),
]


@pytest.mark.parametrize(
    ("breaks", "message"),
    [
        (
            _int_attribute_in_floats,
            "[attribute-value] attribute 'axis' is declared INT, whose value belongs in 'i', "
            "but holds a value in 'floats'",
        ),
        (
            _initializer_raw_data_short,
            "[tensor-data] tensor 'W' has 32 bytes of raw_data; dims [3, 3] of FLOAT need 36",
        ),
        (
            _sparse_index_out_of_range,
            "[sparse-tensor] sparse tensor 'sp': index 9 (entry 1) is outside [0, 5]",
        ),
        (
            _if_branch_with_extra_output,
            "[subgraph] attribute 'then_branch' has 2 outputs, the node implies 1",
        ),
    ],
)
def test_storage_messages_say_expected_and_found(breaks: Callable, message: str) -> None:
    model = _fresh("helper")
    where = breaks(model)
    assert any(where in p and message in p for p in _problems(model)), _problems(model)


def _problems(model: onnx.ModelProto) -> tuple[str, ...]:
    with pytest.raises(oc.ValidationError) as info:
        oc.check(model)
    return info.value.problems


def _onnx_rejects(model: onnx.ModelProto) -> bool:
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        return True
    return False


@pytest.mark.parametrize("base", sorted(BASES))
def test_the_starting_models_are_valid(base: str) -> None:
    model = _fresh(base)
    onnx.checker.check_model(model, full_check=True)
    oc.check(model)


@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_broken_rule_is_reported(case: Case, base: str) -> None:
    model = _fresh(base)
    where = case.breaks(model)
    problems = _problems(model)
    tag = f"[{case.rule}]"
    assert any(where in p and tag in p for p in problems), (
        f"expected a {tag} problem at {where!r}, got:\n" + "\n".join(problems)
    )
    assert _onnx_rejects(model) == case.onnx_rejects, case.why or "onnx's checker accepts it"


def test_every_rule_has_a_case() -> None:
    assert {c.rule for c in CASES} == set(RULES)


def test_all_problems_are_reported_together() -> None:
    model = _fresh("helper")
    where = [
        _undefined_input(model),
        _unknown_attribute(model),
        _graph_unnamed(model),
        _function_attribute_twice(model),
        _ir_version_too_new(model),
    ]
    problems = _problems(model)
    rules = ["scope", "attribute", "graph-name", "function", "ir-version"]
    for place, rule in zip(where, rules):
        assert any(place in p and f"[{rule}]" in p for p in problems), (place, rule, problems)
    assert len(problems) == len(rules), problems


def test_the_message_lists_every_problem() -> None:
    model = _fresh("dsl")
    _unknown_operator(model)
    _output_not_produced(model)
    with pytest.raises(oc.ValidationError) as info:
        oc.check(model)
    text = str(info.value)
    assert text.startswith("model is invalid: 2 problems")
    assert all(p in text for p in info.value.problems)


def test_skip_leaves_out_named_rules_only() -> None:
    model = _fresh("helper")
    _input_without_rank(model)
    _unknown_attribute(model)
    problems = check_ir(model_from_proto(model), skip={"io-type"})
    assert [p.split("[")[-1].split("]")[0] for p in problems] == ["attribute"]
    with pytest.raises(ValueError, match="unknown rule"):
        check_ir(model_from_proto(model), skip={"no-such-rule"})


# -- valid corner cases both checkers accept -------------------------------------------------------


def _subgraph_input_named_like_outer(m: onnx.ModelProto) -> None:
    """IR.md restricts node outputs only; a body input may take an outer name."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond"], ["cond_out"]),
            helper.make_node("Neg", ["X"], ["v_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond", BOOL, []),
            helper.make_tensor_value_info("X", FLOAT, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", BOOL, []),
            helper.make_tensor_value_info("v_out", FLOAT, None),
        ],
    )
    m.graph.node.append(helper.make_node("Loop", ["", "C", "X"], ["lo"], body=body))


def _function_import_resolving_the_same(m: onnx.ModelProto) -> None:
    """onnx.proto: versions may differ if every operator of the body resolves the same."""
    fn = _function(m)
    del fn.node[:2]
    _node(fn, "Mul").input[1] = "x"
    fn.opset_import[0].version = 14  # Mul is version 14 at opsets 14 .. 21


def _reference_inside_a_function_subgraph(m: onnx.ModelProto) -> None:
    ref = helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT)
    ref.ref_attr_name = "alpha"
    constant = helper.make_node("Constant", [], ["k"])
    constant.attribute.append(ref)
    branch = helper.make_graph(
        [constant], "br", [], [helper.make_tensor_value_info("k", FLOAT, [])]
    )
    fn = _function(m)
    true = helper.make_tensor("t", BOOL, [], [True])
    fn.node.insert(0, helper.make_node("Constant", [], ["c"], value=true))
    fn.node.insert(1, helper.make_node("If", ["c"], ["a"], then_branch=branch, else_branch=branch))
    del fn.node[2]  # the Constant that produced 'a'


def _main_output_is_an_input(m: onnx.ModelProto) -> None:
    m.graph.output.append(copy.deepcopy(m.graph.input[0]))


def _optional_inputs_left_out(m: onnx.ModelProto) -> None:
    r = _relu_out(m)
    m.graph.node.append(helper.make_node("Clip", [r, "", ""], ["clip_a"]))
    m.graph.node.append(helper.make_node("Clip", [r], ["clip_b"]))


VALID = [
    _subgraph_input_named_like_outer,
    _function_import_resolving_the_same,
    _reference_inside_a_function_subgraph,
    _main_output_is_an_input,
    _optional_inputs_left_out,
]


@pytest.mark.parametrize("change", VALID, ids=[f.__name__.strip("_") for f in VALID])
def test_valid_corner_cases_pass_both_checkers(change: Callable[[onnx.ModelProto], None]) -> None:
    model = _fresh("helper")
    change(model)
    onnx.checker.check_model(model, full_check=True)
    oc.check(model)


# -- ir_version against onnx's release table --------------------------------------------------


@pytest.mark.parametrize(
    "opsets",
    [{"": 8}, {"": 9}, {"": 13}, {"": 17}, {"": 21}, {"": 28}, {"": 19, "ai.onnx.ml": 4}],
    ids=str,
)
def test_lowest_ir_version_follows_onnx_release_table(opsets: dict[str, int]) -> None:
    imports = [helper.make_opsetid(d, v) for d, v in opsets.items()]
    lowest = onnx.helper.find_min_ir_version_for(imports)
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", FLOAT, [1])],
        [helper.make_tensor_value_info("y", FLOAT, [1])],
    )
    oc.check(helper.make_model(graph, opset_imports=imports, ir_version=lowest))
    problems = _problems(helper.make_model(graph, opset_imports=imports, ir_version=lowest - 1))
    assert any("[ir-version]" in p for p in problems), problems


@pytest.mark.parametrize(
    ("elem", "ir_version"),
    [
        (TensorProto.BFLOAT16, 4),
        (TensorProto.FLOAT8E4M3FN, 9),
        (TensorProto.INT4, 10),
        (TensorProto.FLOAT4E2M1, 11),
        (TensorProto.FLOAT8E8M0, 12),
        (TensorProto.INT2, 13),
    ],
    ids=["bfloat16", "float8e4m3fn", "int4", "float4e2m1", "float8e8m0", "int2"],
)
def test_element_types_need_the_ir_version_that_added_them(elem: int, ir_version: int) -> None:
    """The IR versions are those of onnx.proto's Version enum comments."""
    graph = helper.make_graph(  # a custom operator: no type constraint, no opset IR needs
        [helper.make_node("Copy", ["x"], ["y"], domain="my.ext")],
        "g",
        [helper.make_tensor_value_info("x", elem, [2])],
        [helper.make_tensor_value_info("y", elem, [2])],
    )
    imports = [helper.make_opsetid("my.ext", 1)]
    oc.check(helper.make_model(graph, opset_imports=imports, ir_version=ir_version))
    problems = _problems(helper.make_model(graph, opset_imports=imports, ir_version=ir_version - 1))
    assert any("[ir-version]" in p and onnx.TensorProto.DataType.Name(elem) in p for p in problems)


def test_functions_need_ir_8() -> None:
    model = _fresh("helper")
    model.ir_version = 7
    problems = _problems(model)
    assert any("[ir-version]" in p and "functions need >= 8" in p for p in problems), problems


# -- every node test model is valid -----------------------------------------------------------


@cache
def _node_test_model(name: str) -> onnx.ModelProto:
    return onnx.load(node_tests_root() / name / "model.onnx")


@pytest.mark.parametrize("name", case_names())
def test_node_test_models_pass_both_checkers(name: str) -> None:
    model = _node_test_model(name)
    onnx.checker.check_model(model)  # the oracle: onnx calls them valid
    problems = check_ir(model_from_proto(model))
    assert not problems, "\n".join(problems)


# -- never crash; never more lenient than onnx's structural checker ------------------------------

_MUTATIONS = ("rename_input", "rename_output", "drop_node", "swap_nodes", "retype", "op_type")


def _mutate(model: onnx.ModelProto, kind: str, pick: int, names: list[str]) -> None:
    nodes = model.graph.node
    node = nodes[pick % len(nodes)]
    if kind == "rename_input" and node.input:
        node.input[pick % len(node.input)] = names[pick % len(names)]
    elif kind == "rename_output":
        node.output[pick % len(node.output)] = names[pick % len(names)]
    elif kind == "drop_node":
        del nodes[pick % len(nodes)]
    elif kind == "swap_nodes":
        other = (pick + 1) % len(nodes)
        a, b = copy.deepcopy(node), copy.deepcopy(nodes[other])
        node.CopyFrom(b)
        nodes[other].CopyFrom(a)
    elif kind == "retype":
        value = model.graph.input[pick % len(model.graph.input)]
        value.type.tensor_type.elem_type = [FLOAT, BOOL, TensorProto.INT64, 0][pick % 4]
    elif kind == "op_type":
        node.op_type = ["Relu", "Add", "Cast", "Scale", "If", "Nope"][pick % 6]


@settings(max_examples=60, deadline=None)
@given(
    base=st.sampled_from(sorted(BASES)),
    steps=st.lists(
        st.tuples(st.sampled_from(_MUTATIONS), st.integers(0, 50)), min_size=1, max_size=3
    ),
)
def test_random_breakage_never_crashes_and_onnx_rejects_imply_we_do(
    base: str, steps: list[tuple[str, int]]
) -> None:
    model = _fresh(base)
    names = ["X", "C", "nowhere", *(o for n in model.graph.node for o in n.output)]
    for kind, pick in steps:
        if model.graph.node:
            _mutate(model, kind, pick, names)
    try:
        onnx.checker.check_model(model)
        onnx_ok = True
    except onnx.checker.ValidationError:
        onnx_ok = False
    try:
        oc.check(model)
        ours_ok = True
    except oc.ValidationError:
        ours_ok = False
    assert onnx_ok or not ours_ok, "onnx's checker rejects a model oc.check accepts"


def test_external_data_of_the_wrong_size_is_reported(tmp_path: Path) -> None:
    """onnx.proto: external data holds the tensor's bytes; read from a file, a length that
    contradicts the dims is a [tensor-data] problem (onnx's checker does not look)."""
    model = _fresh("helper")
    onnx.save_model(model, tmp_path / "m.onnx", save_as_external_data=True, size_threshold=0)
    saved = onnx.load(tmp_path / "m.onnx", load_external_data=False)
    entries = saved.graph.initializer[0].external_data
    lengths = [e for e in entries if e.key == "length"]
    if lengths:
        lengths[0].value = "32"
    else:
        entries.add(key="length", value="32")
    onnx.save_model(saved, tmp_path / "m.onnx")
    with pytest.raises(oc.ValidationError) as info:
        oc.check(tmp_path / "m.onnx")
    expected = (
        "graph initializer 'W': [tensor-data] tensor 'W' has 32 bytes of external data; "
        "dims [3, 3] of FLOAT need 36"
    )
    assert expected in info.value.problems
