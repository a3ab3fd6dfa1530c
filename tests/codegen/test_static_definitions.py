"""Every name of every generated opset module is a ``def`` of that version's signature.

Read statically (``ast``, as an IDE's jump-to-definition, mypy or pyright read it), a module of
opset N defines each operator valid at N itself, with the parameters of the operator's version
in force at N and its docstring; nothing is re-exported from another opset module.
"""

from __future__ import annotations

import ast

import pytest

from onnxcraft import specs
from onnxcraft.codegen.generator import python_name
from onnxcraft.specs.model import OpSpec
from tests.codegen._generated import definitions, modules, parsed

SAMPLE = [
    ("", 1, "Cast"),
    ("", 21, "Cast"),
    ("", 24, "Cast"),
    ("", 10, "TopK"),
    ("", 21, "TopK"),
    ("", 13, "Split"),
    ("", 18, "Split"),
    ("", 21, "Concat"),
    ("", 16, "Loop"),
    ("", 21, "Pad"),
    ("", 2, "Pad"),
    ("ai.onnx.ml", 5, "TreeEnsemble"),
    ("ai.onnx.ml", 1, "LabelEncoder"),
    ("ai.onnx.preview.training", 1, "Adam"),
]


def _expected(spec: OpSpec) -> tuple[list[tuple[str, bool]], str | None, list[tuple[str, bool]]]:
    """(positional inputs as (name, optional), variadic input, keyword-only (name, required))."""
    taken: set[str] = set()
    positional: list[tuple[str, bool]] = []
    variadic = None
    for p in spec.inputs:
        name = python_name(p.name, taken)
        if p.option == "variadic":
            variadic = name
        else:
            positional.append((name, p.option == "optional"))
    keywords = [(python_name(a.name, taken), a.required) for a in spec.attributes]
    if spec.outputs and spec.outputs[-1].option == "variadic":
        keywords.append((python_name("outputs_count", taken), False))
    return positional, variadic, keywords


def _actual(
    node: ast.FunctionDef,
) -> tuple[list[tuple[str, bool]], str | None, list[tuple[str, bool]]]:
    args = node.args
    ordered = [*args.posonlyargs, *args.args]
    first_default = len(ordered) - len(args.defaults)
    positional = [(a.arg, i >= first_default) for i, a in enumerate(ordered)]
    keywords = [
        (a.arg, default is not None and ast.unparse(default) == "_rt.REQUIRED")
        for a, default in zip(args.kwonlyargs, args.kw_defaults)
    ]
    return positional, args.vararg.arg if args.vararg else None, keywords


def _exported(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return []


@pytest.mark.parametrize(("domain", "opset", "name"), SAMPLE)
def test_a_sample_of_definitions_has_its_versions_parameters(
    domain: str, opset: int, name: str
) -> None:
    spec = specs.get(name, domain=domain, opset=opset)
    node = definitions(domain, opset)[name]
    assert _actual(node) == _expected(spec)
    label = domain or "ai.onnx"
    assert f"``{label}@{spec.since_version}::{name}``" in (ast.get_docstring(node) or "")
    assert spec.summary.split()[0] in (ast.get_docstring(node) or "")


def test_cast_at_21_has_no_round_mode_and_at_24_has_it() -> None:
    at_21 = {a.arg for a in definitions("", 21)["Cast"].args.kwonlyargs}
    at_24 = {a.arg for a in definitions("", 24)["Cast"].args.kwonlyargs}
    assert at_21 == {"to", "saturate"} and at_24 == {"to", "saturate", "round_mode"}
    assert "round_mode" not in (ast.get_docstring(definitions("", 21)["Cast"]) or "")


@pytest.mark.parametrize(("domain", "opset"), list(modules()))
def test_every_exported_name_is_defined_in_its_module(domain: str, opset: int) -> None:
    tree = parsed(domain, opset)
    exported = _exported(tree)
    assert sorted(exported) == sorted(specs.ops_at(domain, opset))
    defined = definitions(domain, opset)
    assert set(exported) <= set(defined), sorted(set(exported) - set(defined))
    for name in exported:
        spec = specs.get(name, domain=domain, opset=opset)
        assert _actual(defined[name]) == _expected(spec), name
    imported_opsets = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("onnxcraft.opset.ai")
    ]
    assert not imported_opsets, f"v{opset} imports {imported_opsets}"
