"""The kit version adapters are written with: the adapter table and the context of one step.

A version adapter rewrites one node from one version of its operator to the next one up or
down (``from_version`` -> ``to_version``, both since_versions of the operator), where the
schema changed in a way the converter cannot handle by itself: an attribute that became an
input, a default that changed, a meaning that changed. ``to_version`` 0 stands for "the
operator does not exist here": the adapter replaces the node by other operators. The families
register their adapters in ``ops/<family>/adapters.py`` (``register(table)``); the engine,
:mod:`onnxcraft.convert`, owns the table and the context and calls an adapter with the
:class:`AdapterContext` of the node it steps.

Nodes an adapter emits are written for an opset it names (``opset=``); the engine converts
them to the target like any other node, so an adapter writes the form it knows, not one per
target.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from onnxcraft import ir
from onnxcraft.dtypes import ElementType
from onnxcraft.types import Tensor, ValueType

__all__ = [
    "ABSENT",
    "AdapterContext",
    "AdapterEntry",
    "AdapterFn",
    "AdapterRegistry",
    "attribute_to_input",
    "chain",
    "input_to_attribute",
    "int64s",
    "nonnegative_axes",
    "refuse_value",
]

# to_version of an adapter that replaces an operator absent from the older opset
ABSENT = 0

AdapterFn = Callable[["AdapterContext"], None]


@dataclass(frozen=True)
class AdapterEntry:
    """One registered adapter and what it does (for the docs)."""

    domain: str
    op_type: str
    from_version: int
    to_version: int
    adapt: AdapterFn
    summary: str

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.domain, self.op_type, self.from_version, self.to_version)


class AdapterRegistry:
    """Adapters keyed by (domain, op_type, from_version, to_version)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str, int, int], AdapterEntry] = {}
        self._changed: dict[tuple[str, str, int, int], str] = {}

    def add(
        self,
        op_type: str,
        from_version: int,
        to_version: int,
        adapt: AdapterFn,
        summary: str,
        *,
        domain: str = "",
    ) -> None:
        entry = AdapterEntry(domain, op_type, from_version, to_version, adapt, summary)
        if entry.key in self._entries:
            raise ValueError(
                f"adapter {domain or 'ai.onnx'}::{op_type} {from_version}->{to_version} is "
                f"registered twice"
            )
        self._entries[entry.key] = entry

    def add_many(
        self,
        op_types: Iterable[str],
        from_version: int,
        to_version: int,
        adapt: AdapterFn,
        summary: str,
        *,
        domain: str = "",
    ) -> None:
        for op_type in op_types:
            self.add(op_type, from_version, to_version, adapt, summary, domain=domain)

    def changed(
        self, op_type: str, older: int, newer: int, reason: str, *, domain: str = ""
    ) -> None:
        """Mark the step between two versions as one whose meaning changed in a way the specs
        do not show: without an adapter for a direction, that direction is refused."""
        self._changed[(domain, op_type, older, newer)] = reason

    def change_between(self, domain: str, op_type: str, a: int, b: int) -> str | None:
        """Why the step a <-> b needs an adapter (None when the specs tell the whole story)."""
        return self._changed.get((domain, op_type, min(a, b), max(a, b)))

    def changes(self) -> list[tuple[tuple[str, str, int, int], str]]:
        return sorted(self._changed.items())

    def lookup(
        self, domain: str, op_type: str, from_version: int, to_version: int
    ) -> AdapterEntry | None:
        return self._entries.get((domain, op_type, from_version, to_version))

    def entries(self) -> list[AdapterEntry]:
        """Every adapter, in (domain, op_type, from_version, to_version) order."""
        return [self._entries[key] for key in sorted(self._entries)]

    def for_operator(self, op_type: str, domain: str = "") -> list[AdapterEntry]:
        """The conversions registered for one operator (what the docs list per operator)."""
        return [e for e in self.entries() if e.domain == domain and e.op_type == op_type]

    def __len__(self) -> int:
        return len(self._entries)


def int64s(values: Iterable[int]) -> np.ndarray:
    return np.asarray(list(values), dtype=np.int64)


class AdapterContext(ABC):
    """One node at one step, as an adapter sees it; the engine implements the graph side."""

    node: ir.Node
    from_version: int
    to_version: int
    target_opset: int  # the opset of the node's domain the conversion ends at

    # -- reading ------------------------------------------------------------------------------

    @abstractmethod
    def value_type(self, name: str) -> ValueType | None:
        """The inferred type of a value (None when unknown)."""

    @abstractmethod
    def constant(self, name: str) -> np.ndarray | None:
        """The value of ``name`` when it is known without running the model (an initializer,
        a Constant node's output, or folded by inference), else None."""

    def elem_type(self, name: str) -> ElementType | None:
        t = self.value_type(name)
        return t.elem_type if isinstance(t, Tensor) else None

    def rank(self, name: str) -> int | None:
        t = self.value_type(name)
        return t.rank if isinstance(t, Tensor) else None

    def shape(self, name: str) -> tuple[Any, ...] | None:
        t = self.value_type(name)
        return t.shape if isinstance(t, Tensor) else None

    def input(self, index: int) -> str:
        """The name of input ``index``, "" when it is omitted."""
        inputs = self.node.inputs
        return inputs[index] if index < len(inputs) else ""

    def attr(self, name: str, default: Any = None) -> Any:
        found = self.node.attribute(name)
        if found is None:
            return default
        if found.ref:
            self.fail(f"attribute {name!r} refers to the function attribute {found.ref!r}")
        return found.value

    def constant_input(self, index: int, what: str) -> np.ndarray | None:
        """Input ``index``'s value (None when omitted); refuses an input known only at run
        time, which the older version needs as an attribute."""
        name = self.input(index)
        if not name:
            return None
        value = self.constant(name)
        if value is None:
            self.fail(
                f"input {index} ({what}) is computed at run time, and the target version "
                f"needs its value as an attribute"
            )
        return value

    # -- writing ------------------------------------------------------------------------------

    def set_attr(self, name: str, kind: str, value: Any) -> None:
        self.drop_attr(name)
        self.node.attributes.append(ir.Attribute(name, kind, value))

    def drop_attr(self, name: str) -> None:
        self.node.attributes = [a for a in self.node.attributes if a.name != name]

    def set_input(self, index: int, name: str) -> None:
        inputs = self.node.inputs
        while len(inputs) <= index:
            inputs.append("")
        inputs[index] = name
        while inputs and not inputs[-1]:
            inputs.pop()

    def drop_inputs_from(self, index: int) -> None:
        del self.node.inputs[index:]

    @abstractmethod
    def add_constant(self, array: np.ndarray, base: str) -> str:
        """A new value holding ``array`` (an initializer, or a Constant node in a function)."""

    @abstractmethod
    def add_initializer(self, array: np.ndarray, name: str) -> bool:
        """Store ``array`` as the graph initializer ``name``; False in a function body, which
        has no initializers."""

    @abstractmethod
    def declare_type(self, name: str, value_type: ValueType | None) -> None:
        """Record the type of a value the adapter created."""

    @abstractmethod
    def fresh_name(self, base: str) -> str:
        """A value name not used anywhere in the model."""

    @abstractmethod
    def emit(
        self,
        op_type: str,
        inputs: Sequence[str],
        outputs: Sequence[str] | int,
        attributes: Mapping[str, tuple[str, Any]] | None = None,
        *,
        opset: int,
        domain: str = "",
        after: bool = False,
    ) -> list[str]:
        """Add a node before the node stepped (``after``: after it), written for ``opset`` of
        ``domain``; ``attributes`` maps a name to (type, value). Returns its output names."""

    @abstractmethod
    def remove(self) -> None:
        """The node is replaced by the nodes emitted (which produce its outputs)."""

    @abstractmethod
    def fail(self, reason: str) -> NoReturn:
        """Refuse the step: a VersionConversionError naming the node, operator and versions."""


# -- adapters written from parts -------------------------------------------------------------


def attribute_to_input(
    attr: str, index: int, *, dtype: Any = np.int64, kind: str = "INTS"
) -> AdapterFn:
    """Upward: the attribute ``attr`` becomes input ``index`` (a constant), or an omitted
    input when the node does not set it."""

    def adapt(ctx: AdapterContext) -> None:
        value = ctx.attr(attr)
        ctx.drop_attr(attr)
        if value is None:
            return
        array = np.asarray(value, dtype=dtype)
        if kind in ("INT", "FLOAT"):
            array = array.reshape(())
        name = ctx.add_constant(array, f"{ctx.node.op_type.lower()}_{attr}")
        ctx.set_input(index, name)

    return adapt


def input_to_attribute(
    index: int, attr: str, *, kind: str = "INTS", keep_inputs: int | None = None
) -> AdapterFn:
    """Downward: input ``index`` (a constant) becomes the attribute ``attr``; the inputs from
    ``keep_inputs`` (default ``index``) on are dropped."""

    def adapt(ctx: AdapterContext) -> None:
        value = ctx.constant_input(index, attr)
        ctx.drop_inputs_from(index if keep_inputs is None else keep_inputs)
        if value is None:
            return
        if kind == "INTS":
            ctx.set_attr(attr, kind, [int(v) for v in np.asarray(value).reshape(-1)])
        elif kind == "FLOATS":
            ctx.set_attr(attr, kind, [float(v) for v in np.asarray(value).reshape(-1)])
        elif kind == "INT":
            ctx.set_attr(attr, kind, int(np.asarray(value).reshape(-1)[0]))
        else:
            ctx.set_attr(attr, kind, float(np.asarray(value).reshape(-1)[0]))

    return adapt


def nonnegative_axes(attr: str, *, rank_of: str = "input", extra_rank: int = 0) -> AdapterFn:
    """Downward past the version that first allowed negative axes: a negative ``attr`` is made
    non-negative from the rank of the first input (``rank_of="output"``: the first output),
    plus ``extra_rank``; refused when that rank is unknown."""

    def adapt(ctx: AdapterContext) -> None:
        value = ctx.attr(attr)
        if value is None:
            return
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if all(int(v) >= 0 for v in values):
            return
        name = ctx.node.inputs[0] if rank_of == "input" else ctx.node.outputs[0]
        rank = ctx.rank(name)
        if rank is None:
            ctx.fail(
                f"attribute {attr!r} is negative ({value}) and the rank of {rank_of} "
                f"{name!r} is unknown; version {ctx.to_version} takes only non-negative axes"
            )
        fixed = [int(v) + rank + extra_rank if int(v) < 0 else int(v) for v in values]
        kind = "INTS" if isinstance(value, (list, tuple)) else "INT"
        ctx.set_attr(attr, kind, fixed if kind == "INTS" else fixed[0])

    return adapt


def chain(*parts: AdapterFn) -> AdapterFn:
    """One adapter running ``parts`` in order."""

    def adapt(ctx: AdapterContext) -> None:
        for part in parts:
            part(ctx)

    return adapt


def refuse_value(attr: str, values: Iterable[Any], why: str) -> AdapterFn:
    """Downward: refuse a node whose ``attr`` takes a value the older version lacks."""
    banned = {v.encode() if isinstance(v, str) else v for v in values} | set(values)

    def adapt(ctx: AdapterContext) -> None:
        value = ctx.attr(attr)
        if value is not None and value in banned:
            shown = value.decode() if isinstance(value, bytes) else value
            ctx.fail(f"{attr}={shown!r} {why}")

    return adapt
