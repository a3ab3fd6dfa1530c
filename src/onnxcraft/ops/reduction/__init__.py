"""The reduction family: everything onnxcraft knows about its operators.

Operators: ArgMax, ArgMin, CumSum, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceMax,
ReduceMean, ReduceMin, ReduceProd, ReduceSum, ReduceSumSquare, TopK.

Parts: ``rules``, ``kernels``, ``vjp``, ``recipes``.
"""
