"""The inference engine: types and values of one node (engine), of a whole model (model).

Loading the package loads both, so the engine always infers operators without a rule through
their function bodies (the model walker registers itself with the engine).
"""

from onnxcraft.infer import model as _model  # noqa: F401  (registers body inference)
