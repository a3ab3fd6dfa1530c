"""Version adapters of Scan between 8 and 9.

Scan-8 runs over a batch: every state and scan input has the batch as axis 0 (scan inputs
their sequence as axis 1), an optional ``sequence_lens`` gives each batch entry's length, and
``directions`` the direction of each scan input; its scan outputs are stacked in iteration
order. Scan-9 has no batch, scans along ``scan_input_axes`` and stacks along
``scan_output_axes``, each in its direction.

- 8 -> 9: an outer Scan-9 over the batch (every input of the Scan-8 node is one of its scan
  inputs), whose body runs the original body in an inner Scan-9 for one batch entry; the
  outer Scan stacks the inner final states and scan outputs along the batch axis again.
  ``sequence_lens`` is accepted only when it is a constant equal to the sequence length.
- 9 -> 8: a batch of one: each input unsqueezed at axis 0, Scan-8 with the same directions,
  each output squeezed; only scans along axis 0 with outputs stacked forward along axis 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft import ir
from onnxcraft.ops.adapter_api import AdapterContext, AdapterRegistry
from onnxcraft.types import Tensor


def _body(ctx: AdapterContext) -> ir.Graph:
    body = ctx.attr("body")
    if not isinstance(body, ir.Graph):
        ctx.fail("the body graph is missing")
    return body


def _without_batch(value_type: Any) -> Tensor | None:
    if not isinstance(value_type, Tensor):
        return None
    shape = value_type.shape
    return Tensor(value_type.elem_type, None if shape is None else shape[1:])


def _scan_8_to_9(ctx: AdapterContext) -> None:
    node = ctx.node
    body = _body(ctx)
    scan_count = int(ctx.attr("num_scan_inputs", 0))
    lengths, operands = ctx.input(0), list(node.inputs[1:])
    if lengths:
        _check_full_lengths(ctx, lengths, operands[len(operands) - scan_count :])
    directions = list(ctx.attr("directions", None) or [0] * scan_count)
    # the outer body: one batch entry of every operand in, the inner Scan's results out
    entry = [ctx.fresh_name("scan_entry") for _ in operands]
    results = [ctx.fresh_name("scan_result") for _ in node.outputs]
    for name, operand in zip(entry, operands):
        ctx.declare_type(name, _without_batch(ctx.value_type(operand)))
    for name, output in zip(results, node.outputs):
        ctx.declare_type(name, _without_batch(ctx.value_type(output)))
    inner = ir.Node(
        "Scan",
        entry,
        results,
        attributes=[
            ir.Attribute("body", "GRAPH", body),
            ir.Attribute("num_scan_inputs", "INT", scan_count),
            ir.Attribute("scan_input_directions", "INTS", [int(d) for d in directions]),
        ],
    )
    outer_body = ir.Graph(
        name=f"{body.name or 'scan'}_per_batch_entry",
        nodes=[inner],
        inputs=[ir.ValueInfo(n, ctx.value_type(n)) for n in entry],
        outputs=[ir.ValueInfo(n, ctx.value_type(n)) for n in results],
    )
    # written at the target opset: the body's nodes are already converted to it
    ctx.emit(
        "Scan",
        operands,
        list(node.outputs),
        {"body": ("GRAPH", outer_body), "num_scan_inputs": ("INT", len(operands))},
        opset=ctx.target_opset,
    )
    ctx.remove()


def _check_full_lengths(ctx: AdapterContext, lengths: str, scan_inputs: list[str]) -> None:
    value = ctx.constant(lengths)
    shapes = [ctx.shape(name) for name in scan_inputs]
    full = {s[1] for s in shapes if s is not None and len(s) > 1 and isinstance(s[1], int)}
    if value is None or len(full) != 1 or not np.all(np.asarray(value) == next(iter(full))):
        ctx.fail(
            "sequence_lens is given and not known to equal the sequence length; version 9 "
            "has no per-entry lengths"
        )


def _scan_9_to_8(ctx: AdapterContext) -> None:
    node = ctx.node
    scan_count = int(ctx.attr("num_scan_inputs", 0))
    state_count = len(node.inputs) - scan_count
    output_count = len(node.outputs) - state_count
    for attr, count, what in (
        ("scan_input_axes", scan_count, "scans along axis 0"),
        ("scan_output_axes", output_count, "stacks outputs along axis 0"),
        ("scan_output_directions", output_count, "stacks outputs forward"),
    ):
        values = [int(v) for v in (ctx.attr(attr, None) or [0] * count)]
        if any(values):
            ctx.fail(f"{attr}={values}: version 8 only {what}")
    directions = [int(v) for v in (ctx.attr("scan_input_directions", None) or [0] * scan_count)]
    axis = ctx.add_constant(np.asarray([0], np.int64), "scan_batch_axis")
    batched = []
    for name in node.inputs:
        (wide,) = ctx.emit("Unsqueeze", [name, axis], 1, opset=13)
        batched.append(wide)
    outputs = [ctx.fresh_name("scan_batched") for _ in node.outputs]
    ctx.emit(
        "Scan",
        ["", *batched],
        outputs,
        {
            "body": ("GRAPH", _body(ctx)),
            "num_scan_inputs": ("INT", scan_count),
            "directions": ("INTS", directions),
        },
        opset=8,
    )
    for wide, name in zip(outputs, node.outputs):
        if name:
            ctx.emit("Squeeze", [wide, axis], [name], opset=13)
    ctx.remove()


def register(table: AdapterRegistry) -> None:
    table.add("Scan", 8, 9, _scan_8_to_9, "the batch scanned by an outer Scan")
    table.add("Scan", 9, 8, _scan_9_to_8, "a batch of one")
    table.changed("Scan", 8, 9, "version 9 dropped the batch axis and sequence_lens")
