"""The sequence family: everything onnxcraft knows about its operators.

Operators: ConcatFromSequence, Optional, OptionalGetElement, OptionalHasElement, SequenceAt,
SequenceConstruct, SequenceEmpty, SequenceErase, SequenceInsert, SequenceLength,
SplitToSequence.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
