"""Handlers of the pages and their static files: each sends an answer the Site or the Assets
hold, through ``BaseHandler.write_answer`` (ETag, 304, gzip, as for the API)."""

from __future__ import annotations

import time
from typing import Any

from readiness.domain.answer import Answer
from readiness.domain.errors import NotFound
from readiness.http.base import BaseHandler
from readiness.http.representation import represent_request
from readiness.pages.assets import Assets
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

    def write_file(self, answer: Answer, content_type: str, cache_control: str) -> None:
        """``BaseHandler.write_answer`` with the file's ``Content-Type``: an Answer's own
        representation headers name the API's formats (JSON, CSV) only."""
        date = self.application.settings["dates"].at(time.time())
        start_line, head, body = represent_request(
            self.request.headers, answer, self.default_headers, cache_control, date
        )
        if start_line.code == 200:
            head["Content-Type"] = content_type
        self.send_response(start_line.code, head, body)


class HtmlHandler(FileHandler):
    """What the page handlers share: HTML headers, the Site, JSON errors."""

    route_label = "page"
    default_headers = HTML_HEADERS

    def initialize(self, site: Site, template: str) -> None:
        self.site = site
        self.template = template

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors (503 before a snapshot is loaded) are the API's JSON envelope, and say so."""
        self.set_header("Content-Type", "application/json; charset=utf-8")
        super().write_error(status_code, **kwargs)


class PageHandler(HtmlHandler):
    """``/``, ``/docs``, ``/explore``, ``/method``, ``/map``, ``/compare``: a page of the current snapshot."""

    def get(self) -> None:
        self.write_file(self.site.page(self.template), HTML, PAGE_CACHE)

    head = get


class CountryPageHandler(HtmlHandler):
    """``/explore/{ISO3}``: one economy's view; 404 page for a code the snapshot lacks."""

    def get(self, code: str) -> None:
        answer = self.site.country(code.upper(), self.template)
        if answer is None:
            self.set_status(404)
            self.set_header("Cache-Control", "no-store")
            self.finish(self.site.page("not_found.html").body)
            return
        self.write_file(answer, HTML, PAGE_CACHE)

    head = get


class EmbedPageHandler(PageHandler):
    """``/embed/map`` and ``/embed/compare``: a page made to be framed by other sites."""

    default_headers = EMBED_HEADERS


class EmbedCountryHandler(CountryPageHandler):
    """``/embed/explore/{ISO3}``: one economy's chart, made to be framed by other sites."""

    default_headers = EMBED_HEADERS


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
