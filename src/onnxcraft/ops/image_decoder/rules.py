"""Rule for ImageDecoder: (height, width, channels) uint8, channels fixed by pixel_format."""

from __future__ import annotations

from onnxcraft.dtypes import ElementType
from onnxcraft.ops.infer_api import ALL_VERSIONS, InferenceContext, RuleRegistry
from onnxcraft.ops.windows import require_rank
from onnxcraft.types import Tensor, ValueType

__all__ = ["register"]

CHANNELS = {"RGB": 3, "BGR": 3, "Grayscale": 1}


def _image_decoder(ctx: InferenceContext) -> list[ValueType | None]:
    require_rank(ctx, 0, "encoded_stream", exactly=1)
    pixel_format = str(ctx.attr("pixel_format", "RGB"))
    if pixel_format not in CHANNELS:
        raise ctx.fail(f"pixel_format must be one of {list(CHANNELS)}, got {pixel_format!r}")
    # Height and width are only known once the stream is decoded.
    return [Tensor(ElementType.UINT8, (None, None, CHANNELS[pixel_format]))]


def register(rules: RuleRegistry) -> None:
    rules.add("ImageDecoder", _image_decoder, since=ALL_VERSIONS)
