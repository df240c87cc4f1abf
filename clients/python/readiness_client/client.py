"""One call, one pandas DataFrame: each data route of the Readiness Index Data Service as a method
of ``Client``, every page fetched, the snapshot named, the notice said.
"""

from __future__ import annotations

import copy
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import requests

from readiness_client.cache import DiskCache, default_cache_dir
from readiness_client.transport import Answer, ApiError, Transport, build_url

URL_ENV = "READINESS_API_URL"
"""An environment variable naming the service's address, over ``DEFAULT_URL``."""
DEFAULT_URL = "http://127.0.0.1:8080"
"""Where ``make run`` serves the bundled (synthetic) sample."""

Value = str | int | float | bool | Sequence[str] | Mapping[str, float] | None
"""What a parameter may be given as: lists are sent comma-joined, booleans as ``true``/``false``."""
Years = int | str | tuple[int, int] | None
"""``2024``, ``(2015, 2020)`` (inclusive) or the service's own ``"2015:2020"``."""
Shape = Literal["wide", "long"]
CitationFormat = Literal["bibtex", "ris", "csl", "text"]


class NoticeWarning(UserWarning):
    """The snapshot's manifest has a notice (the bundled sample's says its data is synthetic and
    must not be cited): raised with every answer that carries one. The DataFrame's
    ``attrs["notice"]`` keeps it too."""


class SnapshotChanged(ApiError):
    """A snapshot was published while the pages of one answer were fetched: its pages come from
    two snapshots. Ask again, or pin one (``Client(snapshot=…)`` or ``Client().pin()``)."""


def param(value: Value) -> str | None:
    """The query-string form of a value, or None to leave the parameter out."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, Mapping):
        return ",".join(f"{name}:{weight}" for name, weight in value.items())
    return ",".join(value)


def years_param(years: Years) -> str | None:
    """``(2015, 2020)`` as ``2015:2020``; a year or the service's own spelling as given."""
    if isinstance(years, tuple):
        first, last = years
        return f"{first}:{last}"
    return None if years is None else str(years)


def query(**values: Value) -> dict[str, str]:
    """The parameters given, in their query-string form, in the order given (None left out)."""
    return {name: text for name, value in values.items() if (text := param(value)) is not None}


def records(data: Any) -> list[dict[str, Any]]:
    """The rows of an envelope's ``data``: a list as is; an object (one economy, or one report) as one row."""
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return data
    raise TypeError(f"data is neither a list nor an object: {type(data).__name__}")


def frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The rows as a DataFrame, columns in the order the service writes them. A column whose
    values are JSON integers (ranks, counts) stays integer where some are null (``Int64``), and
    true/false with nulls stays boolean (``boolean``), rather than turning into floats or objects."""
    rows = list(rows)
    table = pd.DataFrame(rows)
    for column in table.columns:
        values = [row.get(column) for row in rows]
        if None not in values:
            continue
        present = [value for value in values if value is not None]
        if present and all(isinstance(value, bool) for value in present):
            table[column] = pd.array(values, dtype="boolean")
        elif present and all(isinstance(value, int) and not isinstance(value, bool) for value in present):
            table[column] = pd.array(values, dtype="Int64")
    return table


@dataclass(frozen=True, slots=True)
class Fetched:
    """Every row of one answer, and what its pages said about it."""

    rows: list[dict[str, Any]]
    envelope: dict[str, Any]
    """The first page's envelope, without ``data``."""
    url: str
    """The first page's URL."""
    snapshot: str | None
    """``X-Readiness-Snapshot``: the id of the (newest) snapshot the answer comes from."""
    total: int | None
    """``X-Total-Count``: the rows that matched (before any ``limit``)."""
    pages: int
    revalidated: int
    """Pages served from the disk cache after a ``304 Not Modified``."""

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame, its ``attrs`` saying where they come from."""
        table = frame(self.rows)
        table.attrs.update({
            "url": self.url, "snapshot": self.snapshot, "notice": self.envelope.get("notice"),
            "total": self.total, "pages": self.pages, "revalidated": self.revalidated,
        })
        return table


class Client:
    """The Readiness Index Data Service, as pandas DataFrames.

    ``base_url``: the service (default ``$READINESS_API_URL``, else ``http://127.0.0.1:8080``).
    ``snapshot``: pin every answer to one snapshot id (``"2026-11"``), so that the same code gives
    the same table next month; ``Client().pin()`` pins the current one. ``page_size``: rows per
    request (1 to 1000); every page is fetched. ``cache_dir``: where answers are kept for
    revalidation (default: the user's cache directory, or ``$READINESS_CLIENT_CACHE_DIR``);
    ``cache=False`` keeps none. ``max_retries`` and ``max_wait``: how often, and at most how long
    (seconds), to wait as a 429 or 503's ``Retry-After`` asks.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        snapshot: str | None = None,
        page_size: int = 1000,
        cache: bool = True,
        cache_dir: str | os.PathLike[str] | None = None,
        max_retries: int = 3,
        max_wait: float = 60.0,
        timeout: float = 60.0,
        session: requests.Session | None = None,
    ) -> None:
        if not 1 <= page_size <= 1000:
            raise ValueError(f"page_size={page_size} is not valid; use 1 to 1000 (the service's largest limit)")
        self.base_url = (base_url or os.environ.get(URL_ENV) or DEFAULT_URL).rstrip("/")
        self.snapshot = snapshot
        self.page_size = page_size
        disk = DiskCache(Path(cache_dir) if cache_dir is not None else default_cache_dir()) if cache else None
        self.transport = Transport(session=session, cache=disk, max_retries=max_retries, max_wait=max_wait,
                                   timeout=timeout)

    # --- the routes -------------------------------------------------------------------------

    def readiness(
        self,
        codes: str | Sequence[str] | None = None,
        *,
        region: str | None = None,
        income: str | None = None,
        fcv: bool | None = None,
        year: int | None = None,
        snapshot: str | None = None,
        fields: Sequence[str] | None = None,
        sort: str | None = None,
        order: Literal["asc", "desc"] | None = None,
        indicators: Sequence[str] | None = None,
        weights: str | Sequence[float] | Mapping[str, float] | None = None,
        shortnames: bool | None = None,
        limit: int | None = None,
    ) -> pd.DataFrame:
        """``/api/v1/readiness``: one row per economy (scores, ranks, groups). ``codes`` selects
        economies (``"KEN"`` or ``["KEN", "BRA"]``); ``indicator_details``, in country mode, is a
        column of lists. ``limit``: the first that many rows in the answer's order."""
        sent: Value = weights if weights is None or isinstance(weights, str | Mapping) else [
            str(weight) for weight in weights]
        params = query(codes=codes, region=region, income=income, fcv=fcv, year=year,
                       snapshot=self._pinned(snapshot, year), sort=sort, order=order, fields=fields,
                       shortnames=shortnames, indicators=indicators, weights=sent)
        return self._table("/api/v1/readiness", params, limit).frame()

    def indicators(
        self,
        codes: str | Sequence[str] | None = None,
        *,
        indicators: Sequence[str] | None = None,
        region: str | None = None,
        income: str | None = None,
        fcv: bool | None = None,
        year: int | None = None,
        snapshot: str | None = None,
        years: Years = None,
        shape: Shape = "wide",
        limit: int | None = None,
    ) -> pd.DataFrame:
        """``/api/v1/indicators``: one row per economy and indicator (``shape="long"``: per
        measure). ``years`` spans snapshots: ``(2024, 2026)``."""
        params = query(codes=codes, region=region, income=income, fcv=fcv, indicators=indicators, year=year,
                       snapshot=self._pinned(snapshot, year, years), years=years_param(years),
                       shape=None if shape == "wide" else shape)
        return self._table("/api/v1/indicators", params, limit).frame()

    def history(
        self,
        codes: str | Sequence[str] | None = None,
        *,
        region: str | None = None,
        income: str | None = None,
        fcv: bool | None = None,
        fields: Sequence[str] | None = None,
        years: Years = None,
        shape: Shape = "wide",
    ) -> pd.DataFrame:
        """``/api/v1/history``: one row per economy and snapshot, oldest first (``shape="long"``:
        per measure). A pinned client keeps the snapshots up to its pin: the series it gave
        stays the series it gives."""
        params = query(codes=codes, region=region, income=income, fcv=fcv, fields=fields,
                       years=years_param(years), shape=None if shape == "wide" else shape)
        fetched = self._table("/api/v1/history", params, None)
        if self.snapshot is not None:
            kept = [row for row in fetched.rows if str(row.get("snapshot")) <= self.snapshot]
            fetched = replace(fetched, rows=kept)
        return fetched.frame()

    def aggregates(
        self,
        by: Literal["world", "region", "income", "fcv"] = "world",
        *,
        region: str | None = None,
        income: str | None = None,
        fcv: bool | None = None,
        year: int | None = None,
        snapshot: str | None = None,
        years: Years = None,
    ) -> pd.DataFrame:
        """``/api/v1/aggregates``: count, mean, median, min, max, p25 and p75 of each score by
        group (``by``), per snapshot."""
        params = query(by=None if by == "world" else by, region=region, income=income, fcv=fcv, year=year,
                       snapshot=self._pinned(snapshot, year, years), years=years_param(years))
        return self._table("/api/v1/aggregates", params, None).frame()

    def movers(
        self,
        codes: str | Sequence[str] | None = None,
        *,
        from_: str | None = None,
        to: str | None = None,
        region: str | None = None,
        income: str | None = None,
        fcv: bool | None = None,
        measure: Literal["score", "rank"] | None = None,
        limit: int | None = None,
    ) -> pd.DataFrame:
        """``/api/v1/rankings/changes``: how each economy's score and rank moved from snapshot
        ``from_`` (the service's ``from``; default the one listed before ``to``) to ``to`` (default: the pinned or
        current snapshot), the largest move first."""
        params = query(**{"from": from_}, to=to or self.snapshot, codes=codes, region=region, income=income,
                       fcv=fcv, measure=measure)
        return self._table("/api/v1/rankings/changes", params, limit).frame()

    def snapshots(self) -> pd.DataFrame:
        """``/api/v1/snapshots``: every snapshot, newest first; ``attrs["citation"]`` and
        ``attrs["indicators"]`` are the catalogue's citation and indicator catalogue."""
        answer = self.transport.get(build_url(self.base_url, "/api/v1/snapshots", {}))
        envelope = answer.json()
        self._warn(envelope, stacklevel=3)
        table = frame(records(envelope["data"]))
        table.attrs.update({"url": answer.url, "snapshot": answer.headers.get("x-readiness-snapshot"),
                            "notice": envelope.get("notice"), "citation": envelope.get("citation"),
                            "indicators": envelope.get("indicators")})
        return table

    def citation(self, format: CitationFormat = "bibtex", *, snapshot: str | None = None) -> str:
        """How to cite a snapshot (default: the pinned one, else the current one), as BibTeX, RIS,
        CSL-JSON or plain text: the text of ``/api/v1/citation``."""
        params = query(format=None if format == "bibtex" else format, snapshot=snapshot or self.snapshot)
        return self.transport.get(build_url(self.base_url, "/api/v1/citation", params)).text()

    def pin(self) -> Client:
        """A client pinned to the snapshot current now (sharing this one's connection and cache)."""
        url = build_url(self.base_url, "/api/v1/snapshots", {})
        listed = records(self.transport.get(url).json()["data"])
        current = [str(entry["id"]) for entry in listed if entry.get("current")]
        if not current:
            raise ApiError(200, "the catalogue lists no current snapshot", url)
        pinned = copy.copy(self)
        pinned.snapshot = current[0]
        return pinned

    def clear_cache(self) -> int:
        """Remove every answer kept on disk; the number removed."""
        return 0 if self.transport.cache is None else self.transport.cache.clear()

    # --- paging -----------------------------------------------------------------------------

    def _pinned(self, snapshot: str | None, year: int | None, years: Years = None) -> str | None:
        """The ``snapshot`` to send: the call's own, else the pin, unless the call chose by year."""
        if snapshot is not None or year is not None or years is not None:
            return snapshot
        return self.snapshot

    def _table(self, path: str, params: Mapping[str, str], limit: int | None) -> Fetched:
        """Every page of ``path`` (at most ``limit`` rows), following ``Link: rel="next"``."""
        if limit is not None and limit < 1:
            raise ValueError(f"limit={limit} is not valid; use 1 or more")
        size = self.page_size if limit is None else min(limit, self.page_size)
        url: str | None = build_url(self.base_url, path, {**params, "limit": str(size)})
        first: Answer | None = None
        envelope: dict[str, Any] = {}
        rows: list[dict[str, Any]] = []
        seen: set[str] = set()
        revalidated = 0
        while url is not None and (limit is None or len(rows) < limit):
            if url in seen:
                raise ApiError(200, f"the Link header leads back to a page already read: {url}", url)
            seen.add(url)
            answer = self.transport.get(url)
            page = answer.json()
            if first is None:
                first, envelope = answer, {key: value for key, value in page.items() if key != "data"}
            elif answer.headers.get("x-readiness-snapshot") != first.headers.get("x-readiness-snapshot"):
                raise SnapshotChanged(200, (f"pages from snapshots {first.headers.get('x-readiness-snapshot')} "
                                            f"and {answer.headers.get('x-readiness-snapshot')}: ask again or "
                                            "pin a snapshot"), url)
            rows.extend(records(page["data"]))
            revalidated += answer.revalidated
            url = answer.next_url()
        assert first is not None
        self._warn(envelope, stacklevel=4)
        total = first.headers.get("x-total-count")
        return Fetched(rows if limit is None else rows[:limit], envelope, first.url,
                       first.headers.get("x-readiness-snapshot"), None if total is None else int(total),
                       len(seen), revalidated)

    @staticmethod
    def _warn(envelope: Mapping[str, Any], stacklevel: int) -> None:
        """Raise the envelope's notice as a NoticeWarning, attributed to the line that called the
        route method (``stacklevel``: that many frames up from here)."""
        notice = envelope.get("notice")
        if notice:
            warnings.warn(NoticeWarning(str(notice)), stacklevel=stacklevel)
