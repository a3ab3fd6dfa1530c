"""The ONNX text syntax both ways: ``oc.to_text`` prints a model, graph, function or node;
``oc.parse`` (and ``parse_graph``, ``parse_function``, ``parse_node``) reads text back.

The modules: :mod:`~onnxcraft.text.printer` (IR to text), :mod:`~onnxcraft.text.lexer` and
:mod:`~onnxcraft.text.parser` (text to IR), :mod:`~onnxcraft.text.values` (tensor values as
the text writes them), :mod:`~onnxcraft.text.elide` (the stand-in for large tensors) and
:mod:`~onnxcraft.text.api` (the public functions, which take any model). This package module
imports nothing, so that the package root can load the printer without protobuf.
"""
