"""Query: the parsed, validated and canonical form of a request's parameters (docs/API.md#parameters).

Two requests that must get the same answer parse to equal Queries, so ``canonical()`` is the
cache key's query part (docs/CACHING.md). Parsing is pure: no I/O, no clock, no snapshot.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import TypeVar
from urllib.parse import parse_qsl, quote, urlencode

from loaders import COUNTRY_FIELDS, DETAILS, DIMENSIONS, FIELD_BY_NAME, Kind
from readiness.domain.errors import InvalidParameter, InvalidRequest, UnknownParameter
from readiness.domain.meta import Format
from readiness.domain.tables import HISTORY_FIELDS, HISTORY_IDENTITY
from readiness.domain.vocabulary import (
    ACCEPTED_SORT,
    CUSTOM_FIELDS,
    canonical_income,
    canonical_region,
    field_list,
    folded,
    nearest_name,
    sort_field,
    trimmed,
)


class Route(Enum):
    """The query routes (docs/API.md). Each takes its own parameter names (``Route.accepted``);
    a new route is a member here, its names in ``ROUTE_PARAMETERS``, a compute function
    (``readiness/domain/compute.py``) and a handler subclass (``readiness/http/handlers.py``)."""

    V1 = "v1"
    LEGACY = "legacy"
    INDICATORS = "indicators"
    HISTORY = "history"
    SNAPSHOTS = "snapshots"
    CHANGES = "changes"
    AGGREGATES = "aggregates"

    @property
    def accepted(self) -> tuple[str, ...]:
        """The parameter names this route reads, in the order error messages list them."""
        return ROUTE_PARAMETERS[self]

    @property
    def strict(self) -> bool:
        """Whether an unknown parameter name is a 400 (every v1 route) or ignored (the legacy
        route, as it always was: docs/DECISIONS.md#parameter-rules)."""
        return self is not Route.LEGACY


_READINESS_PARAMETERS: tuple[str, ...] = (
    "code", "codes", "level", "region", "income", "fcv", "year", "sort", "order", "fields",
    "shortnames", "indicators", "limit", "format",
)
_V1_READINESS_PARAMETERS: tuple[str, ...] = (
    *_READINESS_PARAMETERS[:7], "snapshot", *_READINESS_PARAMETERS[7:-1], "weights", "offset", "format",
)

ROUTE_PARAMETERS: dict[Route, tuple[str, ...]] = {
    Route.V1: _V1_READINESS_PARAMETERS,
    Route.LEGACY: _READINESS_PARAMETERS,
    Route.INDICATORS: (
        "code", "codes", "region", "income", "fcv", "indicators", "year", "years", "snapshot", "shape", "limit",
        "offset", "format",
    ),
    Route.HISTORY: (
        "code", "codes", "region", "income", "fcv", "fields", "years", "shape", "limit", "offset", "format",
    ),
    Route.SNAPSHOTS: (),
    Route.CHANGES: ("format",),
    Route.AGGREGATES: ("by", "region", "income", "fcv", "year", "years", "snapshot", "limit", "offset", "format"),
}
"""The parameters each route takes (docs/API.md#parameters). Names beginning with ``_`` are
ignored everywhere and never reach the cache key (cache busters). ``offset``, ``snapshot``,
``weights`` and ``shape`` are v1's only: the legacy route keeps its parameters
(docs/DECISIONS.md#the-legacy-route)."""

LIST_PARAMETERS: frozenset[str] = frozenset({"codes", "fields", "indicators"})
"""The comma-separated list parameters: repeated, their values are merged (``fields=A&fields=B``
is ``fields=A,B``, as generated clients send arrays); any other repeated name keeps its last
value (docs/DECISIONS.md#parameter-rules)."""

READINESS_ROUTES: tuple[Route, ...] = (Route.V1, Route.LEGACY)
"""The routes of the country query: on them ``indicators`` filters country mode only."""

ROUTE_FIELDS: dict[Route, frozenset[str]] = {Route.HISTORY: frozenset(HISTORY_IDENTITY[:2] + HISTORY_FIELDS)}
"""What ``fields`` may name on a route whose rows are not countries (every other route taking
``fields`` takes any field): history rows keep a series' fields only."""

PARAMETERS: tuple[str, ...] = _READINESS_PARAMETERS
"""Every name the legacy country query route reads (docs/API.md#parameters)."""

PAGED_ROUTES: dict[Route, str] = {
    Route.V1: "/api/v1/readiness",
    Route.INDICATORS: "/api/v1/indicators",
    Route.HISTORY: "/api/v1/history",
    Route.AGGREGATES: "/api/v1/aggregates",
}
"""The list routes that take ``offset``, with their paths: their answers link to the next page."""


MAX_CODES = 300
MAX_INDICATORS = 100
MAX_LIMIT = 1000
"""``limit`` accepts 1..MAX_LIMIT rows (docs/API.md#parameters: limit)."""
MAX_OFFSET = 9_999_999
"""``offset`` accepts 0..MAX_OFFSET rows skipped (docs/API.md#parameters: offset)."""

CODE_PATTERN = "[A-Za-z]{3}"
INDICATOR_PATTERN = "[A-Za-z0-9._]{1,40}"
YEAR_PATTERN = "[0-9]{4}"
YEARS_PATTERN = "[0-9]{4}(:[0-9]{4})?"
LIMIT_PATTERN = "[0-9]{1,4}"
OFFSET_PATTERN = "[0-9]{1,7}"
SNAPSHOT_PATTERN = "[0-9]{4}-[0-9]{2}"
WEIGHT_PATTERN = "[0-9]{1,4}(\\.[0-9]{1,4})?"
"""What one code, indicator code, year, year range and limit look like: ASCII only, so nothing
a client sends can become a path or an unbounded key (the OpenAPI document reuses these); offset,
a snapshot id and one weight likewise."""

_CODE = re.compile(CODE_PATTERN)
_YEAR = re.compile(YEAR_PATTERN)
_YEARS = re.compile(YEARS_PATTERN)
_LIMIT = re.compile(LIMIT_PATTERN)
_OFFSET = re.compile(OFFSET_PATTERN)
_INDICATOR = re.compile(INDICATOR_PATTERN)
_SNAPSHOT = re.compile(SNAPSHOT_PATTERN)
_WEIGHT = re.compile(WEIGHT_PATTERN)
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_FORMATS = {member.value: member for member in Format}
_DEFAULT_SORT = "Country Name"

DIMENSION_KEYS: tuple[str, ...] = ("infrastructure", "human", "access", "innovation", "governance")
"""How ``weights`` names the five dimensions, in DIMENSIONS order (docs/METHOD.md#your-own-weights)."""
_DIMENSION_NAMES: dict[str, int] = {
    **{key: position for position, key in enumerate(DIMENSION_KEYS)},
    **{folded(name): position for position, name in enumerate(DIMENSIONS)},
    **{folded(f"{name} Score"): position for position, name in enumerate(DIMENSIONS)},
    "infra": 0,
}
_ACCEPTED_WEIGHTS = (
    "five weights in dimension order (e.g. 1,1,1,1,1) or dimension:weight pairs (e.g. infrastructure:2,human:1; "
    f"dimensions {', '.join(DIMENSION_KEYS)}; one not named weighs 0), each weight a number from 0 to 9999 "
    "with at most four decimals, not all 0"
)
_WEIGHT_SCALE = 10_000
"""Weights are read as whole ten-thousandths, so they are exact and their canonical form is too."""


class Shape(Enum):
    """How the table routes lay out their rows (docs/API.md#parameters: shape): ``wide`` one row
    per economy and snapshot (per indicator, on ``/indicators``), ``long`` one row per measure."""

    WIDE = "wide"
    LONG = "long"


class Grouping(Enum):
    """What ``/api/v1/aggregates`` groups economies by (docs/API.md#parameters: by)."""

    WORLD = "world"
    REGION = "region"
    INCOME = "income"
    FCV = "fcv"


_SHAPES = {member.value: member for member in Shape}
_GROUPINGS = {member.value: member for member in Grouping}
_FIELD_ORDER = {field.name: position for position, field in enumerate(COUNTRY_FIELDS)}


@dataclass(frozen=True, slots=True)
class Query:
    """What a request asks for, with every default resolved and every name canonical.

    ``codes`` non-empty means country mode. ``fields`` is None for all fields, else the
    top-level fields to keep in serving order (indicator_details is always kept where present,
    so it never appears here). ``indicators`` is None unless details are filtered (on the
    country query routes, only in country mode). ``income`` is a full income group name,
    ``fcv`` the wanted FCV Status, ``limit`` the most rows served (after sorting and skipping
    ``offset`` rows), ``years`` an inclusive range of snapshot years (history, indicators,
    aggregates). ``snapshot`` is a snapshot id (``YYYY-MM``) as ``year`` is a December's: either
    pins the answer to that snapshot (``pinned``). ``weights`` are the custom composite's dimension
    weights in DIMENSIONS order, whole numbers with no common divisor (so equal weightings are
    equal), None for none; ``shape`` the table layout, ``by`` the aggregates' grouping.
    """

    codes: tuple[str, ...] = ()
    region: str | None = None
    income: str | None = None
    fcv: bool | None = None
    year: int | None = None
    years: tuple[int, int] | None = None
    snapshot: str | None = None
    sort: str = _DEFAULT_SORT
    descending: bool = False
    fields: tuple[str, ...] | None = None
    shortnames: bool = False
    indicators: tuple[str, ...] | None = None
    limit: int | None = None
    offset: int = 0
    weights: tuple[int, ...] | None = None
    shape: Shape = Shape.WIDE
    by: Grouping = Grouping.WORLD
    format: Format = Format.JSON
    _canonical: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Computed once: the cache key needs it on every request.
        object.__setattr__(self, "_canonical", self._canonical_form())

    @property
    def country_mode(self) -> bool:
        """True when code or codes selected countries (docs/API.md#the-response)."""
        return bool(self.codes)

    @property
    def pinned(self) -> bool:
        """True when ``year`` or ``snapshot`` names the snapshot to answer from: not necessarily
        the current one, so not an answer the hit lane looks for."""
        return self.year is not None or self.snapshot is not None

    @property
    def snapshot_id(self) -> str | None:
        """The id of the snapshot ``year`` (its December) or ``snapshot`` pins, if either does."""
        return archive_id(self.year) if self.year is not None else self.snapshot

    @classmethod
    def parse(cls, params: Mapping[str, str], route: Route = Route.V1) -> Query:
        """Validate and canonicalize request parameters (one value per name) for ``route``.

        Names beginning with ``_`` are ignored; another name the route does not take is a 400
        on a strict (v1) route and ignored on the legacy one. An empty value counts as absent
        (docs/DECISIONS.md#query-parameters). Raises UnknownParameter, InvalidParameter naming the parameter and
        what it accepts, or InvalidRequest for level=country without a code, for two
        parameters that each choose the snapshots (``year``, ``years``, ``snapshot``) and for
        a sort by ``Custom Score`` or ``Custom Rank`` without ``weights``.
        """
        accepted = route.accepted
        if route.strict:
            _check_names(params, accepted)
        values = {name: trimmed(params[name]) for name in accepted if trimmed(params.get(name, ""))}
        codes = _codes("codes", values["codes"]) if "codes" in values else (
            _codes("code", values["code"]) if "code" in values else ()
        )
        level = folded(values.get("level", "global"))
        if level not in ("global", "country"):
            raise InvalidParameter("level", values["level"], "country or global")
        if level == "country" and not codes:
            raise InvalidRequest(
                "level=country needs code or codes (comma-separated ISO3 codes, e.g. code=KEN)."
            )
        sort = sort_field(values["sort"]) if "sort" in values else _DEFAULT_SORT
        # Checked wherever given, even where it filters nothing (the global level of the country
        # query), so that a malformed value is always a 400 (docs/DECISIONS.md#parameter-rules).
        indicators = _indicators(values["indicators"]) if "indicators" in values else None
        details_filtered = bool(codes) or route not in READINESS_ROUTES
        chosen = [name for name in ("year", "years", "snapshot") if name in values]
        if len(chosen) > 1:
            raise InvalidRequest(f"{' and '.join(chosen)} each choose the snapshots to answer from; give one of them.")
        weights = _weights(values["weights"]) if "weights" in values else None
        if sort in CUSTOM_FIELDS and weights is None:
            _refuse_custom_sort(values["sort"], route)
        return cls(
            codes=codes,
            region=canonical_region(values["region"]) if "region" in values else None,
            income=canonical_income(values["income"]) if "income" in values else None,
            fcv=_boolean("fcv", values["fcv"]) if "fcv" in values else None,
            year=_year(values["year"]) if "year" in values else None,
            years=_years(values["years"]) if "years" in values else None,
            snapshot=_snapshot(values["snapshot"]) if "snapshot" in values else None,
            sort=sort,
            descending=_descending(values.get("order"), sort),
            fields=_fields(values["fields"], route) if "fields" in values else None,
            shortnames=_boolean("shortnames", values["shortnames"]) if "shortnames" in values else False,
            indicators=indicators if details_filtered else None,
            limit=_limit(values["limit"]) if "limit" in values else None,
            offset=_offset(values["offset"]) if "offset" in values else 0,
            weights=weights,
            shape=_choice("shape", values["shape"], _SHAPES) if "shape" in values else Shape.WIDE,
            by=_choice("by", values["by"], _GROUPINGS) if "by" in values else Grouping.WORLD,
            format=_choice("format", values["format"], _FORMATS) if "format" in values else Format.JSON,
        )

    def canonical(self) -> str:
        """A query string, in fixed order with defaults left out, that parses back to self
        (on the route it was parsed for).

        Equal exactly when two responses must be byte-identical (on one route and snapshot).
        """
        return self._canonical

    def _canonical_form(self) -> str:
        pairs: list[tuple[str, str]] = []
        if self.codes:
            pairs.append(("codes", ",".join(self.codes)))
        if self.region is not None:
            pairs.append(("region", self.region))
        if self.income is not None:
            pairs.append(("income", self.income))
        if self.fcv is not None:
            pairs.append(("fcv", "true" if self.fcv else "false"))
        if self.year is not None:
            pairs.append(("year", f"{self.year:04d}"))
        if self.years is not None:
            first, last = self.years
            pairs.append(("years", f"{first:04d}" if first == last else f"{first:04d}:{last:04d}"))
        if self.snapshot is not None:
            pairs.append(("snapshot", self.snapshot))
        if (self.sort, self.descending) != (_DEFAULT_SORT, False):
            pairs += [("sort", self.sort), ("order", "desc" if self.descending else "asc")]
        if self.fields is not None:
            pairs.append(("fields", ",".join(self.fields) or DETAILS))
        if self.shortnames:
            pairs.append(("shortnames", "true"))
        if self.indicators is not None:
            pairs.append(("indicators", ",".join(self.indicators)))
        if self.limit is not None:
            pairs.append(("limit", str(self.limit)))
        if self.offset:
            pairs.append(("offset", str(self.offset)))
        if self.weights is not None:
            pairs.append(("weights", ",".join(str(weight) for weight in self.weights)))
        if self.shape is not Shape.WIDE:
            pairs.append(("shape", self.shape.value))
        if self.by is not Grouping.WORLD:
            pairs.append(("by", self.by.value))
        if self.format is not Format.JSON:
            pairs.append(("format", self.format.value))
        return urlencode(pairs, quote_via=quote, safe=",:")


@lru_cache(maxsize=1024)
def parse_query_string(raw: str, route: Route = Route.V1) -> Query:
    """``Query.parse`` of a URL query string for ``route``: the values of a repeated list
    parameter (``LIST_PARAMETERS``) are joined with commas, in order; for any other name the
    last value wins.

    ``raw`` is the query as Tornado gives it: one character per byte of the request line
    (Tornado decodes it as Latin-1). Its bytes, sent raw or percent-encoded, are decoded as
    UTF-8; bytes that are not UTF-8 become U+FFFD, which no parameter accepts (a 400 naming
    it). Memoized per (string, route), because popular requests repeat the same strings and
    parsing is the largest cost of a cache hit; at most 1024 strings of at most 8 KiB (the URL
    limit) are kept. Raises like ``Query.parse`` (errors are not memoized).
    """
    # Percent-escapes decoded as Latin-1 too: every character of every pair is then one byte.
    pairs = parse_qsl(raw, keep_blank_values=True, encoding="latin-1")
    params: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name, value = _text(raw_name), _text(raw_value)
        if name in LIST_PARAMETERS and name in params:
            value = f"{params[name]},{value}"
        params[name] = value
    return Query.parse(params, route)


def _check_names(params: Mapping[str, str], accepted: tuple[str, ...]) -> None:
    """Raise UnknownParameter for the first name neither accepted nor ignored (``_`` first)."""
    for name in params:
        if name not in accepted and not name.startswith("_"):
            raise UnknownParameter(name, nearest_name(name, accepted), accepted)


def _text(as_bytes: str) -> str:
    """Bytes held one per character (Latin-1) as UTF-8 text."""
    return as_bytes if as_bytes.isascii() else as_bytes.encode("latin-1").decode("utf-8", "replace")


def archive_id(year: int) -> str:
    """The snapshot a year selects: its December (docs/API.md#parameters: year)."""
    return f"{year:04d}-12"


def _codes(name: str, value: str) -> tuple[str, ...]:
    return _code_list(name, value, _CODE, "three-letter ISO3 codes, e.g. KEN,BRA", MAX_CODES)


def _indicators(value: str) -> tuple[str, ...]:
    return _code_list(
        "indicators", value, _INDICATOR, "indicator codes such as IT.NET.USER.ZS", MAX_INDICATORS
    )


def _code_list(
    name: str, value: str, pattern: re.Pattern[str], accepted: str, limit: int
) -> tuple[str, ...]:
    """Split, trim, check, upper-case, deduplicate and sort a comma-separated list of codes.

    Checked before upper-casing: "ß".upper() is "SS", and only ASCII codes are accepted.
    """
    pieces = {trimmed(piece) for piece in value.split(",")} - {""}
    for piece in sorted(pieces):
        if not pattern.fullmatch(piece):
            raise InvalidParameter(name, piece, f"comma-separated {accepted}")
    codes = {piece.upper() for piece in pieces}
    if not codes:
        raise InvalidParameter(name, value, f"comma-separated {accepted}")
    if len(codes) > limit:
        raise InvalidParameter(name, value, f"at most {limit} distinct {accepted}")
    return tuple(sorted(codes))


def _year(value: str) -> int:
    if not _YEAR.fullmatch(value):
        raise InvalidParameter("year", value, "a four-digit year such as 2025")
    return int(value)


def _descending(value: str | None, sort: str) -> bool:
    if value is None:  # numbers (ranks and the custom values included) descend
        return sort in CUSTOM_FIELDS or FIELD_BY_NAME[sort].kind is Kind.NUMBER
    order = folded(value)
    if order not in ("asc", "desc"):
        raise InvalidParameter("order", value, "asc or desc")
    return order == "desc"


def _fields(value: str, route: Route) -> tuple[str, ...]:
    """The fields named, in serving order; on a route whose rows have fewer fields than a
    country (``ROUTE_FIELDS``), only those, so its 400 lists its own."""
    wanted = set(field_list(value, ROUTE_FIELDS.get(route))) - {DETAILS}
    return tuple(sorted(wanted, key=_FIELD_ORDER.__getitem__))


def _years(value: str) -> tuple[int, int]:
    accepted = "a four-digit year such as 2024, or an inclusive range such as 2022:2025"
    if not _YEARS.fullmatch(value):
        raise InvalidParameter("years", value, accepted)
    first, _, last = value.partition(":")
    years = (int(first), int(last or first))
    if years[0] > years[1]:
        raise InvalidParameter("years", value, accepted + " (first year not after the last)")
    return years


def _limit(value: str) -> int:
    limit = int(value) if _LIMIT.fullmatch(value) else 0
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidParameter("limit", value, f"a whole number of rows from 1 to {MAX_LIMIT}")
    return limit


def _offset(value: str) -> int:
    if not _OFFSET.fullmatch(value):
        raise InvalidParameter("offset", value, f"a whole number of rows to skip from 0 to {MAX_OFFSET}")
    return int(value)


def _snapshot(value: str) -> str:
    if not _SNAPSHOT.fullmatch(value) or not 1 <= int(value[5:]) <= 12:
        raise InvalidParameter(
            "snapshot", value, "a snapshot id YYYY-MM such as 2024-06 (GET /api/v1/snapshots lists them)"
        )
    return value


def _weights(value: str) -> tuple[int, ...]:
    """Five weights (positional or named) as whole numbers with no common divisor."""
    pieces = [trimmed(piece) for piece in value.split(",")]
    scaled = [0] * len(DIMENSIONS)
    if all(":" not in piece for piece in pieces):
        if len(pieces) != len(DIMENSIONS):
            raise InvalidParameter("weights", value, _ACCEPTED_WEIGHTS)
        for position, piece in enumerate(pieces):
            scaled[position] = _weight(value, piece)
    else:
        named: set[int] = set()
        for piece in pieces:
            name, colon, number = piece.partition(":")
            dimension = _DIMENSION_NAMES.get(folded(trimmed(name)))
            if not colon or dimension is None or dimension in named:
                raise InvalidParameter("weights", value, _ACCEPTED_WEIGHTS)
            named.add(dimension)
            scaled[dimension] = _weight(value, trimmed(number))
    divisor = math.gcd(*scaled)
    if divisor == 0:
        raise InvalidParameter("weights", value, _ACCEPTED_WEIGHTS)
    return tuple(weight // divisor for weight in scaled)


def _refuse_custom_sort(value: str, route: Route) -> None:
    """Sorting by the custom values needs the weights that make them; a route without weights
    (the legacy one) has no such values at all."""
    if "weights" not in route.accepted:
        raise InvalidParameter("sort", value, ACCEPTED_SORT)
    raise InvalidRequest(
        f"sort={value!r} needs weights: {' and '.join(CUSTOM_FIELDS)} exist only with your own weights "
        "(e.g. weights=2,1,1,1,1; docs/METHOD.md#your-own-weights)."
    )


def _weight(value: str, piece: str) -> int:
    if not _WEIGHT.fullmatch(piece):
        raise InvalidParameter("weights", value, _ACCEPTED_WEIGHTS)
    whole, _, decimals = piece.partition(".")
    return int(whole) * _WEIGHT_SCALE + int(decimals.ljust(4, "0") or 0)


Choice = TypeVar("Choice", bound=Enum)


def _choice(name: str, value: str, choices: Mapping[str, Choice]) -> Choice:
    """The member ``value`` names (any ASCII case), or InvalidParameter listing them."""
    chosen = choices.get(folded(value))
    if chosen is None:
        raise InvalidParameter(name, value, " or ".join(choices))
    return chosen


def _boolean(name: str, value: str) -> bool:
    flag = _BOOLEANS.get(folded(value))
    if flag is None:
        raise InvalidParameter(name, value, "true, false, 1 or 0")
    return flag

