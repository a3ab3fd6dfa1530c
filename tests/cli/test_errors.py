"""Bad input: one line on stderr starting ``onnxcraft: error:``, no traceback, exit status 2.

The cases the issue names (a missing file, a garbage file, a wrong input name, a bad .npy)
run through the command itself; the rest call ``main`` in this process, which is the same
code behind the same entry point, at a fraction of the cost of a process each.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import onnxcraft as oc
from onnxcraft.cli.main import main
from onnxcraft.opset.ai.onnx import v21 as op
from tests.cli.conftest import Files
from tests.cli.runner import command, environment, one_error_line, onnxcraft


def test_a_missing_model_file(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    missing = files.folder / "missing.onnx"
    result = onnxcraft("check", str(missing))
    assert result.returncode == 2
    assert one_error_line(result) == (
        f"onnxcraft: error: {missing}: cannot read the model file: No such file or directory"
    )
    for subcommand in ("info", "infer", "run", "compare"):
        assert main([subcommand, str(missing)]) == 2
        assert capsys.readouterr().err == result.stderr


def test_a_garbage_model_file(files: Files) -> None:
    garbage = files.folder / "garbage.onnx"
    garbage.write_bytes(np.random.default_rng(0).bytes(300))
    result = onnxcraft("check", str(garbage))
    assert result.returncode == 2
    assert "not a valid ONNX model" in one_error_line(result)


def test_a_wrong_input_name(files: Files) -> None:
    result = onnxcraft("run", str(files.mlp), "--input", f"Z={files.x}")
    assert result.returncode == 2
    assert one_error_line(result) == (
        f"onnxcraft: error: --input 'Z={files.x}': the model has no input 'Z'; its inputs are ['X']"
    )


def test_a_bad_npy_file(files: Files) -> None:
    bad = files.folder / "bad.npy"
    bad.write_text("not numbers")
    result = onnxcraft("compare", str(files.mlp), "--input", f"X={bad}")
    assert result.returncode == 2
    assert f"{bad}: not a .npy array file" in one_error_line(result)


def _write_pickled(path: Path) -> None:
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)


def _write_garbage_pb(path: Path) -> None:
    path.write_bytes(b"\xff\xff\xff\xff")


def _write_int_npy(path: Path) -> None:
    np.save(path, np.ones((2, 4), np.int64))


@pytest.mark.parametrize(
    ("args", "prepare", "expected"),
    [
        (["run", "{mlp}"], None, "no value for input(s) ['X']"),
        (["run", "{mlp}", "--input", "X"], None, "--input 'X': expected NAME=FILE"),
        (["run", "{mlp}", "--input", "X={x}", "--input", "X={x}"], None, "'X' is given twice"),
        (["run", "{mlp}", "--input", "X={file}"], _write_pickled, "not a .npy array file"),
        (["run", "{mlp}", "--input", "X={file}"], _write_int_npy, "expects element type float"),
        (["run", "{mlp}", "--input", "X={folder}/x.txt"], None, "expected .npy or .pb"),
        (["run", "{mlp}", "--input", "X={folder}/none.npy"], None, "No such file or directory"),
        (["run", "{mlp}", "--random", "--dim", "N=many"], None, "must be an integer"),
        (["run", "{mlp}", "--random", "--timeout", "0"], None, "timeout must be a positive"),
        (["run", "{mlp}", "--random", "-o", "{x}"], None, "exists and is not a folder"),
        (["run", "{folder}"], None, "not a regular file"),
        (["infer", "{mlp}", "-o", "{folder}/no/such/out.onnx"], None, "out.onnx"),
        (["compare", "{mlp}", "--random", "--against", "nothing"], None, "against='nothing'"),
        (["compare", "{mlp}", "--random", "--rtol", "-1"], None, "rtol must be a number >= 0"),
        (["compare", "{mlp}", "--random", "--against", "{tmp}"], _write_int_npy, "not compute"),
        (["nonsense"], None, "invalid choice: 'nonsense'"),
        (["run"], None, "the following arguments are required: MODEL"),
        (["check", "{mlp}", "--bogus"], None, "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_are_one_line(
    files: Files,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    prepare: object,
    expected: str,
) -> None:
    file = tmp_path / ("value.pb" if prepare is _write_garbage_pb else "value.npy")
    if callable(prepare):
        prepare(file)
    words = [
        a.format(mlp=files.mlp, x=files.x, folder=files.folder, file=file, tmp=tmp_path)
        for a in args
    ]
    try:
        status = main(words)
    except SystemExit as exc:  # argparse's usage errors
        status = int(exc.code or 0)
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert status == 2, captured.err
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("onnxcraft: error: ")
    assert expected in lines[0]


def test_a_garbage_pb_input(
    files: Files, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_garbage_pb(tmp_path / "x.pb")
    assert main(["run", str(files.mlp), "--input", f"X={tmp_path / 'x.pb'}"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"onnxcraft: error: {tmp_path / 'x.pb'}: ")


def _slow_model(path: Path) -> None:
    """A Loop of ten million iterations: minutes of evaluation, stopped long before."""
    x = oc.arg("x", np.float32, (1,))
    (total,) = op.Loop(
        np.array(10_000_000, np.int64), None, x, body=lambda i, c, v: [c, op.Add(v, 1.0)]
    )
    oc.save(oc.build(inputs=[x], outputs={"y": total}), path)


def _read_until(fd: int, marker: bytes, seconds: float) -> bytes:
    """What the terminal ``fd`` shows until ``marker`` appears (or the time is up)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the other end closed
                break
    return seen


def test_timeout_progress_and_interrupt(tmp_path: Path) -> None:
    slow = tmp_path / "slow.onnx"
    _slow_model(slow)
    timed = onnxcraft("run", str(slow), "--random", "--timeout", "0.5")
    assert timed.returncode == 2
    assert "timeout=0.5 s reached" in one_error_line(timed)
    # stderr a terminal: progress shows, then Ctrl-C stops the run with status 130
    terminal, stderr = pty.openpty()
    process = subprocess.Popen(
        [*command(), "run", str(slow), "--random"],
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=environment(),
    )
    os.close(stderr)
    try:
        shown = _read_until(terminal, b" steps, ", 60)
        assert f"onnxcraft: running {slow}, ".encode() in shown, shown
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
        shown += _read_until(terminal, b"interrupted", 5)
    finally:
        process.kill()
        os.close(terminal)
    assert shown.endswith(b"\ronnxcraft: interrupted\r\n"), shown
    assert b"Traceback" not in shown
