"""Browser fixtures: a real ``server.py`` over the bundled sample, and Chromium pages driven by
Playwright (docs/TESTING.md#browser-tests).

Playwright drives Debian's Chromium (``/usr/bin/chromium``, which ``make test`` installs when
missing) through ``executable_path``: Playwright's own browser download cannot work offline.
Without a Chromium the tests skip through ``tests.conftest.unavailable``, so under
``READINESS_NO_SKIPS`` (CI) they fail instead.

Every page a test opens is watched: a request to any host but 127.0.0.1 is aborted and
recorded, and so are console errors and uncaught exceptions; the ``page`` fixture fails the
test if any happened, so each browser test also checks that the pages load nothing from the
internet and run without errors.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Error, Page, Route, expect, sync_playwright

from tests.conftest import NO_SKIPS, ROOT, SAMPLE, unavailable
from tests.processes import SERVER_ENV, free_ports, wait_until_up

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
"""Where Debian (and Ubuntu) put their Chromium; ``READINESS_CHROMIUM`` names another."""

INSTALL_HINT = "install Debian's Chromium (apt-get install chromium; make test does it as root)"

SCREENSHOTS = Path(os.environ.get("READINESS_SCREENSHOTS", ROOT / "test-output" / "screenshots"))
"""Where the browser tests save what they saw (git ignores test-output/)."""

LOCAL_HOSTS = frozenset({"127.0.0.1"})

EXPECT_SECONDS = 20
"""How long an expectation (``expect(...).to_have_text``) waits for the page to get there, and
an action for its element: Playwright's 5 s for expectations passed right pages late when four
workers and their browsers shared two cores. A page that never gets there still fails."""
expect.set_options(timeout=EXPECT_SECONDS * 1000)


def find_chromium() -> str | None:
    """The Chromium executable to drive (READINESS_CHROMIUM, else Debian's), or None."""
    named = os.environ.get("READINESS_CHROMIUM")
    for candidate in ((named,) if named else CHROMIUM_PATHS):
        if shutil.which(candidate):
            return candidate
    return None


def missing_chromium() -> str:
    named = os.environ.get("READINESS_CHROMIUM")
    return f"no Chromium at {named or ' or '.join(CHROMIUM_PATHS)}: the browser tests were skipped; {INSTALL_HINT}"


def skip_module_without_chromium() -> None:
    """Skip the calling browser-test module once, at import, when there is no Chromium: one
    line in the report instead of one per test. Under NO_SKIPS nothing happens here and each
    test fails through the ``browser`` fixture instead."""
    if find_chromium() is None and not os.environ.get(NO_SKIPS):
        unavailable(missing_chromium(), whole_module=True)


def chromium_path() -> str:
    """The Chromium executable to drive; ``unavailable`` when there is none."""
    found = find_chromium()
    if found is None:
        unavailable(missing_chromium())
    return found


@dataclass(frozen=True)
class PageServer:
    """A ``server.py`` process serving the bundled sample for the browser."""

    process: subprocess.Popen[bytes]
    port: int

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture(scope="session")
def page_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageServer]:
    """One ``server.py`` over the bundled sample for the whole session (its start-up reads
    217 economies; the pages never change it), killed at the end."""
    port, admin_port = free_ports(2)
    log = tmp_path_factory.mktemp("page-server") / "server.log"
    env = {
        **os.environ,
        **SERVER_ENV,
        "READINESS_PORT": str(port),
        "READINESS_ADMIN_PORT": str(admin_port),
        "READINESS_DATA_DIR": str(SAMPLE),
    }
    env.pop("READINESS_REDIS_URL", None)
    with log.open("ab") as output:
        process = subprocess.Popen([sys.executable, str(ROOT / "server.py")], cwd=ROOT, env=env,
                                   stdout=output, stderr=output)
    try:
        wait_until_up(port, process)
        yield PageServer(process, port)
    finally:
        process.kill()
        process.wait(timeout=10)


@dataclass
class Watch:
    """What a page did that no page of ours may do: leave 127.0.0.1, log an error, throw."""

    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return [f"request left 127.0.0.1: {url}" for url in self.outside] + self.errors


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium for one test module.

    Not for the session: Playwright's synchronous API runs an event loop of its own in the
    main thread while it is open, and the suite's async tests (pytest-tornado) cannot run
    their loops meanwhile; module scope closes it before the next module starts."""
    executable = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def watch() -> Watch:
    """The problems the test's pages showed; a test that expects one may inspect and clear it."""
    return Watch()


OpenPage = Callable[..., Page]
"""``open_page(width=1280, **context_options)``: a new guarded page (``pages``)."""


@pytest.fixture
def pages(browser: Browser, watch: Watch) -> Iterator[OpenPage]:
    """Opens fresh pages, each in its own context (no cache or storage shared), ``width`` px
    wide (1280 by default) with Playwright's context options (``java_script_enabled=False``).

    On every page, requests to any host but 127.0.0.1 are aborted before they leave, and
    recorded; console errors and uncaught exceptions are recorded; the test fails if any was.
    """
    contexts: list[BrowserContext] = []

    def guard(route: Route) -> None:
        host = urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            route.continue_()
        else:
            watch.outside.append(route.request.url)
            route.abort("blockedbyclient")

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watch.errors.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def thrown(error: Error) -> None:
        watch.errors.append(f"uncaught exception: {error}")

    def open_page(width: int = 1280, **options: Any) -> Page:
        context = browser.new_context(viewport={"width": width, "height": 900}, service_workers="block", **options)
        context.set_default_timeout(EXPECT_SECONDS * 1000)
        contexts.append(context)
        context.route("**/*", guard)
        opened = context.new_page()
        opened.on("console", console)
        opened.on("pageerror", thrown)
        return opened

    yield open_page
    for context in contexts:
        context.close()
    assert not watch.problems(), watch.problems()


@pytest.fixture
def page(pages: OpenPage) -> Page:
    """One guarded page, 1280 px wide (``pages``)."""
    return pages()


def screenshot(page: Page, name: str, *, full_page: bool = True) -> Path:
    """Save what the page shows as ``SCREENSHOTS/<name>.png``; return the path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def fit_script(origin: str) -> str:
    """The script the Embed button's snippet ends with (export.js ``fitScript``), for an embed of
    ``origin``: what a person pastes, written out, so a change to it is a change to this test."""
    return ('<script>/* Readiness Index embeds: each frame takes the height of its content. */'
            f'addEventListener("message",function(e){{var d=e.data;if(e.origin!=="{origin}"||!d||'
            'd.type!=="readiness-embed-height")return;document.querySelectorAll("iframe").forEach(function(f){'
            'if(f.contentWindow===e.source)f.height=d.height})})</script>')


@contextmanager
def another_site(pages: Mapping[str, str]) -> Iterator[str]:
    """Another web site on 127.0.0.1 (another origin: its own port) serving the HTML ``pages``
    by path; yields its root URL. For the embeds: a real server, not a routed or ``set_content``
    page, because Chromium blocks a page with no address framing a loopback one and
    ``frame-ancestors *`` does not match about:blank."""

    class Site(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = pages.get(self.path, "").encode()
            self.send_response(200 if self.path in pages else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
