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
    TypedInitializers,
    infer_through_body,
)
from onnxcraft.io import model_from_bytes, model_proto
from onnxcraft.ops.infer_api import VALUE_LIMIT
from onnxcraft.proto import ModelProto
from onnxcraft.proto.inference import read_with_bodies, write_inferred_types
from onnxcraft.types import ValueType

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
        if isinstance(model, ir.Model):
            model_ir = ir.copy_structure(model)  # tensors shared, not copied
            _infer(model_ir, None, strict, None)
            return model_ir
        # A model's bytes are kept: the reader takes the nodes' attributes from them.
        data: bytes | None
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
            proto = model_from_bytes(data)
        else:
            data = None
            proto = model_proto(model, what="infer_shapes: model")
            if proto is model:  # the caller's own message: its types are written into a copy
                proto = ModelProto()
                proto.CopyFrom(model)
        # (a message parsed here from bytes, a file or onnx's ModelProto belongs to no one else)
        _infer_into(proto, strict, data)
        # The IR read for it is freed by now, still paused: resumed, the collector finds
        # nothing new to scan (a 20k-node model's objects would take it a sixth of the time).
        return proto


def _infer_into(proto: ModelProto, strict: bool, data: bytes | None = None) -> None:
    """Infer ``proto`` (parsed from ``data``, if given) and write the types into it (only
    types change)."""
    (model_ir, initializers, typed), bodies = read_with_bodies(
        proto, values_up_to=VALUE_LIMIT, data=data
    )
    added: list[tuple[str, ValueType]] = []  # the main graph's new value_info entries
    read_types = [info.type for info in model_ir.graph.value_info]
    _infer(model_ir, initializers, strict, added, typed)
    try:
        write_inferred_types(proto, model_ir, added, bodies=bodies, read_types=read_types)
    except UnicodeError as exc:
        # protobuf refuses to write a string that is not UTF-8 (read, it was kept as is)
        raise InferenceError(
            f"infer_shapes: model: a name is not valid UTF-8 and cannot be written back ({exc})"
        ) from None


def _infer(
    model: ir.Model,
    initializers: list[Initializer] | None,
    strict: bool,
    added: list[tuple[str, ValueType]] | None,
    typed: TypedInitializers | None = None,
) -> None:
    """Infer the model's graph, recording the types in it (``initializers``: the main
    graph's, when the reader gave them apart, or ``typed`` when it typed them; ``added``:
    where the main graph's new value_info goes, when the writer takes it so)."""
    functions = {(f.domain, f.name): f for f in model.functions}
    runner = GraphInference(functions, model.opset_imports, strict)
    if strict:
        runner.untyped_inputs(model.graph)
    runner.graph(
        model.graph,
        {},
        {},
        model.opset_imports,
        initializers=initializers,
        added=added,
        typed_initializers=typed,
    )
