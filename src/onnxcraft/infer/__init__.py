"""The inference engine: types and values of one node (engine), of a graph (graph), of a
model read and written back (model, which loads protobuf: imported on first use).

Loading the package gives the node engine inference through function bodies (for operators
without a rule that the standard defines by a body), which walks a graph: the graph walker
loads when the first such operator is met.
"""

from __future__ import annotations

from typing import Any

from onnxcraft.infer import engine as _engine


def _infer_through_body(*args: Any) -> Any:
    # Lazy: the graph walker (and the specs' function bodies) load on first use.
    from onnxcraft.infer.graph import infer_through_body  # noqa: PLC0415

    return infer_through_body(*args)


_engine.set_body_inference(_infer_through_body)
