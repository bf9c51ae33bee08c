"""Packaging glue that pyproject.toml cannot express on its own.

setuptools finds the code packages; the top-level ``resources/`` folder (head tables, bundled
models, sample) installs as the package ``pad_resources``. Declarative configuration can
either discover packages or list them by hand with a mapped folder, not both.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["pad_engine*", "pad_gui*"]), "pad_resources"],
    package_dir={"pad_resources": "resources"},
)
