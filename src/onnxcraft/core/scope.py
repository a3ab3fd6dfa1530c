"""Tracing scopes: which subgraph body a Node or Var is being created in.

The top level is scope 0. Tracing a body (an If branch, a Loop body, a function) pushes a fresh
scope id; Nodes record the id they were created under, which is how ``build`` tells a body's own
nodes from values it captures from enclosing scopes.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["current_scope", "new_scope", "in_function_body"]

_ids = itertools.count(1)


class _State(threading.local):
    def __init__(self) -> None:
        self.stack: list[int] = [0]
        self.function_depth = 0


_state = _State()


def current_scope() -> int:
    return _state.stack[-1]


def in_function_body() -> bool:
    """True while tracing a FunctionProto body (literals become Constant nodes there)."""
    return _state.function_depth > 0


@contextmanager
def new_scope(*, function: bool = False) -> Iterator[int]:
    scope = next(_ids)
    _state.stack.append(scope)
    if function:
        _state.function_depth += 1
    try:
        yield scope
    finally:
        _state.stack.pop()
        if function:
            _state.function_depth -= 1
