"""Running a test's work in several threads at once (an evaluator shared between them)."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_in_threads(work: Callable[[int], None], count: int) -> None:
    """``work(0)`` ... ``work(count - 1)``, each in a thread of its own, all started before
    any is waited for."""
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
