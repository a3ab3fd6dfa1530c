"""Pausing Python's cyclic garbage collector while a model's objects are made in bulk.

Building, reading or inferring a model of 100k nodes allocates millions of objects that all
stay alive until the step ends. Each allocation burst triggers collections, and the full ones
walk every live object of the process: at 10k nodes and more they cost about as much as the
work itself, and they free nothing, since the objects are in use. Reference counting still
frees everything that is dropped while paused; cycles made meanwhile wait for the next
collection after the step.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off, restoring its state afterwards (a caller
    that had it off keeps it off; nested pauses are no-ops)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
