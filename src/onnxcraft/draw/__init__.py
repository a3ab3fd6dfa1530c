"""Pictures of graphs: ``oc.draw`` (:mod:`onnxcraft.draw.api`: SVG, HTML, the layout's
geometry) and the pictures notebooks show for models and Vars (:mod:`onnxcraft.draw.notebook`).

The package itself imports nothing: ``import onnxcraft`` imports it (so that the function
``oc.draw`` owns the name), and the drawing modules, which load protobuf and the inference
engine, are loaded on the first picture.
"""
