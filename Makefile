# Two entry points for a fresh machine: `make synth` (the main job) and `make test`.
# Both install everything they need first: a venv with this package and all its extras, and the
# pinned CDK CLI with the Node.js release it runs on (package.json: node_modules/.bin/node).
PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
# The project's Node (Node 24, from npm) first, so `npx cdk` and jsii (which runs `node` from PATH)
# use it; where npm could not install it, the machine's node is found next.
export PATH := $(CURDIR)/node_modules/.bin:$(BIN):$(PATH)
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export CDK_DISABLE_CLI_TELEMETRY := true
export CDK_DISABLE_NOTICES := true

.PHONY: setup tools synth check test test-slow test-all test-fast test-floor test-wheel lint dist bench flake mutate drift lock clean

setup: $(VENV)/.installed node_modules/.installed tools

## Debian's unbound, the real recursive resolver of `rehearse --resolver unbound` (docs/rehearsal.md): installed
## where apt-get runs as root (CI, these machines), else one line says how. Nothing else needs it.
tools:
	@if command -v unbound >/dev/null 2>&1 || [ -x /usr/sbin/unbound ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends unbound >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends unbound >/dev/null 2>&1; }; } \
	  && echo "setup: installed unbound ($$(/usr/sbin/unbound -V 2>/dev/null | head -1))" \
	  || echo "setup: could not install unbound (apt-get install unbound): rehearse --resolver unbound and its tests need it"; \
	else echo "setup: unbound is not installed: rehearse --resolver unbound needs it (Debian/Ubuntu: sudo apt-get install unbound; macOS: brew install unbound)"; fi

## The dev and test environment comes from the lock (every package pinned, with its hashes: a new release on
## the registry cannot change what the tests run on), then this package, editable, without resolving again.
## `pip check` fails the set-up when pyproject.toml asks for something the lock does not hold: run `make lock`.
## Not --no-deps: pip then installs dependencies before their dependents (topological order), which matters:
## aws-cdk-lib and aws-cdk.cloud-assembly-schema both write aws_cdk/cloud_assembly_schema/__init__.py, and
## aws-cdk-lib's must be the one left (else jsii: "Unknown interface: aws-cdk-lib.cloud_assembly_schema...").
LOCK := requirements-dev.txt
PIP  := $(BIN)/python -m pip --disable-pip-version-check
$(VENV)/.installed: pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --require-hashes -r $(LOCK)
	$(PIP) install --quiet --no-deps --no-build-isolation -e .
	$(PIP) check
	touch $@

## Refresh the lock: the newest releases pyproject.toml's ranges allow, for Python 3.11+ on any platform,
## with hashes (uv; docs/development.md). Then `make test`, and commit requirements-dev.txt with the fix.
lock:
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet 'uv>=0.5'
	$(BIN)/uv pip compile pyproject.toml requirements-build.in --extra dev --generate-hashes --universal \
	  --python-version 3.11 --upgrade --quiet -o $(LOCK)
	rm -f $(VENV)/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

## The main job: synthesize the reference app with the real CDK CLI, check it, print the plan.
synth: setup
	rm -rf cdk.out
	npx --no-install cdk synth --quiet --no-notices
	$(BIN)/edge-origin check cdk.out
	$(BIN)/edge-origin report cdk.out --format text

## The tests, at the newest aws-cdk-lib the ranges allow, on pytest-xdist workers: one per core and one
## more (many tests wait on processes, sockets and timers), `worksteal` so that the long tests do not leave
## a core idle. `make test XDIST=` runs them in one process, `make test WORKERS=2` on two.
## `make test` is the suite without the slow end-to-end tests (marked `slow`: the real CDK CLI, loopback
## gRPC/DNS rehearsals, pip installs into fresh venvs); it stays under 5 minutes on 2 cores
## (benchmarks/suite_cost.py prints it). `make test-slow` runs those, `make test-all` both; `.ci/run`
## runs `make test` and then `make test-slow`, each alone (the loopback tests measure timing).
WORKERS ?= $(shell $(PYTHON) -c "import os; print(len(os.sched_getaffinity(0)) + 1 if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1) + 1)")
XDIST ?= -n $(WORKERS) --dist worksteal
test: setup
	$(BIN)/python -m pytest -q -m "not slow" $(XDIST)

## The slow tests on one worker per core, not one more: their loopback rehearsals run client processes and
## judge timing, and a third concurrent rehearsal on 2 cores once tipped a multivalue run's max/mean to 1.91
## (1.13-1.59 on a quiet machine). `make test-slow SLOW_WORKERS=3` to override.
SLOW_WORKERS ?= $(shell $(PYTHON) -c "import os; print(len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1))")
test-slow: setup
	$(BIN)/python -m pytest -q -m slow -n $(SLOW_WORKERS) --dist worksteal

test-all: setup
	$(BIN)/python -m pytest -q $(XDIST)

## The name `make test` had before the slow tests moved to `make test-slow`.
test-fast: test

## Flake watch: the non-slow suite N times (default 5), each with its own hypothesis seed and a fresh
## example database, then the failures per test (`make flake N=1 FLAKE_ARGS="tests/diff"`).
N ?= 5
FLAKE_ARGS ?=
flake: setup
	$(BIN)/python benchmarks/flake.py --runs $(N) $(FLAKE_ARGS)

## Mutation testing of the judgment core with mutmut 3 (long; one module takes minutes):
## `make mutate` (every module), `make mutate MODULE=answers/select.py`. Prints the per-module table and
## writes docs/mutation.md; survivors: `python benchmarks/mutmut_run.py --table --survivors`.
## `make mutate MODULE=... SURVIVORS=1`: only the last run's survivors (and what a stopped run left) again, against the tests as they are now.
MODULE ?=
JOBS ?= 2
## `make mutate STALE=1`: only the modules never measured or measured on another version of their source.
## `make mutate MODULE=... CHANGED=1`: after a change to the module, only the mutants of the functions whose text changed.
SURVIVORS ?=
STALE ?=
CHANGED ?=
mutate: setup
	$(BIN)/python benchmarks/mutmut_run.py $(MODULE) --jobs $(JOBS) $(if $(SURVIVORS),--survivors-only) $(if $(STALE),--stale) $(if $(CHANGED),--changed)

## The wheel and the sdist in dist/, checked by twine (long description, metadata).
dist: setup
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*

## The built wheel, core install only, in a fresh venv at the floor of aws-cdk-lib/constructs/cdk-nag:
## reference synth with every check on, the commands, and the construct tests.
test-floor: dist node_modules/.installed
	.ci/wheel-job floor

## The same at the newest releases (install, synth, commands; the suite runs there in `make test`).
test-wheel: dist node_modules/.installed
	.ci/wheel-job newest

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python benchmarks/bench_synth.py

## What the installed botocore's service models document that edge-origin's tables do not know
## (Route 53 record/health check members, CloudFront origin members, ELBv2 attribute keys). A report:
## exit 0 whatever it lists, nonzero only when the script itself fails.
drift: setup
	$(BIN)/python benchmarks/aws_drift.py --newest

clean:
	rm -rf cdk.out .pytest_cache build dist mutants
