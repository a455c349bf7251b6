"""Developer tooling, not shipped in the wheel: the scripts `make wkt` and `make pythons` run, and the
helpers that tests, bench/ and examples/ share (protoc with this plugin, mypyc builds, synthetic inputs)."""
