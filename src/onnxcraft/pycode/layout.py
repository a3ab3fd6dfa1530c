"""Laying out Python expressions within the line length ruff checks (100 columns).

An expression is an atom (text that never breaks) or a group: an opening text, items and a
closing text, as in ``op.Conv(x, w, kernel_shape=[3, 3])``. A group that does not fit on its
line puts its items on lines of their own, one level deeper, with a trailing comma (the layout
ruff's formatter and black give); a group of atoms only (the numbers of an array) fills each
line instead, so that a literal of a hundred numbers takes a few lines, not a hundred.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Expr", "Group", "LINE_LENGTH", "call", "fill", "flat", "layout", "shortened"]

LINE_LENGTH = 100
_INDENT = "    "


@dataclass(frozen=True)
class Group:
    opening: str
    items: tuple[Expr, ...]
    closing: str
    # Items that are numbers or names fill each line (a list literal); else one a line (a call)
    fill: bool = False


Expr = str | Group


def call(function: str, *items: Expr) -> Group:
    return Group(f"{function}(", tuple(items), ")")


def flat(expr: Expr) -> str:
    if isinstance(expr, str):
        return expr
    inner = ", ".join(flat(item) for item in expr.items)
    return f"{expr.opening}{inner}{expr.closing}"


def layout(expr: Expr, indent: str, prefix: str = "", suffix: str = "") -> list[str]:
    """The lines of ``prefix + expr + suffix`` starting at ``indent``, each within the limit
    where a break can make it so."""
    room = LINE_LENGTH - len(indent) - len(prefix) - len(suffix)
    if isinstance(expr, str) or not expr.items or _fits(expr, room):
        return [f"{indent}{prefix}{flat(expr)}{suffix}"]
    inner = indent + _INDENT
    lines = [f"{indent}{prefix}{expr.opening}"]
    if expr.fill and all(isinstance(item, str) for item in expr.items):
        lines.extend(_fill([str(item) for item in expr.items], inner))
    else:
        for item in expr.items:
            lines.extend(layout(item, inner, suffix=","))
    lines.append(f"{indent}{expr.closing}{suffix}")
    return lines


def _fits(expr: Expr, room: int) -> bool:
    """Whether ``flat(expr)`` takes at most ``room`` characters, found without writing it out
    (a large literal is measured only as far as the room goes)."""
    used = 0
    stack: list[Expr] = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            used += len(item)
        else:
            used += len(item.opening) + len(item.closing) + 2 * max(len(item.items) - 1, 0)
            stack.extend(item.items)
        if used > room:
            return False
    return True


def shortened(text: str, room: int) -> str:
    """``text`` cut to ``room`` characters (with "...") for a comment or a docstring."""
    return text if len(text) <= room else text[: max(room - 3, 0)] + "..."


def fill(atoms: list[str], indent: str) -> list[str]:
    """Lines of ``atoms`` separated by commas, as many on each line as fit."""
    return _fill(atoms, indent)


def _fill(atoms: list[str], indent: str) -> list[str]:
    lines: list[str] = []
    current = ""
    for atom in atoms:
        piece = f"{atom},"
        if current and len(indent) + len(current) + 1 + len(piece) > LINE_LENGTH:
            lines.append(indent + current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    if current:
        lines.append(indent + current)
    return lines
