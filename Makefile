# Two commands do everything on a fresh machine:
#   make run    install what the app needs and start it on the local demo store
#   make test   install what the tests need (Python packages, Debian's chromium) and run every test
PYTHON ?= python3

.PHONY: run test install install-test bench icu

icu:  # PyICU (requirements.txt) compiles against ICU's headers
	@pkg-config --exists icu-uc || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config g++ >/dev/null; }

install: icu
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt

install-test: icu
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

run: install
	$(PYTHON) app.py

test: install-test
	$(PYTHON) -m pytest -q tests

bench: install
	$(PYTHON) bench/run_benchmarks.py
