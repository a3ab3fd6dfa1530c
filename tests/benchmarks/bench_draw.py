"""Drawing benchmark: oc.draw of a ResNet-50 graph and of a 2,000-node transformer stack.

    python tests/benchmarks/bench_draw.py [--repeat 5] [--layers 77]

Both models are built with the DSL (tests/draw/models.py): ResNet-50 with batch normalisation
unfused (175 nodes, 25.5 million parameters) and a stack of encoder layers (26 nodes each; 77
layers make 2,079 nodes). A render is everything from the model to the page: reading it into
the IR, inferring types, the scenes, the layout, the SVG and the HTML page. One warm-up render,
then ``--repeat`` timed ones; prints the median and the best.

Target (issue 14): under 2 s each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import onnxcraft as oc
from tests.draw.models import resnet50, transformer


def render(model: Any) -> int:
    drawing = oc.draw(model)
    return len(drawing.svg) + len(drawing.html)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--layers", type=int, default=77)
    args = parser.parse_args()
    models = [("resnet50", resnet50()), (f"transformer x{args.layers}", transformer(args.layers))]
    print(f"{'model':<18} {'nodes':>6} {'boxes':>6} {'median s':>9} {'best s':>7} {'html KB':>8}")
    for name, model in models:
        render(model)  # warm-up
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            size = render(model)
            times.append(time.perf_counter() - start)
        boxes = len(oc.draw(model).boxes())
        print(
            f"{name:<18} {len(model.graph.node):>6} {boxes:>6} {statistics.median(times):>9.3f} "
            f"{min(times):>7.3f} {size // 1024:>8}"
        )


if __name__ == "__main__":
    main()
