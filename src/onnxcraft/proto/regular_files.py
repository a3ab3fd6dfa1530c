"""Opening a file that must be a regular file: a model file or an external data file.

A path may name a FIFO, a character device such as ``/dev/zero``, a socket or a folder; reading
one would hang or never end. The file is opened without blocking (opening a FIFO that has no
writer blocks otherwise) and checked on the open descriptor, so it cannot be swapped for
something else between the check and the read.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from onnxcraft.errors import ModelFileError

__all__ = ["open_regular", "not_regular"]

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file ("a FIFO" ...), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def open_regular(
    path: str | os.PathLike[str], what: str, error: type[ModelFileError] = ModelFileError
) -> BinaryIO:
    """``path`` opened for binary reading, or ``error`` naming ``what`` (e.g. "model file")
    and why: it is not a regular file, or the operating system's reason."""
    name = os.fspath(path)
    if "\0" in str(name):
        raise error(f"{name!r}: the {what}'s path contains a NUL byte, which no path may hold")
    try:
        # On a path that names a socket, open() fails (ENXIO); say what it is instead.
        kind = not_regular(os.stat(name).st_mode)
    except OSError:
        kind = None  # open() below reports why
    if kind is not None:
        raise error(f"{name}: the {what} is {kind}, not a regular file; refusing to read it")
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        raise error(f"{name}: cannot read the {what}: {exc.strerror or exc}") from exc
    try:
        kind = not_regular(os.fstat(fd).st_mode)  # what was opened, not what was looked at
        if kind is not None:
            raise error(f"{name}: the {what} is {kind}, not a regular file; refusing to read it")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
