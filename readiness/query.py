"""Query: the parsed, validated and canonical form of a request's parameters (docs/API.md, Parameters).

Two requests that must get the same answer parse to equal Queries, so ``canonical()`` is the
cache key's query part (docs/CACHING.md). Parsing is pure: no I/O, no clock, no snapshot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from collections.abc import Mapping
from urllib.parse import parse_qsl, quote, urlencode

from loaders import COUNTRY_FIELDS, DETAILS, FIELD_BY_NAME, Kind

from readiness.errors import InvalidParameter, InvalidRequest
from readiness.vocabulary import canonical_region, field_list, folded, sort_field, trimmed

PARAMETERS: tuple[str, ...] = (
    "code", "codes", "level", "region", "year", "sort", "order", "fields", "shortnames", "indicators",
)
"""The query parameters of docs/API.md, Parameters; any other name is ignored."""

MAX_CODES = 300
MAX_INDICATORS = 100

CODE_PATTERN = "[A-Za-z]{3}"
INDICATOR_PATTERN = "[A-Za-z0-9._]{1,40}"
YEAR_PATTERN = "[0-9]{4}"
"""What one code, indicator code and year look like: ASCII only, so nothing a client sends
can become a path or an unbounded key (the OpenAPI document reuses these)."""

_CODE = re.compile(CODE_PATTERN)
_YEAR = re.compile(YEAR_PATTERN)
_INDICATOR = re.compile(INDICATOR_PATTERN)
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_DEFAULT_SORT = "Country Name"
_FIELD_ORDER = {field.name: position for position, field in enumerate(COUNTRY_FIELDS)}


@dataclass(frozen=True, slots=True)
class Query:
    """What a request asks for, with every default resolved and every name canonical.

    ``codes`` non-empty means country mode. ``fields`` is None for all fields, else the
    top-level fields to keep in serving order (indicator_details is always kept where present,
    so it never appears here). ``indicators`` is None unless country mode filters details.
    """

    codes: tuple[str, ...] = ()
    region: str | None = None
    year: int | None = None
    sort: str = _DEFAULT_SORT
    descending: bool = False
    fields: tuple[str, ...] | None = None
    shortnames: bool = False
    indicators: tuple[str, ...] | None = None
    _canonical: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Computed once: the cache key needs it on every request.
        object.__setattr__(self, "_canonical", self._canonical_form())

    @property
    def country_mode(self) -> bool:
        """True when code or codes selected countries (docs/API.md, The response)."""
        return bool(self.codes)

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> Query:
        """Validate and canonicalize request parameters (one value per name).

        Unknown names are ignored; an empty value counts as absent (docs/DECISIONS.md). Raises
        InvalidParameter naming the parameter and what it accepts, or InvalidRequest for
        level=country without a code.
        """
        values = {name: trimmed(params[name]) for name in PARAMETERS if trimmed(params.get(name, ""))}
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
        return cls(
            codes=codes,
            region=canonical_region(values["region"]) if "region" in values else None,
            year=_year(values["year"]) if "year" in values else None,
            sort=sort,
            descending=_descending(values.get("order"), sort),
            fields=_fields(values["fields"]) if "fields" in values else None,
            shortnames=_boolean("shortnames", values["shortnames"]) if "shortnames" in values else False,
            indicators=_indicators(values["indicators"]) if "indicators" in values and codes else None,
        )

    def canonical(self) -> str:
        """A query string, in fixed order with defaults left out, that parses back to self.

        Equal exactly when two responses must be byte-identical (on one route and snapshot).
        """
        return self._canonical

    def _canonical_form(self) -> str:
        pairs: list[tuple[str, str]] = []
        if self.codes:
            pairs.append(("codes", ",".join(self.codes)))
        if self.region is not None:
            pairs.append(("region", self.region))
        if self.year is not None:
            pairs.append(("year", f"{self.year:04d}"))
        if (self.sort, self.descending) != (_DEFAULT_SORT, False):
            pairs += [("sort", self.sort), ("order", "desc" if self.descending else "asc")]
        if self.fields is not None:
            pairs.append(("fields", ",".join(self.fields) or DETAILS))
        if self.shortnames:
            pairs.append(("shortnames", "true"))
        if self.indicators is not None:
            pairs.append(("indicators", ",".join(self.indicators)))
        return urlencode(pairs, quote_via=quote, safe=",")


@lru_cache(maxsize=1024)
def parse_query_string(raw: str) -> Query:
    """``Query.parse`` of a URL query string; the last value of a repeated parameter wins.

    ``raw`` is the query as Tornado gives it: one character per byte of the request line
    (Tornado decodes it as Latin-1). Its bytes, sent raw or percent-encoded, are decoded as
    UTF-8; bytes that are not UTF-8 become U+FFFD, which no parameter accepts (a 400 naming
    it), or are ignored with an unknown parameter. Memoized, because popular requests repeat
    the same strings and parsing is the largest cost of a cache hit; at most 1024 strings of
    at most 8 KiB (the URL limit) are kept. Raises like ``Query.parse`` (errors are not
    memoized).
    """
    # Percent-escapes decoded as Latin-1 too: every character of every pair is then one byte.
    pairs = parse_qsl(raw, keep_blank_values=True, encoding="latin-1")
    return Query.parse({_text(name): _text(value) for name, value in pairs})


def _text(as_bytes: str) -> str:
    """Bytes held one per character (Latin-1) as UTF-8 text."""
    return as_bytes if as_bytes.isascii() else as_bytes.encode("latin-1").decode("utf-8", "replace")


def archive_id(year: int) -> str:
    """The snapshot a year selects: its December (docs/API.md, Parameters: year)."""
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
    if value is None:
        return FIELD_BY_NAME[sort].kind is Kind.NUMBER
    order = folded(value)
    if order not in ("asc", "desc"):
        raise InvalidParameter("order", value, "asc or desc")
    return order == "desc"


def _fields(value: str) -> tuple[str, ...]:
    wanted = set(field_list(value)) - {DETAILS}
    return tuple(sorted(wanted, key=_FIELD_ORDER.__getitem__))


def _boolean(name: str, value: str) -> bool:
    flag = _BOOLEANS.get(folded(value))
    if flag is None:
        raise InvalidParameter(name, value, "true, false, 1 or 0")
    return flag

