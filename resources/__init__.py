"""Installed as the package ``pad_resources`` so that a wheel carries these files; code finds
them through ``pad_engine.resources.resource_path``."""
