"""Decoding: grammar and feature templates, the Numba chart (1-best and k-best), model
files, the ``Engine`` and the rule-based projection behind one ``Converter`` protocol, and
the choice between them for an input file."""
