"""Selecting, sorting and projecting countries for a Query: pure functions over a Snapshot."""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from collections.abc import Iterable, Sequence
from typing import TypeVar

from loaders import COUNTRY_FIELDS, DETAILS, FIELD_BY_NAME, REGION_SHORT, Country, JsonValue, Kind, Snapshot

from readiness.domain.query import Query
from readiness.domain.vocabulary import ALIAS_OF

Record = dict[str, JsonValue]
T = TypeVar("T")

INCOME = "Income Level"
FCV = "FCV Status"
"""The fields the income and fcv parameters filter on (docs/API.md#parameters)."""
ALL_FIELDS: tuple[str, ...] = tuple(field.name for field in COUNTRY_FIELDS)


def select(snapshot: Snapshot, query: Query) -> list[Country]:
    """Countries passing the query's code, region, income and FCV filters, in the query's
    order; all of them: ``limited`` cuts the list, so its length is the total that matched.

    Codes that match nothing are skipped (docs/API.md#the-response); with several filters,
    all apply (docs/DECISIONS.md#query-parameters).
    """
    if query.country_mode:
        found = [snapshot.countries[code] for code in query.codes if code in snapshot.countries]
    else:
        found = list(snapshot.countries.values())
    if query.region is not None:
        found = [country for country in found if country.record.get("Region") == query.region]
    if query.income is not None:
        found = [country for country in found if country.record.get(INCOME) == query.income]
    if query.fcv is not None:
        found = [country for country in found if country.record.get(FCV) is query.fcv]
    return sort_countries(found, query.sort, query.descending)


def limited(rows: Sequence[T], limit: int | None, offset: int = 0) -> Sequence[T]:
    """The first ``limit`` rows (all without a limit) after skipping ``offset`` rows: both
    apply after sorting (docs/API.md#parameters: limit, offset)."""
    if offset:
        rows = rows[offset:]
    return rows if limit is None else rows[:limit]


def missing_codes(snapshot: Snapshot, query: Query) -> list[str]:
    """The requested codes the snapshot has no country for, in code order."""
    return [code for code in query.codes if code not in snapshot.countries]


def sort_countries(countries: Iterable[Country], field: str, descending: bool) -> list[Country]:
    """Sort by one field: nulls (and absent values) last in both orders, ties by Country Code.

    Text compares case- and accent-insensitively, so "Côte d'Ivoire" sorts among the C's.
    The input must be in Country Code order (snapshots iterate that way): Python's sort is
    stable even in reverse, which keeps equal values in code order (docs/DECISIONS.md#query-parameters).
    """
    present: list[Country] = []
    missing: list[Country] = []
    for country in countries:
        (missing if country.record.get(field) is None else present).append(country)
    if FIELD_BY_NAME[field].kind is Kind.TEXT:
        present.sort(key=lambda country: _text_key(str(country.record[field])), reverse=descending)
    else:
        present.sort(key=lambda country: _number_key(country.record[field]), reverse=descending)
    return present + missing


def project(countries: Sequence[Country], query: Query) -> list[Record]:
    """Turn countries into the objects served: fields kept, aliases added, details filtered.

    Implements the fields, shortnames and indicators parameters (docs/API.md#parameters):
    indicator_details appears in country mode only and survives fields filtering.
    """
    if query.fields is None and not query.shortnames and not query.country_mode:
        return [country.record for country in countries]  # served as loaded: nothing to change
    return [_project_one(country, query) for country in countries]


def _project_one(country: Country, query: Query) -> Record:
    record = country.record
    result: Record = {}
    for name in record if query.fields is None else query.fields:  # both in serving order
        if name not in record:
            continue
        value = record[name]
        result[name] = value
        if query.shortnames:
            if name == "Region":
                result["RegionShort"] = REGION_SHORT.get(str(value))
            elif name in ALIAS_OF:
                result[ALIAS_OF[name]] = value
    if query.country_mode:
        result[DETAILS] = _details(country, query.indicators)
    return result


def _details(country: Country, indicators: tuple[str, ...] | None) -> list[JsonValue]:
    # The snapshot's own element dicts are served; they are never modified.
    if indicators is None:
        return list(country.details)
    wanted = set(indicators)
    return [
        element
        for element in country.details
        if str(element.get("indicator_code", "")).upper() in wanted
    ]


def _number_key(value: JsonValue) -> float:
    # The schema makes number and boolean fields int, float or bool; True sorts after False.
    return float(value) if isinstance(value, (int, float)) else 0.0


@lru_cache(maxsize=8192)  # text values come from snapshots: a bounded set, asked again and again
def _text_key(value: str) -> str:
    decomposed = unicodedata.normalize("NFKD", value)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


def columns(query: Query) -> tuple[str, ...]:
    """The top-level keys ``project`` gives a country, in order, without indicator_details:
    the columns of the country CSV (docs/API.md#csv), known even when no country matched."""
    names: list[str] = []
    for name in query.fields if query.fields is not None else ALL_FIELDS:
        names.append(name)
        if query.shortnames:
            if name == "Region":
                names.append("RegionShort")
            elif name in ALIAS_OF:
                names.append(ALIAS_OF[name])
    return tuple(names)
