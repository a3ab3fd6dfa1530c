"""Code generation: typed opset modules from operator specs (``python -m onnxcraft.codegen``)."""
