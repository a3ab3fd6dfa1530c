"""The reference of a user's own spec folder: the same pages, with examples evaluated through
the user's kernel (or printed unevaluated when the operator has none), by the command line
and as a site."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import onnxcraft as oc
from onnxcraft import docgen
from onnxcraft.docgen.__main__ import main
from onnxcraft.errors import SpecError
from onnxcraft.specs.registry import default_registry
from onnxcraft.testing.spec_examples import record_file

REPO = Path(__file__).resolve().parents[2]
DOMAIN = "com.example.docgen"

KERNELS = f'''
import numpy as np
import onnxcraft as oc


def scaled_tanh(x, *, alpha=1.0, shape="smooth"):
    y = np.tanh(x) if shape == "smooth" else np.clip(x, -1.0, 1.0)
    return (np.float32(alpha) * y).astype(x.dtype)


oc.register_kernel("{DOMAIN}", "ScaledTanh", 1, scaled_tanh)
'''


def _formal(name: str, text: str) -> dict[str, Any]:
    return {"name": name, "type": "T", "description": text}


SCALED_TANH = {
    "domain": DOMAIN,
    "name": "ScaledTanh",
    "summary": "alpha * tanh(x), or a hard clip to [-1, 1] scaled by alpha.",
    "versions": [
        {
            "since_version": 1,
            "inputs": [_formal("X", "The values to squash, of any shape.")],
            "outputs": [_formal("Y", "The squashed values, of the shape of X.")],
            "type_constraints": [{"name": "T", "allowed": ["tensor(float)"]}],
            "attributes": [
                {
                    "name": "alpha",
                    "type": "FLOAT",
                    "default": 1.0,
                    "description": "The height of the two plateaus the output tends to.",
                },
                {
                    "name": "shape",
                    "type": "STRING",
                    "default": "smooth",
                    "description": "Which curve joins the plateaus.",
                    "values": [
                        {"value": "smooth", "meaning": "The hyperbolic tangent."},
                        {"value": "hard", "meaning": "A straight ramp between -1 and 1."},
                    ],
                },
            ],
            "examples": [
                {
                    "title": "A hard ramp, scaled by two.",
                    "inputs": {"X": {"dtype": "float32", "values": [-3.0, -0.5, 0.0, 0.5, 3.0]}},
                    "attributes": {"alpha": 2.0, "shape": "hard"},
                }
            ],
        }
    ],
}
MYSTERY = {
    "domain": DOMAIN,
    "name": "Mystery",
    "summary": "An operator whose kernel lives in another runtime.",
    "versions": [
        {
            "since_version": 1,
            "inputs": [
                _formal("A", "The first operand, broadcast against B."),
                _formal("B", "The second operand, broadcast against A."),
            ],
            "outputs": [_formal("C", "The result, of the broadcast shape of A and B.")],
            "type_constraints": [{"name": "T", "allowed": ["tensor(float)"]}],
            "examples": [
                {
                    "title": "Two vectors.",
                    "inputs": {
                        "A": {"dtype": "float32", "values": [1.0, 2.0]},
                        "B": {"dtype": "float32", "values": [3.0, 4.0]},
                    },
                }
            ],
        }
    ],
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("user")
    specs = root / "my_specs" / DOMAIN
    specs.mkdir(parents=True)
    for spec in (SCALED_TANH, MYSTERY):
        (specs / f"{spec['name']}.json").write_text(json.dumps(spec, indent=2) + "\n")
    (root / "my_kernels.py").write_text(KERNELS)
    runpy.run_path(str(root / "my_kernels.py"))  # this process's evaluator knows ScaledTanh
    default_registry().add_folder(root / "my_specs")
    assert record_file(specs / "ScaledTanh.json") == []
    yield root
    default_registry().remove_folder(root / "my_specs")


def test_the_pages_of_a_user_folder(folder: Path) -> None:
    pages = docgen.generate(folder / "my_specs")
    assert set(pages) == {
        "README.md",
        f"{DOMAIN}/ScaledTanh.md",
        f"{DOMAIN}/Mystery.md",
        f"{DOMAIN}/plots/ScaledTanh.svg",
    }
    page = pages[f"{DOMAIN}/ScaledTanh.md"]
    assert "| `X` | `T` | single | The values to squash, of any shape. |" in page
    assert "| `'hard'` | A straight ramp between -1 and 1. |" in page
    assert "ops = oc.load_opset('my_specs', domain='com.example.docgen')" in page
    # evaluated through the user's kernel: 2 * clip(x, -1, 1)
    assert 'Y = ops.ScaledTanh(X, alpha=2.0, shape="hard")' in page
    assert "Y: float32 (5,)\n[-2., -1.,  0.,  1.,  2.]" in page
    assert "![ScaledTanh(x)](plots/ScaledTanh.svg)" in page
    assert "(alpha=1.0, shape='smooth')" in page  # the plot's attributes are the defaults
    mystery = pages[f"{DOMAIN}/Mystery.md"]
    assert "Not evaluated: no kernel is registered for this operator" in mystery
    assert "C = ops.Mystery(A, B)" in mystery
    assert "[ScaledTanh](com.example.docgen/ScaledTanh.md)" in pages["README.md"]
    assert "`my_specs/`" in pages["README.md"]


def test_the_command_line_writes_and_checks_the_pages(folder: Path, tmp_path: Path) -> None:
    specs, out = folder / "my_specs", tmp_path / "my_docs"
    command = [sys.executable, "-m", "onnxcraft.docgen", "--specs", str(specs)]
    kernels = ["--kernels", str(folder / "my_kernels.py")]
    done = subprocess.run(
        [*command, "--out", str(out), *kernels],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "4 operator pages generated" in done.stdout
    assert (out / DOMAIN / "plots" / "ScaledTanh.svg").is_file()
    assert "Y: float32 (5,)" in (out / DOMAIN / "ScaledTanh.md").read_text()
    fresh = subprocess.run(
        [*command, "--out", str(out), "--check", *kernels],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert fresh.returncode == 0, fresh.stderr
    # without the kernel, the examples are printed as written and the pages differ
    unevaluated = subprocess.run(
        [*command, "--out", str(out), "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert unevaluated.returncode == 1
    assert f"{DOMAIN}/ScaledTanh.md" in unevaluated.stderr


def test_a_site_of_the_user_reference(folder: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert main(["--specs", str(folder / "my_specs"), "--site", str(site)]) == 0
    page = (site / "operators" / DOMAIN / "ScaledTanh.html").read_text()
    assert "A straight ramp between -1 and 1." in page
    assert (site / "operators" / DOMAIN / "plots" / "ScaledTanh.svg").is_file()


def test_bad_arguments_are_reported(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--specs", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")]) == 1
    assert "is not a folder" in capsys.readouterr().err
    assert (
        main(
            [
                "--specs",
                str(folder / "my_specs"),
                "--out",
                str(tmp_path / "o"),
                "--kernels",
                str(tmp_path / "missing.py"),
            ]
        )
        == 1
    )
    assert "--kernels" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--specs", str(folder / "my_specs")])
    assert "--specs needs --out" in capsys.readouterr().err


def test_every_failing_example_is_reported_at_once(folder: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken_specs" / "com.example.broken"
    broken.mkdir(parents=True)
    for name in ("Relu1", "Relu2"):
        spec = json.loads((folder / "my_specs" / DOMAIN / "ScaledTanh.json").read_text())
        spec["domain"], spec["name"] = "com.example.broken", name
        spec["versions"][0]["examples"][0]["outputs"] = {
            "Y": {"dtype": "float32", "values": [0.0, 0.0, 0.0, 0.0, 0.0]}
        }
        (broken / f"{name}.json").write_text(json.dumps(spec))

    def kernel(x: Any, *, alpha: float = 1.0, shape: str = "smooth") -> Any:
        return (x * 0 + 1).astype(x.dtype)  # never the recorded zeros

    for name in ("Relu1", "Relu2"):
        oc.register_kernel("com.example.broken", name, 1, kernel)
    try:
        with pytest.raises(SpecError, match="the examples of 2 operators fail") as caught:
            docgen.generate(broken.parent)
        message = str(caught.value)
        assert "com.example.broken::Relu1-1 example 1" in message
        assert "com.example.broken::Relu2-1 example 1" in message
        assert "but the spec records" in message
    finally:
        default_registry().remove_folder(broken.parent)
