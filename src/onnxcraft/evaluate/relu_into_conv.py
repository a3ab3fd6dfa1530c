"""A prepared Conv's Relu moved into the prepared Conv that alone reads it (``fuse=True``):
DenseNet's 1x1 bottleneck -> Relu -> 3x3 convolution.

The 3x3 convolution of such a pair runs the taps layout (:mod:`onnxcraft.ops.conv.prepared`:
32 filters over 128 channels), which copies its input into a padded working array anyway.
The Relu, instead of a pass of its own over the bottleneck's output, is done by that copy:
``max(x, 0)`` written where ``x`` was copied (the same comparison per element, so the same
bits, NaN and signed zeros included). A convolution that turns out to run another layout
(the layout is chosen per input shape, at run time) clamps its input in place first, as
the bottleneck did before. The values are those of the Conv and Relu run one after the
other; only the Relu's output name holds, during a run, values before the Relu, which
nothing else reads (``intermediates=True`` runs the nodes as written).

Taken for a prepared Conv with a Relu and no residual Add whose output one prepared Conv
alone reads, as its data input, the output not a graph output, the reader without an Add
of its own and shaped for the taps layout (stride 1, a kernel larger than 1x1, one group,
a quarter of the input's channels or fewer).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from onnxcraft.evaluate.step_links import sole_readers, with_replacements
from onnxcraft.ops.conv.prepared import PreparedConv, copies_input_once
from onnxcraft.ops.kernel_api import Step

__all__ = ["relu_into_next_conv"]


def relu_into_next_conv(steps: list[Step], kept: set[str], readers: Counter[str]) -> list[Step]:
    """``steps`` with each such Relu moved as above (``kept``: the graph's outputs,
    ``readers``: how many steps read each value)."""
    sole = sole_readers(steps, readers, kept)
    replaced: dict[int, Step] = {}
    for index, step in enumerate(steps):
        conv = step.fn
        if type(conv) is not PreparedConv or conv.relu is None or conv.add is not None:
            continue
        if index in replaced or len(step.outputs) != 1:
            continue
        at = sole.get(step.outputs[0])
        if at is None or at in replaced:
            continue
        reader = steps[at]
        after = reader.fn
        if (
            type(after) is not PreparedConv
            or after.add is not None
            or after.input_relu is not None
            or reader.inputs != [step.outputs[0]]
            or not copies_input_once(after)
        ):
            continue
        clamping = after.with_relus(relu=after.relu, input_relu=conv.relu)
        replaced[index] = replace(step, fn=conv.without_relu())
        replaced[at] = replace(reader, fn=clamping)
    return with_replacements(steps, replaced)
