"""PAD engine: dependency trees to phrase-structure trees (Kong, Rush & Smith 2015). No Qt here."""

__version__ = "0.1.0"
