"""The inference engine: types and values of one node (engine), of a graph (graph), of a
model read and written back (model, which loads protobuf: imported on first use).

Loading the package loads the first two, so the engine always infers operators without a
rule through their function bodies (the graph walker registers itself with the engine).
"""

from onnxcraft.infer import graph as _graph  # noqa: F401  (registers body inference)
