"""Text in: a POS tagger and a dependency parser (hashed averaged perceptrons, Numba), so that
plain or tagged text can be d-parsed and then converted to phrase-structure trees by PAD."""
