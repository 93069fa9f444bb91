# The README's two commands: `make run` and `make test`. Both do their own set-up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck install clean schema bench e2e

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall when the project metadata changes; the editable install picks up code edits.
$(STAMP): $(PY) pyproject.toml setup.py
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	@$(VENV)/bin/checkspec run examples || echo "(one example fails on purpose and one needs a model: see examples/README.md)"

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# mypy checks engine/ and server/ as checkspec.engine and checkspec.server: a link tree
# gives the folders their import names (the editable install maps them with an import hook
# tools cannot follow).
typecheck: install
	@mkdir -p .typecheck/checkspec
	@ln -sfn ../../engine .typecheck/checkspec/engine
	@ln -sfn ../../server .typecheck/checkspec/server
	cd .typecheck && ../$(VENV)/bin/mypy --config-file ../pyproject.toml -p checkspec.engine -p checkspec.server

test: install lint typecheck
	$(PY) -m pytest -q
	@if [ -f vscode-extension/package.json ]; then $(MAKE) -C vscode-extension test; fi

# Real clients: VS Code in a browser (code-server + Debian's chromium) and headless Neovim,
# each through open -> diagnostics -> completion -> run -> results; screenshots and what the
# clients saw go to $(E2E_OUT). Installs what is missing first (e2e/setup.sh).
E2E_OUT ?= /tmp/checkspec-e2e
e2e: install
	bash vscode-extension/e2e/setup.sh
	CHECKSPEC_E2E_OUT=$(E2E_OUT) node vscode-extension/e2e/neovim.mjs
	CHECKSPEC_E2E_OUT=$(E2E_OUT) $(MAKE) -C vscode-extension e2e

schema: install
	$(VENV)/bin/checkspec schema

bench: install
	$(PY) bench/engine_vs_reference.py

clean:
	rm -rf $(VENV) build dist *.egg-info .typecheck
