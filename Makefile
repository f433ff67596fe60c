# Tricktable: every command creates the virtual environment it needs.
# `make demo` runs the main job; `make test` runs the tests; `make check` is lint + types + protos + tests.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed-stamp
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: venv demo test check lint types golden bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: venv
	$(BIN)/tricktable demo

test: venv
	$(BIN)/pytest -p no:cacheprovider

lint: venv
	$(BIN)/ruff check .

types: venv
	$(BIN)/mypy rules cli bots client_sdk server

check: lint types test

golden: venv
	$(PY) -m tests.golden --regenerate

bench: venv
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
