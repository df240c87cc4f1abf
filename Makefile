# make run: serve the bundled (synthetic) sample data on 127.0.0.1:8080.
# make test: lint, then run the test suite in parallel. Both create .venv on first use (Python 3.11+).
# make i18n: extract the pages' messages, merge them into each language's catalogue, compile it.
# make lock: re-pin the whole dependency tree, with hashes, after editing requirements*.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# uv resolves the lock files; it runs from its own virtualenv, never the project's.
UV_VERSION := 0.13.9
TOOLS := .venv-tools
LOCK_FLAGS := --universal --python-version 3.11 --generate-hashes --custom-compile-command 'make lock' --quiet

.PHONY: i18n run test lint typecheck lock bench bench-http bench-edge nginx redis redis-sentinel clean chromium fonts promtool pin-images

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

# The pages' catalogues (readiness/pages/translations.py, docs/PAGES.md#languages): messages are
# extracted from the templates, modules and scripts (babel.cfg) into a template (not kept), merged
# into each language's .po (kept: translators edit it), and compiled to the .mo the service reads
# (kept too, so a clone, CI and the image need no build step; tests/test_pages_translations.py
# fails when a .mo is not the compiled .po). python -m: the templates' extractor is scripts/'s.
LOCALE_DIR := readiness/pages/locale
BABEL := $(BIN)/python -m babel.messages.frontend
i18n: $(STAMP)
	$(BABEL) extract -F babel.cfg -k t -k N_ --sort-by-file --width 100 --project "Readiness Index" \
		--msgid-bugs-address "" -o $(LOCALE_DIR)/messages.pot .
	$(BABEL) update --no-fuzzy-matching --width 100 -i $(LOCALE_DIR)/messages.pot -d $(LOCALE_DIR) -D messages
	$(BABEL) compile --statistics -d $(LOCALE_DIR) -D messages
	rm $(LOCALE_DIR)/messages.pot

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

test: lint nginx redis redis-sentinel chromium fonts promtool
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
# browser of Playwright's own (it downloads one, which cannot work offline); with the fonts below,
# so the Chinese pages' screenshots show characters, not boxes.
chromium: fonts
	@$(call debian_package,command -v chromium >/dev/null,chromium,the browser tests)

# The Chinese font the share previews are drawn with (readiness/pages/preview_svg.py: resvg finds
# fonts on the machine), as the image installs it (Dockerfile): WenQuanYi Micro Hei, 5 MB, also
# what the Chinese pages' screenshots show. Without it tests/test_preview_svg.py skips its glyph
# check, and the pictures show boxes.
fonts:
	@$(call debian_package,test -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc,fonts-wqy-microhei,the Chinese previews' glyph check)

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
