"""The service's pages, rendered from templates once per snapshot and kept as answers.

A page depends on the release (its templates and asset names) and on the current snapshot
(id, date, synthetic notice, the economies' names): it is rendered on its first request after
either changes and then served like a cached API answer, with its ETag and gzip copy. Nothing
a client sends is part of a page, so the pages held are bounded: the named pages (PAGES) and
two country views (page and embed) per economy of the current snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from tornado.template import Loader

from loaders import JsonValue, Snapshot, SnapshotStore
from loaders.contract import REGION_SHORT
from loaders.summary import derived_catalogue
from readiness.domain.answer import Answer
from readiness.domain.bands import BANDS, bands_document
from readiness.domain.citation import Citation
from readiness.domain.errors import NotReady
from readiness.pages.assets import Assets
from readiness.pages.method import Catalogue

TEMPLATES = Path(__file__).resolve().parent / "templates"

INCOME_GROUPS: tuple[tuple[str, str], ...] = (
    ("LIC", "Low income"),
    ("LMC", "Lower middle income"),
    ("UMC", "Upper middle income"),
    ("HIC", "High income"),
)
"""The ``income`` filter's choices: the short code the API accepts and the group's name."""

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("One economy, with its indicators", "/api/v1/readiness?code=KEN"),
    ("Latin America & Caribbean, best first, two fields",
     "/api/v1/readiness?region=LAC&sort=score&order=desc&fields=Country%20Name,score"),
    ("The whole current table as CSV", "/api/v1/readiness?format=csv"),
)
"""The landing page's three copyable example requests."""

BANDS_JSON = orjson.dumps(bands_document()).decode().replace("<", "\\u003c")
"""The bands (``readiness.domain.bands``) for the country page's script, in a JSON block of
the page: ``<`` escaped, so no value could close the block."""

PAGES = (
    "index.html", "docs.html", "explore.html", "method.html", "map.html", "compare.html",
    "embed_map.html", "embed_compare.html", "not_found.html",
)
"""The templates of the named pages (the country views are ``country.html`` and ``embed_country.html``)."""


@dataclass(frozen=True, slots=True)
class Facts:
    """What the pages say about the current snapshot."""

    snapshot_id: str
    published: str
    economies: int
    synthetic: bool
    notice: str | None
    citation: Citation
    """The catalogue's citation of the snapshot (``readiness.domain.citation``), for "Cite this"."""

    @classmethod
    def of(cls, snapshot: Snapshot) -> Facts:
        return cls(snapshot.id, snapshot.published, len(snapshot.countries), snapshot.synthetic, snapshot.notice,
                   Citation.of(snapshot))


class Site:
    """Renders and keeps the pages of the current snapshot (module docstring)."""

    def __init__(self, store: SnapshotStore, assets: Assets, loader: Loader | None = None) -> None:
        self.store = store
        self.assets = assets
        self.loader = loader or Loader(str(TEMPLATES))
        self._snapshot: Snapshot | None = None
        self._pages: dict[str, Answer] = {}

    def page(self, template: str) -> Answer:
        """The page ``template`` (one of PAGES) for the current snapshot. Raises NotReady
        when no snapshot is loaded."""
        pages, snapshot = self._current()
        answer = pages.get(template)
        if answer is None:
            values = {"catalogue": Catalogue.of(self._catalogue(snapshot))} if template == "method.html" else {}
            answer = pages[template] = self._render(template, snapshot, **values)
        return answer

    def country(self, code: str, template: str = "country.html") -> Answer | None:
        """The country view ``template`` of ``code`` (upper case), or None when the current
        snapshot has no such economy. Raises NotReady when no snapshot is loaded."""
        pages, snapshot = self._current()
        country = snapshot.countries.get(code)
        if country is None:
            return None
        key = f"{template}:{code}"
        answer = pages.get(key)
        if answer is None:
            answer = pages[key] = self._render(
                template, snapshot, code=code, name=str(country.record.get("Country Name") or code)
            )
        return answer

    def _current(self) -> tuple[dict[str, Answer], Snapshot]:
        snapshot = self.store.current
        if snapshot is None:
            raise NotReady()
        if snapshot is not self._snapshot:  # a new snapshot: every page says something new
            self._snapshot, self._pages = snapshot, {}
        return self._pages, snapshot

    def _catalogue(self, snapshot: Snapshot) -> tuple[dict[str, JsonValue], ...]:
        """The indicator catalogue ``/api/v1/snapshots`` serves for ``snapshot``: its summary's,
        held by the store since it became current; derived from its data for a snapshot the
        store holds no summary of (one set as current by hand, in tests)."""
        summary = self.store.summary(snapshot.id)
        if summary is not None and summary.series.digest == snapshot.digest:
            return summary.indicators
        return derived_catalogue(snapshot)

    def _render(self, template: str, snapshot: Snapshot, **values: Any) -> Answer:
        facts = Facts.of(snapshot)
        namespace: Mapping[str, Any] = {
            "facts": facts,
            "asset": self.assets.url,
            "examples": EXAMPLES,
            "regions": sorted(REGION_SHORT),
            "region_short": REGION_SHORT,
            "incomes": INCOME_GROUPS,
            "bands": BANDS,
            "bands_json": BANDS_JSON,
            **values,
        }
        return Answer.of(self.loader.load(template).generate(**namespace))
