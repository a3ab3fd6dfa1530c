"""The recipe table and what every recipe is built from: :class:`NodeDraw`, one node being drawn.

A recipe is a function ``spec -> SearchStrategy[NodeCase]`` drawing valid nodes of one operator
version; each family's ``ops/<family>/recipes.py`` adds its recipes to a
:class:`RecipeRegistry` in ``register(recipes)``, and :mod:`onnxcraft.testing.recipes` loads
them on first use (this module imports hypothesis, which ``import onnxcraft`` never loads).
Most recipes are written as

    @recipe
    def unary(n: NodeDraw) -> NodeCase:
        x = n.tensor(0, n.shape())
        return n.case([x], n.attrs(alpha=st.floats(0.1, 2)))

``n.tensor(i, shape)`` draws input ``i`` with the element type its type parameter binds (drawn
once per parameter, within the spec's constraint), as a graph input or an initializer; graph
inputs get declared shapes that may hide dims behind symbols or None, or hide the rank.
``n.attrs(...)`` keeps only the attributes the spec version has, so one recipe serves every
version of an operator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from functools import wraps
from typing import Any

import numpy as np
from hypothesis import strategies as st

from onnxcraft.dtypes import FLOAT_TYPES, ElementType, element_type_of, numpy_dtype
from onnxcraft.numerics import from_float32
from onnxcraft.ops import strategies as ocst
from onnxcraft.ops.node_case import Input, NodeCase
from onnxcraft.specs.model import OpSpec
from onnxcraft.types import Sequence as SequenceType
from onnxcraft.types import Tensor, ValueType

__all__ = [
    "FLOATS",
    "INTEGERS",
    "SIGNED",
    "UNSIGNED",
    "PREFERRED_ELEMENTS",
    "NodeDraw",
    "Recipe",
    "RecipeRegistry",
    "recipe",
]

Recipe = Callable[[OpSpec], st.SearchStrategy[NodeCase]]

# The element types a runtime under test takes (None: any): type parameters are bound within
# them where the constraint allows one, so drawing for a runtime's profile wastes few cases.
PREFERRED_ELEMENTS: ContextVar[frozenset[ElementType] | None] = ContextVar(
    "PREFERRED_ELEMENTS", default=None
)
Draw = Callable[[st.SearchStrategy[Any]], Any]

FLOATS = FLOAT_TYPES
SIGNED = frozenset(
    {
        ElementType.INT8,
        ElementType.INT16,
        ElementType.INT32,
        ElementType.INT64,
        ElementType.INT4,
        ElementType.INT2,
    }
)
UNSIGNED = frozenset(
    {
        ElementType.UINT8,
        ElementType.UINT16,
        ElementType.UINT32,
        ElementType.UINT64,
        ElementType.UINT4,
        ElementType.UINT2,
    }
)
INTEGERS = SIGNED | UNSIGNED


class RecipeRegistry(Mapping[tuple[str, str], Recipe]):
    """Recipes keyed by (domain, op_type): one recipe serves every version of an operator."""

    def __init__(self) -> None:
        self._recipes: dict[tuple[str, str], Recipe] = {}

    def add(self, op_type: str, found: Recipe, *, domain: str = "") -> None:
        """Register ``found`` for ``domain::op_type``; an operator registered twice is an error."""
        key = (domain, op_type)
        if key in self._recipes:
            raise ValueError(f"recipe for {domain or 'ai.onnx'}::{op_type} is registered twice")
        self._recipes[key] = found

    def __getitem__(self, key: tuple[str, str]) -> Recipe:
        return self._recipes[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._recipes)

    def __len__(self) -> int:
        return len(self._recipes)


# How a graph input declares its type: exactly, with some dims hidden, or without a rank.
_DECLARE_MODES = ("static", "static", "mixed", "unknown rank")


class NodeDraw:
    """One node being drawn for ``spec``: bound type parameters, inputs and attributes."""

    def __init__(self, draw: Draw, spec: OpSpec) -> None:
        self.draw = draw
        self.spec = spec
        self._elems: dict[str, ElementType] = {}
        self.attribute_names = {a.name for a in spec.attributes}

    @property
    def version(self) -> int:
        return self.spec.since_version

    # -- type parameters --------------------------------------------------------------------------

    def param(self, index: int) -> str:
        """The type parameter (or fixed type string) of formal input ``index``."""
        formals = self.spec.inputs
        return formals[min(index, len(formals) - 1)].type_str

    def output_param(self, index: int) -> str:
        formals = self.spec.outputs
        return formals[min(index, len(formals) - 1)].type_str

    def elem(
        self,
        param: str,
        *,
        only: Iterable[ElementType] | None = None,
        exclude: Iterable[ElementType] = (),
    ) -> ElementType:
        """The element type bound to ``param`` (drawn on first use, within ``only``)."""
        if param in self._elems:
            return self._elems[param]
        allowed = self.tensor_elems(param)
        if only is not None:
            wanted = set(only)
            allowed = [e for e in allowed if e in wanted]
        removed = set(exclude)
        allowed = [e for e in allowed if e not in removed]
        preferred = PREFERRED_ELEMENTS.get()
        if preferred is not None and any(e in preferred for e in allowed):
            allowed = [e for e in allowed if e in preferred]
        if not allowed:
            raise ValueError(
                f"{self.spec.name}-{self.version}: no element type of {param!r} satisfies "
                f"the recipe's restriction"
            )
        chosen: ElementType = self.draw(st.sampled_from(allowed))
        self._elems[param] = chosen
        return chosen

    def tensor_elems(self, param: str) -> list[ElementType]:
        """The tensor element types ``param`` allows (in spec order)."""
        found = []
        for text in ocst.allowed_types(self.spec, param):
            parsed = ocst.parse_type(text)
            if type(parsed) is Tensor and parsed.elem_type is not None:
                found.append(parsed.elem_type)
        return found

    def bound(self, param: str) -> ElementType | None:
        """The element type already bound to ``param``, if any."""
        return self._elems.get(param)

    def bind(self, param: str, elem: ElementType) -> ElementType:
        """Fix ``param`` to ``elem`` (as if drawn)."""
        self._elems[param] = elem
        return elem

    # -- shapes and values ------------------------------------------------------------------------

    def shape(
        self, *, min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 4
    ) -> tuple[int, ...]:
        """A small shape (rank 0 and empty dims included unless the limits say otherwise)."""
        shape: tuple[int, ...] = self.draw(
            ocst.array_shapes(
                min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side
            )
        )
        return shape

    def integer(self, low: int, high: int) -> int:
        value: int = self.draw(st.integers(low, high))
        return value

    def flag(self) -> bool:
        value: bool = self.draw(st.booleans())
        return value

    def choice(self, options: Sequence[Any]) -> Any:
        return self.draw(st.sampled_from(list(options)))

    def axis(self, rank: int) -> int:
        value: int = self.draw(ocst.valid_axis(rank))
        return value

    def axes(self, rank: int, *, min_size: int = 0, max_size: int | None = None) -> list[int]:
        chosen: tuple[int, ...] = self.draw(
            ocst.valid_axes(rank, min_size=min_size, max_size=max_size)
        )
        return list(chosen)

    def array(
        self,
        elem: ElementType,
        shape: tuple[int, ...],
        *,
        low: float | None = -4,
        high: float | None = 4,
        unique: bool = False,
    ) -> np.ndarray:
        """An array of ``elem``; bounds are clipped to what the type can hold."""
        if elem == ElementType.FLOAT8E8M0:
            low = 0.125 if low is None or low < 0.125 else low  # positive powers of two only
        if elem in (ElementType.UINT4, ElementType.UINT2) or _unsigned(elem):
            low = 0 if low is None or low < 0 else low
        if elem in (ElementType.INT2, ElementType.UINT2) and high is not None:
            high = min(high, 1 if elem == ElementType.INT2 else 3)
        if low is not None and high is not None and low > high:
            high = low
        array: np.ndarray = self.draw(
            ocst.arrays(elem, shape, min_value=low, max_value=high, unique=unique)
        )
        return array

    # -- inputs -----------------------------------------------------------------------------------

    def tensor(
        self,
        index: int,
        shape: tuple[int, ...],
        *,
        elem: ElementType | None = None,
        low: float | None = -4,
        high: float | None = 4,
        unique: bool = False,
        constant: bool | None = None,
    ) -> Input:
        """Input ``index``: an array of its type parameter's element type (or ``elem``)."""
        if elem is None:
            elem = self.elem(self.param(index))
        return self.given(
            self.array(elem, shape, low=low, high=high, unique=unique), constant=constant
        )

    def given(self, value: Any, *, constant: bool | None = None) -> Input:
        """An input of a value the recipe computed: an array, a list (sequence) or None."""
        if isinstance(value, list):
            return Input(value, _sequence_type(value))
        array = np.asarray(value)
        value_type = Tensor(element_type_of(array.dtype), array.shape)
        is_constant: bool = self.flag() if constant is None else constant
        return Input(array, value_type, constant=is_constant)

    def value(self, value: Any, value_type: ValueType) -> Input:
        """An input of any kind (sequence, optional, map) with its exact type."""
        return Input(value, value_type)

    def ints(
        self,
        values: Iterable[int],
        *,
        constant: bool | None = None,
        elem: ElementType = ElementType.INT64,
    ) -> Input:
        """A 1-D integer input (shapes, axes, pads ...)."""
        return self.given(np.asarray(list(values), dtype=numpy_dtype(elem)), constant=constant)

    def scalar(
        self, value: Any, elem: ElementType, *, constant: bool | None = None, rank: int = 0
    ) -> Input:
        """A one-element input: 0-D, or of shape (1,) * ``rank``."""
        dtype = numpy_dtype(elem)
        if dtype.names is not None:  # bfloat16, float8 ...: encoded from the float value
            array = from_float32(np.asarray(value, np.float32), elem).reshape((1,) * rank)
        else:
            array = np.asarray(value, dtype=dtype).reshape((1,) * rank)
        return self.given(array, constant=constant)

    # -- attributes -------------------------------------------------------------------------------

    def attrs(self, **choices: Any) -> dict[str, Any]:
        """Attribute values: strategies are drawn; names this version lacks and None dropped."""
        result: dict[str, Any] = {}
        for name, choice in choices.items():
            if name not in self.attribute_names:
                continue
            value = self.draw(choice) if isinstance(choice, st.SearchStrategy) else choice
            if value is not None:
                result[name] = value
        return result

    def has(self, name: str) -> bool:
        """True if this version has an attribute or a formal input called ``name``."""
        return name in self.attribute_names or any(f.name == name for f in self.spec.inputs)

    # -- the case ---------------------------------------------------------------------------------

    def case(
        self,
        inputs: Sequence[Input | None],
        attributes: dict[str, Any] | None = None,
        *,
        outputs: Sequence[bool] | int | None = None,
        declare: bool = True,
        captured: Sequence[Input] = (),
    ) -> NodeCase:
        """The finished node; graph inputs get drawn declared types unless ``declare=False``.

        ``captured`` are graph inputs read only by the node's bodies (as ``cap0``, ``cap1``).
        """
        drawn = tuple(self._declare(item) if declare else item for item in inputs)
        outer = tuple(self._declare(item) if declare else item for item in captured)
        return NodeCase(
            self.spec.domain,
            self.spec.name,
            self.version,
            drawn,
            dict(attributes or {}),
            self._outputs(outputs),
            captured=tuple(i for i in outer if i is not None),
        )

    def _outputs(self, outputs: Sequence[bool] | int | None) -> tuple[bool, ...]:
        if isinstance(outputs, int):
            return (True,) * outputs
        if outputs is not None:
            return tuple(outputs)
        wanted: list[bool] = []
        for formal in self.spec.outputs:
            if formal.option == "variadic":
                raise ValueError(
                    f"{self.spec.name}-{self.version}: a variadic output needs an explicit count"
                )
            wanted.append(True if formal.option == "single" else self.flag())
        return tuple(wanted) if any(wanted) else (True,)

    def _declare(self, item: Input | None) -> Input | None:
        if item is None or item.constant or not isinstance(item.type, Tensor):
            return item
        shape = item.type.shape
        assert shape is not None
        mode = self.choice(_DECLARE_MODES)
        if mode == "static":
            return item
        if mode == "unknown rank":
            declared = Tensor(item.type.elem_type, None)
        else:
            options = st.sampled_from(["static", "symbol", "unknown"])
            kinds = self.draw(st.lists(options, min_size=len(shape), max_size=len(shape)))
            dims = tuple(
                d if kind == "static" else (f"d{d}" if kind == "symbol" else None)
                for d, kind in zip(shape, kinds)
            )
            declared = Tensor(item.type.elem_type, dims)
        return Input(item.value, item.type, item.constant, declared)


def _unsigned(elem: ElementType) -> bool:
    dtype = numpy_dtype(elem)
    return dtype.names is None and dtype.kind in "ub"


def _sequence_type(value: list[Any]) -> SequenceType:
    if not value:
        raise ValueError("an empty sequence input needs its type: use NodeDraw.value()")
    first = np.asarray(value[0])
    return SequenceType(Tensor(element_type_of(first.dtype), None))


def recipe(fn: Callable[[NodeDraw], NodeCase]) -> Recipe:
    """Turn ``fn(n: NodeDraw) -> NodeCase`` into a recipe ``spec -> SearchStrategy[NodeCase]``."""

    @wraps(fn)
    def build(spec: OpSpec) -> st.SearchStrategy[NodeCase]:
        @st.composite
        def draw_case(draw: Draw) -> NodeCase:
            return fn(NodeDraw(draw, spec))

        return draw_case()

    return build
