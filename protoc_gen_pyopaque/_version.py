"""The package version (pyproject.toml reads it; generated modules name it in their header).

A module of its own: pyopaque-compile's overlay replaces the package's ``__init__``.
"""

__version__ = "0.1.0"
