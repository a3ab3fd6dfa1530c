"""Rules for QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger and
QLinearMatMul."""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.infer_common import element_type_attr
from onnxcraft.ops.linalg.rules import matmul_shape
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]


def _quantize(ctx: InferenceContext) -> list[ValueType | None]:
    if ctx.has_input(2):
        elem = ctx.elem(2)
    else:
        elem = _output_dtype(ctx) or ElementType.UINT8
    return [Tensor(elem, ctx.shape(0))]


def _dequantize(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(_output_dtype(ctx) or ctx.elem(1), ctx.shape(0))]


def _output_dtype(ctx: InferenceContext) -> ElementType | None:
    """The output_dtype attribute's element type; None when absent or 0 (unset)."""
    if not ctx.attr("output_dtype", 0):
        return None
    return element_type_attr(ctx, "output_dtype")


def _dynamic(ctx: InferenceContext) -> list[ValueType | None]:
    return [
        Tensor(ElementType.UINT8, ctx.shape(0)),
        Tensor(ElementType.FLOAT, ()),
        Tensor(ElementType.UINT8, ()),
    ]


def _matmul_integer(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ElementType.INT32, matmul_shape(ctx, ctx.shape(0), ctx.shape(1)))]


def _qlinear_matmul(ctx: InferenceContext) -> list[ValueType | None]:
    return [Tensor(ctx.elem(7), matmul_shape(ctx, ctx.shape(0), ctx.shape(3)))]


def register(rules: RuleRegistry) -> None:
    rules.add("QuantizeLinear", _quantize, since=ALL_VERSIONS)
    rules.add("DequantizeLinear", _dequantize, since=ALL_VERSIONS)
    rules.add("DynamicQuantizeLinear", _dynamic, since=ALL_VERSIONS)
    rules.add("MatMulInteger", _matmul_integer, since=ALL_VERSIONS)
    rules.add("QLinearMatMul", _qlinear_matmul, since=ALL_VERSIONS)
