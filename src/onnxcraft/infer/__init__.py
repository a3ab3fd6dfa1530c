"""The inference engine: types and values of one node (engine), of a graph (graph), of a
model read and written back (model, which loads protobuf: imported on first use).

Loading the package gives the node engine inference through function bodies (for operators
without a rule that the standard defines by a body), which walks a graph: the graph walker
loads when the first such operator is met.
"""

from __future__ import annotations

from typing import Any

from onnxcraft import ir
from onnxcraft.core import hooks
from onnxcraft.infer import engine as _engine


def _infer_through_body(*args: Any) -> Any:
    # Lazy: the graph walker (and the specs' function bodies) load on first use.
    from onnxcraft.infer.graph import infer_through_body  # noqa: PLC0415

    return infer_through_body(*args)


def _type_problems(model: ir.Model) -> list[str]:
    # Lazy, as above: oc.check loads the graph walker only for a full check.
    from onnxcraft.infer.strict import type_problems  # noqa: PLC0415

    return type_problems(model)


_engine.set_body_inference(_infer_through_body)
hooks.check_types.fill(_type_problems)
