"""Every page route of the site, and how to tell that a page has drawn what it is for: one
table for the cross-page checks (tests/test_pages_budget.py, tests/test_pages_axe.py) and the
first-render benchmark (bench/pages.py), so a new page is added once and checked everywhere
(docs/PAGES.md#the-checks-every-page-passes).

A page is *ready* when each of its CSS selectors matches at least its count of elements: the
explorer's table has every row, the map has its economies' paths, a chart has its lines. The
selectors are generic where a page is still being built (``main svg path``: a chart or a map,
whatever its id), so they hold for the finished pages without naming their internals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Page

ECONOMIES = 217
"""Economies in the bundled sample's current snapshot: the explorer lists every one."""

MAPPED = 100
"""At least this many economies are drawn on a world map (world-atlas 110m draws 177 shapes)."""


@dataclass(frozen=True)
class SitePage:
    """A page route people link to, and what it shows once ready."""

    path: str
    ready: tuple[tuple[str, int], ...]
    """(CSS selector, at least this many matches): all of them hold once the page is ready."""

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
    SitePage("/", (("main .examples button.copy:not([hidden])", 1),)),
    SitePage("/docs", (("#swagger-ui .opblock", 1),)),
    SitePage("/explore", (("#ranking tbody tr", ECONOMIES),)),
    SitePage("/explore/KEN", (("main table tbody tr", 1), ("main svg path", 6))),
    SitePage("/method", (("main table tbody tr", 1),)),
    SitePage("/map", (("main svg path", MAPPED),)),
    SitePage("/compare?codes=KEN,BRA,IND", (("main svg path", 3), ("main table tbody tr", 3))),
    SitePage("/embed/map", (("main svg path", MAPPED),)),
    SitePage("/embed/compare?codes=KEN,BRA", (("main svg path", 2),)),
    SitePage("/embed/explore/KEN", (("main svg path", 1),)),
)
"""The pages of issue 22's list, in the order the reports print them."""

READY = "wants => wants.every(([selector, least]) => document.querySelectorAll(selector).length >= least)"
"""A JavaScript predicate over ``SitePage.ready`` (as a list): true once the page is ready."""

READY_TIMEOUT_MS = 20_000
"""How long a page may take to be ready in the tests (two shared cores, Swagger UI's bundle)."""


def ready_argument(site_page: SitePage) -> list[list[Any]]:
    """``site_page.ready`` as the argument ``READY`` takes."""
    return [[selector, least] for selector, least in site_page.ready]


def wait_until_ready(page: Page, site_page: SitePage, timeout: float = READY_TIMEOUT_MS) -> None:
    """Return once ``page`` (showing ``site_page``) is ready; Playwright's TimeoutError if not
    within ``timeout`` ms."""
    page.wait_for_function(READY, arg=ready_argument(site_page), timeout=timeout)


def unready(page: Page, site_page: SitePage) -> list[str]:
    """The readiness conditions ``page`` does not meet now, as "selector: found n, wants m"."""
    return [
        f"{selector}: found {found}, wants {least}"
        for selector, least in site_page.ready
        if (found := int(page.locator(selector).count())) < least
    ]
