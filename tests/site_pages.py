"""Every page route of the site, and how to tell that a page has drawn what it is for: one
table for the cross-page checks (tests/test_pages_budget.py, tests/test_pages_axe.py) and the
first-render benchmark (bench/pages.py), so a new page is added once and checked everywhere
(docs/PAGES.md#the-checks-every-page-passes).

A page is *ready* when each of its CSS selectors matches at least its count of elements: the
explorer's table has its first 50 rows, the map has its economies' paths, a chart has its lines. The
selectors are generic where a page is still being built (``main svg path``: a chart or a map,
whatever its id), so they hold for the finished pages without naming their internals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Page

PAGE_ROWS = 50
"""The explorer's table draws its first 50 rows (explore.js), the rest a click away."""

MAPPED = 100
"""At least this many economies are drawn on a world map (world-atlas 110m draws 177 shapes)."""

READY_TIMEOUT_MS = 20_000
"""How long a page may take to be ready in the tests (two shared cores, six test workers)."""

SWAGGER_READY_TIMEOUT_MS = 60_000
"""How long ``/docs`` may take: Swagger UI 5 spends about 4 s of one quiet core on our OpenAPI
3.1 document before and after it draws the first operation (1.1 s evaluating its bundle, the
rest in its 3.1 resolver, apidom), 18 s at a quarter of the CPU (Chromium's throttling), and a
CI run of six workers on two cores once took it past 20 s (docs/TESTING.md#browser-tests)."""


@dataclass(frozen=True)
class SitePage:
    """A page route people link to, and what it shows once ready."""

    path: str
    ready: tuple[tuple[str, int], ...]
    """(CSS selector, at least this many matches): all of them hold once the page is ready."""
    ready_ms: int = READY_TIMEOUT_MS
    """How long the tests wait for it to be ready, and for its elements once it is."""

    @property
    def embed(self) -> bool:
        """Made to be framed by other sites (``/embed/...``): minimal chrome."""
        return self.path.startswith("/embed/")

    @property
    def slug(self) -> str:
        """The path as a file name part: ``/compare?codes=KEN,BRA`` -> ``compare-codes-KEN-BRA``."""
        kept = "".join(c if c.isalnum() else "-" for c in self.path).strip("-")
        return "-".join(part for part in kept.split("-") if part) or "landing"


PAGES = (
    SitePage("/", (("main .examples button.copy:not([hidden])", 1), ("main svg path", MAPPED), ("#top tbody tr", 10),
                   ("#bottom tbody tr", 10), ("#movers tbody tr", 1))),
    SitePage("/docs", (("#swagger-ui .opblock", 1),), SWAGGER_READY_TIMEOUT_MS),
    SitePage("/explore", (("#ranking tbody tr", PAGE_ROWS),)),
    SitePage("/explore/KEN", (("main table tbody tr", 1), ("main svg path", 6))),
    SitePage("/method", (("main table tbody tr", 1),)),
    SitePage("/map", (("main svg path", MAPPED),)),
    SitePage("/compare?codes=KEN,BRA,IND", (("main svg path", 3), ("main table tbody tr", 3))),
    SitePage("/embed/map", (("main svg path", MAPPED),)),
    SitePage("/embed/compare?codes=KEN,BRA", (("main svg path", 2),)),
    SitePage("/embed/explore/KEN", (("main svg path", 1),)),
)
"""The pages of issue 22's list, in the order the reports print them."""

def page_at(path: str) -> SitePage:
    """The row of PAGES for ``path`` (``"/docs"``); KeyError for a path it has none of."""
    for site_page in PAGES:
        if site_page.path == path:
            return site_page
    raise KeyError(path)


READY = "wants => wants.every(([selector, least]) => document.querySelectorAll(selector).length >= least)"
"""A JavaScript predicate over ``SitePage.ready`` (as a list): true once the page is ready."""

def ready_argument(site_page: SitePage) -> list[list[Any]]:
    """``site_page.ready`` as the argument ``READY`` takes."""
    return [[selector, least] for selector, least in site_page.ready]


def wait_until_ready(page: Page, site_page: SitePage) -> None:
    """Return once ``page`` (showing ``site_page``) is ready; Playwright's TimeoutError if not
    within ``site_page.ready_ms``. From then on the page's actions and expectations wait as
    long: a page slow to get ready (Swagger UI) is slow to settle too."""
    page.wait_for_function(READY, arg=ready_argument(site_page), timeout=site_page.ready_ms)
    page.set_default_timeout(site_page.ready_ms)


def unready(page: Page, site_page: SitePage) -> list[str]:
    """The readiness conditions ``page`` does not meet now, as "selector: found n, wants m"."""
    return [
        f"{selector}: found {found}, wants {least}"
        for selector, least in site_page.ready
        if (found := int(page.locator(selector).count())) < least
    ]
