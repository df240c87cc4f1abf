# make run: serve the bundled (synthetic) sample data on 127.0.0.1:8080.
# make test: run the test suite. Both create .venv on first use (Python 3.11+).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test typecheck bench bench-http clean

$(STAMP): requirements.txt requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Python 3.11 or newer is needed (found: $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python server.py $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

typecheck: $(STAMP)
	$(BIN)/python -m mypy

bench: $(STAMP)
	$(BIN)/python bench/query_engine.py
	$(BIN)/python bench/build.py

# wrk and redis-server come from Debian's packages (installed here if missing: needs root).
bench-http: $(STAMP)
	@command -v wrk >/dev/null && command -v redis-server >/dev/null \
		|| { apt-get update -qq && apt-get install -y -qq wrk redis-server; }
	$(BIN)/python bench/http_cache.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
