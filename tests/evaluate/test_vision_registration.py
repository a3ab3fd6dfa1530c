"""Every since_version of the vision/normalization operators has a registered kernel."""

from __future__ import annotations

import pytest

from onnxcraft.evaluate.kernels import default_registry

defs = pytest.importorskip("onnx.defs")

OPERATORS = [
    "Conv",
    "ConvTranspose",
    "ConvInteger",
    "QLinearConv",
    "DeformConv",
    "CausalConvWithState",
    "Col2Im",
    "AveragePool",
    "MaxPool",
    "LpPool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "GlobalLpPool",
    "MaxUnpool",
    "MaxRoiPool",
    "RoiAlign",
    "BatchNormalization",
    "InstanceNormalization",
    "LayerNormalization",
    "GroupNormalization",
    "RMSNormalization",
    "LRN",
    "LpNormalization",
    "MeanVarianceNormalization",
    "Dropout",
    "NegativeLogLikelihoodLoss",
    "SoftmaxCrossEntropyLoss",
    "Resize",
    "Upsample",
    "GridSample",
    "AffineGrid",
    "CenterCropPad",
    "NonMaxSuppression",
    "ImageDecoder",
]


@pytest.mark.parametrize("op_type", OPERATORS)
def test_every_version_has_a_kernel(op_type: str) -> None:
    standard = sorted(
        s.since_version
        for s in defs.get_all_schemas_with_history()
        if s.name == op_type and s.domain in ("", "ai.onnx")
    )
    entries = default_registry().keys()  # a list of (domain, op_type, since_version)
    registered = sorted(v for d, o, v in entries if d == "" and o == op_type)
    assert standard, f"{op_type} is not in onnx.defs"
    assert registered == standard
