"""The text family: everything onnxcraft knows about its operators.

Operators: RegexFullMatch, StringConcat, StringNormalizer, StringSplit, TfIdfVectorizer.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
