"""Loaded before any test module: in a compiled run, the compiled build goes first on sys.path."""

from tests.behavior.compiled import selected_build

selected_build()  # before a test module imports the (interpreted) runtime
