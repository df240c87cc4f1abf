"""When an error is an HTML page and what it says: a person who mistypes a page's address
(``/mapp``, ``/explore/K3N``) gets a page of the site with the error in words and the way on,
while the API's clients keep the JSON envelope (docs/PAGES.md#error-pages).

A page route's 4xx is always a page. A path no route serves is a page only for a client that
asks for HTML (``Accept: text/html``: a browser's navigation) and only outside the API's paths,
so ``/api/...``, a script's ``fetch`` and ``curl`` keep their JSON.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from readiness.domain.errors import InvalidRequest, ReadinessError
from readiness.pages.translations import N_

NOT_PAGES = ("/api/", "/static/")
"""Path prefixes that are never pages: the API (JSON, whatever the client accepts) and the files."""

NOT_PAGE_PATHS = frozenset({"/api", "/healthz", "/readyz", "/metrics"})

PAGE_PATHS = ("/", "/explore", "/map", "/compare", "/method", "/docs")
"""The site's pages that a mistyped address may have meant."""

CODE_LETTERS = 3

LONGEST_GUESSED = 40
"""Longer paths are not compared with the pages' (a mistyped page address is short)."""


@dataclass(frozen=True, slots=True)
class ErrorPage:
    """What an error page says: its heading, the error's own message, and a page it may have meant."""

    status: int
    title: str
    message: str
    meant: str | None = None
    """A page path close to the one asked for (``/map`` for ``/mapp``), or None."""


class NoSuchEconomy(ReadinessError):
    """A page of an economy the snapshot shown has no record of (``/explore/XXX``)."""

    status = 404

    def __init__(self, code: str, snapshot_id: str) -> None:
        super().__init__(f"The current snapshot ({snapshot_id}) has no economy with the code {code}.")


TITLES = {400: N_("This address is not valid"), 404: N_("Page not found"), 405: N_("Not allowed"),
          414: N_("Address too long")}
"""Each 4xx page's heading, in English: the page translates it (error.html)."""


def error_page(status: int, message: str) -> ErrorPage:
    """The page of a 4xx ``status`` with the error's own ``message``."""
    return ErrorPage(status, TITLES.get(status, N_("This request cannot be answered")), message)


def no_page(path: str) -> ErrorPage:
    """The 404 page of a ``path`` no route serves, with the page it may have meant."""
    shown = path if len(path) <= LONGEST_GUESSED else path[:LONGEST_GUESSED] + "…"
    return ErrorPage(404, TITLES[404], f"This site has no page at {shown}.", meant(path))


def is_page_path(path: str) -> bool:
    """Whether ``path`` may be a page of the site: not the API's, not a static file's, not a probe's."""
    return path not in NOT_PAGE_PATHS and not path.startswith(NOT_PAGES)


def wants_html(accept: str) -> bool:
    """Whether a request's Accept header asks for HTML, as a browser's navigation does."""
    return "text/html" in accept.lower()


def meant(path: str) -> str | None:
    """The page path nearest ``path`` (``/mapp`` -> ``/map``, ``/Explore/`` -> ``/explore``), or None."""
    if len(path) > LONGEST_GUESSED:
        return None
    wanted = "/" + path.strip("/").lower()
    if wanted in PAGE_PATHS:
        return wanted
    close = difflib.get_close_matches(wanted, PAGE_PATHS, n=1, cutoff=0.6)
    return close[0] if close else None


def check_code(code: str) -> str:
    """``code`` in upper case when it is three letters, the form of every economy's code.

    Raises InvalidRequest (400) naming the form, for a page address such as ``/explore/K3N``."""
    if len(code) != CODE_LETTERS or not code.isascii() or not code.isalpha():
        shown = code if len(code) <= LONGEST_GUESSED else code[:LONGEST_GUESSED] + "…"
        raise InvalidRequest(f"{shown!r} is not an economy code: an economy's page is /explore/ and its "
                             "three-letter ISO code, such as /explore/KEN.")
    return code.upper()
