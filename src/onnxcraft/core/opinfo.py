"""Per operator version, what the call path needs from its spec, computed once.

An :class:`OpInfo` holds the parsed type constraints, the formal inputs/outputs and the
attribute table of one (domain, op_type, since_version). Generated op functions call into the
core with the operator's key; :func:`op_info` turns the key into this cached record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from onnxcraft.core.typestr import parse_type_string
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import SpecError
from onnxcraft.specs import get as get_spec
from onnxcraft.types import Tensor, ValueType

if TYPE_CHECKING:
    from onnxcraft.specs.model import AxisBound, OpSpec

__all__ = ["AttrInfo", "CustomRule", "FormalInfo", "OpInfo", "op_info", "custom_op_info"]

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"


@dataclass(frozen=True, slots=True)
class FormalInfo:
    """A formal input or output: its name, option and allowed types."""

    name: str
    option: str  # "single" | "optional" | "variadic"
    constraint: str | None  # the type parameter name ("T"), or None for a fixed type
    allowed: tuple[ValueType, ...]  # parsed allowed types (empty: anything)
    homogeneous: bool = True
    min_arity: int = 1
    # The allowed element types when every allowed type is a tensor (the fast path of checks).
    tensor_elems: frozenset[ElementType] | None = None


@dataclass(frozen=True, slots=True)
class AttrInfo:
    name: str
    type: str  # ONNX attribute type name: "INT", "FLOATS", "GRAPH", ...
    required: bool
    default: Any  # plain Python value, None when there is none
    allowed: tuple[str | int, ...] = ()  # an enumerated attribute's values (each element's)
    axis: AxisBound | None = None  # an axis attribute: which input's rank bounds it


# The inference rule an operator without a spec brings (custom_op's infer=, a traced
# @oc.function, a function carried over by inline): InferenceContext -> output types.
CustomRule = Callable[[Any], Sequence[ValueType | None]]


@dataclass(frozen=True, slots=True, eq=False)
class OpInfo:
    """One operator version as the call path needs it; immutable, compared by identity.

    Standard operators get theirs from :func:`op_info` (one per version, cached); their
    inference rules and kernels are looked up (and memoized) by the tables that hold them.
    Operators without a spec (``custom``) carry what they have: their own rule, and for
    functions the definition whose FunctionProto a model using them must include.
    """

    domain: str
    op_type: str
    since_version: int
    inputs: tuple[FormalInfo, ...]
    outputs: tuple[FormalInfo, ...]
    attributes: dict[str, AttrInfo]
    spec: OpSpec | None = None
    custom: bool = False
    custom_rule: CustomRule | None = None  # custom operators only; None: outputs unknown
    # For a function call: the definition (an @oc.function or a function inlined from a model)
    # that ``build`` turns into the model's FunctionProto; it answers ``to_ir()``.
    function: Any = None
    required_attributes: tuple[AttrInfo, ...] = field(init=False)
    has_axis_attributes: bool = field(init=False)
    ruled_attributes: frozenset[str] = field(init=False)  # enumerated or axis attributes
    defaults: dict[str, Any] = field(init=False)  # attribute name -> its default, where given

    def __post_init__(self) -> None:
        required = tuple(a for a in self.attributes.values() if a.required)
        object.__setattr__(self, "required_attributes", required)
        axes = any(a.axis is not None for a in self.attributes.values())
        object.__setattr__(self, "has_axis_attributes", axes)
        ruled = frozenset(a.name for a in self.attributes.values() if a.allowed or a.axis)
        object.__setattr__(self, "ruled_attributes", ruled)
        defaults = {a.name: a.default for a in self.attributes.values() if a.default is not None}
        object.__setattr__(self, "defaults", defaults)

    @property
    def label(self) -> str:
        return f"{self.op_type}"

    @property
    def qualified(self) -> str:
        return f"{self.domain or 'ai.onnx'}@{self.since_version}::{self.op_type}"

    @property
    def min_inputs(self) -> int:
        count = 0
        for formal in self.inputs:
            if formal.option == SINGLE:
                count += 1
            elif formal.option == VARIADIC:
                count += formal.min_arity
        return count

    @property
    def max_inputs(self) -> int | None:
        if self.inputs and self.inputs[-1].option == VARIADIC:
            return None
        return len(self.inputs)


def _formals(params: Any, constraints: dict[str, tuple[ValueType, ...]]) -> tuple[FormalInfo, ...]:
    result = []
    for p in params:
        if p.type_str in constraints:
            constraint: str | None = p.type_str
            allowed = constraints[p.type_str]
        else:
            constraint = None
            allowed = (parse_type_string(p.type_str),)
        tensor_only = all(type(t) is Tensor and t.elem_type is not None for t in allowed)
        result.append(
            FormalInfo(
                name=p.name,
                option=p.option,
                constraint=constraint,
                allowed=allowed,
                homogeneous=bool(getattr(p, "homogeneous", True)),
                min_arity=int(getattr(p, "min_arity", 1) or 0),
                tensor_elems=_tensor_elems(allowed) if tensor_only and allowed else None,
            )
        )
    return tuple(result)


def _tensor_elems(allowed: tuple[ValueType, ...]) -> frozenset[ElementType]:
    """The element types of a constraint that admits only tensors of known element type."""
    return frozenset(
        t.elem_type for t in allowed if isinstance(t, Tensor) and t.elem_type is not None
    )


def from_spec(spec: OpSpec) -> OpInfo:
    """Compile one spec version into an OpInfo."""
    constraints = {
        tc.name: tuple(parse_type_string(t) for t in tc.allowed) for tc in spec.type_constraints
    }
    attributes = {
        a.name: AttrInfo(a.name, a.type, bool(a.required), a.default, a.allowed, a.axis)
        for a in spec.attributes
    }
    return OpInfo(
        domain=spec.domain,
        op_type=spec.name,
        since_version=spec.since_version,
        inputs=_formals(spec.inputs, constraints),
        outputs=_formals(spec.outputs, constraints),
        attributes=attributes,
        spec=spec,
    )


@cache
def op_info(domain: str, op_type: str, since_version: int) -> OpInfo:
    """The compiled info of a standard operator version (cached)."""
    spec = get_spec(op_type, domain=domain, opset=since_version)
    if spec.since_version != since_version:
        raise SpecError(
            f"{op_type}: no version {since_version} in domain {domain or 'ai.onnx'!r} "
            f"(the version in force at opset {since_version} is {spec.since_version})"
        )
    return from_spec(spec)


def custom_op_info(
    domain: str,
    op_type: str,
    num_inputs: int,
    num_outputs: int,
    *,
    since_version: int = 1,
    rule: CustomRule | None = None,
    function: Any = None,
) -> OpInfo:
    """An OpInfo for an ad hoc operator that has no spec: anything goes, nothing is checked.

    ``rule`` gives its output types (unknown without one); ``function`` is the definition
    of a function call (see :attr:`OpInfo.function`).
    """
    inputs = tuple(FormalInfo(f"input_{i}", OPTIONAL, None, ()) for i in range(num_inputs))
    outputs = tuple(FormalInfo(f"output_{i}", SINGLE, None, ()) for i in range(num_outputs))
    return OpInfo(
        domain,
        op_type,
        since_version,
        inputs,
        outputs,
        {},
        custom=True,
        custom_rule=rule,
        function=function,
    )
