"""The version of onnxcraft (written as the producer_version of the models it builds)."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
