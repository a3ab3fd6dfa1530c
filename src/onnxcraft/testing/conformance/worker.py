"""Running cases in a child process, so that a backend's crash or hang costs one case.

One child serves many cases (starting a process per case would dominate the run time); when
it dies (a segfault, an abort, a floating point trap) or does not answer within the timeout,
the case is reported as a crash and a fresh child serves the next one.
"""

from __future__ import annotations

import contextlib
import faulthandler
import multiprocessing
import pickle
import signal
import warnings
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from onnxcraft.dtypes import as_representation
from onnxcraft.testing.conformance.backend import Backend

__all__ = ["Outcome", "Worker"]


@dataclass(frozen=True)
class Outcome:
    """What the backend did with one case: ``kind`` is "ran" (``outputs`` in the order of the
    graph's outputs), "refused" (``message`` from its exception) or "crashed"."""

    kind: str
    outputs: tuple[Any, ...] = ()
    message: str = ""


def _context() -> Any:
    # fork is fast and needs nothing pickled; spawn where the platform has no fork
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


class Worker:
    """A child process running ``backend`` on one case at a time."""

    def __init__(self, backend: Backend, *, timeout: float = 20.0) -> None:
        self.backend = backend
        self.timeout = timeout
        self._process: Any = None
        self._connection: Connection | None = None

    def run(self, model: bytes, feeds: dict[str, Any], outputs: tuple[str, ...]) -> Outcome:
        """The backend's outcome on ``model`` with ``feeds`` (output names in order)."""
        connection = self._ensure()
        try:
            connection.send((model, feeds, outputs))
        except (BrokenPipeError, OSError):
            return self._died("the child process was gone before the case was sent")
        if not connection.poll(self.timeout):
            self.close()
            return Outcome("crashed", message=f"timeout: no answer within {self.timeout:g} s")
        try:
            kind, values, message = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):
            return self._died("")
        return Outcome(kind, tuple(as_representation_deep(v) for v in values), message)

    def _died(self, note: str) -> Outcome:
        process = self._process
        self._process, self._connection = None, None
        if process is not None:
            process.join(5)
            code = process.exitcode
        else:
            code = None
        if code is not None and code < 0:
            try:
                what = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                what = f"killed by signal {-code}"
        else:
            what = f"exited with code {code}"
        return Outcome("crashed", message=f"process {what}{': ' + note if note else ''}")

    def _ensure(self) -> Connection:
        if self._process is not None and self._process.is_alive() and self._connection:
            return self._connection
        self.close()
        context = _context()
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(self.backend, child), daemon=True)
        process.start()
        child.close()
        self._process, self._connection = process, parent
        connection: Connection = parent
        return connection

    def close(self) -> None:
        """Stop the child process (killed if it does not stop by itself)."""
        process, connection = self._process, self._connection
        self._process, self._connection = None, None
        if connection is not None:
            with contextlib.suppress(BrokenPipeError, OSError):
                connection.send(None)
            connection.close()
        if process is not None:
            process.join(1)
            if process.is_alive():
                process.kill()
                process.join(5)

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def as_representation_deep(value: Any) -> Any:
    """A backend's output in onnxcraft's representation (ml_dtypes arrays viewed as its
    structured dtypes, inside sequences and maps too)."""
    if isinstance(value, list):
        return [as_representation_deep(v) for v in value]
    if isinstance(value, dict):
        return {k: as_representation_deep(v) for k, v in value.items()}
    return as_representation(value)


def _serve(backend: Backend, connection: Connection) -> None:
    """The child's loop: run each case sent, answer (kind, outputs, message)."""
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    faulthandler.disable()  # a crash is reported by the parent, not dumped here
    while True:
        try:
            item = connection.recv()
        except (EOFError, OSError):
            return
        if item is None:
            return
        model, feeds, names = item
        answer = _run_one(backend, model, feeds, names)
        try:
            message = pickle.dumps(answer)
        except Exception as exc:  # outputs of a type that cannot be sent back
            message = pickle.dumps(
                ("refused", [], f"run: outputs of an unknown kind: {type(exc).__name__}: {exc}")
            )
        connection.send_bytes(message)


def _run_one(
    backend: Backend, model: bytes, feeds: dict[str, Any], names: tuple[str, ...]
) -> tuple[str, list[Any], str]:
    try:
        run = backend.prepare(model)
    except Exception as exc:  # any exception of the backend is its refusal
        return ("refused", [], f"prepare: {type(exc).__name__}: {exc}")
    try:
        got = run(feeds)
    except Exception as exc:
        return ("refused", [], f"run: {type(exc).__name__}: {exc}")
    try:
        values = [got[n] for n in names] if isinstance(got, dict) else list(got)
    except (KeyError, TypeError) as exc:
        return ("refused", [], f"run: the outputs are not a list or a dict by name: {exc}")
    return ("ran", values, "")
