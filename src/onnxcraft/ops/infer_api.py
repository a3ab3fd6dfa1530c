"""The inference rule table: (domain, op_type, since_version) -> rule.

A rule receives an :class:`InferenceContext` and returns one value type (or None when nothing
is known) per output. Rules are registered explicitly, by the ``rules.py`` of each operator
family (``ops/<family>/rules.py`` exposes ``register(rules)``), beside the family's kernels.

Besides types, rules propagate *values* of small tensors (data propagation): a known value is
a numpy array; a small integer tensor known only in part (a shape taken from a tensor with
symbolic dims) is a :class:`SymbolicValue` whose entries are dims: ``int``, ``str`` symbol or
``None``. Rules read them with :meth:`InferenceContext.dims_value` and record them with
:meth:`InferenceContext.set_dims_value`.

The context notes whether a rule read what a known input value holds (``read_values``):
whether a value is known, and whether it is symbolic, is all the graph walker keys a node's
answer by, so an answer that read no more applies to every alike node (``infer/graph.py``).
Rules ask :attr:`InferenceContext.values_given` rather than test ``input_values`` (the list
itself, whose every read counts as reading the values).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from onnxcraft.core.opinfo import OpInfo
from onnxcraft.dtypes import INTEGER_TYPES, ElementType, numpy_dtype
from onnxcraft.errors import InferenceError
from onnxcraft.optable import ALL_VERSIONS, OpTable
from onnxcraft.types import Dim, Shape, SparseTensor, Tensor, ValueType

__all__ = ["ALL_VERSIONS", "InferenceContext", "Rule", "RuleRegistry", "SymbolicValue"]


# Values of more elements than this are not propagated (they would cost time, not add facts).
VALUE_LIMIT = 64

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_NO_BODIES: dict[str, Any] = {}  # the bodies of a node without graph attributes (never written)


@dataclass(frozen=True, slots=True)
class SymbolicValue:
    """A 0-D or 1-D integer tensor known in part: each entry an int, a str symbol or None."""

    entries: tuple[Dim, ...]
    scalar: bool = False  # a 0-D tensor (one entry) rather than a 1-D one

    def __len__(self) -> int:
        return len(self.entries)

    def __str__(self) -> str:
        text = ", ".join("?" if e is None else str(e) for e in self.entries)
        return text if self.scalar else f"[{text}]"


class InferenceContext:
    """What a rule knows about one node: input types, known input values, attributes."""

    __slots__ = (
        "_values",
        "attributes",
        "bodies",
        "derived",
        "input_types",
        "num_outputs",
        "op",
        "opset",
        "output_values",
        "present",
        "read_values",
        "values_given",
    )

    def __init__(
        self,
        op: OpInfo,
        input_types: Sequence[ValueType | None],
        input_values: Sequence[Any],
        attributes: dict[str, Any],
        num_outputs: int,
        opset: int,
        bodies: dict[str, Any] | None = None,
        present: Sequence[bool] | None = None,
        derived: dict[Any, Any] | None = None,
    ) -> None:
        self.op = op
        self.input_types = input_types
        self._values = input_values
        # Whether values were given at all (the list may hold None for each input).
        self.values_given = bool(input_values)
        self.read_values = False  # whether the rule read what a known value holds
        self.attributes = attributes
        self.num_outputs = num_outputs
        self.opset = opset
        self.output_values: dict[int, Any] = {}  # arrays, SymbolicValues or lazy tensors
        # graph attribute name -> the body's output types (rules only read it)
        self.bodies = bodies or _NO_BODIES
        self.present = present  # which inputs the node gives (None: those typed or valued)
        # What rules work out from the operator version and the attributes alone (a window's
        # strides and pads, say), shared by the nodes with the same version and attribute list
        # (the graph walker passes one dict per such group): worked out once, not per node.
        self.derived: dict[Any, Any] = {} if derived is None else derived

    # -- attributes -----------------------------------------------------------------------------

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute's value, else the spec's default, else ``default``."""
        if name in self.attributes:
            return self.attributes[name]
        info = self.op.attributes.get(name)
        if info is not None and info.default is not None:
            return info.default
        return default

    # -- inputs ---------------------------------------------------------------------------------

    @property
    def input_values(self) -> Sequence[Any]:
        """The known input values (None: unknown), each input's. Reading the list counts as
        reading every value (the answer is then not reused for another node)."""
        self.read_values = True
        return self._values

    def all_inputs_known(self) -> bool:
        """Every given input has a value known in full (a missing optional input is fine),
        and some input is given."""
        present = self.present
        for i, value in enumerate(self._values):
            if value is None:
                # (has_input, inline where the walk says which inputs are given: per node)
                if present is not None:
                    if i < len(present) and present[i]:
                        return False
                elif self.has_input(i):
                    return False
            elif type(value) is SymbolicValue:
                return False
        return any(v is not None for v in self._values)

    def has_input(self, index: int) -> bool:
        """Whether the node gives input ``index`` (its type may still be unknown)."""
        if self.present is not None:
            return index < len(self.present) and self.present[index]
        if index >= len(self.input_types):
            return False
        if self.input_types[index] is not None:
            return True
        return index < len(self._values) and self._values[index] is not None

    def tensor(self, index: int) -> Tensor | None:
        """Input ``index`` as a tensor type (None when absent or unknown)."""
        if index >= len(self.input_types):
            return None
        t = self.input_types[index]
        return t if isinstance(t, (Tensor, SparseTensor)) else None  # type: ignore[return-value]

    def elem(self, index: int) -> ElementType | None:
        t = self.tensor(index)
        return None if t is None else t.elem_type

    def shape(self, index: int) -> Shape:
        t = self.tensor(index)
        return None if t is None else t.shape

    def rank(self, index: int) -> int | None:
        shape = self.shape(index)
        return None if shape is None else len(shape)

    def value(self, index: int) -> np.ndarray | None:
        """The known constant value of input ``index``, if any."""
        if index >= len(self._values):
            return None
        v = self._values[index]
        if v is None or type(v) is SymbolicValue:
            return None
        self.read_values = True
        if type(v) is np.ndarray:
            return v
        if hasattr(v, "array") and not isinstance(v, np.ndarray):  # a lazily decoded tensor
            v = v.array()
        return v if isinstance(v, np.ndarray) else None

    def dims_value(self, index: int) -> tuple[Dim, ...] | None:
        """A 0-D/1-D integer input's entries, each known (int), symbolic (str) or unknown."""
        v = self._values[index] if index < len(self._values) else None
        if type(v) is SymbolicValue:
            self.read_values = True
            return v.entries
        array = self.value(index) if v is not None else None
        if array is None:
            return () if self._is_empty_vector(index) else None
        if array.dtype.kind not in "iub" or array.ndim > 1:
            return None
        return tuple(int(x) for x in array.reshape(-1).tolist())

    def _is_empty_vector(self, index: int) -> bool:
        """An input typed as a 1-D tensor of 0 elements: its value is known, it is empty."""
        shape = self.shape(index)
        return shape == (0,)

    def has_symbolic_input(self) -> bool:
        """Whether some input is a value known only in part (a :class:`SymbolicValue`)."""
        return SymbolicValue in map(type, self._values)

    def is_integer(self, index: int) -> bool:
        """Whether input ``index`` is a tensor of an integer element type (by its type)."""
        elem = self.elem(index)
        return elem is not None and elem in INTEGER_TYPES

    def value_is_scalar(self, index: int) -> bool | None:
        """Whether input ``index``'s known (or symbolic) value is 0-D; None when unknown."""
        v = self._values[index] if index < len(self._values) else None
        if type(v) is SymbolicValue:
            self.read_values = True
            return v.scalar
        array = self.value(index)
        return None if array is None else array.ndim == 0

    def int_values(self, index: int) -> list[int] | None:
        """A known 0-D/1-D integer input as a list of ints (e.g. a shape or axes)."""
        v = self.value(index)
        if v is None:
            return [] if self._is_empty_vector(index) else None
        if v.dtype.kind not in "iu" or v.ndim > 1:
            return None
        return [int(x) for x in v.reshape(-1)]

    def set_value(self, index: int, value: np.ndarray) -> None:
        """Record a known value of output ``index`` (data propagation)."""
        if value.size <= VALUE_LIMIT:
            self.output_values[index] = value

    def set_dims_value(
        self, index: int, entries: Sequence[Dim], *, scalar: bool = False, elem: Any = None
    ) -> None:
        """Record a 0-D/1-D integer output known in part: an array when every entry is known."""
        if len(entries) > VALUE_LIMIT or (scalar and len(entries) != 1):
            return
        if all(type(e) is int for e in entries):
            for e in entries:
                if not _INT64_MIN <= e <= _INT64_MAX:  # type: ignore[operator]
                    raise self.fail(
                        f"output {index} would hold {e}, beyond the int64 range (a computed "
                        f"dim overflows)"
                    )
            dtype = np.int64 if elem is None else _int_dtype(elem)
            array = np.array(entries, dtype=dtype)
            self.output_values[index] = array.reshape(()) if scalar else array
        elif any(e is not None for e in entries):
            self.output_values[index] = SymbolicValue(tuple(entries), scalar)

    # -- errors ---------------------------------------------------------------------------------

    def fail(self, message: str) -> InferenceError:
        return InferenceError(f"{self.op.op_type}: {message}")


def _int_dtype(elem: ElementType) -> np.dtype[Any]:
    dtype = numpy_dtype(elem)
    return dtype if dtype.kind in "iub" else np.dtype(np.int64)


Rule = Callable[[InferenceContext], Sequence[ValueType | None]]


class RuleRegistry(OpTable[Rule]):
    """Inference rules keyed by the operator identifier (domain, op_type, since_version)."""

    what = "rule"

    def add(
        self, op_type: str, rule: Rule, *, since: int | Iterable[int], domain: str = ""
    ) -> None:
        self._put(domain, op_type, since, rule)
