"""``python -m onnxcraft.testing.conformance``: the conformance runner's command line."""

from __future__ import annotations

import sys

from onnxcraft.testing.conformance.cli import main

sys.exit(main())
