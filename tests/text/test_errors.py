"""Malformed text raises TextSyntaxError giving the line and column (from 1), what the grammar
expects there and what the text holds."""

from __future__ import annotations

import pickle

import pytest

import onnxcraft as oc

CASES = [
    # (text, line, column, expected (a part of), found)
    ("g (float[2] X) (float[2] Y) {\n}", 1, 16, "'=>'", "'('"),
    (
        '<ir_version: 10, opset: ["" : 21]>\ng () => () {}',
        1,
        18,
        "a model header key",
        "identifier 'opset'",
    ),
    (
        "g () => (float[3] w)\n   <float[3] w = {1, 2}>\n{\n}",
        2,
        18,
        "3 values for float[3]",
        "2 values",
    ),
    (
        'g () => ()\n{\n   y = Foo <s: string = "abc>\n}',
        3,
        25,
        "closed by '\"'",
        "an unclosed string",
    ),
    (
        "g (float X) => (float Y)\n{\n   Y = Relu (X\n   Z = Neg (Y)\n}",
        4,
        4,
        "',' or ')'",
        "identifier 'Z'",
    ),
    (
        "g (float X) => (float Y)\n{\n   Y = Flatten <axis: int = 1.5> (X)\n}",
        3,
        29,
        "a value of type int",
        "a float value (number '1.5')",
    ),
    (
        "g () => ()\n   <int8[2] w = {1, 300}>\n{\n}",
        2,
        17,
        "values of int8",
        "the value 300, outside -128..127",
    ),
    ("g () => ()\n   <float[2] w = {1, x}>\n{\n}", 2, 22, "a number, inf or nan", "identifier 'x'"),
    (
        "g () => ()\n{\n   y = Foo <n: number = 1> ()\n}",
        3,
        16,
        "an attribute type",
        "identifier 'number'",
    ),
    ("g () => () {}\ntrailing", 2, 9, "'(' and the function's values", "the end of the text"),
]


@pytest.mark.parametrize(("text", "line", "column", "expected", "found"), CASES)
def test_malformed_text(text: str, line: int, column: int, expected: str, found: str) -> None:
    with pytest.raises(oc.TextSyntaxError) as info:
        oc.parse(text)
    error = info.value
    assert (error.line, error.column, error.found) == (line, column, found)
    assert expected in error.expected
    assert str(error).startswith(f"line {line}, column {column}: expected ")
    # the message shows the line with a caret under the column
    shown, caret = str(error).splitlines()[1:3]
    assert shown.strip() == text.splitlines()[line - 1].strip()
    assert caret.index("^") - 4 == column - 1


def test_error_is_an_onnxcraft_error_and_pickles() -> None:
    with pytest.raises(oc.OnnxcraftError) as info:
        oc.parse_node("y = Add (a, b")
    assert isinstance(info.value, ValueError)
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.line, copy.column, copy.expected, copy.found) == (
        1,
        14,
        info.value.expected,
        "the end of the text",
    )


def test_not_text() -> None:
    with pytest.raises(oc.TextSyntaxError, match="expected the text as a str, found bytes"):
        oc.parse(b"g () => () {}")  # type: ignore[arg-type]


def test_wrong_value_kinds() -> None:
    with pytest.raises(oc.TextSyntaxError, match="a declared type for an empty list"):
        oc.parse_node("y = Foo <a = []> ()")
    with pytest.raises(oc.TextSyntaxError, match="values of one type in the list"):
        oc.parse_node('y = Foo <a = [1, "s"]> ()')
    with pytest.raises(oc.TextSyntaxError, match="numeric dims"):
        oc.parse_graph("g () => () <float[N] w = {1}> {}")
    with pytest.raises(oc.TextSyntaxError, match="opaque types are not supported"):
        oc.parse_graph("g (opaque(x) a) => () {}")


def test_a_long_line_is_shown_around_the_column() -> None:
    values = ", ".join(["1.5"] * 400)
    text = f"g () => () <float[401] w = {{{values}, oops}}> {{}}"
    with pytest.raises(oc.TextSyntaxError) as info:
        oc.parse(text)
    error = info.value
    assert error.column == text.index("oops") + 1
    shown, caret = str(error).splitlines()[1:3]
    assert len(shown) <= 4 + 160
    assert shown[caret.index("^") : caret.index("^") + 4] == "oops"


def test_names_are_quoted_where_they_could_be_read_as_something_else() -> None:
    from onnxcraft import ir

    node = ir.Node(
        "Foo",
        ["float", "a b", ""],
        ["nan"],
        "my.ops",
        attributes=[ir.Attribute("seq", "INT", 1), ir.Attribute("x-y", "INT", 2)],
    )
    text = oc.to_text(node)
    assert text == '"nan" = my.ops.Foo <seq: int = 1, "x-y": int = 2> ("float", "a b", "")'
    back = oc.parse_node(text)
    assert (back.inputs, back.outputs) == (["float", "a b", ""], ["nan"])
    assert [(a.name, a.value) for a in back.attributes] == [("seq", 1), ("x-y", 2)]
