"""Handlers of the pages and their static files: each sends an answer the Site or the Assets
hold, through ``BaseHandler.write_answer`` (ETag, 304, gzip, as for the API)."""

from __future__ import annotations

import time
from typing import Any

from readiness.domain.answer import Answer
from readiness.domain.errors import InvalidParameter, NotFound, NotReady
from readiness.http.base import BaseHandler, client_error
from readiness.http.clients import ClientPrefixes
from readiness.http.handlers import NotFoundHandler
from readiness.http.representation import represent_request
from readiness.pages.assets import Assets
from readiness.pages.errors import NoSuchEconomy, check_code, error_page, is_page_path, no_page, wants_html
from readiness.pages.language import COOKIE, DEFAULT, NEGOTIATED_VARY, Choice, choose
from readiness.pages.preview import Previews
from readiness.pages.site import Site

SOURCES = (
    "default-src 'self'",
    # blob: for the PNG and SVG a chart's download link hands over (readiness/pages/static/export.js).
    "img-src 'self' data: blob:",
    # Swagger UI sets style attributes in its markup; our own pages need none.
    "style-src 'self' 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
)
"""Pages load scripts, styles, images and data from this origin only: nothing from a CDN,
nothing from the internet (docs/PAGES.md)."""

CONTENT_SECURITY_POLICY = "; ".join((*SOURCES, "frame-ancestors 'none'"))
"""Every page but an embed: no other site may frame it (clickjacking)."""

EMBED_POLICY = "; ".join((*SOURCES, "frame-ancestors *"))
"""``/embed/...`` only: made to be framed by any site, and read-only, so framing risks nothing."""

HTML = "text/html; charset=utf-8"
PNG = "image/png"


def html_headers(policy: str) -> tuple[tuple[str, str], ...]:
    """The headers of an HTML page under the content security policy ``policy``."""
    return (
        ("Content-Type", HTML),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", policy),
        ("Referrer-Policy", "same-origin"),
    )


HTML_HEADERS = html_headers(CONTENT_SECURITY_POLICY)
EMBED_HEADERS = html_headers(EMBED_POLICY)

PAGE_CACHE = "public, max-age=60"
"""Pages name the current snapshot and this release's asset URLs: cached briefly, then
revalidated with their ETag (a 304 costs a dict lookup)."""

ASSET_CACHE = "public, max-age=31536000, immutable"
"""Asset URLs name their content, so a cached copy is never stale (docs/CACHING.md)."""


class FileHandler(BaseHandler):
    """Sends cached answers that are files of a given media type, not API answers."""

    def write_file(self, answer: Answer, content_type: str, cache_control: str, vary: str | None = None) -> None:
        """``BaseHandler.write_answer`` with the file's ``Content-Type``: an Answer's own
        representation headers name the API's formats (JSON, CSV) only; ``vary`` replaces
        the answer's ``Vary`` (a page whose language the request's headers chose)."""
        date = self.application.settings["dates"].at(time.time())
        start_line, head, body = represent_request(
            self.request.headers, answer, self.default_headers, cache_control, date
        )
        if start_line.code == 200:
            head["Content-Type"] = content_type
        if vary is not None:
            head["Vary"] = vary
        self.send_response(start_line.code, head, body)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors (503 before a snapshot is loaded, a refused preview, a bad ``codes``) are
        the API's JSON envelope, and say so."""
        self.set_header("Content-Type", "application/json; charset=utf-8")
        super().write_error(status_code, **kwargs)


def page_language(handler: BaseHandler) -> Choice:
    """The language of the page ``handler`` answers (``readiness.pages.language.choose``).
    Raises InvalidParameter (400) for an unknown ``?lang=``."""
    return choose(handler.get_query_argument("lang", None), handler.get_cookie(COOKIE),
                  handler.request.headers.get("Accept-Language"))


def error_language(handler: BaseHandler) -> str:
    """The language of an error page: the page's, or English when ``?lang=`` itself is the error."""
    try:
        return page_language(handler).language
    except InvalidParameter:
        return DEFAULT


def write_error_page(handler: BaseHandler, site: Site, status_code: int, *, asked: str | None = None,
                     unknown_path: bool = False, headers: tuple[tuple[str, str], ...] = HTML_HEADERS,
                     **kwargs: Any) -> bool:
    """Send a 4xx error as the site's HTML error page (``readiness.pages.errors``), in the
    words of the API's envelope (for a path no route serves, that no page is there, and the
    page it may have meant); False, having sent nothing, for a 5xx or without a snapshot (no
    page can say which data it is about): the caller sends the JSON envelope then."""
    error = client_error(status_code, kwargs.get("exc_info"), handler.request.method or "")
    if error.status >= 500:
        return False
    path = handler.request.path
    page = (no_page(path) if unknown_path and error.status == 404 else error_page(error.status, str(error)))
    try:
        body = site.error(page, site.origin(handler.request.protocol, handler.request.host), error_language(handler),
                          asked)
    except NotReady:
        return False
    handler.set_status(error.status)
    for name, value in headers:  # an embed's error page may be framed, as the embed would have been
        handler.set_header(name, value)
    handler.set_header("Cache-Control", "no-store")
    for name, value in error.headers:
        handler.set_header(name, value)
    handler.finish(body)
    return True


class HtmlHandler(FileHandler):
    """What the page handlers share: HTML headers, the Site, HTML error pages."""

    route_label = "page"
    default_headers = HTML_HEADERS

    def initialize(self, site: Site, template: str) -> None:
        self.site = site
        self.template = template
        self.asked: str | None = None  # an economy's address as typed, for the error page's "Did you mean"

    def origin(self) -> str:
        """Where this page's absolute URLs (its share meta) point: the public URL, or this request's origin."""
        return self.site.origin(self.request.protocol, self.request.host)

    def write_page(self, answer: Answer, choice: Choice) -> None:
        """Send a page in the language of ``choice``: varying on the headers that chose it, if they did."""
        self.write_file(answer, HTML, PAGE_CACHE, NEGOTIATED_VARY if choice.negotiated else None)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """A 4xx is the site's error page; a 5xx (503 before a snapshot is loaded) the API's
        JSON envelope, and says so."""
        if not write_error_page(self, self.site, status_code, asked=self.asked, headers=self.default_headers,
                                **kwargs):
            self.set_header("Content-Type", "application/json; charset=utf-8")
            super().write_error(status_code, **kwargs)


class PageHandler(HtmlHandler):
    """``/``, ``/docs``, ``/explore``, ``/method``, ``/map``, ``/compare``: a page of the current snapshot."""

    def get(self) -> None:
        choice = page_language(self)
        self.write_page(self.site.page(self.template, self.origin(), choice.language), choice)

    head = get


class CountryPageHandler(HtmlHandler):
    """``/explore/{ISO3}``: one economy's view; the 400 page for an address that is no code
    (``/explore/K3N``), the 404 page for a code the snapshot lacks."""

    def get(self, code: str) -> None:
        self.asked = code
        choice = page_language(self)
        answer = self.site.country(check_code(code), self.origin(), choice.language, self.template)
        if answer is None:
            raise NoSuchEconomy(code.upper(), self.site.snapshot_id())
        self.write_page(answer, choice)

    head = get


class EmbedPageHandler(PageHandler):
    """``/embed/map`` and ``/embed/compare``: a page made to be framed by other sites."""

    default_headers = EMBED_HEADERS


class EmbedCountryHandler(CountryPageHandler):
    """``/embed/explore/{ISO3}``: one economy's chart, made to be framed by other sites."""

    default_headers = EMBED_HEADERS


class PreviewHandler(FileHandler):
    """``/preview/...png``: a page's share preview (``readiness/pages/preview.py``), kept and
    priced like an API answer; errors are the API's JSON envelope."""

    route_label = "preview"
    default_headers = (("X-Content-Type-Options", "nosniff"),)

    def initialize(self, previews: Previews, clients: ClientPrefixes, kind: str) -> None:
        self.previews = previews
        self.clients = clients
        self.kind = kind

    async def get(self, code: str = "") -> None:
        client = self.clients.of(self.request.remote_ip)
        # Its address's ?lang= alone: never the cookie or Accept-Language (preview.py's docstring).
        language = choose(self.get_query_argument("lang", None), None, None).language
        if self.kind == "country":
            answer = await self.previews.country(code.upper(), language, client)
            if answer is None:
                raise NotFound(self.request.path)
        elif self.kind == "compare":
            answer = await self.previews.compare(self.get_query_argument("codes", None), language, client)
        else:
            answer = await self.previews.world(language, client)
        self.write_file(answer, PNG, PAGE_CACHE)

    head = get


class AssetHandler(FileHandler):
    """``/static/<name>.<hash>.<ext>``: a static file by its content-hashed name."""

    route_label = "asset"

    def initialize(self, assets: Assets) -> None:
        self.assets = assets

    def get(self) -> None:
        asset = self.assets.get(self.request.path)
        if asset is None:
            raise NotFound(self.request.path)
        self.default_headers = (("X-Content-Type-Options", "nosniff"),)
        self.write_file(asset.answer, asset.content_type, ASSET_CACHE)

    head = get


class UnknownPathHandler(NotFoundHandler):
    """Every path no route serves: for a browser asking for a page (``Accept: text/html``,
    not under ``/api/``), the site's 404 page; for everyone else the API's JSON 404, as before."""

    def initialize(self, site: Site) -> None:
        self.site = site

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.set_header("Vary", "Accept")  # the same path answers HTML or JSON by Accept
        page = is_page_path(self.request.path) and wants_html(self.request.headers.get("Accept", ""))
        if not (page and write_error_page(self, self.site, status_code, unknown_path=True, **kwargs)):
            super().write_error(status_code, **kwargs)
