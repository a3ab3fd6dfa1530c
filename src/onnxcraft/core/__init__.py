"""The DSL: typed values, operator calls, literals, subgraph bodies, build and check."""
