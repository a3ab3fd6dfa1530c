"""Progress of a long run on a terminal: a line on stderr saying what is running, how many
steps it has taken and for how long, redrawn at most ten times a second.

It is shown only when stderr is a terminal and only once the work has taken half a second,
so quick commands, pipes and logs never see it. The evaluator reaches it through its
``cancel`` token, which it asks ``is_set()`` between steps and loop iterations: the ticker
counts those questions and always answers no.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Progress"]

_DELAY = 0.5  # seconds of work before anything is shown
_INTERVAL = 0.1  # seconds between redraws


class Progress:
    """``with Progress() as progress: progress.stage("running m.onnx"); evaluate(...,
    cancel=progress)``."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self.started = time.monotonic()
        self.label = ""
        self.steps = 0
        self._drawn_at = 0.0
        self._width = 0

    def stage(self, label: str) -> None:
        """Start a new piece of work (its steps are counted from zero)."""
        self.label = label
        self.steps = 0
        self._draw(time.monotonic())

    def is_set(self) -> bool:
        """Count one step; never asks the run to stop (the cancel-token protocol)."""
        self.steps += 1
        if self.enabled:
            now = time.monotonic()
            if now - self._drawn_at >= _INTERVAL:
                self._draw(now)
        return False

    def _draw(self, now: float) -> None:
        elapsed = now - self.started
        if not self.enabled or elapsed < _DELAY:
            return
        steps = f", {self.steps} steps" if self.steps else ""
        text = f"onnxcraft: {self.label}{steps}, {elapsed:.1f} s"
        line = "\r" + text.ljust(self._width)
        # Known before the write: a Ctrl-C landing in the middle of it still finds the width
        # to erase (close), so "interrupted" starts a clean line.
        self._width = len(line) - 1
        self.stream.write(line)
        self.stream.flush()
        self._drawn_at = now

    def close(self) -> None:
        """Erase the line, so that what comes next starts clean."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
