"""The service's pages, rendered from templates once per snapshot and kept as answers.

A page depends on the release (its templates and asset names) and on the current snapshot
(id, date, synthetic notice, the economies' names): it is rendered on its first request after
either changes and then served like a cached API answer, with its ETag and gzip copy. Nothing
a client sends is part of a page, so the pages held are bounded: the named pages (PAGES) and
two country views (page and embed) per economy of the current snapshot, for at most ORIGINS
origins (the share meta's absolute URLs: ``readiness/pages/share.py``).
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
from readiness.domain.bands import BANDS
from readiness.domain.citation import Citation
from readiness.domain.errors import NotReady
from readiness.pages.assets import Assets
from readiness.pages.errors import ErrorPage
from readiness.pages.method import Catalogue
from readiness.pages.names import ALTERNATIVE_NAMES, NAMES_JSON
from readiness.pages.preview import profile
from readiness.pages.share import country_share, origin_of, page_share
from readiness.pages.translations import AUTONYMS, N_, Language, languages, script_messages

TEMPLATES = Path(__file__).resolve().parent / "templates"

INCOME_GROUPS: tuple[tuple[str, str], ...] = (
    ("LIC", N_("Low income")),
    ("LMC", N_("Lower middle income")),
    ("UMC", N_("Upper middle income")),
    ("HIC", N_("High income")),
)
"""The ``income`` filter's choices: the short code the API accepts and the group's name."""

EXAMPLES: tuple[tuple[str, str], ...] = (
    (N_("One economy, with its indicators"), "/api/v1/readiness?code=KEN"),
    (N_("Latin America & Caribbean, best first, two fields"),
     "/api/v1/readiness?region=LAC&sort=score&order=desc&fields=Country%20Name,score"),
    (N_("The whole current table as CSV"), "/api/v1/readiness?format=csv"),
)
"""The landing page's three copyable example requests."""

def bands_json(language: Language) -> str:
    """The bands (``readiness.domain.bands``) for the pages' scripts, their names and ranges in
    ``language``, in a JSON block of the page: ``<`` escaped, so no value could close the block."""
    bands = [{**band.document(), "name": language.gettext(band.name), "range": language.gettext(band.range)}
             for band in BANDS]
    return orjson.dumps(bands).decode().replace("<", "\\u003c")

PAGES = (
    "index.html", "docs.html", "explore.html", "method.html", "map.html", "compare.html",
    "embed_map.html", "embed_compare.html",
)
"""The templates of the named pages (the country views are ``country.html`` and ``embed_country.html``)."""

ORIGINS = 4
"""Origins whose pages are kept at once: a page names its absolute URL in its share meta, so
without a public URL it is rendered per request origin; a fifth origin drops the oldest's pages
(a client choosing its Host header cannot grow the memory). Each origin's pages are kept in
each language (``readiness.pages.language.LANGUAGES``): at most ORIGINS times that many sets."""


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

    def __init__(
        self, store: SnapshotStore, assets: Assets, loader: Loader | None = None, public_url: str | None = None
    ) -> None:
        self.store = store
        self.assets = assets
        self.public_url = public_url
        """The site's public address (``READINESS_PUBLIC_URL``), which absolute URLs start with."""
        self.loader = loader or Loader(str(TEMPLATES))
        self._snapshot: Snapshot | None = None
        self.languages = languages()
        self._pages: dict[tuple[str, str], dict[str, Answer]] = {}
        """The pages rendered, by origin and language (oldest first), then by template (and code)."""

    def origin(self, protocol: str, host: str) -> str:
        """The origin of the absolute URLs of a page asked for over ``protocol`` from ``host``
        (``share.origin_of``)."""
        return origin_of(self.public_url, protocol, host)

    def page(self, template: str, origin: str, language: str) -> Answer:
        """The page ``template`` (one of PAGES) for the current snapshot in ``language`` (one
        of LANGUAGES), its absolute URLs under ``origin`` (``share.origin_of``). Raises
        NotReady when no snapshot is loaded."""
        pages, snapshot = self._current(origin, language)
        answer = pages.get(template)
        if answer is None:
            values = {"catalogue": Catalogue.of(self._catalogue(snapshot))} if template == "method.html" else {}
            share = page_share(template, snapshot.id, _names(snapshot), snapshot.synthetic, self.languages[language])
            answer = pages[template] = self._render(template, snapshot, language, origin=origin, share=share,
                                                    **values)
        return answer

    def country(self, code: str, origin: str, language: str, template: str = "country.html") -> Answer | None:
        """The country view ``template`` of ``code`` (upper case) in ``language``, or None when
        the current snapshot has no such economy. Raises NotReady when no snapshot is loaded."""
        pages, snapshot = self._current(origin, language)
        country = snapshot.countries.get(code)
        if country is None:
            return None
        key = f"{template}:{code}"
        answer = pages.get(key)
        if answer is None:
            words = self.languages[language]
            share = country_share(profile(snapshot, code, words), snapshot.id, snapshot.synthetic, words)
            name = words.economy(code, str(country.record.get("Country Name") or code))
            answer = pages[key] = self._render(
                template, snapshot, language, code=code, name=name,
                origin=origin, share=share,
            )
        return answer

    def snapshot_id(self) -> str:
        """The current snapshot's id. Raises NotReady when no snapshot is loaded."""
        snapshot = self.store.current
        if snapshot is None:
            raise NotReady()
        return snapshot.id

    def error(self, error: ErrorPage, origin: str, language: str, asked: str | None = None) -> bytes:
        """The HTML page of ``error``, rendered for this request and not kept: it says the
        request's own words. ``asked``: the text a mistyped economy's address had (``kenya``),
        for "Did you mean Kenya?". Raises NotReady when no snapshot is loaded."""
        _, snapshot = self._current(origin, language)
        economy = None if asked is None else _economy_named(snapshot, asked)
        if economy is not None:
            economy = economy[0], self.languages[language].economy(*economy)
        share = page_share("error.html", snapshot.id, _names(snapshot), snapshot.synthetic, self.languages[language])
        return self._render("error.html", snapshot, language, error=error, economy=economy, origin=origin,
                            share=share).body

    def _current(self, origin: str, language: str) -> tuple[dict[str, Answer], Snapshot]:
        snapshot = self.store.current
        if snapshot is None:
            raise NotReady()
        if snapshot is not self._snapshot:  # a new snapshot: every page says something new
            self._snapshot, self._pages = snapshot, {}
        key = (origin, language)
        pages = self._pages.pop(key, None)
        if pages is None:
            pages = {}
            while len(self._pages) >= ORIGINS * len(self.languages):
                del self._pages[next(iter(self._pages))]
        self._pages[key] = pages  # the newest last
        return pages, snapshot

    def _catalogue(self, snapshot: Snapshot) -> tuple[dict[str, JsonValue], ...]:
        """The indicator catalogue ``/api/v1/snapshots`` serves for ``snapshot``: its summary's,
        held by the store since it became current; derived from its data for a snapshot the
        store holds no summary of (one set as current by hand, in tests)."""
        summary = self.store.summary(snapshot.id)
        if summary is not None and summary.series.digest == snapshot.digest:
            return summary.indicators
        return derived_catalogue(snapshot)

    def _render(self, template: str, snapshot: Snapshot, language: str, **values: Any) -> Answer:
        facts = Facts.of(snapshot)
        words = self.languages[language]
        names = _names(snapshot)
        namespace: Mapping[str, Any] = {
            # The page's language (docs/PAGES.md#languages): its words, its switch, its scripts' words.
            "_": words.gettext,
            "ngettext": words.ngettext,
            "pgettext": words.pgettext,
            "language": words,
            "autonyms": AUTONYMS,
            "i18n_json": words.script_block(script_messages(), names),
            "facts": facts,
            "asset": self.assets.url,
            "examples": EXAMPLES,
            "regions": sorted(REGION_SHORT),
            "region_short": REGION_SHORT,
            "incomes": INCOME_GROUPS,
            "bands": BANDS,
            "bands_json": bands_json(words),
            "embed": template.startswith("embed_"),  # an embed's compact layout (embed_base.html)
            "names_json": NAMES_JSON,
            **values,
        }
        return Answer.of(self.loader.load(template).generate(**namespace))


def _names(snapshot: Snapshot) -> dict[str, str]:
    """The data's name of each economy of ``snapshot``, by code."""
    return {code: str(country.record.get("Country Name") or code) for code, country in snapshot.countries.items()}


def _economy_named(snapshot: Snapshot, text: str) -> tuple[str, str] | None:
    """(code, name) of the economy whose name, or another name in common use, is ``text`` (any
    case, ``-`` or ``_`` for spaces), or None."""
    wanted = " ".join(text.replace("-", " ").replace("_", " ").split()).casefold()
    for code, country in snapshot.countries.items():
        name = str(country.record.get("Country Name") or code)
        if wanted in {name.casefold(), *(other.casefold() for other in ALTERNATIVE_NAMES.get(code, ()))}:
            return code, name
    return None
