"""Running a test's work in several threads at once (an evaluator shared between them)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np


def run_in_threads(work: Callable[[int], None], count: int) -> None:
    """``work(0)`` ... ``work(count - 1)``, each in a thread of its own, all started before
    any is waited for."""
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def disagreements_in_threads(
    evaluator: Any,
    feeds: list[dict[str, np.ndarray]],
    expected: list[np.ndarray],
    *,
    output: str = "Y",
    rounds: int = 20,
    relative: float = 1e-5,
) -> list[int]:
    """The indices of the feeds whose ``output`` ``evaluator`` got wrong (another shape, or
    further than ``relative`` times the largest expected value) in any of ``rounds`` runs,
    each feed run in a thread of its own, all at once."""
    failures: list[int] = []

    def work(index: int) -> None:
        for _ in range(rounds):
            got = evaluator.run(feeds[index])[output]
            want = expected[index]
            if got.shape != want.shape or np.abs(got - want).max() > relative * np.abs(want).max():
                failures.append(index)

    run_in_threads(work, len(feeds))
    return failures
