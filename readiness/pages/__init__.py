"""The service's own pages: the landing page, the API reference (Swagger UI), the data
explorer, the map, the comparison, the method and the embeddable views, with their static
files (docs/PAGES.md)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from loaders import SnapshotStore
from readiness.http.clients import ClientPrefixes
from readiness.pages.assets import STATIC_DIR, Assets, read_assets
from readiness.pages.handlers import (
    AssetHandler,
    CountryPageHandler,
    EmbedCountryHandler,
    EmbedPageHandler,
    PageHandler,
    PreviewHandler,
    UnknownPathHandler,
)
from readiness.pages.preview import Previews
from readiness.pages.site import Site
from readiness.pages.swagger import swagger_files
from readiness.service import ReadinessService

__all__ = ["Assets", "Site", "UnknownPathHandler", "page_routes", "site_assets", "site_of"]


@lru_cache(maxsize=1)
def site_assets() -> Assets:
    """The pages' own files and Swagger UI's, hashed and compressed once per process: they
    are part of the release and never change while it runs, and every application built in
    one process (the tests build hundreds) shares them."""
    return read_assets((STATIC_DIR,), swagger_files())


def site_of(store: SnapshotStore, public_url: str | None = None) -> Site:
    """The pages of ``store``'s current snapshot, for one application's page routes and its
    error pages (``UnknownPathHandler``); their absolute URLs under ``public_url`` (else each
    request's origin)."""
    return Site(store, site_assets(), public_url=public_url)


def page_routes(
    site: Site, service: ReadinessService, clients: ClientPrefixes
) -> list[tuple[str, type, dict[str, Any]]]:
    """The pages' routes over ``site``, for the public application; their preview images kept
    and priced by ``service`` for the ``clients`` who ask."""
    assets = site.assets
    previews = Previews(site.store, service)
    return [
        (r"/", PageHandler, {"site": site, "template": "index.html"}),
        (r"/docs/?", PageHandler, {"site": site, "template": "docs.html"}),
        (r"/explore/?", PageHandler, {"site": site, "template": "explore.html"}),
        (r"/method/?", PageHandler, {"site": site, "template": "method.html"}),
        (r"/map/?", PageHandler, {"site": site, "template": "map.html"}),
        (r"/compare/?", PageHandler, {"site": site, "template": "compare.html"}),
        (r"/explore/([^/]+)/?", CountryPageHandler, {"site": site, "template": "country.html"}),
        (r"/embed/map/?", EmbedPageHandler, {"site": site, "template": "embed_map.html"}),
        (r"/embed/compare/?", EmbedPageHandler, {"site": site, "template": "embed_compare.html"}),
        (r"/embed/explore/([^/]+)/?", EmbedCountryHandler, {"site": site, "template": "embed_country.html"}),
        (r"/preview/map\.png", PreviewHandler, {"previews": previews, "clients": clients, "kind": "map"}),
        (r"/preview/compare\.png", PreviewHandler, {"previews": previews, "clients": clients, "kind": "compare"}),
        (r"/preview/explore/([A-Za-z]{3})\.png", PreviewHandler,
         {"previews": previews, "clients": clients, "kind": "country"}),
        (r"/static/[A-Za-z0-9_.-]+", AssetHandler, {"assets": assets}),
    ]
