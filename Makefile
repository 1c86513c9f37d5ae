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

test: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/python -m mypy
	$(BIN)/python -m ruff check gate tests

bench: $(STAMP)
	$(BIN)/python -m tests.bench

clean:
	rm -rf $(VENV) build *.egg-info
