"""Operator reference pages generated from the specs and the kernel and rule tables.

``python -m onnxcraft.docgen [--check]`` writes ``docs/operators/``: an index per domain with
what the evaluator and the inference rules cover, and one page per operator with every version
(descriptions, allowed values, computed changes, examples run by the evaluator, a plot of an
elementwise function). ``generate(folder)`` and ``write_pages`` do the same for a user's spec
folder (``python -m onnxcraft.docgen --specs FOLDER --out DIR``).
"""

from onnxcraft.docgen.build import generate, stale_pages, write_pages

__all__ = ["generate", "stale_pages", "write_pages"]
