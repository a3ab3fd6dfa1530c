"""One measurement of bench_io.py, run in a fresh process so peak memory is its own.

    python tests/benchmarks/_io_worker.py LIBRARY MODE FOLDER MIB COUNT STEP

STEP "save": builds a model of COUNT float32 arrays totalling MIB MiB with LIBRARY (onnxcraft:
ModelProto from from_array; onnxcraft-ir: the arrays as literals of the DSL, then build_ir;
onnx; onnx_ir) and saves it inline or as external data (MODE); prints one JSON line
{"build": [seconds, extra peak bytes], "save": [...]}. STEP "load": loads that file back (in a
process of its own, so what the save left in memory does not count) with oc.load, or
oc.load_ir for onnxcraft-ir; prints {"load": [...]}.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def reset_peak() -> None:
    # Writing 5 to clear_refs resets VmHWM, so each step's peak is measured on its own.
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def step(fn: Callable[[], Any]) -> tuple[tuple[float, int], Any]:
    """(seconds, extra peak bytes) of calling ``fn``, and what it returned."""
    reset_peak()
    before = status("VmRSS")
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    return (elapsed, max(status("VmHWM") - before, 0)), result


Steps = dict[str, tuple[float, int]]


def build_then_save(
    arrays: list[np.ndarray], build: Callable[[], Any], save: Callable[[Any], Any]
) -> Steps:
    """Time building a model from ``arrays``, then (the arrays dropped) saving it."""
    built, model = step(build)
    arrays.clear()  # whatever the model still needs of them, it holds itself
    return {"build": built, "save": step(lambda: save(model))[0]}


def initializer_model(model: Any, from_array: Callable[..., Any], arrays: list[np.ndarray]) -> Any:
    """``model`` (an empty ModelProto, onnxcraft's or onnx's) with ``arrays`` as initializers."""
    model.ir_version = 10
    model.graph.name = "g"
    for i, a in enumerate(arrays):
        model.graph.initializer.append(from_array(a, f"w{i}"))
    return model


def with_onnxcraft(
    arrays: list[np.ndarray], path: Path, external: bool, fsync: bool = False
) -> Steps:
    import onnxcraft as oc

    return build_then_save(
        arrays,
        lambda: initializer_model(oc.proto.ModelProto(), oc.from_array, arrays),
        lambda model: oc.save(model, path, external_data=external, fsync=fsync),
    )


def with_onnxcraft_ir(arrays: list[np.ndarray], path: Path, external: bool) -> Steps:
    """What a converter does: the weights enter as literals of the DSL, build_ir keeps them."""
    import onnxcraft as oc
    from onnxcraft.opset.ai.onnx import v21 as op

    def build() -> Any:
        x = oc.arg("X", np.float32, ("N", arrays[0].shape[0]))
        y = x
        for a in arrays:
            y = op.Add(y, a)
        return oc.build_ir([x], {"Y": y})

    return build_then_save(
        arrays, build, lambda model: oc.save(model, path, external_data=external)
    )


def with_onnx(arrays: list[np.ndarray], path: Path, external: bool) -> Steps:
    import onnx
    from onnx import numpy_helper

    def save(model: onnx.ModelProto) -> None:
        onnx.save_model(
            model,
            str(path),
            save_as_external_data=external,
            all_tensors_to_one_file=True,
            location=path.name + ".data",
        )

    return build_then_save(
        arrays, lambda: initializer_model(onnx.ModelProto(), numpy_helper.from_array, arrays), save
    )


def with_onnx_ir(arrays: list[np.ndarray], path: Path, external: bool) -> Steps:
    import onnx_ir as ir

    def build() -> Any:
        graph = ir.Graph([], [], nodes=[], name="g")
        for i, a in enumerate(arrays):
            graph.register_initializer(ir.Value(name=f"w{i}", const_value=ir.Tensor(a)))
        return ir.Model(graph, ir_version=10)

    location = path.name + ".data" if external else None
    return build_then_save(
        arrays, build, lambda model: ir.save(model, str(path), external_data=location)
    )


def load_with(library: str, path: Path) -> tuple[float, int]:
    if library == "onnxcraft-ir":  # external data stays in its file, mapped on first use
        import onnxcraft as oc

        return step(lambda: oc.load_ir(path))[0]
    if library.startswith("onnxcraft"):
        import onnxcraft as oc

        return step(lambda: oc.load(path))[0]
    if library == "onnx":
        import onnx

        return step(lambda: onnx.load(str(path)))[0]
    import onnx_ir as ir

    return step(lambda: ir.load(str(path)))[0]


def main() -> None:
    library, mode, folder = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    mib, count, what = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    path = folder / f"{library}_{mode}.onnx"
    if what == "load":
        print(json.dumps({"load": load_with(library, path)}))
        return
    per = mib * 2**20 // count // 4
    arrays = [np.full(per, i, np.float32) for i in range(count)]
    savers: dict[str, Callable[[list[np.ndarray], Path, bool], Steps]] = {
        "onnxcraft": with_onnxcraft,
        "onnxcraft+fsync": functools.partial(with_onnxcraft, fsync=True),
        "onnxcraft-ir": with_onnxcraft_ir,
        "onnx": with_onnx,
        "onnx_ir": with_onnx_ir,
    }
    print(json.dumps(savers[library](arrays, path, mode == "external")))


if __name__ == "__main__":
    main()
