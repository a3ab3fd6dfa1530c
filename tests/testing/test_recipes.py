"""The recipe machinery: NodeDraw binds types once, keeps attributes the version has, declares
graph inputs truthfully; the recipe table names real operators."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from onnxcraft import specs
from onnxcraft.dtypes import ElementType
from onnxcraft.testing import NodeCase, NodeDraw, node_cases
from onnxcraft.testing.recipes import EXCLUDED, recipes
from onnxcraft.types import Tensor

FAST = settings(max_examples=25, deadline=None, derandomize=True, database=None)


@FAST
@given(st.data())
def test_attrs_keep_only_what_the_version_has(data: st.DataObject) -> None:
    old = NodeDraw(data.draw, specs.get("ArgMax", opset=11))
    new = NodeDraw(data.draw, specs.get("ArgMax", opset=12))
    wanted = {"keepdims": 0, "select_last_index": st.just(1), "axis": None}
    assert old.attrs(**wanted) == {"keepdims": 0}
    assert new.attrs(**wanted) == {"keepdims": 0, "select_last_index": 1}


@FAST
@given(st.data())
def test_a_type_parameter_is_bound_once_within_the_restriction(data: st.DataObject) -> None:
    n = NodeDraw(data.draw, specs.get("Add", opset=14))
    first = n.elem("T", only={ElementType.INT8, ElementType.DOUBLE})
    assert first in (ElementType.INT8, ElementType.DOUBLE)
    assert n.elem("T") == first == n.bound("T")
    a = n.tensor(0, (2,))
    b = n.tensor(1, (3, 2))
    assert a.type == Tensor(first, (2,)) and b.type == Tensor(first, (3, 2))


@FAST
@given(st.data())
def test_an_impossible_restriction_is_an_error(data: st.DataObject) -> None:
    n = NodeDraw(data.draw, specs.get("Relu", opset=14))
    with pytest.raises(ValueError, match="no element type of 'T'"):
        n.elem("T", only={ElementType.STRING})


@FAST
@given(st.data())
def test_declared_input_types_never_contradict_the_values(data: st.DataObject) -> None:
    n = NodeDraw(data.draw, specs.get("Add", opset=14))
    shape = n.shape()
    case = n.case([n.tensor(0, shape), n.tensor(1, shape)])
    for item in case.inputs:
        assert item is not None
        declared = item.declared_type
        assert isinstance(declared, Tensor) and declared.elem_type == item.type.elem_type
        if item.constant or declared.shape is None:
            continue
        assert len(declared.shape) == np.ndim(item.value)
        for dim, actual in zip(declared.shape, np.shape(item.value)):
            assert dim in (actual, f"d{actual}", None)


@FAST
@given(st.data())
def test_outputs_default_to_the_required_ones_plus_drawn_optional_ones(
    data: st.DataObject,
) -> None:
    n = NodeDraw(data.draw, specs.get("Dropout", opset=13))
    case = n.case([n.tensor(0, (2,))])
    assert case.outputs[0] is True and len(case.outputs) in (1, 2)
    split = NodeDraw(data.draw, specs.get("Split", opset=18))
    with pytest.raises(ValueError, match="variadic output needs an explicit count"):
        split.case([split.tensor(0, (2,))])


@FAST
@given(node_cases("Concat", opset=13))
def test_node_cases_by_name_draw_that_version(case: NodeCase) -> None:
    assert (case.domain, case.op_type, case.since_version) == ("", "Concat", 13)
    assert "axis" in case.attributes


def test_node_cases_explain_an_excluded_operator() -> None:
    with pytest.raises(LookupError, match="Scatter-11 has no recipe: deprecated at its own"):
        node_cases("Scatter", opset=11)
    with pytest.raises(InvalidArgument, match="OpSpec or an op_type"):
        node_cases(42)  # type: ignore[arg-type]


def test_every_recipe_names_an_operator_of_its_domain() -> None:
    known = {(s.domain, s.name) for s in specs.schemas()}
    unknown = sorted(key for key in recipes() if key not in known)
    assert not unknown, f"recipes for operators the specs do not have: {unknown}"
    assert all(key[:2] in known for key in EXCLUDED)
