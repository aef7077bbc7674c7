# Two commands on a fresh machine: `make run` (set up, then run the whole experiment on the
# bundled sample) and `make test` (set up, then the test suite and the linter).
VENV ?= .venv
PYTHON ?= python3
BIN := $(abspath $(VENV))/bin

.PHONY: setup run test lint clean-artifacts

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

run: setup
	PATH="$(BIN):$$PATH" dvc repro
	@echo "Report: reports/report.md   Metrics: dvc metrics show"
	@echo "MLflow UI: $(BIN)/mlflow ui --backend-store-uri sqlite:///mlflow.db"

test: setup
	PATH="$(BIN):$$PATH" python -m pytest
	$(BIN)/ruff check .

lint: setup
	$(BIN)/ruff check .
