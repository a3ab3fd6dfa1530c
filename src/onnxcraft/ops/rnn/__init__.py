"""The rnn family: everything onnxcraft knows about its operators.

Operators: GRU, LSTM, RNN.

Parts: ``rules``, ``kernels``, ``recipes``.
"""
