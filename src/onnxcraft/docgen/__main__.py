"""``python -m onnxcraft.docgen [--check] [--out DIR] [--site DIR]``: write (or check)
docs/operators/, or build the documentation site (guide and operator reference) into DIR."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from onnxcraft.docgen.build import DOCS_DIR, generate, stale_pages, write_pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m onnxcraft.docgen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if any page is stale")
    parser.add_argument("--out", type=Path, default=DOCS_DIR, help="default: docs/operators")
    parser.add_argument(
        "--site", type=Path, default=None, help="build the HTML site (MkDocs) into this folder"
    )
    args = parser.parse_args(argv)
    if args.site is not None:
        return _site(args.site)
    pages = generate()
    if args.check:
        stale = stale_pages(pages, args.out)
        if stale:
            print("stale operator pages (run `python -m onnxcraft.docgen`):", file=sys.stderr)
            for rel in stale[:20]:
                print(f"  {rel}", file=sys.stderr)
            if len(stale) > 20:
                print(f"  ... and {len(stale) - 20} more", file=sys.stderr)
            return 1
        print(f"{len(pages)} operator pages are fresh")
        return 0
    written = write_pages(pages, args.out)
    print(f"{len(pages)} operator pages generated, {len(written)} changed")
    return 0


def _site(out: Path) -> int:
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
        index = build_site(out)
    except SiteError as exc:
        print(f"onnxcraft.docgen: {exc}", file=sys.stderr)
        return 1
    print(f"site built: {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
