"""The ml family: everything onnxcraft knows about its operators.

Operators: ai.onnx.ml::ArrayFeatureExtractor, ai.onnx.ml::Binarizer, ai.onnx.ml::CastMap,
ai.onnx.ml::CategoryMapper, ai.onnx.ml::DictVectorizer, ai.onnx.ml::FeatureVectorizer,
ai.onnx.ml::Imputer, ai.onnx.ml::LabelEncoder, ai.onnx.ml::Normalizer,
ai.onnx.ml::OneHotEncoder, ai.onnx.ml::Scaler, ai.onnx.ml::ZipMap.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
