# Two commands on a fresh machine: `make run` (set up, then reproduce the whole experiment on the
# bundled sample) and `make test` (set up, then the test suite, the linter and the reproduction
# check). README "Reproducing the committed results" explains run, run-cold and lock.
VENV ?= .venv
PYTHON ?= python3
BIN := $(abspath $(VENV))/bin
export PATH := $(BIN):$(PATH)
SAMPLE_CACHE := data/sample-cache/responses.jsonl

.PHONY: setup run run-cold lock test check-reproduction lint doctor

setup: $(VENV)/.installed

# llama-cpp-python first, from a portable wheel (tools/install-llama-runtime.sh says why); the
# project install then finds it satisfied and never compiles a native one.
# The sentence encoder's two files (83 MB wheel, no PyTorch) go into the venv's share/ folder.
$(VENV)/.installed: pyproject.toml Makefile tools/install-llama-runtime.sh tools/install-encoder.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	tools/install-llama-runtime.sh $(BIN)/python
	tools/install-encoder.sh $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

# The shipped responses (from the repository's own DVC remote) go into the response cache, so
# `dvc repro` replays the committed results instead of calling the model for them.
run: setup
	dvc pull -q $(SAMPLE_CACHE).dvc
	interviewsim cache merge $(SAMPLE_CACHE)
	dvc repro
	@echo "Report: reports/report.md   Metrics: dvc metrics show reports/headline"
	@echo "MLflow UI: $(BIN)/mlflow ui --backend-store-uri sqlite:///mlflow.db"

# The whole pipeline from an empty response cache, on a clone of HEAD in .cold-run/, calling
# the embedded model for everything; ends by comparing its results with the committed ones.
run-cold: setup
	python benchmarks/bench_cold_run.py --work .cold-run --compare

# After a change to a stage's code or params: replay (calling the model only for what the
# cache lacks), then ship exactly the responses this run used, with dvc.lock and reports/.
lock: setup
	rm -f data/cache/lock-trace.txt
	INTERVIEWSIM_CACHE_TRACE=data/cache/lock-trace.txt dvc repro -f --no-run-cache
	interviewsim cache export --keys data/cache/lock-trace.txt $(SAMPLE_CACHE)
	dvc add -q $(SAMPLE_CACHE)
	dvc push -q $(SAMPLE_CACHE).dvc
	dvc gc -q -f --workspace --cloud
	@echo "Commit dvc.lock, reports/, $(SAMPLE_CACHE).dvc and data/remote/ together."

test: setup
	python -m pytest
	ruff check .
	$(MAKE) check-reproduction

# A replay from the shipped cache must rewrite dvc.lock and reports/ byte for byte, make no
# model call, and leave no stage out of date.
check-reproduction: setup
	tools/check-reproduction.sh

lint: setup
	ruff check .

doctor: setup
	interviewsim doctor
