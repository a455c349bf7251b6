# Two set-up commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test unit conformance golden wkt bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

## demo: generate the examples in all three styles and run them
demo: $(STAMP)
	$(BIN)/python examples/demo.py

## test: the whole suite (unit, golden, behaviour, differential, typing) and conformance
test: unit conformance

unit: $(STAMP)
	$(BIN)/python -m pytest -q

## conformance: Google's conformance suite, once per style (CONFORMANCE_RUNNER selects the runner)
conformance: $(STAMP)
	$(BIN)/python tests/conformance/run_suite.py

## golden: regenerate the golden outputs after an intended change to generated code
golden: $(STAMP)
	$(BIN)/python tests/golden/regenerate.py

## wkt: regenerate the well-known types shipped in the runtime, with this plugin
wkt: $(STAMP)
	$(BIN)/python tools/bootstrap_wkt.py

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache
