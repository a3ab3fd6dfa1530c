"""The quantization family: its rules, kernels and recipes.

Rules for QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger and
"""
