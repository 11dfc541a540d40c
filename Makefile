# The two commands of the README: `make run` and `make test`. Each sets up .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
# Everything: the package with its `dev` extra (Synapse, Playwright, the checkers) for the tests.
STAMP := $(VENV)/.installed

CHROMIUM := /usr/bin/chromium
BWRAP := /usr/bin/bwrap
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# pytest keeps each test module's rewritten bytecode; without it every run (on each worker) compiles them anew.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-fast lint typecheck unit fuzz bench clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "miniroom needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Running needs only the base package: embedded rooms and the web chat, no Synapse and no Playwright.
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# The web UI tests drive Debian's Chromium through Playwright (no browser download).
$(CHROMIUM):
	$(SUDO) apt-get update -q
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q chromium

# Agents served in rooms run their shells inside Debian's bubblewrap (the sandbox tests too).
$(BWRAP):
	$(SUDO) apt-get update -q
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q bubblewrap

# Agents in embedded rooms with the web chat at http://127.0.0.1:8765 (examples/config.yaml: one agent);
# `make run PORT=9000` picks another port.
PORT ?= 8765
run: $(RUN_STAMP) $(BWRAP)
	$(BIN)/miniroom serve --config examples/config.yaml --port $(PORT)

test: lint typecheck unit fuzz

# The tests run on two workers (pytest-xdist), each taking a whole file at a time, so a module's shared
# fixtures (a `miniroom serve`, Chromium, Synapse) start once per worker; every server a test starts takes a
# free port on 127.0.0.1 and its data lives in the test's own temporary folder.
PYTEST := $(BIN)/pytest -q -n 2 --dist loadfile

# The quick loop while working: every test but the Matrix, browser, end-to-end and slow ones (tests/matrix,
# tests/cli and the modules or tests marked so) and the fuzzing (`make fuzz`), in under a minute on two cores.
# `make test` still runs them all.
test-fast: $(STAMP)
	$(PYTEST) -m "not matrix and not browser and not e2e and not slow" --ignore=tests/fuzz

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(CHROMIUM) $(BWRAP)
	$(PYTEST) --ignore=tests/fuzz

# Property-based tests of every settings reader and the HTTP API inputs: bounded, derandomized examples.
fuzz: $(STAMP)
	$(BIN)/pytest -q -n 2 tests/fuzz

# Every bench runs and prints its verdict; the target fails at the end when any budget was missed.
BENCHES := startup loop_overhead subagent_overhead stream_receive session_load prompt_size fetch_convert \
	mcp_connect room_decisions judgment_latency minimal_mode agent_cli page_load long_task sandbox_cost
bench: $(STAMP)
	$(BIN)/python bench/run_all.py $(BENCHES:%=bench/%.py)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
