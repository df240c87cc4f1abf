# make run: serve the bundled (synthetic) sample data on 127.0.0.1:8080.
# make test: lint, then run the test suite in parallel. Both create .venv on first use (Python 3.11+).
# make lock: re-pin the whole dependency tree, with hashes, after editing requirements*.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# uv resolves the lock files; it runs from its own virtualenv, never the project's.
UV_VERSION := 0.13.9
TOOLS := .venv-tools
LOCK_FLAGS := --universal --python-version 3.11 --generate-hashes --custom-compile-command 'make lock' --quiet

.PHONY: run test lint typecheck lock bench bench-http bench-edge nginx redis redis-sentinel clean chromium promtool pin-images

# The lock files, not the requirements they are compiled from: every package, direct or not,
# at one version with its hashes (pip then refuses anything else: docs/OPERATIONS.md).
$(STAMP): requirements.lock requirements-dev.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Python 3.11 or newer is needed (found: $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements-dev.lock
	touch $(STAMP)

# requirements.lock is compiled first and constrains the dev lock, so both pin alike.
lock:
	@test -x $(TOOLS)/bin/uv || { $(PYTHON) -m venv $(TOOLS) \
		&& $(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION); }
	$(TOOLS)/bin/uv pip compile $(LOCK_FLAGS) requirements.txt -o requirements.lock
	$(TOOLS)/bin/uv pip compile $(LOCK_FLAGS) requirements-dev.txt -c requirements.lock \
		-o requirements-dev.lock

run: $(STAMP)
	$(BIN)/python server.py $(ARGS)

# The suite runs in TEST_WORKERS processes (pytest-xdist), each with a Redis database, ports
# and temporary directories of its own; a module's tests stay on one worker (--dist loadfile),
# so a module-scoped fixture (a browser, nginx and two servers, a virtualenv) is made once.
# TEST_WORKERS=0 runs it in one process. docs/TESTING.md#running-in-parallel.
# Bytecode is written (PYTHONDONTWRITEBYTECODE, set on some machines, is unset for the run): each
# worker and each server.py a test starts otherwise compiles the project and rewrites every test
# module's asserts from source, 9 CPU-seconds a process for collection alone.
TEST_WORKERS ?= 6

test: lint nginx redis redis-sentinel chromium promtool
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# $(call debian_package,<check that it is there>,<package>,<what skips without it>): when the
# check fails, install Debian's package as root; without root, or when apt-get fails (offline),
# print one line and go on: the tests that need it skip and say so (docs/TESTING.md).
# No commas inside the arguments: they would split them.
debian_package = $(1) || { test "$$(id -u)" = 0 && apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2); } \
	|| echo "make: could not install $(2): $(3) will skip (apt-get install $(2))"

# nginx from Debian's package, with its js module (njs: the edge's cache-key rules), for the
# edge's tests and benchmark (tests/test_edge.py, tests/test_edge_keys.py, bench/edge.py, which
# fails without them). /usr/sbin is not on every PATH.
nginx:
	@$(call debian_package,{ command -v nginx >/dev/null || test -x /usr/sbin/nginx; } \
		&& test -f /usr/lib/nginx/modules/ngx_http_js_module.so,nginx libnginx-mod-http-js,the edge tests)

# redis-server, for the tests that kill, pause or restart a Redis of their own, and for the
# suite's own Redis when none answers at 127.0.0.1:6379 (tests/processes.py).
redis:
	@$(call debian_package,command -v redis-server >/dev/null,redis-server,tests that start a Redis)

# redis-sentinel, which watches a primary of the tests' own and fails it over to its replica
# (tests/test_redis_sentinel.py, tests/redis_topologies.py).
redis-sentinel:
	@$(call debian_package,command -v redis-sentinel >/dev/null,redis-sentinel,the Sentinel tests)

# The browser tests (tests/browser.py) drive Debian's Chromium through Playwright, never a
# browser of Playwright's own (it downloads one, which cannot work offline).
chromium:
	@$(call debian_package,command -v chromium >/dev/null,chromium,the browser tests)

# promtool, from Debian's prometheus package, checks the alert rules and runs their unit tests
# (tests/test_alerts.py). Only the tool is used: no Prometheus server is started.
promtool:
	@$(call debian_package,command -v promtool >/dev/null,prometheus,the alert rule tests)

# At release: pin the production overlays' images to the digests their tags name now (crane, skopeo
# or docker, and the registry, needed): make pin-images ARGS="--tag readiness-api=0.2.0"; then
# make pin-images ARGS=--check fails while a placeholder digest is left. scripts/pin_images.py,
# docs/OPERATIONS.md#pinning-the-base-and-the-deployed-images-by-digest.
pin-images: $(STAMP)
	$(BIN)/python scripts/pin_images.py $(ARGS)

# The edge's routes, vocabulary and fast path (k8s/base/edge-keys.js, k8s/base/edge.conf.template),
# written from the route table and the parser (readiness/domain/) between their BEGIN ROUTES and
# END ROUTES lines: run it after changing a route, a parameter or a spelling, and commit both
# files (tests/test_edge_routes.py fails while they differ). ARGS=--check only compares.
.PHONY: edge-routes
edge-routes: $(STAMP)
	$(BIN)/python -m readiness.edge_routes $(ARGS)

# ruff's rules and import-linter's contracts (the layers) are in pyproject.toml; no formatter runs.
lint: $(STAMP)
	$(BIN)/python -m ruff check --no-cache .
	$(BIN)/lint-imports --no-cache

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
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .hypothesis

# The edge (nginx) in front of two servers and one Redis, against nginx serving the same bytes.
bench-edge: $(STAMP) nginx
	@command -v wrk >/dev/null && command -v redis-server >/dev/null \
		|| { apt-get update -qq && apt-get install -y -qq wrk redis-server; }
	$(BIN)/python bench/edge.py $(ARGS)

# An innocent client's cached latency under a flood of distinct large misses (bench/flood.py).
.PHONY: bench-flood
bench-flood: $(STAMP)
	$(BIN)/python bench/flood.py

# The first render of each page in Chromium against the not-found page (bench/pages.py; needs
# Chromium, as the browser tests do). ARGS="--quick" for two rounds.
.PHONY: bench-pages
bench-pages: $(STAMP) chromium
	$(BIN)/python bench/pages.py $(ARGS)
