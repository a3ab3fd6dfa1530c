"""The expression graph: Var (a value) and OpCall (one operator call recorded by the DSL).

Vars are created by ``oc.arg``, by lifting literals, and as outputs of operator calls. Nothing
is named or serialized here: ``build`` walks the graph from the outputs, names what is unnamed
and writes the model as :class:`onnxcraft.ir.Node` objects. An OpCall is not an IR node: it
holds Vars (typed, maybe constant) rather than value names, and its attributes may hold traced
bodies. Vars and OpCalls are deliberately plain ``__slots__`` classes: a converter
creates hundreds of thousands of them, so each must be cheap.
"""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import numpy as np

from onnxcraft.core import hooks
from onnxcraft.core.indexing import index_plan
from onnxcraft.core.naming import check_name
from onnxcraft.core.opinfo import OpInfo
from onnxcraft.core.refine import refine
from onnxcraft.core.versions import DEFAULT_OPSET
from onnxcraft.dtypes import ElementType, numpy_dtype
from onnxcraft.errors import ArgumentError, BuildError, SymbolicValueError
from onnxcraft.types import Map, Optional, Sequence, Shape, SparseTensor, Tensor, ValueType

__all__ = ["Var", "OpCall", "Body", "ARG", "CONST", "INITIALIZER", "NODE_OUTPUT"]

# What produces a Var.
ARG = 0  # a graph (or subgraph/function body) input
INITIALIZER = 1  # a lifted literal, stored as an initializer
CONST = 2  # a literal forced into a Constant node by oc.const (producer is that node)
NODE_OUTPUT = 3  # an output of an operator node


class Var:
    """A typed value of the graph being built: an input, a constant or an operator output."""

    __slots__ = ("__weakref__", "_name", "index", "kind", "producer", "scope", "type", "value")

    # numpy must not broadcast its operators over a Var (np.ones(3) + x would make an object
    # array of Vars): with this, numpy defers to Var's reflected operators (__radd__ ...).
    __array_ufunc__ = None

    def __init__(
        self,
        type: ValueType | None,
        *,
        kind: int = NODE_OUTPUT,
        producer: OpCall | None = None,
        index: int = 0,
        name: str | None = None,
        value: Any = None,
        scope: int = 0,
    ) -> None:
        self.type = type
        self.kind = kind
        self.producer = producer
        self.index = index
        self._name = name
        # Known value: a numpy array when constant; for node outputs also an
        # onnxcraft.ops.infer_api.SymbolicValue (a shape-like int tensor known in part).
        self.value = value
        self.scope = scope  # id of the tracing scope that created this Var (0: top level)

    # -- type accessors ---------------------------------------------------------------------

    @property
    def elem_type(self) -> ElementType | None:
        """The ONNX element type of a tensor Var (None when unknown or not a tensor)."""
        t = self.type
        return t.elem_type if isinstance(t, (Tensor, SparseTensor)) else None

    @property
    def dtype(self) -> np.dtype[Any] | None:
        """The numpy dtype of a tensor Var (None when unknown or not a tensor)."""
        elem = self.elem_type
        return None if elem is None else numpy_dtype(elem)

    @property
    def shape(self) -> Shape:
        """The tensor shape: dims are int, str symbols or None; None when the rank is unknown."""
        t = self.type
        return t.shape if isinstance(t, (Tensor, SparseTensor)) else None

    @property
    def rank(self) -> int | None:
        shape = self.shape
        return None if shape is None else len(shape)

    @property
    def name(self) -> str | None:
        """The explicit name, if one was given (generated names exist only in built models)."""
        return self._name

    def named(self, name: str) -> Var:
        """Give this value an explicit name in the built model; returns the Var itself."""
        check_name("named()", name)
        if self.kind == ARG and self._name is not None and self._name != name:
            raise BuildError(f"named(): the input {self._name!r} cannot be renamed to {name!r}")
        self._name = name
        return self

    def with_type(self, value_type: ValueType) -> Var:
        """State what you know of this value's type (e.g. the shape of a custom op's output).

        The type is merged with the inferred one (unknown dims filled in, known ones must
        agree; a contradiction is an InferenceError); returns the Var itself. Do it before the
        Var is used: operators already applied to it keep the types they inferred.
        """
        if not isinstance(value_type, (Tensor, SparseTensor, Sequence, Optional, Map)):
            raise ArgumentError(
                f"with_type(): expected an oc.Tensor, oc.Sequence, oc.Optional, oc.Map or "
                f"oc.SparseTensor, got {type(value_type).__name__}"
            )
        self.type = refine(value_type, self.type, f"with_type() of {self!r}")
        return self

    def _repr_svg_(self) -> str | None:
        """The graph computing this value as SVG (what a notebook shows)."""
        return hooks.picture.get()(self, "svg")

    def _repr_html_(self) -> str | None:
        """The graph computing this value as an interactive picture (what a notebook shows)."""
        return hooks.picture.get()(self, "html")

    def __repr__(self) -> str:
        """Name (when given), type and origin: ``Var(hidden: tensor(float)[N, 3], from Relu)``,
        ``Var(tensor(int64)[2], from TopK output 1)``, ``Var(X: tensor(float)[N, 4], graph
        input)``."""
        value_type = "?" if self.type is None else str(self.type)
        head = f"{self._name}: {value_type}" if self._name else value_type
        return f"Var({head}, {self._origin()})"

    def _origin(self) -> str:
        if self.kind == ARG:
            return "graph input"
        if self.kind == INITIALIZER:
            return "constant"
        producer = self.producer
        if producer is None:
            return "constant" if self.kind == CONST else "no producer"
        op = producer.op
        label = f"{op.domain}::{op.op_type}" if op.domain else op.op_type
        if self.kind == CONST:
            return f"constant ({label} node)"
        if len(producer.outputs) > 1:
            return f"from {label} output {self.index}"
        return f"from {label}"

    # -- Python operators: the operators of the default opset (DEFAULT_OPSET), literals lifted
    # as in explicit calls. == and != build Equal (and Not) like the other comparisons: what
    # a Python bool would mean (X == 0.0 is False) is never what a graph means. Vars stay
    # usable in sets and as dict keys: they hash by identity, and a dict or set compares
    # keys with == only when their hashes are equal, which for two live Vars they never are.

    def __add__(self, other: Any) -> Var:
        return _binary("Add", self, other)

    def __radd__(self, other: Any) -> Var:
        return _binary("Add", other, self)

    def __sub__(self, other: Any) -> Var:
        return _binary("Sub", self, other)

    def __rsub__(self, other: Any) -> Var:
        return _binary("Sub", other, self)

    def __mul__(self, other: Any) -> Var:
        return _binary("Mul", self, other)

    def __rmul__(self, other: Any) -> Var:
        return _binary("Mul", other, self)

    def __truediv__(self, other: Any) -> Var:
        return _binary("Div", self, other)

    def __rtruediv__(self, other: Any) -> Var:
        return _binary("Div", other, self)

    def __matmul__(self, other: Any) -> Var:
        return _binary("MatMul", self, other)

    def __rmatmul__(self, other: Any) -> Var:
        return _binary("MatMul", other, self)

    def __pow__(self, other: Any) -> Var:
        return _binary("Pow", self, other)

    def __rpow__(self, other: Any) -> Var:
        return _binary("Pow", other, self)

    def __eq__(self, other: object) -> Var:  # type: ignore[override]
        if not _is_operand(other):
            return NotImplemented  # None, objects ...: Python's identity answer (not equal)
        return _binary("Equal", self, other)

    def __ne__(self, other: object) -> Var:  # type: ignore[override]
        if not _is_operand(other):
            return NotImplemented
        result: Var = _default_opset().Not(_binary("Equal", self, other))
        return result

    def __lt__(self, other: Any) -> Var:
        return _binary("Less", self, other)

    def __le__(self, other: Any) -> Var:
        return _binary("LessOrEqual", self, other)

    def __gt__(self, other: Any) -> Var:
        return _binary("Greater", self, other)

    def __ge__(self, other: Any) -> Var:
        return _binary("GreaterOrEqual", self, other)

    def __and__(self, other: Any) -> Var:
        return _binary("And", self, other)

    def __or__(self, other: Any) -> Var:
        return _binary("Or", self, other)

    def __xor__(self, other: Any) -> Var:
        return _binary("Xor", self, other)

    def __neg__(self) -> Var:
        result: Var = _default_opset().Neg(self)
        return result

    def __getitem__(self, index: Any) -> Var:
        """``x[...]`` as numpy reads it: Slice, then Squeeze (int indices), then Unsqueeze (None);
        a Var index is a Gather on axis 0."""
        if isinstance(index, Var):
            gathered: Var = _default_opset().Gather(self, index, axis=0)
            return gathered
        plan = index_plan(self, index)
        result: Var = plan.emit(self, _default_opset())
        return result

    def __bool__(self) -> bool:
        raise SymbolicValueError(
            f"{self!r} has no truth value: a Var holds no value while the graph is built "
            f"(comparisons such as x == 0 build an Equal node, they are not Python bools). "
            f"Use op.Where(cond, a, b) to choose values, op.If for data-dependent branches; "
            f"to find a Var in a collection use a set or dict of Vars (hashed by identity) or "
            f"'is' (any(v is x for v in vars)), not 'x in a_list'"
        )

    def __iter__(self) -> Any:
        # Without this, Python would iterate through __getitem__ (x[0], x[1], ...) and never
        # stop on a dim it does not know.
        raise SymbolicValueError(
            f"{self!r} is not iterable while the graph is built: index it (x[0]), or use "
            f"op.Split / op.SplitToSequence for its parts"
        )

    __hash__ = object.__hash__


class Body:
    """A traced subgraph (a graph attribute or a function body).

    ``inputs`` are the body's own ARG Vars, ``outputs`` the Vars it returns; ``scope`` is the
    tracing scope id shared by every OpCall created while tracing, which tells the builder which
    nodes belong to the body and which Vars come from enclosing scopes.
    """

    __slots__ = ("inputs", "name", "outputs", "scope")

    def __init__(self, inputs: list[Var], outputs: list[Var], scope: int, name: str) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.scope = scope
        self.name = name


_CALL_ORDER = itertools.count()


class OpCall:
    """One call of an operator while an expression is built: inputs, normalized attributes and
    output Vars (``build`` turns it into an :class:`onnxcraft.ir.Node`)."""

    __slots__ = ("attributes", "inputs", "name", "op", "opset", "order", "outputs", "scope")

    def __init__(
        self,
        op: OpInfo,
        inputs: tuple[Var | None, ...],
        attributes: dict[str, Any],
        opset: int,
        scope: int,
    ) -> None:
        self.op = op
        self.inputs = inputs
        self.attributes = attributes  # name -> value; graph attributes hold Body objects
        self.opset = opset  # the opset of the module the operator was called from
        self.scope = scope
        self.outputs: tuple[Var, ...] = ()
        self.name: str | None = None
        # When the call was made: build writes a graph's nodes in this order, the order of the
        # code (always a topological one, as a call comes after the values it takes).
        self.order = next(_CALL_ORDER)

    def bodies(self) -> list[Body]:
        """Subgraph attributes, in attribute order."""
        found: list[Body] = []
        for value in self.attributes.values():
            if isinstance(value, Body):
                found.append(value)
            elif isinstance(value, list) and value and isinstance(value[0], Body):
                found.extend(value)
        return found

    def __repr__(self) -> str:
        return f"OpCall({self.op.domain or 'ai.onnx'}::{self.op.op_type}@{self.op.since_version})"


def _default_opset() -> ModuleType:
    """The generated module of ai.onnx at DEFAULT_OPSET (provided by the opset layer)."""
    return hooks.opset_module.get()("", DEFAULT_OPSET)


def _is_operand(value: object) -> bool:
    """What == and != compare with: Vars and the literals operators lift."""
    return isinstance(
        value, (Var, np.ndarray, np.generic, int, float, bool, str, bytes, list, tuple)
    )


def _binary(name: str, left: Any, right: Any) -> Var:
    """Emit the default-opset operator ``name`` on two operands (literals are lifted)."""
    result: Var = getattr(_default_opset(), name)(left, right)
    return result


def container_elem(value: ValueType | None) -> ValueType | None:
    """The element type of a Sequence or Optional (None otherwise)."""
    if isinstance(value, (Sequence, Optional)):
        return value.elem
    if isinstance(value, Map):
        return value.value
    return None
