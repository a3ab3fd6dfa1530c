"""Class labels of a scikit-learn classifier as ONNX wants them: int64 or strings.

scikit-learn keeps ``classes_`` as whatever ``y`` held (ints, strings, bools); ONNX operators
take labels as int64 (``classlabels_int64s``) or strings (``classlabels_strings``). The label
output is then ``Gather(classes, ArgMax(scores))``, and ZipMap pairs each probability with its
label.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v3 as ml


def label_array(classes: np.ndarray) -> np.ndarray:
    """The classes as an int64 or a string array (the two label types ONNX knows)."""
    if np.issubdtype(classes.dtype, np.integer) or classes.dtype == np.bool_:
        return classes.astype(np.int64)
    return classes.astype(np.str_)


def label_attributes(classes: np.ndarray) -> dict[str, Any]:
    """``classlabels_int64s=...`` or ``classlabels_strings=...`` for ml operators."""
    labels = label_array(classes)
    if labels.dtype == np.int64:
        return {"classlabels_int64s": [int(c) for c in labels]}
    return {"classlabels_strings": [str(c) for c in labels]}


def label_of_best(scores: oc.Var, classes: np.ndarray) -> oc.Var:
    """The label of the highest score of each row (the first one on a tie, as numpy's argmax)."""
    return op.Gather(label_array(classes), op.ArgMax(scores, axis=1, keepdims=0))


def zipmap(probabilities: oc.Var, classes: np.ndarray) -> oc.Var:
    """One {label: probability} map per row; ZipMap takes float32 only."""
    return ml.ZipMap(op.Cast(probabilities, to=np.float32), **label_attributes(classes))
