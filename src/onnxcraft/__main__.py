"""``python -m onnxcraft``: the same command as the ``onnxcraft`` console script."""

from __future__ import annotations

import sys

from onnxcraft.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
