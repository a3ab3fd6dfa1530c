"""``python -m onnxcraft.codegen [--check]``: regenerate (or check) the opset modules."""

from __future__ import annotations

import argparse
import sys

from onnxcraft.codegen.standard import (
    OPSET_PACKAGE_DIR,
    generate_standard,
    stale_modules,
    write_modules,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m onnxcraft.codegen", description=__doc__)
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if any generated module is stale, writing nothing",
    )
    args = parser.parse_args(argv)
    sources = generate_standard()
    if args.check:
        stale = stale_modules(sources, OPSET_PACKAGE_DIR)
        if stale:
            print("stale generated modules (run `python -m onnxcraft.codegen`):", file=sys.stderr)
            for rel in stale:
                print(f"  {rel}", file=sys.stderr)
            return 1
        print(f"{len(sources)} generated modules are fresh")
        return 0
    written = write_modules(sources, OPSET_PACKAGE_DIR)
    print(f"{len(sources)} modules generated, {len(written)} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
