"""The ``onnxcraft`` command: parse the command line, run one subcommand, turn every error into
one line on stderr and an exit status.

Exit status: 0 done; 1 the answer is no (``check`` found problems, ``compare`` found values
beyond tolerance); 2 an error (a bad argument, a file that cannot be read, a model that cannot
be evaluated); 130 interrupted (Ctrl-C). Set ``ONNXCRAFT_TRACEBACK=1`` to see the traceback of
an error rather than its line.

Only the subcommand asked for is imported (with what it needs: protobuf, the evaluator), so
``onnxcraft --help`` and a mistyped command answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from onnxcraft.cli.registry import COMMANDS
from onnxcraft.errors import OnnxcraftError, ValidationError
from onnxcraft.version import __version__

__all__ = ["ERROR", "USAGE", "main"]

USAGE = 2  # exit status of an error (argparse uses 2 for usage errors too)
ERROR = 2
INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C
_TRACEBACK_VARIABLE = "ONNXCRAFT_TRACEBACK"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like every other error."""

    def error(self, message: str) -> NoReturn:
        _say(f"{message} (see '{self.prog} --help')")
        raise SystemExit(USAGE)


def _say(message: str) -> None:
    print(f"onnxcraft: error: {message}", file=sys.stderr)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, ValidationError) and exc.problems:
        count = len(exc.problems)
        more = f" (and {count - 1} more; 'onnxcraft check' lists them)" if count > 1 else ""
        return f"model is invalid: {exc.problems[0]}{more}"
    if isinstance(exc, OSError) and exc.strerror and not isinstance(exc, OnnxcraftError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return text or type(exc).__name__


def _chosen(argv: Sequence[str]) -> str | None:
    """The subcommand named: the first word that is not an option (the top-level options take
    no values)."""
    return next((word for word in argv if not word.startswith("-")), None)


def _parser(argv: Sequence[str]) -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    parser = _Parser(
        prog="onnxcraft",
        description="Check, inspect, run and compare ONNX models.",
        epilog="'onnxcraft COMMAND --help' describes a command. Exit status: 0 done, 1 problems "
        "or differences found, 2 error, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"onnxcraft {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    chosen = _chosen(argv)
    loaded: dict[str, ModuleType] = {}
    for command in COMMANDS:
        if command.name != chosen:
            commands.add_parser(command.name, help=command.summary)
            continue
        module = importlib.import_module(command.module)
        sub = commands.add_parser(
            command.name,
            help=command.summary,
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub)
        loaded[command.name] = module
    return parser, loaded


def _run(argv: Sequence[str]) -> int:
    parser, loaded = _parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return USAGE
    status: int = loaded[args.command].run(args)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's) and return the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(words)
    except KeyboardInterrupt:
        print("onnxcraft: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # The reader of stdout went away (`onnxcraft info m.onnx | head`): stop quietly, and
        # keep Python from complaining again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ERROR
    except (OnnxcraftError, OSError, MemoryError) as exc:
        if os.environ.get(_TRACEBACK_VARIABLE):
            raise
        _say(_one_line(exc))
        return ERROR
    except Exception as exc:  # a bug: still one line, with how to see more
        if os.environ.get(_TRACEBACK_VARIABLE):
            raise
        _say(
            f"internal error: {type(exc).__name__}: {_one_line(exc)} (set "
            f"{_TRACEBACK_VARIABLE}=1 to see the traceback, and please report it)"
        )
        return ERROR
