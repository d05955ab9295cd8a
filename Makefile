# Two entry points for a fresh machine: `make synth` (the main job) and `make test`.
# Both install everything they need first: a venv with this package, and the pinned CDK CLI.
PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export CDK_DISABLE_CLI_TELEMETRY := true
export CDK_DISABLE_NOTICES := true

.PHONY: setup synth check test test-fast lint bench clean

setup: $(VENV)/.installed node_modules/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

## The main job: synthesize the reference app with the real CDK CLI, check it, print the plan.
synth: setup
	rm -rf cdk.out
	npx --no-install cdk synth --quiet --no-notices
	$(BIN)/edge-origin check cdk.out
	$(BIN)/edge-origin report cdk.out --format text

## The tests (slow end-to-end ones included).
test: setup
	$(BIN)/python -m pytest -q

test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python benchmarks/bench_synth.py

clean:
	rm -rf cdk.out .pytest_cache
