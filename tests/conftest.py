"""Settings shared by the whole suite.

Hypothesis draws new examples on every run, which is how it finds bugs; CI instead runs a
fixed set, so that a submission's result depends on its code and not on the draw. `.ci/run`
sets ONNXCRAFT_HYPOTHESIS_PROFILE=ci (derandomized, no example database); a developer's run
explores, and a failure it finds is kept as an `@example` with the fix.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile(os.environ.get("ONNXCRAFT_HYPOTHESIS_PROFILE", "explore"))
