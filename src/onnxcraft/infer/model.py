"""``oc.infer_shapes``: a model read once into the IR, inferred, and written back.

The graph walk itself is :mod:`onnxcraft.infer.graph`; this module is the entry point that
reads any model and writes the inferred types into a copy of it (it loads protobuf, so the
package root imports it on first use).
"""

from __future__ import annotations

from typing import Any

from onnxcraft import ir
from onnxcraft.core.refine import refine
from onnxcraft.errors import InferenceError
from onnxcraft.gcpause import gc_paused
from onnxcraft.infer.graph import (
    GraphInference,
    InferenceWarning,
    Initializer,
    infer_through_body,
)
from onnxcraft.io import model_proto
from onnxcraft.ops.infer_api import VALUE_LIMIT
from onnxcraft.proto import ModelProto
from onnxcraft.proto.inference import read_for_inference, write_inferred_types

__all__ = ["InferenceWarning", "infer_shapes", "infer_through_body", "refine"]


def infer_shapes(model: Any, *, strict: bool = False) -> Any:
    """A copy of ``model`` with every output typed and value_info for every intermediate.

    An :class:`onnxcraft.ir.Model` gives an IR model (sharing its tensors); any other model (a
    ModelProto, onnxcraft's or onnx's, its bytes or the path of its file) gives onnxcraft's
    ModelProto.

    ``strict=True`` raises InferenceError on the first inconsistency (a node whose inputs do
    not fit it, or an inferred type contradicting a declared one); otherwise each one is a
    :class:`InferenceWarning` naming the node, and inference goes on.
    """
    # Reading, inferring and writing a large model allocates many objects and frees none:
    # the cyclic garbage collector would only rescan them, so it pauses meanwhile.
    with gc_paused():
        initializers: list[Initializer] | None = None  # None: the graph's own
        if isinstance(model, ir.Model):
            model_ir = ir.copy_structure(model)  # tensors shared, not copied
            proto = None
        else:
            proto = model_proto(model, what="infer_shapes: model")  # read once, for the copy too
            model_ir, initializers = read_for_inference(proto, values_up_to=VALUE_LIMIT)
        functions = {(f.domain, f.name): f for f in model_ir.functions}
        runner = GraphInference(functions, model_ir.opset_imports, strict)
        if strict:
            runner.untyped_inputs(model_ir.graph)
        runner.graph(model_ir.graph, {}, {}, model_ir.opset_imports, initializers=initializers)
        if proto is None:
            return model_ir
        # Only types changed: they are written into the message read, or into a copy of the
        # caller's own ModelProto (a message parsed here from bytes, a file or onnx's
        # ModelProto belongs to no one else).
        if proto is model:
            proto = ModelProto()
            proto.CopyFrom(model)
        try:
            write_inferred_types(proto, model_ir)
            return proto
        except UnicodeError as exc:
            # protobuf refuses to write a string that is not UTF-8 (read, it was kept as is)
            raise InferenceError(
                f"infer_shapes: model: a name is not valid UTF-8 and cannot be written back ({exc})"
            ) from None
