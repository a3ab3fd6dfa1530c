"""The quantization family: everything onnxcraft knows about its operators.

Operators: DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
QuantizeLinear.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
