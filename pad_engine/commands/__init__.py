"""Subcommands of ``pad``: one module each, discovered by ``pad_engine.cli``."""
