"""Fetch the raw tables from the World Bank Indicators API v2
(docs/PUBLISHING.md#0-fetch-the-raw-tables-from-the-world-bank-api).

One request (paged, though one page holds it all: ``worldbank.MAX_PER_PAGE``) for the economy
list, one per indicator of ``builder.method`` over the method's window, a few at a time
(``SourceSettings.parallel`` threads, each with its own HTTP session); each says how it went
as it completes, and every retry and every long wait is said as it happens (``builder.waits``;
``heard``). Aggregates ("World", "Sub-Saharan Africa", income groups) are in the
economy list too, marked by the region "Aggregates": they are left out, and so are their
values. The four governance estimates are served from the Worldwide Governance Indicators
(source 3), every other series from the World Development Indicators (source 2).

What the API does not give: the FCV list (a separate World Bank publication, passed in as
``fcv``), and a population for an economy without any SP.POP.TOTL value in the window (such
an economy is left out and named in ``Fetched.skipped``).
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor
from concurrent.futures import wait as until
from dataclasses import dataclass
from typing import Protocol

import requests

from builder.inputs import Economy, Observation
from builder.method import INDICATORS, POPULATION, WINDOW_START
from builder.progress import Fetch
from builder.rawtables import RawTables
from builder.waits import Wait, Waits
from builder.worldbank import MAX_PARALLEL, Answer, SourceError, SourceSettings, fetch_all, session
from config import redact
from loaders import JsonValue

WDI, WGI = "2", "3"
SOURCE_NAMES: dict[str, str] = {WDI: "World Bank WDI", WGI: "World Bank WGI"}
"""The API's source ids we read, and the ``source`` column (shown as data_source) of each."""

GOVERNANCE_SOURCE: dict[str, str] = dict.fromkeys(("GE.EST", "RQ.EST", "CC.EST", "VA.EST"), WGI)
"""Series the API serves only with ``source=3``; every other one is asked with ``source=2``."""

REGIONS: dict[str, str] = {
    "EAS": "East Asia & Pacific",
    "ECS": "Europe & Central Asia",
    "LCN": "Latin America & Caribbean",
    "MEA": "Middle East & North Africa",
    "NAC": "North America",
    "SAS": "South Asia",
    "SSF": "Sub-Saharan Africa",
}
"""The API's region ids and the contract's region names (the API's own names vary in spacing
and wording, e.g. "Latin America & Caribbean " with a trailing space)."""

INCOME_GROUPS: dict[str, str | None] = {
    "LIC": "Low income",
    "LMC": "Lower middle income",
    "UMC": "Upper middle income",
    "HIC": "High income",
    "INX": None,
}
"""The API's income ids; INX ("Not classified") is an unclassified economy."""

AGGREGATE_REGION = "NA"
"""The region id of aggregates in the economy list (its value is "Aggregates")."""


@dataclass(frozen=True, slots=True)
class Fetched:
    """The fetched tables, and the economies left out for lack of any population value."""

    tables: RawTables
    skipped: tuple[str, ...]
    unknown_fcv: tuple[str, ...]
    """Codes of the FCV list that are not economies of the API's list (a stale list?)."""
    requests: int = 0
    """HTTP requests made: a page each, and each retry of one."""


COUNTRY = "country"
"""The label of the economy list among the fetched series."""


class Heard(Protocol):
    """Who hears of a fetch as it goes, from its threads (``builder.progress.Progress`` is one)."""

    def fetched(self, fetch: Fetch) -> None:
        """One series (or the economy list) fetched."""

    def waiting(self, line: str) -> None:
        """A retry, a request or a wait still going on, the fetch stopping: one line."""


def announced(settings: SourceSettings, asked: int) -> str:
    """The fetch step's first line: ``asked`` series (the economy list among them) and the
    requests they take, counted honestly (the pages are known only as they come)."""
    shown = redact(settings.base_url, settings.base_url)  # a mirror's URL may carry a password
    return (f"the economy list and {asked - 1} series from {shown}, {settings.parallel} at a time: "
            f"at least {asked} requests (a page each of up to {settings.per_page} rows; each try of "
            f"a request up to {settings.timeout:g} s, retried up to {settings.retries} times)")


def requests_of(last_year: int) -> dict[str, tuple[str, dict[str, str]]]:
    """What a fetch asks for, by label: the economy list, then each series of the method."""
    asked: dict[str, tuple[str, dict[str, str]]] = {COUNTRY: ("country", {})}
    for indicator in INDICATORS:
        source = GOVERNANCE_SOURCE.get(indicator.code, WDI)
        asked[indicator.code] = (f"country/all/indicator/{indicator.code}",
                                 {"date": f"{WINDOW_START}:{last_year}", "source": source})
    return asked


def fetch_raw(
    settings: SourceSettings,
    last_year: int,
    fcv: Mapping[str, str],
    now: datetime.datetime,
    *,
    heard: Heard | None = None,
    wait: Wait | None = None,
) -> Fetched:
    """Fetch every economy and every series of the method for WINDOW_START..``last_year``.

    ``now`` is recorded as the fetch date. ``heard`` hears of each request as it completes,
    of each retry, and every ``settings.every`` seconds of each request or wait still going
    on; ``wait`` spends the waits between retries (default: waits that the fetch's first
    failure cuts short). Raises SourceError when the source stays unavailable or answers
    something unexpected (an unknown region or income id, a value that is not a number, a
    year that is not a year); the first failure cancels the requests not yet started and
    stops the others at their next wait or timeout.
    """
    answers = _fetch_all_of(settings, requests_of(last_year), heard, wait)
    economies, lending = _economies(answers[COUNTRY])
    series: dict[tuple[str, str], tuple[Observation, ...]] = {}
    indicators: dict[str, JsonValue] = {}
    for indicator in INDICATORS:
        source = GOVERNANCE_SOURCE.get(indicator.code, WDI)
        answer = answers[indicator.code]
        found = _observations(answer, indicator.code, SOURCE_NAMES[source], economies)
        series.update(found)
        indicators[indicator.code] = {
            "source_id": source,
            "source": SOURCE_NAMES[source],
            "lastupdated": _text(answer.meta.get("lastupdated")),
            "values": sum(len(observations) for observations in found.values()),
        }
    populations = {
        code: int(observations[-1].value)
        for (code, indicator), observations in series.items()
        if indicator == POPULATION and observations
    }
    skipped = tuple(sorted(code for code in economies if code not in populations))
    kept = tuple(
        Economy(code, name, region, income, populations[code], code in fcv, fcv.get(code))
        for code, (name, region, income) in sorted(economies.items())
        if code in populations
    )
    provenance: dict[str, JsonValue] = {
        "source": "World Bank Indicators API v2",
        "url": redact(settings.base_url, settings.base_url),  # never a password, if it has one
        "fetched": now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "window": [WINDOW_START, last_year],
        "economies": len(kept),
        "skipped_without_population": list(skipped),
        "indicators": indicators,
    }
    tables = RawTables(
        kept,
        {code: lending[code] for code in populations},
        {key: value for key, value in series.items() if key[0] in populations},
        provenance,
    )
    made = sum(answer.pages + answer.retries for answer in answers.values())
    return Fetched(tables, skipped, tuple(sorted(set(fcv) - set(economies))), made)


def fetched_summary(fetched: Fetched) -> str:
    """``217 economies, 28737 values; 24 requests``: what a fetch gave, and what it took."""
    values = sum(len(observations) for observations in fetched.tables.series.values())
    return f"{len(fetched.tables.economies)} economies, {values} values; {fetched.requests} requests"


def _fetch_all_of(
    settings: SourceSettings,
    asked: Mapping[str, tuple[str, dict[str, str]]],
    heard: Heard | None,
    wait: Wait | None,
) -> dict[str, Answer]:
    """Every request of ``asked``, at most ``settings.parallel`` at a time, each thread with a
    session of its own (a requests Session is not made to be shared between threads), every
    wait said while a watchdog runs. The first failure is raised once the requests under way
    have ended (stopped at their next wait, or at their timeout)."""
    waits = Waits(heard.waiting if heard is not None else lambda line: None, retries=settings.retries,
                  timeout=settings.timeout, every=settings.every, wait=wait)
    local = threading.local()
    sessions: list[requests.Session] = []
    guard = threading.Lock()

    def client() -> requests.Session:
        own: requests.Session | None = getattr(local, "session", None)
        if own is None:
            own = local.session = session(settings, waits.wait, waits.retrying)
            with guard:
                sessions.append(own)
        return own

    def one(label: str, path: str, params: dict[str, str]) -> Answer:
        started = time.monotonic()
        answered = False
        try:
            answer = fetch_all(client(), settings, path, params, lambda page: waits.asking(f"{label} page {page}"))
            answered = True
        finally:
            waits.done()
            if not answered:
                waits.stop(label)
        if heard is not None:
            heard.fetched(Fetch(label, len(answer.rows), answer.pages, time.monotonic() - started, answer.retries))
        return answer

    workers = max(1, min(settings.parallel, MAX_PARALLEL))
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fetch")
    try:
        with waits.watching():
            futures: dict[str, Future[Answer]] = {
                label: executor.submit(one, label, path, params) for label, (path, params) in asked.items()
            }
            done, _ = until(futures.values(), return_when=FIRST_EXCEPTION)
            if any(future.exception() is not None for future in done):
                executor.shutdown(wait=True, cancel_futures=True)  # the watchdog says what it waits for
        failed = futures.get(waits.failed) if waits.failed is not None else None
        if failed is not None:
            failed.result()  # the first failure, raised
        return {label: future.result() for label, future in futures.items()}
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        for own in sessions:
            own.close()


def _economies(listed: Answer) -> tuple[dict[str, tuple[str, str, str | None]], dict[str, str]]:
    """(code -> (name, region, income)) of the economies (aggregates left out), and lending."""
    economies: dict[str, tuple[str, str, str | None]] = {}
    lending: dict[str, str] = {}
    for row in listed.rows:
        code = _text(row.get("id"))
        region_id = _field(row, "region", "id")
        if region_id == AGGREGATE_REGION or _field(row, "region", "value").strip() == "Aggregates":
            continue
        if region_id not in REGIONS:
            raise SourceError(f"country: {code} has region {region_id!r}, not one of "
                              f"{', '.join(REGIONS)} or {AGGREGATE_REGION} (aggregates)")
        income_id = _field(row, "incomeLevel", "id")
        if income_id not in INCOME_GROUPS:
            raise SourceError(f"country: {code} has income level {income_id!r}, not one of "
                              f"{', '.join(INCOME_GROUPS)}")
        name = _text(row.get("name")).strip()
        if len(code) != 3 or not code.isalpha() or not name:
            raise SourceError(f"country: a row with id {code!r} and name {name!r}")
        economies[code] = (name, REGIONS[region_id], INCOME_GROUPS[income_id])
        lending[code] = _field(row, "lendingType", "value").strip()
    if not economies:
        raise SourceError("country: the economy list holds no economy")
    return economies, lending


def _observations(
    answer: Answer, indicator: str, source: str, economies: Mapping[str, object]
) -> dict[tuple[str, str], tuple[Observation, ...]]:
    """The economies' values of one series, oldest first; gaps (null) and aggregates left out."""
    by_economy: dict[str, dict[int, Observation]] = {}
    for row in answer.rows:
        code = _text(row.get("countryiso3code"))
        value = row.get("value")
        if code not in economies or value is None:
            continue
        date = _text(row.get("date"))
        served = _field(row, "indicator", "id")
        if served != indicator:
            raise SourceError(f"{indicator}: a row of {served!r}")
        if not date.isdigit():
            raise SourceError(f"{indicator}: {code} has date {date!r}, not a year")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SourceError(f"{indicator}: {code} {date} has value {value!r}, not a number")
        by_economy.setdefault(code, {})[int(date)] = Observation(int(date), value, source)
    return {
        (code, indicator): tuple(years[year] for year in sorted(years))
        for code, years in by_economy.items()
    }


def _field(row: Mapping[str, JsonValue], key: str, inner: str) -> str:
    """``row[key][inner]`` as text ('' when absent), for the API's {"id", "value"} objects."""
    value = row.get(key)
    return _text(value.get(inner)) if isinstance(value, dict) else ""


def _text(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""
