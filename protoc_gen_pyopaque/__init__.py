"""protoc-gen-pyopaque: a protoc plugin for typed Python messages (open, hybrid, opaque)."""

__version__ = "0.1.0"  # the package version (pyproject.toml reads it); generated modules name it
