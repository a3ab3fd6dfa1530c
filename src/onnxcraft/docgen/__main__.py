"""``python -m onnxcraft.docgen [--check] [--out DIR] [--site DIR]``: write (or check)
docs/operators/, or build the documentation site (guide and operator reference) into DIR.

``--specs FOLDER`` documents a user's spec folder instead (the layout of ``oc.load_opset``):
the operator reference of its domains into ``--out`` (required then), and with ``--site`` a
site of that reference alone. ``--kernels MODULE`` imports a Python module (a dotted name, or
a path to a ``.py`` file) before building, so that the kernels it registers with
``oc.register_kernel`` evaluate the examples; an operator without a kernel has its examples
printed as the spec records them, and its page says so.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path

from onnxcraft.docgen.build import DOCS_DIR, generate, stale_pages, write_pages
from onnxcraft.errors import CommandLineError, OnnxcraftError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m onnxcraft.docgen",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if any page is stale")
    parser.add_argument("--out", type=Path, default=None, help="default: docs/operators")
    parser.add_argument(
        "--site", type=Path, default=None, help="build the HTML site (MkDocs) into this folder"
    )
    parser.add_argument(
        "--specs", type=Path, default=None, help="document this user spec folder instead"
    )
    parser.add_argument(
        "--kernels",
        action="append",
        default=[],
        metavar="MODULE",
        help="import this module (dotted name or .py file) first: it registers kernels",
    )
    args = parser.parse_args(argv)
    if args.specs is not None and args.out is None and args.site is None:
        parser.error("--specs needs --out (the folder of the pages) or --site")
    try:
        for module in args.kernels:
            _import(module)
        if args.site is not None:
            return _site(args.site, args.specs)
        pages = generate(args.specs)
    except OnnxcraftError as exc:
        print(f"onnxcraft.docgen: {exc}", file=sys.stderr)
        return 1
    out = args.out if args.out is not None else DOCS_DIR
    if args.check:
        stale = stale_pages(pages, out)
        if stale:
            print("stale operator pages (run `python -m onnxcraft.docgen`):", file=sys.stderr)
            for rel in stale[:20]:
                print(f"  {rel}", file=sys.stderr)
            if len(stale) > 20:
                print(f"  ... and {len(stale) - 20} more", file=sys.stderr)
            return 1
        print(f"{len(pages)} operator pages are fresh")
        return 0
    written = write_pages(pages, out)
    print(f"{len(pages)} operator pages generated, {len(written)} changed")
    return 0


def _import(module: str) -> None:
    """Run the user's module that registers kernels (a file path or an importable name)."""
    path = Path(module)
    if path.suffix == ".py":
        if not path.is_file():
            raise CommandLineError(f"docgen: --kernels {module!r}: no such file")
        spec = importlib.util.spec_from_file_location(f"_docgen_kernels_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise CommandLineError(f"docgen: --kernels {module!r}: not a Python module")
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = loaded
        spec.loader.exec_module(loaded)
        return
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise CommandLineError(f"docgen: --kernels {module!r}: cannot import it: {exc}") from exc


def _site(out: Path, specs: Path | None) -> int:
    try:
        # Lazy: MkDocs is the docs extra, needed only for the site.
        from onnxcraft.docgen.site import SiteError, build_site  # noqa: PLC0415
    except ImportError as exc:
        print(
            f"building the site needs MkDocs with the Material theme: "
            f'pip install "onnxcraft[docs]" ({exc})',
            file=sys.stderr,
        )
        return 1
    try:
        if specs is None:
            index = build_site(out)
        else:
            index = build_site(out, operator_pages=generate(specs), guide_dir=None)
    except SiteError as exc:
        print(f"onnxcraft.docgen: {exc}", file=sys.stderr)
        return 1
    print(f"site built: {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
