# Two commands do everything on a fresh machine (python3 with pip and venv):
#   make run    install what the app needs into .venv and start it on the local demo store
#   make test   install what the tests need (locked Python packages, Debian's chromium) and run every test
# make check runs the fast tier (unit tests, no servers or browser); make lock updates the locks.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check
# pytest-xdist workers for make test and make check: one more than the cores, since the browser
# tests' workers wait on Chromium and the served apps (2 cores, 2026-11-24, 617 tests: 2 workers
# 6 min 24 s, 3 workers 5 min 48 s; 2026-11-27, 868-869 tests, 3 workers: 8 min 58 s to 9 min
# 43 s on a quiet machine, the cores busy throughout, Chromium most of a browser test's CPU;
# bench/RESULTS.md, sessions 17-20)
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
# Both locks list the full set of packages at exact versions; pyproject.toml holds the bounds
# (requirements.txt: the package and its `app` extra, what the Space installs; requirements-test.txt: and `test`).
UV_COMPILE := $(VENV)/bin/uv pip compile --quiet --universal --python-version 3.11 --custom-compile-command "make lock"

.PHONY: run test check lint types install install-test lock bench icu

$(PY):
	$(PYTHON) -m venv $(VENV)

icu:  # PyICU (the title look-alike check) compiles against ICU's headers
	@pkg-config --exists icu-uc 2>/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config g++ >/dev/null; }

# The stamps make a second `make test` skip pip until a lock changes.
$(VENV)/.installed-app: requirements.txt | $(PY) icu
	$(PIP) -r requirements.txt
	touch $@

$(VENV)/.installed-test: requirements-test.txt | $(PY) icu
	$(PIP) -r requirements-test.txt
	touch $@

install: $(VENV)/.installed-app

install-test: $(VENV)/.installed-test
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

run: install
	$(PY) app.py

test: install-test
	$(PY) -m pytest -q -n $(WORKERS) --dist loadgroup tests

check: lint types
	$(PY) -m pytest -q -n $(WORKERS) --dist loadgroup -m unit tests

lint: $(VENV)/.installed-test  # ruff's rules and bounds are in pyproject.toml
	$(PY) -m ruff check leaderboard stats tests bench app.py content.py

# mypy, strict on stats/, engine/, storage/ and board/, the rest non-strict; the modules not
# yet clean are listed in pyproject.toml with their errors left (issue 37).
types: $(VENV)/.installed-test
	$(PY) -m mypy

lock: | $(PY)
	$(PIP) uv
	$(UV_COMPILE) pyproject.toml --extra app -o requirements.txt $(LOCK_ARGS)
	$(UV_COMPILE) pyproject.toml --extra app --extra test --constraint requirements.txt -o requirements-test.txt $(LOCK_ARGS)

bench: install
	$(PY) bench/run_benchmarks.py
