"""The registries through which the DSL reaches the layers above it.

``core`` sits below the generated opset modules and the inference engine, yet building an
expression needs both: every operator call infers its output types, and the Python operators
on Var (``x + y``) call the generated functions of the default opset. ``core`` imports neither;
it declares a :class:`Hook` for each, and the layer that implements it fills the hook when it
is imported (``onnxcraft.infer.engine`` fills :data:`infer_types`, ``onnxcraft.opset._modules``
fills :data:`opset_module`, ``onnxcraft.infer`` fills :data:`check_types` for ``oc.check``'s
full check). ``import onnxcraft`` imports both, so for users the hooks are
always filled; using an empty one is an :class:`~onnxcraft.errors.OnnxcraftError` naming the
module that fills it. :data:`picture` (a Var's picture in a notebook) is filled by the package
root with a function that imports ``onnxcraft.draw`` only when a picture is first asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, Generic, TypeVar

from onnxcraft.core.opinfo import OpInfo
from onnxcraft.errors import OnnxcraftError
from onnxcraft.ir import Model
from onnxcraft.types import ValueType

__all__ = [
    "CheckTypes",
    "Hook",
    "InferTypes",
    "OpsetModule",
    "check_types",
    "ConvertModel",
    "convert_model",
    "infer_types",
    "opset_module",
    "Picture",
    "picture",
]

F = TypeVar("F", bound=Callable[..., Any])


class Hook(Generic[F]):
    """One function that a higher layer provides to the DSL."""

    __slots__ = ("_fn", "filled_by", "name")

    def __init__(self, name: str, filled_by: str) -> None:
        self.name = name
        self.filled_by = filled_by  # the module whose import fills the hook, for the message
        self._fn: F | None = None

    def fill(self, fn: F) -> None:
        """Provide the function (a later fill replaces an earlier one)."""
        self._fn = fn

    def get(self) -> F:
        """The function provided; an OnnxcraftError when no layer has filled the hook yet."""
        fn = self._fn
        if fn is None:
            raise OnnxcraftError(
                f"onnxcraft.core needs {self.name}, which {self.filled_by} provides when it is "
                f"imported; import onnxcraft (the package root imports it) before building "
                f"expressions"
            )
        return fn


# (op, input types, input values, attributes, output count, opset, body output types,
# which inputs are present) -> (output types, known output values by output index)
InferTypes = Callable[
    [
        OpInfo,
        Sequence[ValueType | None],
        Sequence[Any],
        dict[str, Any],
        int,
        int,
        dict[str, Any] | None,
        Sequence[bool] | None,
    ],
    tuple[list[ValueType | None], dict[int, Any]],
]

# (domain, opset) -> the generated module of the operators of ``domain`` at that opset
OpsetModule = Callable[[str, int], ModuleType]

infer_types: Hook[InferTypes] = Hook("type inference", "onnxcraft.infer.engine")
opset_module: Hook[OpsetModule] = Hook("the generated opset modules", "onnxcraft.opset._modules")

# model -> the problems strict type inference finds in it ("where: [inference] what")
CheckTypes = Callable[[Model], list[str]]

check_types: Hook[CheckTypes] = Hook("strict type inference", "onnxcraft.infer")
# (model, target: an ai.onnx opset or a mapping domain -> opset) -> the model converted
ConvertModel = Callable[[Model, Any], Model]
convert_model: Hook[ConvertModel] = Hook("version conversion", "onnxcraft.convert.hook")
# (a Var, "svg" or "html") -> the picture of the graph computing it, None when it cannot be
# drawn. The package root fills it with a function that loads onnxcraft.draw on first use.
Picture = Callable[[Any, str], "str | None"]

picture: Hook[Picture] = Hook("pictures of graphs", "the package root (from onnxcraft.draw)")
