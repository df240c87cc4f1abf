"""Query: the parsed, validated and canonical form of a request's parameters (docs/API.md#parameters).

Two requests that must get the same answer parse to equal Queries, so ``canonical()`` is the
cache key's query part (docs/CACHING.md). Parsing is pure: no I/O, no clock, no snapshot.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import TypeVar
from urllib.parse import parse_qsl, quote, urlencode

from loaders import COUNTRY_FIELDS, DETAILS, DIMENSIONS, FIELD_BY_NAME, Kind
from readiness.domain.errors import ConflictingParameters, InvalidParameter, InvalidRequest
from readiness.domain.meta import Format
from readiness.domain.parameters import (
    CODE_PATTERN,
    COUNTRY_QUERY,
    DIMENSION_KEYS,
    INDICATOR_PATTERN,
    LIMIT_PATTERN,
    MAX_CODES,
    MAX_INDICATORS,
    MAX_LIMIT,
    MAX_OFFSET,
    MAX_RECENT,
    MAX_SNAPSHOTS,
    OFFSET_PATTERN,
    RECENT_ANY,
    SNAPSHOT_ITEM,
    SNAPSHOT_PATTERN,
    WEIGHT_PATTERN,
    YEAR_PATTERN,
    YEARS_PATTERN,
    Grammar,
    Parameter,
)
from readiness.domain.vocabulary import (
    ACCEPTED_SORT,
    CUSTOM_FIELDS,
    canonical_income,
    canonical_region,
    column_list,
    field_list,
    folded,
    sort_field,
    trimmed,
)

_CODE = re.compile(CODE_PATTERN)
_YEAR = re.compile(YEAR_PATTERN)
_YEARS = re.compile(YEARS_PATTERN)
_LIMIT = re.compile(LIMIT_PATTERN)
_OFFSET = re.compile(OFFSET_PATTERN)
_INDICATOR = re.compile(INDICATOR_PATTERN)
_SNAPSHOT = re.compile(SNAPSHOT_PATTERN)
_SNAPSHOT_ITEM = re.compile(SNAPSHOT_ITEM.strip("^$"))
_RECENT = re.compile(RECENT_ANY)
_WEIGHT = re.compile(WEIGHT_PATTERN)
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_FORMATS = {member.value: member for member in (Format.JSON, Format.CSV)}
"""What ``format=`` takes: the bulk files' formats have routes of their own (docs/API.md#downloads)."""
_DEFAULT_SORT = "Country Name"

DIMENSION_NAMES: dict[str, int] = {
    **{key: position for position, key in enumerate(DIMENSION_KEYS)},
    **{folded(name): position for position, name in enumerate(DIMENSIONS)},
    **{folded(f"{name} Score"): position for position, name in enumerate(DIMENSIONS)},
    "infra": 0,
}
"""What ``weights=name:weight`` may call a dimension, ASCII lower-cased, to its position in
DIMENSIONS: its key, its name, its score's name, ``infra``."""
_ACCEPTED_WEIGHTS = (
    "five weights in dimension order (e.g. 1,1,1,1,1) or dimension:weight pairs (e.g. infrastructure:2,human:1; "
    f"dimensions {', '.join(DIMENSION_KEYS)}; one not named weighs 0), each weight a number from 0 to 9999 "
    "with at most four decimals, not all 0"
)
PUBLISHED_WEIGHTS: tuple[int, ...] = (1,) * len(DIMENSIONS)
"""The published composite weighs the five dimensions equally (docs/METHOD.md#your-own-weights)."""
WEIGHT_SCALE = 10_000
"""Weights are read as whole ten-thousandths, so they are exact and their canonical form is too."""
CANONICAL_ORDER: tuple[str, ...] = (
    "codes", "region", "income", "fcv", "year", "years", "mrv", "snapshot", "sort", "order", "fields", "shortnames",
    "indicators", "limit", "offset", "weights", "shape", "by", "format",
)
"""The order ``Query.canonical()`` writes the shared parameters in; a route's own (``options``)
follow in its grammar's order. ``code`` and ``level`` never appear: ``codes`` says both."""


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
    recent: int | None = None
    snapshot: str | None = None
    snapshots: tuple[str, ...] = ()
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
    options: tuple[tuple[str, str], ...] = ()
    """The canonical values of the parameters only one route reads (``Parameter.read``), in its
    grammar's order, without those left at their default: ``option`` reads them."""
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
    def over_time(self) -> bool:
        """True when ``years`` or ``mrv`` chooses several snapshots, every December and the
        current one (``readiness.domain.tables.snapshots_over_time``)."""
        return self.years is not None or self.recent is not None

    @property
    def snapshot_id(self) -> str | None:
        """The id of the snapshot the ``year`` (its December) or ``snapshot`` pins, if either does."""
        return archive_id(self.year) if self.year is not None else self.snapshot

    def snapshot_in(self, current_id: str) -> str | None:
        """The id of the snapshot the query pins while ``current_id`` is the current one:
        ``snapshot_id``, except that ``year`` naming the current snapshot's year pins the current
        snapshot (its December is not out yet, or it is that December), as history's ``years`` does
        (docs/API.md#parameters: year). None when neither ``year`` nor ``snapshot`` is given."""
        if self.year is not None and f"{self.year:04d}" == current_id[:4]:
            return current_id
        return self.snapshot_id

    def option(self, name: str) -> str | None:
        """The canonical value of the route's own parameter ``name`` (``options``); None when it
        was not given or given as its default."""
        return next((value for option, value in self.options if option == name), None)

    @classmethod
    def parse(cls, params: Mapping[str, str], grammar: Grammar = COUNTRY_QUERY) -> Query:
        """Validate and canonicalize request parameters (one value per name) by a route's
        ``grammar`` (default: the country query's, ``/api/v1/readiness``).

        Names beginning with ``_`` are ignored; another name the route does not take is a 400
        on a strict (v1) route and ignored on the legacy one. An empty value counts as absent
        (docs/DECISIONS.md#query-parameters). Given together, ``year`` chooses the snapshots over
        ``snapshot``, and either over ``years`` (``_chosen``); a sort by ``Custom Score`` or
        ``Custom Rank`` without ``weights`` reads the published weights. Raises UnknownParameter,
        InvalidParameter naming the parameter and what it accepts, or InvalidRequest for
        level=country without a code (the specification).
        """
        given = grammar.values(params)
        values, written_by = _unaliased(given, grammar)
        try:
            return cls._parse(values, grammar)
        except InvalidParameter as error:
            alias = grammar.alias(written_by.get(error.name, ""))
            if alias is None:
                raise
            raise InvalidParameter(alias.name, given[alias.name], alias.accepted) from None

    @classmethod
    def _parse(cls, values: Mapping[str, str], grammar: Grammar) -> Query:
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
        if indicators is not None and not codes and grammar.parameter("indicators").country_mode_only:
            indicators = None
        listed = "snapshot" in values and grammar.parameter("snapshot").many
        year, snapshot, snapshots, years, recent = _chosen(
            _year(values["year"]) if "year" in values else None,
            _snapshot(values["snapshot"]) if "snapshot" in values and not listed else None,
            _snapshot_list(values["snapshot"]) if listed else (),
            _years(values["years"]) if "years" in values else None,
            _recent(values["mrv"]) if "mrv" in values else None,
        )
        weights = _weights(values["weights"]) if "weights" in values else None
        if sort in CUSTOM_FIELDS and weights is None:
            weights = _published_weights(values["sort"], grammar)
        return cls(
            codes=codes,
            region=canonical_region(values["region"]) if "region" in values else None,
            income=canonical_income(values["income"]) if "income" in values else None,
            fcv=_boolean("fcv", values["fcv"]) if "fcv" in values else None,
            year=year,
            years=years,
            recent=recent,
            snapshot=snapshot,
            snapshots=snapshots,
            sort=sort,
            descending=_descending(values.get("order"), sort),
            fields=_fields(values["fields"], grammar.parameter("fields")) if "fields" in values else None,
            shortnames=_boolean("shortnames", values["shortnames"]) if "shortnames" in values else False,
            indicators=indicators,
            limit=_limit(values["limit"]) if "limit" in values else None,
            offset=_offset(values["offset"]) if "offset" in values else 0,
            weights=weights,
            shape=_choice("shape", values["shape"], _SHAPES) if "shape" in values else Shape.WIDE,
            by=_choice("by", values["by"], _GROUPINGS) if "by" in values else Grouping.WORLD,
            format=_choice("format", values["format"], _FORMATS) if "format" in values else Format.JSON,
            options=_options(values, grammar),
        )

    def canonical(self) -> str:
        """A query string, in fixed order with defaults left out, that parses back to self
        (on the route it was parsed for).

        Equal exactly when two responses must be byte-identical (on one route and snapshot).
        """
        return self._canonical

    def _canonical_form(self) -> str:
        pairs: dict[str, str] = {}
        if self.codes:
            pairs["codes"] = ",".join(self.codes)
        if self.region is not None:
            pairs["region"] = self.region
        if self.income is not None:
            pairs["income"] = self.income
        if self.fcv is not None:
            pairs["fcv"] = "true" if self.fcv else "false"
        if self.year is not None:
            pairs["year"] = f"{self.year:04d}"
        if self.years is not None:
            first, last = self.years
            pairs["years"] = f"{first:04d}" if first == last else f"{first:04d}:{last:04d}"
        if self.recent is not None:
            pairs["mrv"] = str(self.recent)
        if self.snapshot is not None:
            pairs["snapshot"] = self.snapshot
        if self.snapshots:
            pairs["snapshot"] = ",".join(self.snapshots)
        if (self.sort, self.descending) != (_DEFAULT_SORT, False):
            pairs["sort"], pairs["order"] = self.sort, "desc" if self.descending else "asc"
        if self.fields is not None:
            pairs["fields"] = ",".join(self.fields) or DETAILS
        if self.shortnames:
            pairs["shortnames"] = "true"
        if self.indicators is not None:
            pairs["indicators"] = ",".join(self.indicators)
        if self.limit is not None:
            pairs["limit"] = str(self.limit)
        if self.offset:
            pairs["offset"] = str(self.offset)
        if self.weights is not None:
            pairs["weights"] = ",".join(str(weight) for weight in self.weights)
        if self.shape is not Shape.WIDE:
            pairs["shape"] = self.shape.value
        if self.by is not Grouping.WORLD:
            pairs["by"] = self.by.value
        if self.format is not Format.JSON:
            pairs["format"] = self.format.value
        ordered = [(name, pairs[name]) for name in CANONICAL_ORDER if name in pairs]
        return urlencode([*ordered, *self.options], quote_via=quote, safe=",:")


@lru_cache(maxsize=1024)
def parse_query_string(raw: str, grammar: Grammar = COUNTRY_QUERY) -> Query:
    """``Query.parse`` of a URL query string (``read_query_string``) by a route's ``grammar``.

    Memoized per (string, grammar), because popular requests repeat the same strings and
    parsing is the largest cost of a cache hit; at most 1024 strings of at most 8 KiB (the URL
    limit) are kept. Raises like ``Query.parse`` (errors are not memoized).
    """
    return Query.parse(read_query_string(raw, grammar.lists), grammar)


def read_query_string(raw: str, lists: Collection[str] = ()) -> dict[str, str]:
    """A URL query string as one value per name: the values of a repeated list parameter (a
    name in ``lists``) joined with commas, in order; for any other name the last value wins
    (docs/DECISIONS.md#parameter-rules). The one reader of query strings: every route's
    grammar checks what it gives (``Grammar.values``).

    ``raw`` is the query as Tornado gives it: one character per byte of the request line
    (Tornado decodes it as Latin-1). Its bytes, sent raw or percent-encoded, are decoded as
    UTF-8; bytes that are not UTF-8 become U+FFFD, which no parameter accepts (a 400 naming it).
    """
    # Percent-escapes decoded as Latin-1 too: every character of every pair is then one byte.
    pairs = parse_qsl(raw, keep_blank_values=True, encoding="latin-1")
    params: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name, value = _text(raw_name), _text(raw_value)
        if name in lists and name in params:
            value = f"{params[name]},{value}"
        params[name] = value
    return params


def _text(as_bytes: str) -> str:
    """Bytes held one per character (Latin-1) as UTF-8 text."""
    return as_bytes if as_bytes.isascii() else as_bytes.encode("latin-1").decode("utf-8", "replace")


def _options(values: Mapping[str, str], grammar: Grammar) -> tuple[tuple[str, str], ...]:
    """The canonical values of the route's own parameters given (``Parameter.read``), in the
    grammar's order, those equal to their default left out."""
    options: list[tuple[str, str]] = []
    for parameter in grammar.parameters:
        if parameter.read is not None and parameter.name in values:
            value = parameter.read(values[parameter.name])
            if value != parameter.default:
                options.append((parameter.name, value))
    return tuple(options)


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


def _unaliased(given: Mapping[str, str], grammar: Grammar) -> tuple[dict[str, str], dict[str, str]]:
    """``given`` with each of the grammar's aliases (``Alias``) replaced by the canonical values it
    stands for, in the grammar's order, and which alias wrote each of them (so that a refusal of
    one names the alias). Raises ConflictingParameters for an alias given beside a name it
    stands for or beside another alias of it, and InvalidParameter for a value an alias cannot
    read (docs/API.md#aliases)."""
    values = {name: value for name, value in given.items() if grammar.alias(name) is None}
    written_by: dict[str, str] = {}
    claimed: dict[str, str] = {}
    for alias in grammar.aliases:
        if alias.name not in given:
            continue
        for target in alias.of:
            if target in given:
                raise ConflictingParameters(alias.name, target, target)
            if target in claimed:
                raise ConflictingParameters(alias.name, claimed[target], target)
            claimed[target] = alias.name
        for name, value in alias.resolve(given[alias.name], values).items():
            values[name] = value
            written_by[name] = alias.name
    return values, written_by


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


def _fields(value: str, parameter: Parameter) -> tuple[str, ...]:
    """The fields named, in serving order; on a route whose rows have fewer fields than a
    country (``Parameter.allowed``), only those, so its 400 lists its own; on a table whose rows
    are not economies (``Parameter.columns``), its columns."""
    if parameter.columns is not None:
        return column_list(value, parameter.columns)
    wanted = set(field_list(value, parameter.allowed)) - {DETAILS}
    return tuple(sorted(wanted, key=_FIELD_ORDER.__getitem__))


def _years(value: str) -> tuple[int, int]:
    """The inclusive range, oldest year first: ``2025:2023`` is ``2023:2025``, one answer and one
    cache key (a range is the years between its ends, whichever is written first)."""
    if not _YEARS.fullmatch(value):
        raise InvalidParameter(
            "years", value, "a four-digit year such as 2024, or an inclusive range such as 2022:2025"
        )
    first, _, last = value.partition(":")
    one, other = int(first), int(last or first)
    return (min(one, other), max(one, other))


def _chosen(
    year: int | None, snapshot: str | None, snapshots: tuple[str, ...], years: tuple[int, int] | None,
    recent: int | None,
) -> tuple[int | None, str | None, tuple[str, ...], tuple[int, int] | None, int | None]:
    """The one of ``year``, ``snapshot`` (one, or history's list) and ``years`` with ``mrv``
    that chooses the snapshots, the others (already checked) left unread: ``year`` first, since
    the specification gives a year its December, then the snapshots named over a range. Not a
    400: each value is valid alone, and the OpenAPI document's schemas, one per parameter,
    cannot state a rule between two (docs/DECISIONS.md#the-openapi-document-and-the-route-index)."""
    if year is not None:
        return year, None, (), None, None
    if snapshot is not None or snapshots:
        return None, snapshot, snapshots, None, None
    return None, None, (), years, recent


def _recent(value: str) -> int:
    if not _RECENT.fullmatch(value):
        raise InvalidParameter("mrv", value, f"a whole number of snapshots from 1 to {MAX_RECENT}, no leading zero")
    return int(value)


def _snapshot_list(value: str) -> tuple[str, ...]:
    return _code_list("snapshot", value, _SNAPSHOT_ITEM,
                      "snapshot ids YYYY-MM such as 2024-06,2025-12 (GET /api/v1/snapshots lists them)", MAX_SNAPSHOTS)


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
            dimension = DIMENSION_NAMES.get(folded(trimmed(name)))
            if not colon or dimension is None or dimension in named:
                raise InvalidParameter("weights", value, _ACCEPTED_WEIGHTS)
            named.add(dimension)
            scaled[dimension] = _weight(value, trimmed(number))
    divisor = math.gcd(*scaled)
    if divisor == 0:
        raise InvalidParameter("weights", value, _ACCEPTED_WEIGHTS)
    return tuple(weight // divisor for weight in scaled)


def _published_weights(value: str, grammar: Grammar) -> tuple[int, ...]:
    """The weights a sort by ``Custom Score`` or ``Custom Rank`` reads when ``weights`` is not
    given: the published ones, so the custom values are the composite and Global Rank
    (docs/METHOD.md#your-own-weights). Not a 400: each value is valid alone, and the OpenAPI
    document cannot state a rule between two parameters. A route without weights (the legacy
    one) has no custom values at all: InvalidParameter."""
    if "weights" not in grammar:
        raise InvalidParameter("sort", value, ACCEPTED_SORT)
    return PUBLISHED_WEIGHTS


def _weight(value: str, piece: str) -> int:
    if not _WEIGHT.fullmatch(piece):
        raise InvalidParameter("weights", value, _ACCEPTED_WEIGHTS)
    whole, _, decimals = piece.partition(".")
    return int(whole) * WEIGHT_SCALE + int(decimals.ljust(4, "0") or 0)


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

