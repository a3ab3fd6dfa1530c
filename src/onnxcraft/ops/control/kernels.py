"""Kernels for control flow: If, Loop, Scan and SequenceMap.

Graph attributes arrive as :class:`~onnxcraft.ops.kernel_api.Subgraph` callables already
bound to the enclosing scope's values, so these kernels only decide which body runs how often.
Every iteration of Loop and Scan is counted against the run's limits (``oc.Limits``), which
also lets a cancel token or a timeout stop a long loop, and the stacked scan outputs are
sized before they are allocated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxcraft.dtypes import numpy_dtype
from onnxcraft.ops.kernel_api import KernelRegistry, Subgraph
from onnxcraft.ops.kernel_common import fail, normalize_axis
from onnxcraft.ops.run_guard import check_allocation, count_iteration, current_guard
from onnxcraft.types import Tensor

__all__ = ["register"]


def _truth(op: str, value: Any, arg: str) -> bool:
    array = np.asarray(value)
    if array.size != 1:
        fail(op, f"{arg} must hold exactly one value, got shape {list(array.shape)}")
    return bool(array.reshape(-1)[0])


def if_(cond: Any, *, then_branch: Subgraph, else_branch: Subgraph) -> tuple[Any, ...]:
    branch = then_branch if _truth("If", cond, "cond") else else_branch
    return tuple(branch())


def _empty_scan_output(body: Subgraph, index: int) -> np.ndarray:
    """What body output ``index`` stacks to over no iterations: ``(0, *its shape)``.

    The shape and element type are the body's declared ones (the body does not run). An
    unknown dim becomes 0 (the result is empty whatever it is) and an unknown rank gives
    ``(0,)``, as onnxruntime does; an undeclared element type falls back to float.
    """
    declared_types = body.output_types
    declared = declared_types[index] if index < len(declared_types) else None
    if not isinstance(declared, Tensor):
        return np.zeros((0,), np.float32)
    dtype = np.float32 if declared.elem_type is None else numpy_dtype(declared.elem_type)
    if declared.shape is None:
        return np.zeros((0,), dtype)
    return np.zeros((0, *(d if isinstance(d, int) else 0 for d in declared.shape)), dtype)


def _stack(op: str, values: list[Any]) -> Any:
    if isinstance(values[0], list):  # a sequence output per iteration
        return values
    first = np.asarray(values[0])
    check_allocation(op, (len(values), *first.shape), first.dtype)
    try:
        return np.stack(values)
    except ValueError as exc:
        fail(op, f"scan outputs differ in shape between iterations: {exc}")


def loop(m: Any, cond: Any, *initial: Any, body: Subgraph) -> tuple[Any, ...]:
    max_trips = None if m is None else int(np.asarray(m).reshape(-1)[0])
    keep_going = True if cond is None else _truth("Loop", cond, "cond")
    carried = list(initial)
    scans: list[list[Any]] = []
    scanned: list[int] = []  # bytes of each scan output so far: it must fit once stacked
    budget = current_guard().max_value_bytes
    i = 0
    while keep_going and (max_trips is None or i < max_trips):
        count_iteration("Loop")
        outputs = body(np.array(i, dtype=np.int64), np.array(keep_going), *carried)
        if len(outputs) < 1 + len(carried):
            fail(
                "Loop",
                f"the body returned {len(outputs)} values, expected at least "
                f"{1 + len(carried)} (cond and the loop-carried values)",
            )
        keep_going = _truth("Loop", outputs[0], "the body's cond output")
        carried = list(outputs[1 : 1 + len(carried)])
        extra = outputs[1 + len(initial) :]
        if not scans:
            scans = [[] for _ in extra]
            scanned = [0 for _ in extra]
        for k, value in enumerate(extra):
            scans[k].append(value)
            scanned[k] += getattr(value, "nbytes", 0)
            if scanned[k] > budget:  # refused now, not after the loop has filled memory
                last = np.asarray(value)
                check_allocation("Loop", (len(scans[k]), *last.shape), last.dtype)
        i += 1
    if i == 0:  # no iteration ran: the scan outputs are empty, shaped as the body declares
        first = 1 + len(initial)
        empties = (_empty_scan_output(body, k) for k in range(first, len(body.output_names)))
        return (*carried, *empties)
    return (*carried, *(_stack("Loop", s) for s in scans))


def _scan_run(
    body: Subgraph,
    states: list[Any],
    scans: list[np.ndarray],
    input_directions: list[int],
    num_outputs: int,
) -> tuple[list[Any], list[list[Any]]]:
    prepared = [s[::-1] if d else s for s, d in zip(scans, input_directions)]
    length = prepared[0].shape[0] if prepared else 0
    for s in prepared:
        if s.shape[0] != length:
            fail(
                "Scan",
                f"scan inputs have different lengths along the scan axis: "
                f"{[p.shape[0] for p in prepared]}",
            )
    outputs: list[list[Any]] = [[] for _ in range(num_outputs)]
    for t in range(length):
        count_iteration("Scan")
        result = body(*states, *(s[t] for s in prepared))
        states = list(result[: len(states)])
        for store, value in zip(outputs, result[len(states) :]):
            store.append(value)
    return states, outputs


def scan(
    *inputs: Any,
    body: Subgraph,
    num_scan_inputs: int,
    scan_input_axes: list[int] | None = None,
    scan_input_directions: list[int] | None = None,
    scan_output_axes: list[int] | None = None,
    scan_output_directions: list[int] | None = None,
) -> tuple[Any, ...]:
    num_state = len(inputs) - num_scan_inputs
    if num_state < 0:
        fail(
            "Scan",
            f"num_scan_inputs={num_scan_inputs} exceeds the number of inputs ({len(inputs)})",
        )
    states = list(inputs[:num_state])
    scans = [np.asarray(s) for s in inputs[num_state:]]
    axes = scan_input_axes or [0] * num_scan_inputs
    scans = [
        np.moveaxis(s, normalize_axis(a, s.ndim, op="Scan", arg="scan_input_axes"), 0)
        for s, a in zip(scans, axes)
    ]
    num_out = len(body.output_names) - num_state
    states, outputs = _scan_run(
        body, states, scans, scan_input_directions or [0] * num_scan_inputs, num_out
    )
    out_axes = scan_output_axes or [0] * num_out
    out_dirs = scan_output_directions or [0] * num_out
    stacked = []
    for index, (values, axis, direction) in enumerate(zip(outputs, out_axes, out_dirs)):
        array = _stack("Scan", values) if values else _empty_scan_output(body, num_state + index)
        if direction:
            array = array[::-1]
        rank = array.ndim
        stacked.append(
            np.moveaxis(array, 0, normalize_axis(axis, rank, op="Scan", arg="scan_output_axes"))
        )
    return (*states, *stacked)


def scan_8(
    sequence_lens: Any,
    *inputs: Any,
    body: Subgraph,
    num_scan_inputs: int,
    directions: list[int] | None = None,
) -> tuple[Any, ...]:
    """Scan-8: every input has a leading batch axis; the scan axis is axis 1."""
    num_state = len(inputs) - num_scan_inputs
    batch = np.asarray(inputs[0]).shape[0]
    num_out = len(body.output_names) - num_state
    results: list[list[Any]] = [[] for _ in range(num_state + num_out)]
    for b in range(batch):
        states = [np.asarray(s)[b] for s in inputs[:num_state]]
        scans = [np.asarray(s)[b] for s in inputs[num_state:]]
        if sequence_lens is not None:
            length = int(np.asarray(sequence_lens)[b])
            scans = [s[:length] for s in scans]
        states, outputs = _scan_run(
            body, states, scans, directions or [0] * num_scan_inputs, num_out
        )
        stacked = [
            _stack("Scan", o) if o else _empty_scan_output(body, num_state + k)
            for k, o in enumerate(outputs)
        ]
        for store, value in zip(results, [*states, *stacked]):
            store.append(value)
    return tuple(np.stack(values) for values in results)


def sequence_map(sequence: list[Any], *additional: Any, body: Subgraph) -> tuple[Any, ...]:
    count = len(sequence)
    for extra in additional:
        if isinstance(extra, list) and len(extra) != count:
            fail(
                "SequenceMap",
                f"additional sequence has {len(extra)} elements, the input sequence {count}",
            )
    outputs: list[list[Any]] = [[] for _ in body.output_names]
    for i in range(count):
        args = [sequence[i], *(a[i] if isinstance(a, list) else a for a in additional)]
        for store, value in zip(outputs, body(*args)):
            store.append(value)
    return tuple(outputs)


def register(kernels: KernelRegistry) -> None:
    kernels.add("If", if_, since=(1, 11, 13, 16, 19, 21, 23, 24, 25))
    kernels.add("Loop", loop, since=(1, 11, 13, 16, 19, 21, 23, 24, 25))
    kernels.add("Scan", scan_8, since=8)
    kernels.add("Scan", scan, since=(9, 11, 16, 19, 21, 23, 24, 25))
    kernels.add("SequenceMap", sequence_map, since=17)
