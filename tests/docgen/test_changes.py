"""The changes a version page states, computed from the real specs of consecutive versions."""

from __future__ import annotations

import dataclasses

from onnxcraft import specs
from onnxcraft.docgen.changes import changes_between
from onnxcraft.specs.model import AllowedValue, AxisBound


def _changes(op: str, before: int, after: int, domain: str = "") -> list[str]:
    return changes_between(specs.get(op, domain, before), specs.get(op, domain, after))


def test_clip_6_to_11_moves_min_and_max_from_attributes_to_inputs() -> None:
    assert _changes("Clip", 6, 11) == [
        "attributes `max`, `min` removed",
        "inputs `min` (optional), `max` (optional) added",
    ]


def test_cast_19_to_21_lists_the_added_types() -> None:
    assert _changes("Cast", 19, 21) == [
        "`T1` widened with `tensor(uint4)`, `tensor(int4)`",
        "`T2` widened with `tensor(uint4)`, `tensor(int4)`",
    ]


def test_a_new_default_and_a_new_type() -> None:
    assert _changes("Softmax", 11, 13) == [
        "attribute `axis`: default `1` became default `-1`",
        "`T` widened with `tensor(bfloat16)`",
    ]


def test_a_new_optional_input_and_its_type_constraint() -> None:
    assert _changes("Pad", 13, 18) == [
        "input `axes` (optional) added",
        "type constraint `Tind` added: `tensor(int32)`, `tensor(int64)`",
    ]


def test_an_attribute_retyped_and_a_narrowed_constraint() -> None:
    assert "attribute `p` is retyped from FLOAT to INT" in _changes("LpPool", 1, 2)
    assert "`T1` narrowed: `tensor(bool)` no longer allowed" in _changes("Dropout", 10, 12)


def test_attributes_that_became_required_and_inputs_retyped() -> None:
    assert "attribute `axis`: no default became required" in _changes("Concat", 1, 4)
    assert "input `scale` is typed `T1` (was `T`)" in _changes("BatchNormalization", 14, 15)


def test_a_version_with_the_same_signature_states_nothing() -> None:
    spec = specs.get("Relu", "", 14)
    assert changes_between(spec, dataclasses.replace(spec, since_version=15)) == []


def test_enumerated_values_and_axis_bounds() -> None:
    before = specs.get("Resize", "", 13)
    mode = next(a for a in before.attributes if a.name == "mode")
    old = dataclasses.replace(mode, values=(AllowedValue("nearest"), AllowedValue("linear")))
    new = dataclasses.replace(
        mode, values=(AllowedValue("nearest"), AllowedValue("linear"), AllowedValue("cubic"))
    )
    others = tuple(a for a in before.attributes if a.name != "mode")
    a = dataclasses.replace(before, attributes=(*others, old))
    b = dataclasses.replace(before, attributes=(*others, new))
    assert changes_between(a, b) == ["attribute `mode` accepts the new value `'cubic'`"]
    assert changes_between(b, a) == ["attribute `mode` no longer accepts `'cubic'`"]

    softmax = specs.get("Softmax", "", 13)
    axis = softmax.attributes[0]
    bounded = dataclasses.replace(axis, axis=AxisBound("input"))
    wider = dataclasses.replace(axis, axis=AxisBound("input", 1))
    x = dataclasses.replace(softmax, attributes=(bounded,))
    y = dataclasses.replace(softmax, attributes=(wider,))
    assert changes_between(x, y) == [f"attribute `axis` is now {AxisBound('input', 1).describe()}"]
