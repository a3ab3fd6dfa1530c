"""The kernel table: (domain, op_type, since_version) -> numpy kernel.

Kernels are registered explicitly, by the ``kernels.py`` of each operator family
(``ops/<family>/kernels.py`` exposes ``register(kernels)``); nothing is found by scanning
globals. A kernel is called as ``fn(*inputs, **attributes)`` or, when registered with
``context=True``, as ``fn(ctx, *inputs, **attributes)``:

- ``inputs`` are numpy arrays, ``list`` for sequences, ``dict`` for maps and ``None`` for an
  omitted optional input (trailing omitted inputs are passed as ``None`` too, up to the number
  of inputs the node names).
- ``attributes`` are the node's attributes with the spec's defaults filled in, as plain Python
  values: ``int``, ``float``, ``str``, ``list`` of those, numpy arrays for tensors, a
  :class:`~onnxcraft.ops.kernel_api.Subgraph` callable for graphs, and
  :class:`~onnxcraft.ops.kernel_api.TypeAttr` for TYPE_PROTO attributes. Attributes that are
  absent and have no default are not passed, so the kernel's own keyword default applies.
- The kernel returns one value or a tuple with one entry per declared output.

A kernel whose attributes need expensive decoding (a tree ensemble's node lists, say) may be
registered with ``prepare=``: ``prepare(**attributes)`` runs once, when the evaluator prepares
the model, and its result reaches every call of the kernel as the keyword ``prepared``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from onnxcraft import ir
from onnxcraft.optable import OpTable
from onnxcraft.types import ValueType

__all__ = [
    "GraphPlan",
    "GraphView",
    "Kernel",
    "KernelContext",
    "KernelEntry",
    "KernelRegistry",
    "Step",
    "Subgraph",
    "SubgraphRef",
    "TypeAttr",
]

Kernel = Callable[..., Any]


class Subgraph(Protocol):
    """A graph attribute, prepared for evaluation: call it with the body's inputs."""

    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    # The types the body declares for its outputs (None where it declares none), so a kernel
    # can shape results the body never produced (a Loop that runs zero times).
    output_types: tuple[Any, ...]

    def __call__(self, *inputs: Any) -> list[Any]: ...


@dataclass(frozen=True)
class TypeAttr:
    """A TYPE_PROTO attribute: the value kind and, for tensors, the ONNX element type."""

    kind: str  # "tensor" | "sequence" | "optional" | "map" | "sparse_tensor"
    elem_type: int = 0
    inner: TypeAttr | None = None


class GraphView(Protocol):
    """The prepared graph around a node, for kernels that read their graph (Gradient)."""

    @property
    def steps(self) -> Sequence[Step]: ...  # the plan's steps, in graph order

    @property
    def constants(self) -> Mapping[str, Any]: ...  # initializers, as arrays

    @property
    def input_names(self) -> Sequence[str]: ...  # the graph's (or function's) inputs

    def run(self, plan: GraphPlan, env: dict[str, Any]) -> dict[str, Any]:
        """Run ``plan``'s steps on ``env`` (names -> values) and return every value."""
        ...

    def run_step(self, step: Step, args: list[Any]) -> tuple[Any, ...]:
        """Run one step on the given input values."""
        ...


@dataclass(frozen=True)
class KernelContext:
    """What a context-aware kernel may know about the node it evaluates."""

    domain: str
    op_type: str
    since_version: int
    opset: int
    num_outputs: int
    outputs_requested: tuple[bool, ...]
    node_name: str = ""
    # The element type the graph declares for each input: a tensor's own, a sequence's or an
    # optional's elements', a map's values' (None where nothing is declared).
    input_elem_types: tuple[int | None, ...] = field(default_factory=tuple)
    # The enclosing graph; complete once preparation ends (it is read at run time only).
    graph: GraphView | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class KernelEntry:
    domain: str
    op_type: str
    since_version: int
    fn: Kernel
    context: bool
    prepare: Callable[..., Any] | None = None


class KernelRegistry(OpTable[KernelEntry]):
    """Kernels keyed by the operator identifier (domain, op_type, since_version)."""

    what = "kernel"

    def add(
        self,
        op_type: str,
        fn: Kernel,
        *,
        since: int | Iterable[int],
        domain: str = "",
        context: bool = False,
        prepare: Callable[..., Any] | None = None,
    ) -> None:
        """Register ``fn`` for every listed since_version of ``domain::op_type``."""
        versions: Sequence[int] = (since,) if isinstance(since, int) else tuple(since)
        for version in versions:
            entry = KernelEntry(domain, op_type, version, fn, context, prepare)
            self._put(domain, op_type, version, entry)


# -- the prepared graph, as the evaluator runs it and kernels that read their graph see it --


@dataclass
class SubgraphRef:
    """A prepared graph attribute; bound to the enclosing values at run time."""

    plan: GraphPlan


@dataclass
class Step:
    node: ir.Node
    fn: Callable[..., Any] | None  # None when the node runs through function_plan
    context: KernelContext | None
    inputs: list[str]
    outputs: list[str]
    attributes: dict[str, Any]
    subgraph_attributes: list[str] = field(default_factory=list)
    function_plan: GraphPlan | None = None  # set when the node runs through a function body
    since_version: int = 0  # the operator version the kernel implements (0 for functions)


@dataclass
class GraphPlan:
    inputs: list[ir.ValueInfo]
    outputs: list[str]
    constants: dict[str, Any]
    steps: list[Step]
    free_names: list[str]  # names read from enclosing scopes
    last_use: dict[str, int] = field(default_factory=dict)  # name -> index of last step reading it
    # The graph's declared output types: a zero-trip Loop builds its empty scan outputs from them.
    output_types: list[ValueType | None] = field(default_factory=list)
