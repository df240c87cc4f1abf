"""Every page fits its byte budget: loaded cold in Chromium until it is ready and the network is
idle, the compressed bytes of everything it fetched from the service (HTML, CSS, JavaScript,
the map's geometry, API answers, response headers included) add up to at most
``PAGE_BUDGET_BYTES`` (issue 22: "a budget per page, say 300 KB compressed including the map
geometry"); ``/docs``, which carries Swagger UI's vendored bundle, has a budget of its own
(docs/PAGES.md#the-checks-every-page-passes). The sizes are what Chromium received, gzip'd
as the service sends them to a browser; one test checks that against a re-fetch of the same
URLs with ``Accept-Encoding: gzip``. Run with ``-s`` (or read a failure) for the table."""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.sync_api import Error, Page, Request

from tests.browser import OpenPage, PageServer, skip_module_without_chromium
from tests.site_pages import PAGES, SitePage, page_at, unready, wait_until_ready

skip_module_without_chromium()

KB = 1000

PAGE_BUDGET_BYTES = 300 * KB
"""Every page but /docs, all it fetches, compressed, as sent (issue 22)."""

DOCS_BUDGET_BYTES = 540 * KB
"""/docs: Swagger UI 5's bundle alone is 438 KB as sent (gzip'd once per process), a file we
vendor and do not trim; the page measured 502 KB in all on 2026-11-27 and 527.5 KB on
2026-11-28, its OpenAPI document grown from 28.5 to 45.1 KB by the aliases, paging members and
downloads (main's conventions and ids), so this catches it growing, not being there."""

BUDGETS = {"/docs": DOCS_BUDGET_BYTES}
"""Pages with a budget other than ``PAGE_BUDGET_BYTES``, and nothing else."""


def budget(site_page: SitePage) -> int:
    return BUDGETS.get(site_page.path, PAGE_BUDGET_BYTES)


@dataclass(frozen=True)
class Fetched:
    """One response a page received from the service."""

    path: str
    kind: str
    """Playwright's resource type: document, stylesheet, script, fetch, image..."""
    body: int
    """Bytes of the body as received (compressed when the service compressed it)."""
    headers: int
    """Bytes of the status line and headers."""
    encoding: str

    @property
    def total(self) -> int:
        return self.body + self.headers


@dataclass(frozen=True)
class Load:
    """What loading one page cold cost."""

    site_page: SitePage
    fetched: tuple[Fetched, ...]
    problems: tuple[str, ...]

    @property
    def total(self) -> int:
        return sum(item.total for item in self.fetched)

    def by_kind(self, *kinds: str) -> int:
        return sum(item.total for item in self.fetched if item.kind in kinds)


KINDS = (("HTML", ("document",)), ("CSS", ("stylesheet",)), ("JS", ("script",)),
         ("data", ("fetch", "xhr")), ("other", ()))
"""The table's columns: what each kind of response weighs."""


def load(page: Page, server: PageServer, site_page: SitePage) -> Load:
    """Load ``site_page`` in ``page`` (a fresh context: nothing cached) until it is ready and
    the network idle; every finished response from the service, with its sizes."""
    finished: list[Request] = []
    page.on("requestfinished", lambda request: finished.append(request))
    problems: list[str] = []
    response = page.goto(server.url(site_page.path))
    if response is None or response.status != 200:
        problems.append(f"status {response.status if response else 'none'}")
    else:
        try:
            wait_until_ready(page, site_page)
        except Error:
            problems.append("never ready: " + "; ".join(unready(page, site_page)))
    page.wait_for_load_state("networkidle")
    origin = server.url("")
    fetched = []
    for request in finished:
        if not request.url.startswith(origin):
            continue
        sizes = request.sizes()
        answer = request.response()
        parts = urlsplit(request.url)
        fetched.append(Fetched(
            path=parts.path + (f"?{parts.query}" if parts.query else ""), kind=request.resource_type,
            body=sizes["responseBodySize"], headers=sizes["responseHeadersSize"],
            encoding=(answer.headers.get("content-encoding", "") if answer else ""),
        ))
    return Load(site_page, tuple(fetched), tuple(problems))


def kilobytes(count: int) -> str:
    return f"{count / KB:.1f}"


def report(loads: list[Load]) -> str:
    """The sizes table: one line per page, in KB (1000 bytes), compressed as sent."""
    header = ("page", "requests", *(name for name, _ in KINDS), "total KB", "budget KB")
    rows = []
    for loaded in loads:
        named = [kind for _, kinds in KINDS for kind in kinds]
        columns = [loaded.by_kind(*kinds) for name, kinds in KINDS if name != "other"]
        other = sum(item.total for item in loaded.fetched if item.kind not in named)
        rows.append((loaded.site_page.path, str(len(loaded.fetched)), *map(kilobytes, [*columns, other]),
                     kilobytes(loaded.total), kilobytes(budget(loaded.site_page))))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in
                  enumerate(zip(row, widths, strict=True)))
        for row in [header, *rows]
    )


def heaviest(loaded: Load, count: int = 5) -> str:
    items = sorted(loaded.fetched, key=lambda item: -item.total)[:count]
    return ", ".join(f"{item.path} {kilobytes(item.total)} KB" for item in items)


def test_every_page_fits_its_budget(pages: OpenPage, page_server: PageServer) -> None:
    loads = [load(pages(), page_server, site_page) for site_page in PAGES]
    print("\nCompressed bytes each page fetched from the service, cold, until ready:\n" + report(loads))
    failures = []
    for loaded in loads:
        limit = budget(loaded.site_page)
        if loaded.total > limit:
            failures.append(f"{loaded.site_page.path}: {kilobytes(loaded.total)} KB > {kilobytes(limit)} KB"
                            f" (heaviest: {heaviest(loaded)})")
        failures += [f"{loaded.site_page.path}: {problem}" for problem in loaded.problems]
        uncompressed = [item.path for item in loaded.fetched if item.body > 1024 and item.encoding != "gzip"
                        and not item.path.endswith((".png", ".woff2"))]
        if uncompressed:
            failures.append(f"{loaded.site_page.path}: sent uncompressed: {uncompressed}")
    assert not failures, "\n".join(failures) + "\n\n" + report(loads)


def test_the_sizes_counted_are_the_gzipd_bytes_the_service_sends(pages: OpenPage, page_server: PageServer) -> None:
    # The budget is only as right as the measurement: what Chromium reports for each response
    # of the explorer must be the Content-Length of a gzip'd re-fetch of the same URL.
    explorer = page_at("/explore")
    loaded = load(pages(), page_server, explorer)
    assert not loaded.problems, loaded.problems
    kinds = {item.kind for item in loaded.fetched}
    assert {"document", "stylesheet", "script", "fetch"} <= kinds, kinds
    for item in loaded.fetched:
        request = urllib.request.Request(page_server.url(item.path), headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=10) as response:
            sent = len(response.read())
            assert response.headers.get("Content-Encoding", "") == item.encoding, item.path
        assert item.body == sent, (item.path, item.body, sent)
        assert 0 < item.headers < 2000, item.path
    table = loaded.by_kind("fetch")
    assert 0 < table < loaded.total


def test_the_table_sums_each_kind_of_response_headers_included() -> None:
    site_page = page_at("/docs")
    fetched = (Fetched("/docs", "document", 900, 100, "gzip"), Fetched("/a.css", "stylesheet", 1800, 200, "gzip"),
               Fetched("/a.js", "script", 2700, 300, "gzip"), Fetched("/b.js", "script", 1000, 0, "gzip"),
               Fetched("/api", "fetch", 3600, 400, "gzip"), Fetched("/f.svg", "image", 4500, 500, ""))
    loaded = Load(site_page, fetched, ())
    assert loaded.total == 16_000
    assert report([loaded]).splitlines()[-1].split() == ["/docs", "6", "1.0", "2.0", "4.0", "4.0", "5.0", "16.0",
                                                         kilobytes(DOCS_BUDGET_BYTES)]
