"""Where do two runs of a model disagree? ``oc.compare`` (:mod:`onnxcraft.compare.runs`).

This package's own module imports nothing, so that the package root can claim the name
``compare`` for the function before anything loads the package (see ``onnxcraft/__init__.py``).
"""
