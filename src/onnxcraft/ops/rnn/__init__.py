"""The rnn family: its rules, kernels and recipes.

Rules for RNN, GRU and LSTM.
"""
