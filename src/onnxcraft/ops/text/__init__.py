"""The text family: its rules, kernels and recipes.

Rules of the text family: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and
"""
