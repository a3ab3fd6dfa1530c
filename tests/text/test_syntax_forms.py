"""Forms of the syntax that onnx's printer does not write but its parser reads (comments,
initializers in the input list, attributes without types, attributes after the inputs ...):
onnxcraft's parser reads each text to the same model as onnx's parser (the oracle)."""

from __future__ import annotations

import onnx.parser
import pytest

import onnxcraft as oc
from tests.text.normal_form import normal_form

HEADER = '<ir_version: 10, opset_import: ["" : 21, "my.ops" : 1]>\n'
TEXTS = {
    "comments": HEADER + "g (float[2] x) => (float[2] y) # the signature\n{\n  # a node\n"
    "  y = Neg (x) # negate\n}",
    "initializer in the inputs": HEADER
    + "g (float[2] x, float[2] w = {1.5, -2}) => (float[2] y) { y = Add (x, w) }",
    "untyped attributes": HEADER
    + "g (float[2] x) => (float[2] y) {\n"
    + '  y = my.ops.Op <i = 1, f = 0.5, s = "text", ints = [1, 2], floats = [1.5, 2.5],'
    + ' strs = ["a", "b"], nan_value = nan, t = int64[2] {3, 4}, ty = seq(float[N])> (x)\n}',
    "attributes after the inputs": HEADER
    + "g (float[2] x) => (float[2] y) { y = Flatten (x) <axis: int = 0> }",
    "scalar and unknown rank": HEADER
    + "g (float s, float[] u, float[?, N, 3] d) => (float y) { y = Identity (s) }",
    "value info and initializers mixed": HEADER
    + "g (float[2] x) => (float[2] y)\n"
    + "<float[2] t, int64[1] k = {7}, float[2] w = {0.25, 0.5}>\n"
    + "{ t = Mul (x, w)\n y = Identity (t) }",
    "float words and signs": HEADER
    + "g () => (float[5] y) <float[5] c = {inf, -inf, -0.0, 1e-3, 2.5E+2}> "
    + "{ y = Identity (c) }",
    "node names and empty names": HEADER
    + 'g (float[2] x) => (float[2] y) { [first] y, "" = my.ops.Op (x, "") }',
    "a function": HEADER
    + "g (float[2] x) => (float[2] y) { y = my.ops.Twice <k: int = 2> (x) }\n"
    + '<domain: "my.ops", opset_import: ["" : 21]>\n'
    + "Twice <k> (a) => (b) { c = Add (a, a) b = Identity (c) }",
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_reads_as_onnx_reads(name: str) -> None:
    text = TEXTS[name]
    assert normal_form(oc.parse(text)) == normal_form(onnx.parser.parse_model(text))
