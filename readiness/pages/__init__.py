"""The service's own pages: the landing page, the API reference (Swagger UI), the data
explorer, the map, the comparison, the method and the embeddable views, with their static
files (docs/PAGES.md)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from loaders import SnapshotStore
from readiness.pages.assets import STATIC_DIR, Assets, read_assets
from readiness.pages.handlers import (
    AssetHandler,
    CountryPageHandler,
    EmbedCountryHandler,
    EmbedPageHandler,
    PageHandler,
)
from readiness.pages.site import Site
from readiness.pages.swagger import swagger_files

__all__ = ["Assets", "Site", "page_routes", "site_assets"]


@lru_cache(maxsize=1)
def site_assets() -> Assets:
    """The pages' own files and Swagger UI's, hashed and compressed once per process: they
    are part of the release and never change while it runs, and every application built in
    one process (the tests build hundreds) shares them."""
    return read_assets((STATIC_DIR,), swagger_files())


def page_routes(store: SnapshotStore) -> list[tuple[str, type, dict[str, Any]]]:
    """The pages' routes over ``store``'s current snapshot, for the public application."""
    assets = site_assets()
    site = Site(store, assets)
    return [
        (r"/", PageHandler, {"site": site, "template": "index.html"}),
        (r"/docs/?", PageHandler, {"site": site, "template": "docs.html"}),
        (r"/explore/?", PageHandler, {"site": site, "template": "explore.html"}),
        (r"/method/?", PageHandler, {"site": site, "template": "method.html"}),
        (r"/map/?", PageHandler, {"site": site, "template": "map.html"}),
        (r"/compare/?", PageHandler, {"site": site, "template": "compare.html"}),
        (r"/explore/([A-Za-z]{3})/?", CountryPageHandler, {"site": site, "template": "country.html"}),
        (r"/embed/map/?", EmbedPageHandler, {"site": site, "template": "embed_map.html"}),
        (r"/embed/compare/?", EmbedPageHandler, {"site": site, "template": "embed_compare.html"}),
        (r"/embed/explore/([A-Za-z]{3})/?", EmbedCountryHandler, {"site": site, "template": "embed_country.html"}),
        (r"/static/[A-Za-z0-9_.-]+", AssetHandler, {"assets": assets}),
    ]
