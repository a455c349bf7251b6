# Two set-up commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint unit pythons unit-compiled conformance golden wkt bench bench-quick bench-lazy bench-lazy-quick bench-deps fuzz typing-full clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

## demo: generate the examples in all three styles and run them
demo: $(STAMP)
	$(BIN)/python examples/demo.py

## test: ruff, the whole suite (unit, golden, behaviour, differential, typing), the smoke subset on
## CPython 3.12 and 3.13 (pythons), the tests of the
## golden modules again with those modules compiled, and conformance
test: lint unit pythons unit-compiled conformance

## lint: ruff check with the rules in pyproject.toml ([tool.ruff.lint])
lint: $(STAMP)
	$(BIN)/ruff check .

## unit: the pytest suite on one worker process per core (pytest-xdist; work stealing, since a few
## tests wait minutes on a type checker or a C compiler in a subprocess)
unit: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist worksteal

## typing-full: the strict typing tests with Google's conformance protos in every style (make test
## includes them in the opaque style only: pyright takes minutes per style on them)
typing-full: $(STAMP)
	PYOPAQUE_TYPING_ALL_STYLES=1 $(BIN)/python -m pytest -q tests/typing

## pythons: CPython 3.12 and 3.13 (from pyenv, where installed) each install the package into a venv
## under build/py (kept until pyproject.toml changes), generate the golden outputs identically and
## pass a smoke subset (about a minute per interpreter; tools/python_matrix.py)
pythons: $(STAMP)
	$(BIN)/python tools/python_matrix.py

## unit-compiled: the behaviour, JSON, text format and well-known-type tests against the opaque and
## the open golden modules compiled with mypyc (a pytest process per style; a build takes a minute or
## two and is kept under build/ until the plugin, templates, runtime or golden modules change)
unit-compiled: $(STAMP)
	$(BIN)/python -m tests.behavior.compiled

## conformance: Google's conformance suite, once per style (CONFORMANCE_RUNNER selects the runner)
conformance: $(STAMP)
	$(BIN)/python tests/conformance/run_suite.py

## golden: regenerate the golden outputs after an intended change to generated code
golden: $(STAMP)
	$(BIN)/python tests/golden/regenerate.py

## wkt: regenerate the well-known types shipped in the runtime, with this plugin
wkt: $(STAMP)
	$(BIN)/python tools/bootstrap_wkt.py

## bench: parse/serialize/JSON/memory against upb, pure-Python protobuf, betterproto2 and protobuf-py
## (and the object floor: bench/floor.py, what making the decoded objects alone costs)
## and plugin speed, on a synthetic monorepo of 5,000 .proto files against protoc's --python_out
## (a few minutes; writes bench/RESULTS.md and its chart bench/RESULTS.svg); bench-quick: the same in under a minute per program
## (a monorepo of 500 files); both end with a large schema's first import (bench/large_schema.py:
## compute.proto's size, 400 messages in quick mode) next to --python_out's
## bench-lazy: lazy decoding against eager and upb (bench/lazy.py; its "Lazy decoding" section of
## bench/RESULTS.md, which `make bench` regenerates too, after bench/run.py); bench-lazy-quick: < 1 minute
## `make bench` also times hostile inputs of 1, 4 and 16 MB per style against upb (bench/adversarial.py,
## its "Adversarial inputs" section)
## `make bench` also times gRPC round trips over grpcio, ours against the official runtime's
## (bench/grpc_roundtrip.py, its "gRPC round trips" section, last)
# Benchmark-only dependencies, installed into the venv by the bench targets themselves; a group
# that cannot be installed is reported as "unavailable" in the results rather than failing.
BENCH_DEPS := "betterproto2 betterproto2-compiler" "protobuf-py protoc-gen-py"

bench-deps: $(STAMP)
	@for group in $(BENCH_DEPS); do \
	  $(BIN)/pip install -q $$group 2>&1 | grep -v '^WARNING' || true; \
	done

bench: bench-deps
	BENCH_VIA_MAKE=1 $(BIN)/python bench/run.py
	BENCH_VIA_MAKE=1 $(BIN)/python bench/lazy.py
	BENCH_VIA_MAKE=1 $(BIN)/python bench/adversarial.py
	BENCH_VIA_MAKE=1 $(BIN)/python bench/grpc_roundtrip.py

bench-quick: bench-deps
	BENCH_VIA_MAKE=1 $(BIN)/python bench/run.py --quick
	BENCH_VIA_MAKE=1 $(BIN)/python bench/lazy.py --quick
	BENCH_VIA_MAKE=1 $(BIN)/python bench/adversarial.py --quick
	BENCH_VIA_MAKE=1 $(BIN)/python bench/grpc_roundtrip.py --quick

bench-lazy: $(STAMP)
	BENCH_VIA_MAKE=1 $(BIN)/python bench/lazy.py

bench-lazy-quick: $(STAMP)
	BENCH_VIA_MAKE=1 $(BIN)/python bench/lazy.py --quick

## fuzz: parse, from_json and from_text in every style, lazy and compiled, for FUZZ_SECONDS in all
## (tests/fuzz; atheris, coverage-guided, when it installs, else Hypothesis); `make test` runs a
## bounded part (tests/fuzz/test_fuzz.py)
FUZZ_SECONDS ?= 600

fuzz: $(STAMP)
	-$(BIN)/pip install -q atheris
	$(BIN)/python -m tests.fuzz --seconds $(FUZZ_SECONDS)

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache
