"""onnxcraft: build ONNX models from Python code.

    import numpy as np
    import onnxcraft as oc
    from onnxcraft.opset.ai.onnx import v21 as op

    X = oc.arg("X", np.float32, ("N", 4))
    Y = op.Add(op.MatMul(X, np.ones((4, 3), np.float32)), 0.5)
    model = oc.build(inputs=[X], outputs={"Y": Y})

The public API is listed in ``__all__``, grouped by concern; everything else is internal.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from onnxcraft import ir

# The next three fill, on import, the hooks through which the DSL reaches version conversion,
# type inference and the generated opset modules (onnxcraft.core.hooks).
from onnxcraft.convert import hook as _convert_hook  # noqa: F401
from onnxcraft.core import hooks as _hooks
from onnxcraft.core.api import arg, const, custom_op, initializer
from onnxcraft.core.bodies import subgraph
from onnxcraft.core.build import build, build_ir
from onnxcraft.core.function import function
from onnxcraft.core.inline import inline
from onnxcraft.core.var import Var
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import (
    ArgumentError,
    BuildError,
    CodeGenerationError,
    CommandLineError,
    CompareError,
    EvaluationError,
    EvaluationLimitError,
    ExternalDataError,
    InferenceError,
    InvalidModelError,
    MissingKernelError,
    ModelFileError,
    OnnxcraftError,
    OpAttributeError,
    OpInputError,
    ProtoError,
    SpecError,
    SymbolicValueError,
    TensorConversionError,
    TextSyntaxError,
    ValidationError,
    VersionConversionError,
)
from onnxcraft.infer import engine as _infer_engine  # noqa: F401
from onnxcraft.opset import _modules as _opset_modules  # noqa: F401

# The printer registers itself as what str() of an IR model shows (onnxcraft.ir.register_printer);
# it reads only the IR, so this loads no protobuf.
from onnxcraft.text import printer as _text_printer  # noqa: F401
from onnxcraft.types import Map, Optional, Sequence, SparseTensor, Tensor
from onnxcraft.version import __version__ as __version__

if TYPE_CHECKING:
    from onnxcraft import proto
    from onnxcraft.codegen.user import load_opset
    from onnxcraft.convert.engine import convert_version
    from onnxcraft.core.check import check
    from onnxcraft.draw.api import Drawing
    from onnxcraft.evaluate.evaluator import Evaluator
    from onnxcraft.evaluate.kernels import register_kernel
    from onnxcraft.evaluate.limits import Limits
    from onnxcraft.infer.model import infer_shapes
    from onnxcraft.infer.rules import register_rule
    from onnxcraft.io import load, load_ir, save
    from onnxcraft.proto.tensor import (
        from_array,
        from_sparse,
        from_value,
        sparse_to_dense,
        to_array,
        to_sparse,
        to_value,
    )
    from onnxcraft.pycode import to_python
    from onnxcraft.text.api import parse, parse_function, parse_graph, parse_node, to_text

# Names whose modules pull in protobuf or the evaluator are imported on first use, so that
# `import onnxcraft` (and every generated opset module) stays fast.
_LAZY = {
    "proto": ("onnxcraft", "proto"),
    "check": ("onnxcraft.core.check", "check"),
    "convert_version": ("onnxcraft.convert.engine", "convert_version"),
    "Evaluator": ("onnxcraft.evaluate.evaluator", "Evaluator"),
    "register_kernel": ("onnxcraft.evaluate.kernels", "register_kernel"),
    "Limits": ("onnxcraft.evaluate.limits", "Limits"),
    "infer_shapes": ("onnxcraft.infer.model", "infer_shapes"),
    "register_rule": ("onnxcraft.infer.rules", "register_rule"),
    "load_opset": ("onnxcraft.codegen.user", "load_opset"),
    "load": ("onnxcraft.io", "load"),
    "load_ir": ("onnxcraft.io", "load_ir"),
    "save": ("onnxcraft.io", "save"),
    "to_text": ("onnxcraft.text.api", "to_text"),
    "parse": ("onnxcraft.text.api", "parse"),
    "parse_graph": ("onnxcraft.text.api", "parse_graph"),
    "parse_function": ("onnxcraft.text.api", "parse_function"),
    "parse_node": ("onnxcraft.text.api", "parse_node"),
    "to_python": ("onnxcraft.pycode", "to_python"),
    **{
        name: ("onnxcraft.proto.tensor", name)
        for name in (
            "from_array",
            "from_sparse",
            "from_value",
            "sparse_to_dense",
            "to_array",
            "to_sparse",
            "to_value",
        )
    },
}


# `onnxcraft.evaluate` is also a subpackage: import it first, so that the function defined
# next owns the name (a later import of the subpackage would otherwise replace it).
from onnxcraft import evaluate as _evaluate_package  # noqa: E402, F401


def evaluate(
    model: Any,
    feeds: Any,
    *,
    outputs: Any = None,
    intermediates: bool = False,
    limits: Any = None,
    cancel: Any = None,
    fuse: bool = True,
) -> dict[str, Any]:
    """Evaluate a model (or DSL outputs) on numpy, within ``limits`` (an ``oc.Limits``);
    ``cancel`` (a ``threading.Event``) stops it from another thread.
    ``fuse=False`` runs every node as written (no BatchNormalization folded into a Conv).

    See :func:`onnxcraft.evaluate.evaluator.evaluate` for the arguments.
    """
    # Lazy: the evaluator loads protobuf; `import onnxcraft` stays fast without it.
    from onnxcraft.evaluate.evaluator import evaluate as run  # noqa: PLC0415

    return run(
        model,
        feeds,
        outputs=outputs,
        intermediates=intermediates,
        limits=limits,
        cancel=cancel,
        fuse=fuse,
    )


# `onnxcraft.compare` is a subpackage too (its own module imports nothing): the same order.
from onnxcraft import compare as _compare_package  # noqa: E402, F401


def compare(
    model: Any,
    feeds: Any,
    against: Any = "float64",
    *,
    rtol: float | None = None,
    atol: float | None = None,
    limits: Any = None,
    cancel: Any = None,
) -> Any:
    """Run ``model`` on ``feeds`` two ways and report, per value, how far the runs are apart
    and the first node whose output differs while its inputs agree.

    See :func:`onnxcraft.compare.runs.compare` for the arguments.
    """
    # Lazy: comparing loads the evaluator and protobuf; `import onnxcraft` stays fast without.
    from onnxcraft.compare.runs import compare as run  # noqa: PLC0415

    return run(model, feeds, against, rtol=rtol, atol=atol, limits=limits, cancel=cancel)


# `onnxcraft.draw` is also a subpackage (light: it imports nothing): import it first, so that
# the function defined next owns the name.
from onnxcraft import draw as _draw_package  # noqa: E402, F401


def draw(model: Any, path: str | os.PathLike[str] | None = None) -> Drawing:
    """A picture of ``model``'s graph (a model, a Var or list of Vars): an
    :class:`onnxcraft.draw.api.Drawing` with ``svg`` and ``html``; written to ``path`` when
    given (``.svg`` or ``.html``). See :func:`onnxcraft.draw.api.draw`.
    """
    # Lazy: drawing loads protobuf and the inference engine; `import onnxcraft` stays fast.
    from onnxcraft.draw.api import draw as run  # noqa: PLC0415

    return run(model, path)


def _picture(subject: Any, kind: str) -> str | None:
    """A model's or Var's picture for a notebook ("svg" or "html"), None when it cannot be
    drawn."""
    # Lazy, as draw above: the notebook pictures load the drawing modules on first use.
    from onnxcraft.draw.notebook import picture  # noqa: PLC0415

    return picture(subject, kind)


# The slots through which Var, ir.Model and ModelProto show as pictures in a notebook.
_hooks.picture.fill(_picture)
ir.register_picture(_picture)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module_name, attribute = _LAZY[name]
        module = importlib.import_module(module_name if attribute != "proto" else "onnxcraft.proto")
        value = module if attribute == "proto" else getattr(module, attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'onnxcraft' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the ones loaded on first use included (for tab completion)."""
    return sorted({*globals(), *_LAZY})


__all__ = [
    # building models
    "arg",
    "build",
    "build_ir",
    "ir",
    "const",
    "custom_op",
    "function",
    "initializer",
    "inline",
    "load_opset",
    "subgraph",
    "Var",
    # types
    "ElementType",
    "Map",
    "Optional",
    "Sequence",
    "SparseTensor",
    "Tensor",
    # checking, inference, evaluation
    "check",
    "evaluate",
    "Evaluator",
    "Limits",
    "infer_shapes",
    "convert_version",
    "register_kernel",
    "register_rule",
    "compare",
    # model files
    "load",
    "load_ir",
    "save",
    # the text form
    "to_text",
    "parse",
    "parse_graph",
    "parse_function",
    "parse_node",
    # reading models
    "to_python",
    # pictures
    "draw",
    # tensors and values
    "from_array",
    "from_sparse",
    "from_value",
    "sparse_to_dense",
    "to_array",
    "to_sparse",
    "to_value",
    # the protobuf classes
    "proto",
    # errors
    "OnnxcraftError",
    "ArgumentError",
    "BuildError",
    "EvaluationError",
    "EvaluationLimitError",
    "ExternalDataError",
    "InferenceError",
    "InvalidModelError",
    "VersionConversionError",
    "MissingKernelError",
    "ModelFileError",
    "OpAttributeError",
    "OpInputError",
    "ProtoError",
    "SpecError",
    "SymbolicValueError",
    "TensorConversionError",
    "ValidationError",
    "TextSyntaxError",
    "CodeGenerationError",
    "CompareError",
    "CommandLineError",
]
