"""Converting models between opset versions (``oc.convert_version``).

The engine is :mod:`onnxcraft.convert.engine`; the adapters it applies live beside their
operators (``ops/<family>/adapters.py``), and :func:`onnxcraft.convert.listing.conversions`
lists them per operator, for the docs. ``onnxcraft.convert.hook`` lets ``oc.build(...,
target_opset=N)`` reach the engine; this package itself imports nothing on import, so that
filling the hook (done by ``import onnxcraft``) costs nothing.
"""
