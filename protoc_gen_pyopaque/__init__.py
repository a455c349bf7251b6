"""protoc-gen-pyopaque: a protoc plugin for typed Python messages (open, hybrid, opaque)."""

from ._version import __version__

__all__ = ["__version__"]
