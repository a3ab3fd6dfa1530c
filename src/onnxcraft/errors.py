"""The one exception hierarchy of onnxcraft.

Every error a user can trigger is an :class:`OnnxcraftError`. Subclasses say which stage
failed; messages say what was expected, what was received and, where there is one, the fix.
Several subclasses also derive from the matching builtin (``TypeError``, ``ValueError``) so
that generic ``except`` clauses written against the builtins keep working.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "OnnxcraftError",
    "SpecError",
    "ProtoError",
    "ModelFileError",
    "ExternalDataError",
    "TensorConversionError",
    "BuildError",
    "OpInputError",
    "OpAttributeError",
    "InferenceError",
    "ValidationError",
    "EvaluationError",
    "MissingKernelError",
    "ArgumentError",
    "SymbolicValueError",
    "EvaluationLimitError",
    "InvalidModelError",
    "TextSyntaxError",
    "CodeGenerationError",
    "VersionConversionError",
    "CompareError",
    "CommandLineError",
]


class OnnxcraftError(Exception):
    """Base class of every error onnxcraft raises on purpose."""


class SpecError(OnnxcraftError, ValueError):
    """An operator spec file is malformed, or an operator/version is unknown."""


class ProtoError(OnnxcraftError, ValueError):
    """A protobuf message is malformed or of the wrong kind."""


class ModelFileError(OnnxcraftError, OSError):
    """A model file cannot be read or written (truncated, corrupt, not ONNX, I/O failure)."""


class ExternalDataError(ModelFileError):
    """External tensor data is missing, out of bounds or points outside the model folder."""


class TensorConversionError(OnnxcraftError, ValueError):
    """A tensor cannot be converted between numpy and TensorProto."""


class BuildError(OnnxcraftError, ValueError):
    """A graph cannot be built: name clashes, missing inputs, mixed opsets, bad outputs."""


class OpInputError(BuildError, TypeError):
    """An operator received an input of the wrong kind, type or count."""


class OpAttributeError(BuildError, TypeError):
    """An operator received an attribute of the wrong type, value, or is missing one."""


class InferenceError(OnnxcraftError, ValueError):
    """Shapes or types of an operator's inputs contradict each other."""


class ValidationError(OnnxcraftError, ValueError):
    """A model breaks the ONNX IR rules. ``problems`` lists every problem found."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        count = len(self.problems)
        header = f"model is invalid: {count} problem{'s' if count != 1 else ''}"
        super().__init__("\n  - ".join([header, *self.problems]))


class EvaluationError(OnnxcraftError, RuntimeError):
    """A model cannot be evaluated: bad feeds, a kernel failure, an unsupported case."""


class MissingKernelError(EvaluationError, NotImplementedError):
    """No evaluator kernel exists for an operator version."""


class ArgumentError(BuildError, TypeError):
    """A DSL call other than an operator (``oc.arg``, ``oc.const``, ``oc.Tensor``,
    ``Var.named`` ...) received an argument of the wrong type or value: a dtype that is none,
    a shape that is not a sequence of dims, a name that is not a str."""


class SymbolicValueError(BuildError, TypeError):
    """A Var was used as if it held a value: as a truth value (``if x:``, ``x and y``,
    ``x in a_list``) or iterated. A Var has no value while the graph is built: use ``op.If``
    or ``op.Where`` for data-dependent choices, ``op.Split`` or indexing for parts."""


class EvaluationLimitError(EvaluationError):
    """An evaluation reached one of its limits (``oc.Limits``) or was cancelled.

    ``limit`` names it (``"max_loop_iterations"``, ``"max_value_bytes"``, ``"timeout"`` or
    ``"cancel"``), ``value`` is its setting and ``node`` the node that reached it (``"Loop node
    'l' > Mul node"`` inside a subgraph; empty until the evaluator knows).
    """

    def __init__(self, limit: str, value: object, detail: str, node: str = "") -> None:
        self.limit = limit
        self.value = value
        self.detail = detail
        self.node = node
        super().__init__(f"{node}: {detail}" if node else detail)

    def __reduce__(self) -> tuple[type[EvaluationLimitError], tuple[str, object, str, str]]:
        # Its own arguments, so that it pickles (a run in a worker process, say).
        return (type(self), (self.limit, self.value, self.detail, self.node))

    def at(self, node: str) -> EvaluationLimitError:
        """The same error, reached inside ``node`` (the enclosing node comes first)."""
        path = f"{node} > {self.node}" if self.node else node
        return EvaluationLimitError(self.limit, self.value, self.detail, path)


class InvalidModelError(ValidationError, EvaluationError):
    """The evaluator refuses a model that breaks a rule its results depend on (an unknown
    opset version, a value defined twice, an attribute of the wrong type, ...): the checker's
    problems, found while preparing. Both a ValidationError and an EvaluationError."""


class TextSyntaxError(OnnxcraftError, ValueError):
    """Text given to ``oc.parse`` (or ``parse_graph``, ``parse_function``, ``parse_node``) does
    not follow the ONNX text syntax. ``line`` and ``column`` (from 1) say where, ``expected``
    what the grammar allows there and ``found`` what the text holds."""

    def __init__(
        self,
        line: int,
        column: int,
        expected: str,
        found: str,
        context: str = "",
        caret: int | None = None,
    ) -> None:
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
        message = f"line {line}, column {column}: expected {expected}, found {found}"
        if context:  # the line (or the part of it shown) with a caret under the column
            offset = column - 1 if caret is None else caret
            message += f"\n    {context}\n    {' ' * offset}^"
        super().__init__(message)

    def __reduce__(self) -> tuple[type[TextSyntaxError], tuple[int, int, str, str]]:
        return (type(self), (self.line, self.column, self.expected, self.found))


class CodeGenerationError(OnnxcraftError, ValueError):
    """``oc.to_python`` met a part of a model that onnxcraft's DSL cannot write (a sparse
    tensor attribute, an attribute its operator's signature lacks, ...); the message names the
    node or value and the part."""


class VersionConversionError(OnnxcraftError, ValueError):
    """A node cannot be expressed at the target opset (``oc.convert_version``).

    ``node`` names the node, ``op_type`` its operator, ``from_version`` and ``to_version`` the
    operator versions of the step that failed, ``reason`` why; the message says all of it.
    """

    def __init__(
        self, node: str, op_type: str, from_version: int, to_version: int, reason: str
    ) -> None:
        self.node = node
        self.op_type = op_type
        self.from_version = from_version
        self.to_version = to_version
        self.reason = reason
        target = f"version {to_version}" if to_version else "an opset where it does not exist"
        super().__init__(
            f"{node}: cannot convert {op_type} from version {from_version} to {target}: {reason}"
        )

    def __reduce__(
        self,
    ) -> tuple[type[VersionConversionError], tuple[str, str, int, int, str]]:
        return (
            type(self),
            (self.node, self.op_type, self.from_version, self.to_version, self.reason),
        )


class CompareError(OnnxcraftError, ValueError):
    """``oc.compare`` cannot compare two runs: an unknown ``against``, a backend that is not
    installed, reference values that name no value of the model, or a run that failed."""


class CommandLineError(OnnxcraftError, ValueError):
    """The ``onnxcraft`` command received an argument it cannot use: an ``--input`` that is not
    ``NAME=FILE``, a file of the wrong kind, an input the model does not have."""
