"""The pages' share previews: a PNG per page, for the Open Graph and Twitter card meta.

A chat or social app that is sent a page's link fetches its ``og:image`` and shows it: a
country page shows the profile's scores, the map page the map, compare the compare chart
(docs/PAGES.md#share-previews). Each image is drawn as SVG here (``preview_svg``) and rendered
to PNG by resvg (resvg-py: a self-contained wheel, no browser and no system library), about
25 ms of work, so an image is kept and priced like any API answer: through the service's two
tiers under a cache key of the snapshot it shows (``ReadinessService.produced``), computed
once per key at a time by the compute pool, its cost taken from the asking client's share of
the compute budget. It is sent with its ETag (304 on revalidation).

A preview is in one of the site's languages, chosen by the ``?lang=`` of its address alone (the
Chinese page's ``og:image`` says ``?lang=zh``): a crawler fetches the URL the page names, and
an image that varied on ``Accept-Language`` could not be kept under its URL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache, partial
from typing import Any

import orjson
import resvg_py

from loaders import COMPOSITE, Snapshot, SnapshotStore, Summary
from readiness.cache.keys import cache_key, collection_key
from readiness.domain.answer import Answer
from readiness.domain.errors import InvalidParameter, NotReady
from readiness.domain.tables import history_snapshots
from readiness.pages.assets import STATIC_DIR
from readiness.pages.preview_svg import (
    Comparison,
    Frame,
    Line,
    MapShape,
    Profile,
    ScoreBar,
    WorldMap,
    compare_svg,
    country_svg,
    map_svg,
)
from readiness.pages.translations import N_, Language, languages
from readiness.service import ReadinessService

SCORES: tuple[tuple[str, str], ...] = (
    (COMPOSITE, N_("Composite")),
    ("Infrastructure Score", N_("Infrastructure")),
    ("Human Capital Score", N_("Human capital")),
    ("School Access and Gender Parity Score", N_("School access & gender parity")),
    ("Innovation Score", N_("Innovation")),
    ("Governance Score", N_("Governance")),
)
"""The scores and their labels as the pages write them (api.js ``DIMENSIONS``), translated where drawn."""

PREVIEW_COST = 8 * 1024 * 1024
"""What rendering one preview costs the compute budget, in the budget's unit (estimated bytes
of answer): a render takes as long as computing 6 to 40 MB of JSON answer would (its PNG
encoding alone, 6; docs/PERFORMANCE.md#share-previews), so it is charged the most one request
is (the budget caps a charge at its rate: one second of the default budget). A client fetching
previews in a loop gets about one a second while others' small misses keep their turns. Above
the pool's inline bound: rendered in a worker thread, not on the event loop."""

COMPARED = ("KEN", "BRA", "IND")
"""The economies the compare preview draws when the URL names none: compare's own example."""

MAX_COMPARED = 8
"""Compare draws at most eight economies (compare-state.js ``MAX_ECONOMIES``)."""

_CODE = re.compile(r"[A-Z]{3}")


class Previews:
    """The preview images of the current snapshot's pages (module docstring)."""

    def __init__(self, store: SnapshotStore, service: ReadinessService) -> None:
        self.store = store
        self.service = service

    async def country(self, code: str, language: str, client: str) -> Answer | None:
        """The preview of ``/explore/{code}`` (upper case) in ``language`` (one of LANGUAGES), or
        None when the current snapshot has no such economy. Raises NotReady without a snapshot,
        Overloaded when refused."""
        snapshot = self._current()
        if code not in snapshot.countries:
            return None
        words = languages()[language]
        key = cache_key(snapshot, f"preview|country|{code}|{language}")
        answer, _ = await self.service.produced(
            key, PREVIEW_COST, lambda: png(country_svg(profile(snapshot, code, words), frame(snapshot, words))),
            client)
        return answer

    async def world(self, language: str, client: str) -> Answer:
        """The preview of ``/map`` (and of the pages that show no one chart) in ``language``:
        the composite's map."""
        snapshot = self._current()
        words = languages()[language]
        key = cache_key(snapshot, f"preview|map|{language}")
        answer, _ = await self.service.produced(key, PREVIEW_COST, lambda: png(map_svg(world_map(snapshot),
                                                                                     frame(snapshot, words))), client)
        return answer

    async def compare(self, raw_codes: str | None, language: str, client: str) -> Answer:
        """The preview of ``/compare?codes=...`` in ``language``: the composite of ``raw_codes``
        (COMPARED when None) across the snapshots compare shows. Raises InvalidParameter for
        codes that are not up to eight economies of the current snapshot."""
        snapshot = self._current()
        codes = compared_codes(raw_codes, snapshot)
        words = languages()[language]
        summaries = self.store.summaries_now() or await self.store.summaries()
        key = collection_key(snapshot, summaries, f"preview|compare|{','.join(codes)}|{language}")
        drawing = partial(comparison, snapshot, summaries, codes, words)
        answer, _ = await self.service.produced(
            key, PREVIEW_COST, lambda: png(compare_svg(drawing(), frame(snapshot, words))), client)
        return answer

    def _current(self) -> Snapshot:
        snapshot = self.store.current
        if snapshot is None:
            raise NotReady()
        return snapshot


def png(svg: str) -> Answer:
    """``svg`` rendered to PNG by resvg, as an answer: its ETag computed once, no gzip copy (a
    PNG is compressed already)."""
    return replace(Answer.of(bytes(resvg_py.svg_to_bytes(svg_string=svg))), gzipped=None)


def frame(snapshot: Snapshot, words: Language) -> Frame:
    """What every preview of ``snapshot`` says around its drawing, in ``words``' language."""
    return Frame(snapshot.id, snapshot.synthetic, words)


def profile(snapshot: Snapshot, code: str, words: Language) -> Profile:
    """The country preview's numbers, in ``words``' language as the page writes them: the
    economy's scores and the world means (plain means over every economy with a value, as the
    profile's table computes them: profile.js)."""
    records = [country.record for country in snapshot.countries.values()]
    record = snapshot.countries[code].record
    ranked = sum(1 for other in records if isinstance(other.get("Global Rank"), int))
    rank = record.get("Global Rank")
    if isinstance(rank, int):
        rank_words = words.gettext("%(rank)s of %(ranked)s") % {"rank": words.number(rank),
                                                                "ranked": words.number(ranked)}
    elif record.get("Microstate"):
        rank_words = words.gettext("— (a microstate: not ranked)")
    else:
        rank_words = words.gettext("— (not ranked)")
    region = str(record.get("Region") or "")
    return Profile(
        name=words.economy(code, str(record.get("Country Name") or code)),
        code=code,
        region=words.gettext(region) if region else "",
        composite=_number(record.get(COMPOSITE)),
        rank=rank_words,
        scores=tuple(ScoreBar(words.gettext(label), _number(record.get(field)), _mean(records, field))
                     for field, label in SCORES),
    )


def world_map(snapshot: Snapshot) -> WorldMap:
    """The map preview's shapes: the vendored geometry's, each with its economy's composite."""
    geometry = _geometry()
    shapes = tuple(
        MapShape(str(feature["d"]), _number(snapshot.countries[code].record.get(COMPOSITE))
                 if (code := str(feature["code"])) in snapshot.countries else None)
        for feature in geometry["features"]
    )
    x, y, width, height = (float(part) for part in str(geometry["viewBox"]).split())
    return WorldMap((x, y, width, height), shapes, str(geometry["attribution"]))


def comparison(snapshot: Snapshot, summaries: Sequence[Summary], codes: Sequence[str], words: Language) -> Comparison:
    """The compare preview's lines, named in ``words``' language: each economy's composite in
    every snapshot compare shows (history's: the Decembers and the current one)."""
    shown = history_snapshots(summaries, snapshot.id, None) or [snapshot]
    names = [words.economy(code, str(snapshot.countries[code].record.get("Country Name") or code)) for code in codes]
    lines = tuple(
        Line(name, tuple(_number(series.countries[code].record.get(COMPOSITE)) if code in series.countries else None
                         for series in shown))
        for code, name in zip(codes, names, strict=True)
    )
    title = words.gettext("Composite readiness score: %(economies)s") % {"economies": words.listed(names)}
    return Comparison(title, tuple(series.id for series in shown), lines)


def compared_codes(raw: str | None, snapshot: Snapshot) -> tuple[str, ...]:
    """The economies ``codes=`` names, in its order, once each (COMPARED for none). Raises
    InvalidParameter unless they are one to eight ISO3 codes of economies in ``snapshot``."""
    if raw is None:
        return COMPARED
    codes = tuple(dict.fromkeys(part.strip().upper() for part in raw.split(",") if part.strip()))
    accepted = f"one to {MAX_COMPARED} ISO3 codes of economies in the current snapshot, comma separated (KEN,BRA)"
    if not codes or len(codes) > MAX_COMPARED or not all(_CODE.fullmatch(code) and code in snapshot.countries
                                                         for code in codes):
        raise InvalidParameter("codes", raw, accepted)
    return codes


@lru_cache(maxsize=1)
def _geometry() -> dict[str, Any]:
    """The map's vendored geometry (world-110m.json, the file map.js draws), read once."""
    geometry: dict[str, Any] = orjson.loads((STATIC_DIR / "world-110m.json").read_bytes())
    return geometry


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _mean(records: Sequence[Any], field: str) -> float | None:
    values = [number for record in records if (number := _number(record.get(field))) is not None]
    return sum(values) / len(values) if values else None

