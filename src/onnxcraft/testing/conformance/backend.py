"""The runtime under test: the :class:`Backend` protocol and onnxcraft's own evaluator as one.

A backend loads a model (``prepare``, given the serialized ModelProto) and runs it on feeds
(the prepared callable, returning the outputs in the order of the graph's outputs, or as a dict
by name). A backend refuses a model or a run by raising: any exception of ``prepare`` or of the
run is reported as a refusal with its message; a crash or a hang of the process is reported as
a crash (each case runs in a child process). ``profile`` says what the runtime accepts and
``representation`` how it takes values of the types numpy lacks ("ml_dtypes" or
"onnxcraft", see :func:`onnxcraft.testing.examples.backend_value`).

Wrapping a runtime of your own takes a few lines::

    class MyRuntime:
        name = "myruntime"
        representation = "ml_dtypes"
        profile = Profile(ir_version=10, opsets={"": 21})

        def prepare(self, model: bytes):
            session = myruntime.load(model)
            return lambda feeds: session.run(feeds)

The backend object is handed to the child process (pickled where processes are spawned), so
create sessions in ``prepare``, not in ``__init__``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from onnxcraft.evaluate.evaluator import Evaluator
from onnxcraft.testing.profile import Profile

__all__ = ["Backend", "OnnxcraftBackend", "Prepared"]

Prepared = Callable[[dict[str, Any]], Sequence[Any] | Mapping[str, Any]]


@runtime_checkable
class Backend(Protocol):
    """A runtime the conformance runner can test."""

    @property
    def name(self) -> str: ...

    @property
    def profile(self) -> Profile: ...

    @property
    def representation(self) -> str: ...

    def prepare(self, model: bytes) -> Prepared:
        """Load ``model``; raise to refuse it. The result runs it on a dict of feeds."""
        ...


class OnnxcraftBackend:
    """onnxcraft's evaluator as a backend: the runner against it must find every case agree."""

    name = "onnxcraft"
    representation = "onnxcraft"

    def __init__(self, profile: Profile | None = None) -> None:
        self.profile = profile if profile is not None else Profile()

    def prepare(self, model: bytes) -> Prepared:
        evaluator = Evaluator(model)
        return evaluator.run
