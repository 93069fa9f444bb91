# The README's two commands: `make run` and `make test`. Both do their own set-up.
# `make test PYTHON=python3.13` runs the suite on another interpreter, in its own venv;
# a pyenv version that is installed but not on PATH is found under ~/.pyenv/versions.
PYTHON ?= python3
PYTHON_BIN := $(shell $(PYTHON) -c pass >/dev/null 2>&1 && echo $(PYTHON) || ls -d $(HOME)/.pyenv/versions/*/bin/$(PYTHON) 2>/dev/null | tail -n 1)
VENV ?= $(if $(filter python3,$(PYTHON)),.venv,.venv-$(notdir $(PYTHON)))
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
COVERAGE := build/coverage

.PHONY: package-test dist run test security suite python-suite extension-tests check fast-tests test-python coverage mutate lint typecheck install clean schema bench fixtures e2e screenshots docs

$(PY):
	@test -n "$(PYTHON_BIN)" || (echo "no interpreter $(PYTHON) (on PATH or under ~/.pyenv/versions)"; exit 2)
	$(PYTHON_BIN) -m venv $(VENV)

# Reinstall when the project metadata changes; the editable install picks up code edits.
$(STAMP): $(PY) pyproject.toml setup.py
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	@$(VENV)/bin/checkspec run examples || echo "(one example fails on purpose and one needs a model: see examples/README.md)"

# lint-imports: the import contracts of pyproject.toml (ARCHITECTURE.md, "Tiers").
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo

# mypy checks engine/ and server/ as checkspec.engine and checkspec.server: a link tree
# gives the folders their import names (the editable install maps them with an import hook
# tools cannot follow).
typecheck: install
	@mkdir -p .typecheck/checkspec
	@ln -sfn ../../engine .typecheck/checkspec/engine
	@ln -sfn ../../server .typecheck/checkspec/server
	cd .typecheck && ../$(VENV)/bin/mypy --config-file ../pyproject.toml -p checkspec.engine -p checkspec.server

# The test runs keep Python's bytecode in build/pycache. An environment that sets
# PYTHONDONTWRITEBYTECODE (to keep __pycache__ folders out of the tree) otherwise makes
# each of the suite's ~700 Python processes (the CLI, language servers, workers, under
# coverage) compile the engine afresh, and each pytest worker rewrite every test module
# (collection: 8.6 s of CPU a worker without the cache, 3.7 s with it).
# pip compiled the venv's packages into their own __pycache__ folders, where Python
# does not look once a prefix is set: tools/link_bytecode.py links them under it, once a
# venv install (a clean clone's suite otherwise compiled litellm, ray, ... in its processes).
PYCACHE := $(CURDIR)/build/pycache
fast-tests security suite python-suite test-python package-test: export PYTHONPYCACHEPREFIX := $(PYCACHE)
fast-tests security suite python-suite test-python package-test: export PYTHONDONTWRITEBYTECODE :=
BYTECODE := $(PYCACHE)/.linked-$(notdir $(VENV))
$(BYTECODE): $(STAMP) tools/link_bytecode.py
	PYTHONPYCACHEPREFIX=$(PYCACHE) $(PY) tools/link_bytecode.py
	@touch $@

# The inner loop, for every edit (about 60 s): ruff, mypy and the fast tests, those that
# start no process, no server and reach no network. tests/support/lanes.py marks each test
# by what it starts (fast, subprocess, server); here a guard fails a "fast" test that
# starts something anyway.
check: lint typecheck fast-tests

fast-tests: install $(BYTECODE)
	CHECKSPEC_TEST_LANE=fast $(PY) -m pytest -q -m fast -n 2

# The attack-style tests alone (tests/security/, each file named by what it attacks, with
# docs/security.md saying what each surface promises); `make test` runs them too.
security: install $(BYTECODE)
	$(PY) -m pytest -q -n 2 tests/security

# Every test, with branch coverage of engine/ and server/ (language server subprocesses
# and the pytest-xdist workers included: [tool.coverage.run] patch = subprocess); fails
# under 90% for either folder. Three workers on this 2-core machine (the suite waits on
# the processes it starts: 348 s against 361 s with two), a test file per worker at a
# time (its module's language server or cluster is started once). `make suite SEED=1234`
# runs in a random order (pytest-random-order; .ci/run uses fixed seeds).
# Each step's time is printed, so CI says where the time went.
timed = s=$$(date +%s); $(2); rc=$$?; echo "=== $(1): $$(( $$(date +%s) - s )) s"; exit $$rc
# mypy (one core, ~30 s without its cache) and then the extension's tests (~5 s) run
# beside the Python suite, whose workers leave a core idle part of the time (waiting on
# the processes they start); their output follows the suite's, and any step failing
# fails `make test`.
test: install
	@$(call timed,lint,$(MAKE) --no-print-directory lint)
	@mkdir -p build; \
	( ( $(call timed,types,$(MAKE) --no-print-directory typecheck) ); typed=$$?; \
	  ( $(call timed,extension,$(MAKE) --no-print-directory extension-tests) ); tested=$$?; \
	  [ $$typed -eq 0 ] && [ $$tested -eq 0 ] ) > build/beside.log 2>&1 & beside=$$!; \
	( $(call timed,suite,$(MAKE) --no-print-directory python-suite) ); suite=$$?; \
	wait $$beside; besides=$$?; cat build/beside.log; \
	[ $$suite -eq 0 ] && [ $$besides -eq 0 ]

JOBS ?= 3
SEED ?=
ORDER := $(if $(SEED),--random-order-bucket=module --random-order-seed=$(SEED))
suite: python-suite extension-tests

python-suite: install $(BYTECODE)
	@rm -rf $(COVERAGE) && mkdir -p $(COVERAGE)
	$(PY) -m coverage run -m pytest -q -n $(JOBS) --dist loadfile $(ORDER)
	@$(PY) -m coverage combine -q
	@for d in engine server; do \
		total=$$($(PY) -m coverage report --include="$$d/*" --fail-under=90 --format=total); rc=$$?; \
		printf 'branch coverage of %s/: %s%%\n' $$d "$$total"; \
		[ $$rc -eq 0 ] || { echo "$$d/ is under 90% branch coverage: make coverage lists the missing lines"; exit 1; }; \
	done

extension-tests:
	@if [ -f vscode-extension/package.json ]; then $(MAKE) -C vscode-extension test; fi

# Real clients: VS Code in a browser (code-server + Debian's chromium), headless Neovim and
# Emacs (eglot, batch mode, the README's snippet),
# each through open -> diagnostics -> completion -> run -> results; screenshots and what the
# clients saw go to $(E2E_OUT): the tree stays as it was. Installs what is missing first
# (e2e/setup.sh).
E2E_OUT ?= /tmp/checkspec-e2e
e2e: install
	bash vscode-extension/e2e/setup.sh
	$(PY) tools/pre_commit_try_repo.py
	$(PY) tools/schemastore_yaml_ls.py
	CHECKSPEC_E2E_OUT=$(E2E_OUT) node vscode-extension/e2e/neovim.mjs
	CHECKSPEC_E2E_OUT=$(E2E_OUT) node vscode-extension/e2e/emacs.mjs
	CHECKSPEC_E2E_OUT=$(E2E_OUT) $(MAKE) -C vscode-extension e2e

# The README's pictures (docs/report.png, viewer.png, compare.png), taken afresh by the
# HTML report's end-to-end test (vscode-extension/e2e/report.mjs) in Debian's chromium.
screenshots: install
	bash vscode-extension/e2e/setup.sh
	$(MAKE) -C vscode-extension node_modules/.package-lock.json
	CHECKSPEC_E2E_DOCS=$(CURDIR)/docs node vscode-extension/e2e/report.mjs
	@# The editor's (docs/editor-results.png, editor-failure.png): real VS Code's, from the
	@# last `make e2e` (its screenshots in $(E2E_OUT)).
	@test -f $(E2E_OUT)/05b-results-in-place.png || { echo "run make e2e first"; exit 2; }
	cp $(E2E_OUT)/05b-results-in-place.png docs/editor-results.png
	cp $(E2E_OUT)/06b-failure-peek.png docs/editor-failure.png

# The docs site in build/site (MkDocs + Material, mkdocs.yml): the reference pages are
# generated first from the check registry, the CLI's parser and the catalog
# (tools/docs_reference.py, into the git-ignored docs/reference/); --strict makes a broken
# link, a page missing from the nav or any warning fail. tests/tools/test_docs_examples.py
# runs the docs' examples and this build.
docs: install
	$(PY) tools/docs_reference.py docs/reference
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# The Python suite alone, without coverage (CI runs it on the newest Python).
test-python: install $(BYTECODE)
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile $(ORDER)

# The sdist and the wheel PyPI would get, in dist/, checked by twine (metadata, README
# rendering). Built without isolation from the venv's setuptools: no download.
dist: install
	rm -rf dist
	$(PY) -m build --no-isolation --outdir dist .
	$(PY) -m twine check --strict dist/*

# Every VS Code target's .vsix built (make -C vscode-extension package-all) and unpacked:
# binary modules per Python carry the target's platform, linux-x64's import with Python 3.11
# and 3.13 (tests/e2e/test_vsix_targets.py). Minutes, and the first run downloads the wheels
# into build/wheelhouse: not part of `make test`.
package-test: install $(BYTECODE)
	$(MAKE) -C vscode-extension node_modules/.package-lock.json
	CHECKSPEC_PACKAGE_TEST=1 $(PY) -m pytest -q -p no:randomly -p no:cacheprovider tests/e2e/test_vsix_targets.py

# Missing lines and branches of the last `make test`.
coverage:
	$(PY) -m coverage report
	$(PY) -m coverage html -q -d $(COVERAGE)/html && echo "open $(COVERAGE)/html/index.html"

# Mutation testing (mutmut) of engine/checks, engine/spec, engine/core and server/analysis;
# `make mutate MUTATE=engine/checks` for one folder. Slow: not part of `make test`.
$(VENV)/.mutmut: $(STAMP)
	$(PY) -m pip install --quiet -e '.[mutate]'
	touch $@

mutate: $(VENV)/.mutmut
	nice -n 19 $(PY) tools/mutate.py $(MUTATE)

# Recapture vscode-extension/test/fixtures from the live language server.
fixtures: install
	$(PY) tools/extension_fixtures.py --write

schema: install
	$(VENV)/bin/checkspec schema
	$(VENV)/bin/python -m checkspec.server.lsp.answers

bench: install
	$(PY) bench/engine_vs_reference.py

clean:
	rm -rf .venv .venv-* build dist *.egg-info .typecheck
