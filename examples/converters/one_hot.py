"""OneHotEncoder on string and integer columns, and a ColumnTransformer with mixed inputs.

``OneHotEncoder(handle_unknown="ignore")`` turns column j into one 0/1 column per category of
``categories_[j]`` (all zeros for a value it never saw). ai.onnx.ml's ``OneHotEncoder`` does
exactly that for one column and one category list (int64 or string), so each column gets its
own node and the results are concatenated.

A ``ColumnTransformer`` applies different transformers to different columns. A numeric column
and a string column cannot share one ONNX tensor, so the model gets one input per transformer,
named after it and typed by what it reads: float32 for the scaler, strings (or int64) for the
encoder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import onnxcraft as oc
from onnxcraft.opset.ai.onnx import v21 as op
from onnxcraft.opset.ai.onnx.ml import v3 as ml


def category_type(categories: list[np.ndarray]) -> type[np.generic]:
    """The element type of an input holding these categories: int64 or string."""
    if all(np.issubdtype(c.dtype, np.integer) for c in categories):
        return np.int64
    return np.str_


def one_hot_columns(X: oc.Var, categories: list[np.ndarray]) -> oc.Var:
    """(N, columns) of int64 or strings -> (N, sum of category counts) float32."""
    encoded = []
    for j, column_categories in enumerate(categories):
        column = X[:, j]  # (N,)
        if X.dtype == np.int64:
            cats: dict[str, Any] = {"cats_int64s": [int(c) for c in column_categories]}
        else:
            cats = {"cats_strings": [str(c) for c in column_categories]}
        encoded.append(ml.OneHotEncoder(column, zeros=1, **cats))  # (N, categories)
    return op.Concat(*encoded, axis=1) if len(encoded) > 1 else encoded[0]


def convert_one_hot(encoder: Any) -> oc.proto.ModelProto:
    """A fitted ``OneHotEncoder(handle_unknown="ignore")`` on all-string or all-integer columns:
    input ``X`` (N, columns), output ``encoded`` float32."""
    dtype = category_type(encoder.categories_)
    X = oc.arg("X", dtype, ("N", len(encoder.categories_)))
    encoded = one_hot_columns(X, encoder.categories_)
    return oc.build(inputs=[X], outputs={"encoded": encoded}, name="one_hot")


def scale_columns(X: oc.Var, scaler: Any) -> oc.Var:
    """StandardScaler on float32 columns."""
    if scaler.mean_ is not None:
        X = X - scaler.mean_.astype(np.float32)
    return X / scaler.scale_.astype(np.float32) if scaler.scale_ is not None else X


def encode_columns(X: oc.Var, encoder: Any) -> oc.Var:
    """OneHotEncoder on int64 or string columns."""
    return one_hot_columns(X, encoder.categories_)


# For each kind of part: the element type of the input it reads, and its conversion.
PARTS: dict[str, tuple[Callable[[Any], type[np.generic]], Callable[[oc.Var, Any], oc.Var]]] = {
    "StandardScaler": (lambda scaler: np.float32, scale_columns),
    "OneHotEncoder": (lambda encoder: category_type(encoder.categories_), encode_columns),
}


def convert_column_transformer(transformer: Any) -> oc.proto.ModelProto:
    """A fitted ColumnTransformer of StandardScaler and OneHotEncoder parts (the rest dropped):
    one input per part, named after it, holding that part's columns; output ``features``."""
    inputs, features = [], []
    for name, part, columns in transformer.transformers_:
        if part == "drop" or len(columns) == 0:
            continue
        kind = type(part).__name__
        if kind not in PARTS:
            raise NotImplementedError(f"no conversion for {kind} (part {name!r})")
        input_type, convert = PARTS[kind]
        X = oc.arg(name, input_type(part), ("N", len(columns)))
        inputs.append(X)
        features.append(op.Cast(convert(X, part), to=np.float32))
    output = op.Concat(*features, axis=1)
    return oc.build(inputs=inputs, outputs={"features": output}, name="column_transformer")
