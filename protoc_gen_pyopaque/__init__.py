"""protoc-gen-pyopaque: a protoc plugin for typed Python messages (open, hybrid, opaque)."""
