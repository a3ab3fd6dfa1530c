"""Head arithmetic of the attention operators, computed alike by the rules and the kernels.

A 3-D Q, K or V packs its heads in the last dim (``heads * head_size``); with grouped-query
attention each key/value head serves a group of ``q_heads / kv_heads`` query heads. Attention,
LinearAttention and FlexAttention use these, rules and kernels alike; each side words its own
error when a count does not divide.
"""

from __future__ import annotations

__all__ = ["head_size", "query_group"]


def head_size(hidden: int, heads: int) -> int | None:
    """The size of each of ``heads`` heads packed in a ``hidden`` dim, or None when ``heads``
    does not divide it."""
    if hidden % heads:
        return None
    return hidden // heads


def query_group(q_heads: int, kv_heads: int) -> int | None:
    """How many query heads share each key/value head, or None when they do not come in whole
    groups (no key/value head at all included)."""
    if kv_heads == 0 or q_heads % kv_heads:
        return None
    return q_heads // kv_heads
