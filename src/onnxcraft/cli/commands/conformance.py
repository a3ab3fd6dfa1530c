"""Property-test an ONNX runtime against the standard (``onnxcraft.testing.conformance``).

onnxcraft conformance --backend onnxruntime --operators TopK,Sigmoid --examples 20
"""

from __future__ import annotations

from onnxcraft.testing.conformance.cli import add_arguments, run

__all__ = ["add_arguments", "run"]
