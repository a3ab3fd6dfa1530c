"""How many node-test outputs are inferred fully static: onnxcraft next to onnx's C++ inference.

    python tests/infer/measure_static.py [--list]

Declared output types are removed first; an output counts when its element type and every dim
are known. ``--list`` prints the outputs where onnx knows more than onnxcraft.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import onnx
from onnx import shape_inference

import onnxcraft as oc
from onnxcraft.proto import TypeProto
from onnxcraft.proto.serde import model_from_proto
from onnxcraft.types import Tensor
from tests.node_cases import case_names, node_tests_root


def _static_onnx(value_type: onnx.TypeProto) -> bool:
    if not value_type.HasField("tensor_type"):
        return False
    t = value_type.tensor_type
    return (
        bool(t.elem_type)
        and t.HasField("shape")
        and all(d.HasField("dim_value") for d in t.shape.dim)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    ours = theirs = total = 0
    onnx_better = []
    warnings.simplefilter("ignore")
    for name in case_names():
        model = onnx.load(str(node_tests_root() / name / "model.onnx"))
        for output in model.graph.output:
            output.type.CopyFrom(onnx.TypeProto())
        try:
            inferred_onnx = shape_inference.infer_shapes(model, data_prop=True)
            onnx_static = {o.name: _static_onnx(o.type) for o in inferred_onnx.graph.output}
        except Exception:
            onnx_static = {}
        stripped = oc.proto.ModelProto.FromString(model.SerializeToString())
        for output in stripped.graph.output:
            output.type.CopyFrom(TypeProto())
        ir_model = model_from_proto(oc.infer_shapes(stripped))
        for info in ir_model.graph.outputs:
            total += 1
            t = info.type
            mine = (
                isinstance(t, Tensor)
                and t.elem_type is not None
                and t.shape is not None
                and all(isinstance(d, int) for d in t.shape)
            )
            ours += mine
            theirs += onnx_static.get(info.name, False)
            if onnx_static.get(info.name, False) and not mine:
                onnx_better.append(f"{name}: {info.name} ({t})")
    print(
        f"outputs: {total}; fully static: onnxcraft {ours}, onnx data_prop {theirs}; "
        f"onnx better on {len(onnx_better)}"
    )
    if args.list:
        print("\n".join(onnx_better))


if __name__ == "__main__":
    main()
