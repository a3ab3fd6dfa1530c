"""The tokens of the ONNX text syntax, read on demand from a position in the text.

The grammar (onnx's ``onnx/defs/parser.cc``) is small: identifiers, string literals with
backslash escapes, numbers, ``inf``/``nan`` words, ``=>`` and single punctuation characters;
``#`` starts a comment that runs to the end of the line. Tokens are made one at a time, so the
parser can read a long tensor literal in one step (:meth:`Lexer.scan_until`) instead of
token by token.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from onnxcraft.errors import TextSyntaxError

__all__ = ["Lexer", "Token", "IDENT", "NUMBER", "STRING", "PUNCT", "END", "describe"]

IDENT = "identifier"
NUMBER = "number"
STRING = "string"
PUNCT = "punctuation"
END = "end"

_SKIP = re.compile(r"(?:\s+|#[^\n]*)*")
_TOKEN = re.compile(
    r"(?P<identifier>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"
    r'|(?P<string>"(?:[^"\\]|\\.)*")'
    r"|(?P<punctuation>=>|\.\.\.|[()\[\]{}<>,:=@.?\-])",
    re.S,
)
_ESCAPE = re.compile(r"\\(.)", re.S)
_CONTEXT = 160  # the most of a line an error message shows


class Token(NamedTuple):
    kind: str
    text: str  # as written (a string literal with its quotes)
    start: int  # offset in the text


def _skip(text: str, pos: int) -> int:
    """The position after the white space and comments at ``pos``."""
    match = _SKIP.match(text, pos)
    return pos if match is None else match.end()  # the pattern matches the empty string too


def describe(token: Token) -> str:
    """How an error message names what it found."""
    if token.kind == END:
        return "the end of the text"
    shown = token.text if len(token.text) <= 40 else token.text[:37] + "..."
    return f"{token.kind} {shown!r}" if token.kind != PUNCT else repr(shown)


def unquote(literal: str) -> str:
    """The value of a string literal: quotes removed, ``\\x`` read as ``x`` (onnx's rule)."""
    body = literal[1:-1]
    return _ESCAPE.sub(r"\1", body) if "\\" in body else body


class Lexer:
    """Reads tokens from ``text``; ``peek`` looks at the next one, ``take`` consumes it."""

    __slots__ = ("_next", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self._next: Token | None = None

    def peek(self) -> Token:
        token = self._next
        if token is None:
            token = self._next = self._read()
        return token

    def take(self) -> Token:
        token = self.peek()
        self._next = None
        self.pos = token.start + len(token.text)
        return token

    def at(self, punct: str) -> bool:
        """Is the next token the punctuation ``punct``?"""
        token = self.peek()
        return token.kind == PUNCT and token.text == punct

    def accept(self, punct: str) -> bool:
        """Consume the punctuation ``punct`` if it comes next."""
        if self.at(punct):
            self.take()
            return True
        return False

    def expect(self, punct: str, what: str = "") -> Token:
        token = self.peek()
        if token.kind != PUNCT or token.text != punct:
            raise self.error(what or repr(punct), token)
        return self.take()

    def _read(self) -> Token:
        text = self.text
        pos = _skip(text, self.pos)
        if pos >= len(text):
            return Token(END, "", len(text))
        match = _TOKEN.match(text, pos)
        if match is None:
            if text[pos] == '"':
                raise self.error_at(pos, "a string literal closed by '\"'", "an unclosed string")
            raise self.error_at(pos, "a token", repr(text[pos]))
        kind = match.lastgroup
        assert kind is not None
        return Token(kind, match.group(), pos)

    def skip_space(self) -> int:
        """Move past white space and comments; the position of what follows."""
        self._next = None
        self.pos = _skip(self.text, self.pos)
        return self.pos

    def scan_until(self, close: str) -> tuple[str, int]:
        """The raw text up to the next ``close`` character (consumed), and where it started:
        a tensor literal's values, read in one step. Only for bodies without string
        literals (a string could hold ``close``)."""
        start = self.skip_space()
        end = self.text.find(close, start)
        if end < 0:
            raise self.error_at(
                len(self.text), f"{close!r} closing the values", "the end of the text"
            )
        self.pos = end + 1
        return self.text[start:end], start

    # -- errors ---------------------------------------------------------------------------------

    def error(self, expected: str, token: Token) -> TextSyntaxError:
        return self.error_at(token.start, expected, describe(token))

    def error_at(self, pos: int, expected: str, found: str) -> TextSyntaxError:
        line = self.text.count("\n", 0, pos) + 1
        line_start = self.text.rfind("\n", 0, pos) + 1
        line_end = self.text.find("\n", pos)
        context = self.text[line_start : line_end if line_end >= 0 else len(self.text)]
        column = pos - line_start + 1
        shown_from = 0
        if len(context) > _CONTEXT:  # a very long line (a tensor's values): the part around
            shown_from = max(0, min(column - 1 - _CONTEXT // 2, len(context) - _CONTEXT))
            context = context[shown_from : shown_from + _CONTEXT]
        return TextSyntaxError(
            line, column, expected, found, context, caret=column - 1 - shown_from
        )
