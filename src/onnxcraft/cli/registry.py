"""The list of subcommands. Adding one is a module in ``onnxcraft/cli/commands/`` and a line
here (docs/development.md)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COMMANDS", "Command"]


@dataclass(frozen=True)
class Command:
    name: str  # as typed on the command line
    module: str  # the module with add_arguments(parser) and run(args) -> int
    summary: str  # one line for `onnxcraft --help`


COMMANDS: tuple[Command, ...] = (
    Command("check", "onnxcraft.cli.commands.check", "list every problem of a model"),
    Command("info", "onnxcraft.cli.commands.info", "what a model holds: opsets, types, operators"),
    Command("infer", "onnxcraft.cli.commands.infer", "infer the type of every value of a model"),
    Command("run", "onnxcraft.cli.commands.run", "evaluate a model on inputs from files or random"),
    Command(
        "compare",
        "onnxcraft.cli.commands.compare",
        "run a model two ways and find where they disagree",
    ),
    Command("text", "onnxcraft.cli.commands.text", "print a model in the ONNX text syntax"),
    Command("draw", "onnxcraft.cli.commands.draw", "draw a model's graph (HTML or SVG)"),
    Command("convert", "onnxcraft.cli.commands.convert", "convert a model to another opset"),
    Command(
        "to-python", "onnxcraft.cli.commands.to_python", "write the code that rebuilds a model"
    ),
    Command(
        "conformance",
        "onnxcraft.cli.commands.conformance",
        "property-test a runtime against the standard",
    ),
)
