"""onnxcraft: build ONNX models from Python code.

The public API is listed in ``__all__``, grouped by concern; everything else is internal.
"""

from __future__ import annotations

from onnxcraft.errors import (
    BuildError,
    EvaluationError,
    ExternalDataError,
    InferenceError,
    MissingKernelError,
    ModelFileError,
    OnnxcraftError,
    OpAttributeError,
    OpInputError,
    ProtoError,
    SpecError,
    TensorConversionError,
    ValidationError,
)

__version__ = "0.1.0"

__all__ = [
    # errors
    "OnnxcraftError",
    "BuildError",
    "EvaluationError",
    "ExternalDataError",
    "InferenceError",
    "MissingKernelError",
    "ModelFileError",
    "OpAttributeError",
    "OpInputError",
    "ProtoError",
    "SpecError",
    "TensorConversionError",
    "ValidationError",
]
