"""From a model to onnxcraft code: ``oc.to_python``."""

from onnxcraft.pycode.module import DEFAULT_INLINE_LIMIT, to_python

__all__ = ["DEFAULT_INLINE_LIMIT", "to_python"]
