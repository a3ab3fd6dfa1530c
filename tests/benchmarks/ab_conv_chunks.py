"""Inside a model, in one evaluator: the prepared convolutions' batch handling switched run by
run, the CPU time of the steps it changes and of whole runs.

    python tests/benchmarks/ab_conv_chunks.py [--models inception,resnet50] [--batches 8]
                                              [--rounds 21] [--only winograd4_chunk,...]

Comparisons (``--only``):

- ``any_strides``: the winograd, winograd4, taps and rows layouts writing a batch straight
  into a Concat's channel slice (``_ANY_STRIDES``), against a new array copied in after.
- ``winograd4_chunk``: F(4x4, 3x3)'s side-by-side images in chunks of at most
  ``_WINOGRAD4_CHUNK_VALUES`` transformed values, against the chunks of 512 columns.

Each round runs both sides, alternated (one thread, numpy's BLAS pinned, fair.py); the table
gives the medians over rounds, and the median of the per-round ratio. Why: a convolution
timed alone has its weights in cache, inside the model they come from memory, and the whole
runs' noise on the shared machine is larger than the changes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo

import onnxcraft as oc
import onnxcraft.ops.conv.prepared as prepared
from onnxcraft.ops.conv.prepared import PreparedConv


def _convs(fn: Any) -> Iterator[PreparedConv]:
    """The prepared convolutions a step's function runs (through the wrappers of the
    rewrites: Concat targets, stacked siblings, a fused pool)."""
    seen = [fn]
    while seen:
        f = seen.pop()
        if isinstance(f, PreparedConv):
            yield f
            continue
        for name in ("conv", "own", "stacked"):
            inner = getattr(f, name, None)
            if inner is not None:
                seen.append(inner)
        for cell in getattr(f, "__closure__", None) or ():
            if isinstance(cell.cell_contents, PreparedConv) or hasattr(cell.cell_contents, "own"):
                seen.append(cell.cell_contents)


@contextmanager
def _any_strides(on: bool) -> Iterator[None]:
    kept = prepared._ANY_STRIDES
    prepared._ANY_STRIDES = kept if on else frozenset()
    try:
        yield
    finally:
        prepared._ANY_STRIDES = kept


def _chunked(on: bool, convs: list[PreparedConv]) -> Callable[[], Any]:
    """A context switching the winograd4 layouts' chunk sizes to the new rule or the old."""

    @contextmanager
    def switch() -> Iterator[None]:
        kept = {id(c): dict(c._layouts) for c in convs}
        for c in convs:
            for key, layout in c._layouts.items():
                if layout.name == "winograd4":
                    old = 512 // _tiles(layout) if _tiles(layout) <= 64 else 1  # as before
                    shape = (0, c.weight.shape[1] * c.group)  # (what the count reads of x)
                    new = c._images_at_once(_Shaped(shape), layout, c.weight.shape[0])
                    c._layouts[key] = replace(layout, at_once=new if on else max(1, old))
        try:
            yield
        finally:
            for c in convs:
                c._layouts.clear()
                c._layouts.update(kept[id(c)])

    return switch


class _Shaped:
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


def _rechunked(c: PreparedConv) -> bool:
    for layout in c._layouts.values():
        if layout.name == "winograd4":
            old = 512 // _tiles(layout) if _tiles(layout) <= 64 else 1
            shape = (0, c.weight.shape[1] * c.group)
            if c._images_at_once(_Shaped(shape), layout, c.weight.shape[0]) != old:
                return True
    return False


def _tiles(layout: Any) -> int:
    ho, wo = layout.geom.out_shape
    return -(-ho // 4) * -(-wo // 4)


def compare(model: Any, rounds: int, which: str) -> tuple[list[float], ...]:
    feeds = zoo.feeds_for(model)
    evaluator = oc.Evaluator(model)
    plan = evaluator._plan
    evaluator.run(feeds)  # layouts chosen
    all_convs = [c for s in plan.steps if s.fn for c in _convs(s.fn)]
    if which == "any_strides":
        # the convolutions handed a Concat's slice, in the layouts that take it as it is
        handed = [
            c
            for s in plan.steps
            if getattr(s.fn, "__name__", "") == "produce"
            for c in _convs(s.fn)
        ]
        names = ("winograd", "winograd4", "taps", "rows")
        touched = {id(c) for c in handed if any(v.name in names for v in c._layouts.values())}
        sides: dict[str, Callable[[], Any]] = {
            "with": lambda: _any_strides(True),
            "without": lambda: _any_strides(False),
        }
    else:
        # the convolutions whose chunks the rule changes
        convs = [c for c in all_convs if _rechunked(c)]
        touched = {id(c) for c in convs}
        sides = {"with": _chunked(True, convs), "without": _chunked(False, convs)}
    spent = [0.0]
    steps = plan.steps

    steps[:] = [
        replace(s, fn=fair.cpu_counted(s.fn, spent))
        if s.fn and any(id(c) in touched for c in _convs(s.fn))
        else s
        for s in steps
    ]
    times: dict[str, tuple[list[float], list[float]]] = {side: ([], []) for side in sides}
    for side, switch in sides.items():
        with switch():
            evaluator.run(feeds)  # working arrays grown
    for _ in range(rounds):
        for side, switch in sides.items():
            with switch():
                spent[0] = 0.0
                start = time.process_time()
                evaluator.run(feeds)
                times[side][0].append((time.process_time() - start) * 1e3)
                times[side][1].append(spent[0] * 1e3)
    return times["with"][1], times["without"][1], times["with"][0], times["without"][0]


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="inception,resnet50")
    parser.add_argument("--batches", default="8")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--values", type=int, default=0, help="_WINOGRAD4_CHUNK_VALUES, 2^n")
    parser.add_argument("--only", default="any_strides,winograd4_chunk")
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(1)))
    if args.values:
        prepared._WINOGRAD4_CHUNK_VALUES = 1 << args.values
    print(
        "| comparison | model | batch | steps with ms | steps without ms | with / without "
        "| whole with / without |"
    )
    print("|---|---|---|---|---|---|---|")
    for which in args.only.split(","):
        for name in args.models.split(","):
            for batch in (int(b) for b in args.batches.split(",")):
                model = zoo.MODELS[name](batch)
                s_with, s_without, w_with, w_without = compare(model, args.rounds, which)
                if not any(s_without):  # no step of the model is changed
                    print(f"| {which} | {name} | {batch} | - | - | - | - |", flush=True)
                    continue
                steps = statistics.median(a / b for a, b in zip(s_with, s_without, strict=True))
                whole = statistics.median(a / b for a, b in zip(w_with, w_without, strict=True))
                print(
                    f"| {which} | {name} | {batch} | {_cell(s_with)} | {_cell(s_without)} "
                    f"| {steps:.3f}x | {whole:.3f}x |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
