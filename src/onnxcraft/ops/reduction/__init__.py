"""The reduction family: its rules, kernels, gradients and recipes.

Rules for reductions, ArgMax/ArgMin, TopK and CumSum.
"""
