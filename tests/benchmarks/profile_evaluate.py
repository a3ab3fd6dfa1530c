"""Where an evaluation's time goes, by operator type: onnxcraft's steps and onnxruntime's nodes.

    python tests/benchmarks/profile_evaluate.py [--models densenet121,shufflenet]
                                                [--batches 1,8] [--repeat 5] [--threads 1]
                                                [--steps]

For onnxcraft every step of the prepared plan is wrapped in a timer (``time.perf_counter``
around the kernel call, through the step's ``fn``), so the table gives the kernels' own time
per operator type; what the run costs beyond its kernels (the step loop, dropping dead
values) is the whole run minus their sum, printed as "loop". Fused steps are named by their
first node (a Conv carrying its Relu is counted as Conv). onnxruntime's times come from its
profiler (``SessionOptions.enable_profiling``), each node's ``Node`` events; its "loop" is
the session's run minus the nodes. Each number is the median over ``--repeat`` runs of the
per-type total, in milliseconds, one thread each (numpy's BLAS too).

``--steps`` lists every step instead, in plan order: its median time, the part of it spent
in ``np.matmul`` products deeper than a Winograd transform's (gemm_floor.py's count: what
the step spends in OpenBLAS), and onnxruntime's time for the node that makes the same
output (its profiler names a node after its first output, with ``_nchwc`` when it runs in
the blocked layout; a node fused under another name, or a step of several nodes named by
another output, shows no match). onnxruntime's profiler adds some microseconds to each
node, which matters for the small ones.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import zoo
from gemm_floor import CountedProducts, counted_run

import onnxcraft as oc


def _timed(fn: Callable[..., Any], store: list[float]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        store.append(time.perf_counter() - start)
        return result

    return run


def ours(model: Any, feeds: dict[str, Any], repeat: int) -> tuple[dict[str, float], float, int]:
    """Median ms per operator type, median ms of the step loop beyond kernels, step count."""
    evaluator = oc.Evaluator(model)
    plan = evaluator._plan
    spent: dict[str, list[float]] = defaultdict(list)
    plan.steps[:] = [
        replace(step, fn=_timed(step.fn, spent[step.node.op_type])) if step.fn else step
        for step in plan.steps
    ]
    evaluator.run(feeds)  # warm-up
    per_type: dict[str, list[float]] = defaultdict(list)
    loops: list[float] = []
    for _ in range(repeat):
        for store in spent.values():
            store.clear()
        start = time.perf_counter()
        evaluator.run(feeds)
        whole = time.perf_counter() - start
        kernels = 0.0
        for op_type, store in spent.items():
            per_type[op_type].append(sum(store))
            kernels += sum(store)
        loops.append(whole - kernels)
    medians = {k: statistics.median(v) * 1e3 for k, v in per_type.items()}
    return medians, statistics.median(loops) * 1e3, len(plan.steps)


def ours_by_step(
    model: Any, feeds: dict[str, Any], repeat: int
) -> list[tuple[str, str, float, float]]:
    """(op type, outputs, median ms, median ms of its products) per step, in plan order."""
    evaluator = oc.Evaluator(model)
    plan = evaluator._plan
    counted = CountedProducts()
    spent: list[list[tuple[float, float]]] = [[] for _ in plan.steps]

    def timed(fn: Callable[..., Any], store: list[tuple[float, float]]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            before = counted.spent[-1]
            start = time.perf_counter()
            result = fn(*args, **kwargs)
            store.append((time.perf_counter() - start, counted.spent[-1] - before))
            return result

        return run

    plan.steps[:] = [
        replace(step, fn=timed(step.fn, store)) if step.fn else step
        for step, store in zip(plan.steps, spent, strict=True)
    ]
    run = counted_run(evaluator, feeds, counted)
    run()  # warm-up
    for store in spent:
        store.clear()
    for _ in range(repeat):
        run()
    rows = []
    for step, store in zip(plan.steps, spent, strict=True):
        if store:
            whole = statistics.median(t for t, _ in store) * 1e3
            products = statistics.median(p for _, p in store) * 1e3
            outputs = ",".join(name for name in step.outputs if name)
            rows.append((step.node.op_type, outputs, whole, products))
    return rows


def _profiled_events(
    model: Any, feeds: dict[str, Any], repeat: int, threads: int
) -> list[dict[str, Any]]:
    """onnxruntime's profiler events of a warm-up run and ``repeat`` runs."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.enable_profiling = True
    with tempfile.TemporaryDirectory() as folder:
        options.profile_file_prefix = os.path.join(folder, "ort")
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        session.run(None, feeds)  # warm-up
        for _ in range(repeat):
            session.run(None, feeds)
        path = session.end_profiling()
        events: list[dict[str, Any]] = json.loads(Path(path).read_text())
    return events


def theirs(
    model: Any, feeds: dict[str, Any], repeat: int, threads: int
) -> tuple[dict[str, float], float]:
    events = _profiled_events(model, feeds, repeat, threads)
    runs: list[dict[str, float]] = []
    wholes: list[float] = []
    for event in events:
        if event.get("cat") == "Session" and event.get("name") == "model_run":
            runs.append(defaultdict(float))
            wholes.append(event["dur"] / 1e3)
    # node events come before their run's model_run event; group them by run
    current: dict[str, float] = defaultdict(float)
    grouped: list[dict[str, float]] = []
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            current[event["args"]["op_name"]] += event["dur"] / 1e3
        elif event.get("cat") == "Session" and event.get("name") == "model_run":
            grouped.append(current)
            current = defaultdict(float)
    grouped, wholes = grouped[1:], wholes[1:]  # drop the warm-up
    types = {k for g in grouped for k in g}
    medians = {k: statistics.median(g.get(k, 0.0) for g in grouped) for k in types}
    loop = statistics.median(w - sum(g.values()) for w, g in zip(wholes, grouped))
    return medians, loop


def theirs_by_node(
    model: Any, feeds: dict[str, Any], repeat: int, threads: int
) -> dict[str, float]:
    """onnxruntime's median ms per node name (``_nchwc`` dropped), from its profiler."""
    events = _profiled_events(model, feeds, repeat, threads)
    per_node: dict[str, list[float]] = defaultdict(list)
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            name = event["name"][: -len("_kernel_time")]
            per_node[name.removesuffix("_nchwc")].append(event["dur"] / 1e3)
    return {name: statistics.median(times[1:] or times) for name, times in per_node.items()}


def print_steps(model: Any, feeds: dict[str, Any], repeat: int, threads: int) -> None:
    rows = ours_by_step(model, feeds, repeat)
    nodes = theirs_by_node(model, feeds, repeat, threads)
    print("| step | outputs | onnxcraft ms | of it, products ms | onnxruntime ms | ratio |")
    print("|---|---|---|---|---|---|")
    total = matched = theirs_matched = 0.0
    for op_type, outputs, whole, products in rows:
        theirs_ms = next((nodes[o] for o in outputs.split(",") if o in nodes), None)
        total += whole
        if theirs_ms is None:
            print(f"| {op_type} | {outputs} | {whole:.3f} | {products:.3f} | - | - |")
            continue
        matched += whole
        theirs_matched += theirs_ms
        ratio = f"{whole / theirs_ms:.2f}x" if theirs_ms else "-"
        print(
            f"| {op_type} | {outputs} | {whole:.3f} | {products:.3f} | {theirs_ms:.3f} | {ratio} |"
        )
    print(
        f"\nsteps {total:.2f} ms; the {matched:.2f} ms of steps with a match against "
        f"onnxruntime's {theirs_matched:.2f} ms for those nodes "
        f"(all its nodes: {sum(nodes.values()):.2f} ms)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(zoo.MODELS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=fair.MIN_REPEAT)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", action="store_true", help="every step against its node")
    args = parser.parse_args()
    print(fair.describe_machine(fair.pin_threads(args.threads), ["onnxruntime"]))
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            model = zoo.MODELS[name](batch)
            feeds = zoo.feeds_for(model)
            if args.steps:
                print(f"\n## {name}, batch {batch}")
                print_steps(model, feeds, args.repeat, args.threads)
                continue
            mine, loop, steps = ours(model, feeds, args.repeat)
            ort_times, ort_loop = theirs(model, feeds, args.repeat, args.threads)
            total, ort_total = sum(mine.values()) + loop, sum(ort_times.values()) + ort_loop
            print(f"\n## {name}, batch {batch}: {len(model.graph.node)} nodes, {steps} steps")
            print(f"onnxcraft {total:.2f} ms, onnxruntime {ort_total:.2f} ms")
            print("| op | onnxcraft ms | onnxruntime ms | ratio |")
            print("|---|---|---|---|")
            rows = sorted(set(mine) | set(ort_times), key=lambda k: -mine.get(k, 0.0))
            for op_type in rows:
                a, b = mine.get(op_type, 0.0), ort_times.get(op_type, 0.0)
                ratio = f"{a / b:.2f}x" if b else "-"
                print(f"| {op_type} | {a:.2f} | {b:.2f} | {ratio} |")
            per_step = loop / steps * 1e3 if steps else 0.0
            print(
                f"| (loop) | {loop:.2f} ({per_step:.1f} µs/step) | {ort_loop:.2f} | - |", flush=True
            )


if __name__ == "__main__":
    main()
