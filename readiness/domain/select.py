"""Selecting, sorting and projecting countries for a Query: pure functions over a Snapshot."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TypeVar

from loaders import COUNTRY_FIELDS, DETAILS, FIELD_BY_NAME, REGION_SHORT, Country, JsonValue, Kind, Snapshot
from readiness.domain.query import Query
from readiness.domain.vocabulary import ALIAS_OF, CUSTOM_FIELDS, CUSTOM_RANK, CUSTOM_SCORE
from readiness.domain.weights import NO_CUSTOM, Custom, custom_scores

Record = dict[str, JsonValue]
T = TypeVar("T")

INCOME = "Income Level"
FCV = "FCV Status"
"""The fields the income and fcv parameters filter on (docs/API.md#parameters)."""
ALL_FIELDS: tuple[str, ...] = tuple(field.name for field in COUNTRY_FIELDS)


def select(snapshot: Snapshot, query: Query, custom: Mapping[str, Custom] | None = None) -> list[Country]:
    """Countries passing the query's code, region, income and FCV filters, in the query's
    order; all of them: ``limited`` cuts the list, so its length is the total that matched.

    Codes that match nothing are skipped (docs/API.md#the-response); with several filters,
    all apply (docs/DECISIONS.md#query-parameters). A sort by a custom value uses ``custom``
    (``custom_scores`` of the whole snapshot), computed here when not given.
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
    if query.sort in CUSTOM_FIELDS:
        if custom is None:
            custom = custom_scores(snapshot.countries.values(), query.weights) if query.weights else {}
        return sort_custom(found, custom, query.sort, query.descending)
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


def unmatched(snapshots: Sequence[Snapshot], query: Query) -> Record:
    """What ``query`` named that matched nothing in ``snapshots`` (docs/API.md#the-response):
    ``codes`` none of them has an economy for, ``indicators`` (when the query filters details)
    no economy of them has an indicator_details element for, each in code order; only the keys
    with entries, so nothing unmatched is ``{}``. Filters (region, income, FCV) never make a
    code unmatched: the economy exists, it just did not pass them."""
    found: Record = {}
    codes = [code for code in query.codes if not any(code in snapshot.countries for snapshot in snapshots)]
    if codes:
        found["codes"] = list[JsonValue](codes)
    if query.indicators is not None:
        missing = set(query.indicators)
        for snapshot in snapshots:
            for country in snapshot.countries.values():
                for element in country.details:
                    missing.discard(str(element.get("indicator_code", "")).upper())
                if not missing:  # the usual case: every code is found in the first economy
                    return found
        if missing:
            found["indicators"] = list[JsonValue](sorted(missing))
    return found


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


def sort_custom(
    countries: Iterable[Country], custom: Mapping[str, Custom], field: str, descending: bool
) -> list[Country]:
    """Sort by ``Custom Score`` or ``Custom Rank`` (``field``) from ``custom``, by the rules of
    ``sort_countries``: nulls last in both orders, ties by Country Code (input in code order)."""
    position = CUSTOM_FIELDS.index(field)
    present: list[tuple[float, Country]] = []
    missing: list[Country] = []
    for country in countries:
        value = custom.get(country.code, NO_CUSTOM)[position]
        if value is None:
            missing.append(country)
        else:
            present.append((value, country))
    present.sort(key=lambda pair: pair[0], reverse=descending)
    return [country for _, country in present] + missing


def project(countries: Sequence[Country], query: Query, custom: Mapping[str, Custom] | None = None) -> list[Record]:
    """Turn countries into the objects served: fields kept, aliases added, custom values added,
    details filtered.

    Implements the fields, shortnames, weights and indicators parameters (docs/API.md#parameters):
    ``custom`` (``custom_scores``, given with weights) adds Custom Score and Custom Rank after the
    published fields, whatever ``fields`` keeps; indicator_details appears in country mode only and
    survives fields filtering. The snapshot's records are never modified: changed ones are copies.
    """
    if query.fields is None and not query.shortnames and not query.country_mode:
        if custom is None:
            return [country.record for country in countries]  # served as loaded: nothing to change
        rows: list[Record] = []
        for country in countries:  # copies: the loaded records are shared
            score, rank = custom.get(country.code, NO_CUSTOM)
            rows.append({**country.record, CUSTOM_SCORE: score, CUSTOM_RANK: rank})
        return rows
    return [_project_one(country, query, custom) for country in countries]


def _project_one(country: Country, query: Query, custom: Mapping[str, Custom] | None) -> Record:
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
    if custom is not None:
        for name, value in zip(CUSTOM_FIELDS, custom.get(country.code, NO_CUSTOM), strict=True):
            result[name] = value
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
    """The top-level keys ``project`` gives a country, in order, without indicator_details
    (with weights, Custom Score and Custom Rank last): the columns of the country CSV
    (docs/API.md#csv), known even when no country matched."""
    names: list[str] = []
    for name in query.fields if query.fields is not None else ALL_FIELDS:
        names.append(name)
        if query.shortnames:
            if name == "Region":
                names.append("RegionShort")
            elif name in ALIAS_OF:
                names.append(ALIAS_OF[name])
    if query.weights is not None:
        names += CUSTOM_FIELDS
    return tuple(names)
