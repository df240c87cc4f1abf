"""The query parameters of the OpenAPI document (docs/API.md#parameters), one object per name
and route, placed on each operation (Swagger UI 5 shows path-level ``$ref`` parameters as
nameless "any" and sends none of them).

Each schema says exactly what ``Query.parse`` accepts, so that schemathesis' positive and
negative data agree with the service (docs/DECISIONS.md#the-openapi-document-and-the-route-index):

- closed sets (region, income, sort, order, level, booleans, format, fields) are enums of their
  canonical spellings; the service also accepts any ASCII letter case, which the description
  says (an enum cannot, and a case-insensitive pattern would lose Swagger UI's drop-down);
- open sets (codes, indicator codes, years, limit) are anchored patterns as strict as the parser;
- an empty value counts as absent: the patterns and enums admit the empty string.

No parameter has an ``example`` or ``default``: Swagger UI pre-fills "Try it out" with them, and
every pre-filled parameter would be sent with the one a reader typed (``code=KEN`` filtered by an
example ``region``).
"""

from __future__ import annotations

from loaders import COUNTRY_FIELDS, DETAILS, REGION_SHORT, JsonValue
from readiness.domain.query import (
    CODE_PATTERN,
    DIMENSION_KEYS,
    INDICATOR_PATTERN,
    LIST_PARAMETERS,
    MAX_CODES,
    MAX_INDICATORS,
    MAX_LIMIT,
    MAX_OFFSET,
    WEIGHT_PATTERN,
    YEAR_PATTERN,
    YEARS_PATTERN,
    Route,
)
from readiness.domain.tables import HISTORY_FIELDS
from readiness.domain.vocabulary import CUSTOM_SORT_NAMES, FIELD_ALIASES, INCOME_GROUPS, REGION_ALIASES

Json = dict[str, JsonValue]

ANY_CASE = " Case-insensitive (ASCII letters: `lac` is `LAC`); the list shows the canonical spellings."
EMPTY = " An empty value counts as absent."
REPEATED = (" An array: comma-separated (`{name}=A,B`), or repeated (`{name}=A&{name}=B`, as generated "
            "clients send arrays), the values merged.")

BOOLEANS = ("true", "false", "1", "0")
REGION_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys([*REGION_SHORT, *REGION_SHORT.values(), *REGION_ALIASES])
)
"""Every region value the service accepts, in its canonical spelling: names, short codes, aliases."""
INCOME_NAMES: tuple[str, ...] = (*INCOME_GROUPS.values(), *INCOME_GROUPS)
SORT_NAMES: tuple[str, ...] = (*(field.name for field in COUNTRY_FIELDS), *FIELD_ALIASES)
FIELD_NAMES: tuple[str, ...] = (*(field.name for field in COUNTRY_FIELDS), DETAILS, *FIELD_ALIASES)
HISTORY_FIELD_NAMES: tuple[str, ...] = (
    *(field.name for field in COUNTRY_FIELDS if field.name in ("Country Code", "Country Name", *HISTORY_FIELDS)),
    *FIELD_ALIASES,
)
"""What ``fields`` names on history: the fields a history row can hold (``indicator_details``,
accepted and meaningless there, is left out)."""

_CODES = f"^(?:{CODE_PATTERN}(?:,{CODE_PATTERN})*)?$"
_CODE_ITEM = f"^{CODE_PATTERN}$"
_INDICATOR_ITEM = f"^{INDICATOR_PATTERN}$"
"""One element of the ``codes`` and ``indicators`` arrays: one code, never empty (``["KEN", ""]``
joined is ``codes=KEN,``, a 400). The service also reads an element that is itself a comma-separated
list; the document says one code each, so that the number of elements bounds the number of codes."""
_YEAR = f"^(?:{YEAR_PATTERN})?$"
_YEARS = f"^(?:{YEARS_PATTERN})?$"
_LIMIT = f"^(?:[1-9][0-9]{{0,{len(str(MAX_LIMIT)) - 2}}}|{MAX_LIMIT})?$"
"""1 to MAX_LIMIT without leading zeros: stricter than the parser (which reads ``007``), never looser."""
_SNAPSHOT = "^(?:[0-9]{4}-(?:0[1-9]|1[0-2]))?$"
"""A snapshot id with a month from 01 to 12, as the parser accepts."""
_WEIGHTS = (
    f"^(?:{WEIGHT_PATTERN}(?:,{WEIGHT_PATTERN}){{4}}"
    f"|(?:{'|'.join(DIMENSION_KEYS)}):{WEIGHT_PATTERN}(?:,(?:{'|'.join(DIMENSION_KEYS)}):{WEIGHT_PATTERN}){{0,4}})?$"
)
"""Five weights, or one to five dimension:weight pairs (the parser also takes long names and any
case; all weights 0 or a dimension named twice is a 400, a joint rule the pattern cannot state)."""
_OFFSET = f"^(?:0|[1-9][0-9]{{0,{len(str(MAX_OFFSET)) - 1}}})?$"
"""0 to MAX_OFFSET (all nines) without leading zeros: stricter than the parser, never looser."""


def _enum(values: tuple[str, ...]) -> Json:
    return {"type": "string", "enum": ["", *values]}


def _pattern(pattern: str) -> Json:
    return {"type": "string", "pattern": pattern}


def _list(values: tuple[str, ...]) -> Json:
    return {"type": "array", "items": {"type": "string", "enum": list(values)}}


def _pattern_list(pattern: str) -> Json:
    return {"type": "array", "items": _pattern(pattern)}


def _codes_text(route: Route) -> str:
    text = (
        f"Comma-separated ISO 3166-1 alpha-3 codes such as `KEN,BRA`, any case, at most {MAX_CODES} "
        "distinct. Codes that match nothing are skipped"
    )
    if route in (Route.V1, Route.LEGACY):
        text = ("Selects country mode: `data` is an object when exactly one economy matches, else "
                "an array. " + text + " (on the legacy route: 404)")
    return text + "."


def _text(name: str, route: Route) -> str:
    """The description of ``name`` on ``route``: Markdown (Redoc and Swagger UI render it), with
    every name in backticks and no angle brackets (Redoc reads ``<year>`` as an HTML tag)."""
    readiness = route in (Route.V1, Route.LEGACY)
    texts = {
        "code": _codes_text(route),
        "codes": _codes_text(route) + " When both `codes` and `code` are given, `codes` wins.",
        "level": ("`global` or `country`. A code selects country mode whatever `level` says; "
                  "`level=country` without `code` or `codes` is a 400." + ANY_CASE),
        "region": ("Keeps the economies of one region: its name, its short code (`RegionShort`) or "
                   "an alias. `SA` means Latin America & Caribbean (South Asia is `SAS`). With "
                   "codes, both filters apply." + ANY_CASE),
        "income": ("Keeps the economies of one World Bank income group: its name or its short form "
                   "(`LIC`, `LMC`, `UMC`, `HIC`)." + ANY_CASE),
        "fcv": ("`true` (or `1`) keeps the fragile, conflict-affected or violent economies "
                "(`FCV Status`), `false` (or `0`) the others." + ANY_CASE),
        "year": ("A four-digit year: the answer comes from that year's December archive (snapshot "
                 "id `YYYY-12`, e.g. `2025-12`). Omitted: the current snapshot. A year without an "
                 "archive gives 404; `/api/v1/snapshots` lists them."),
        "years": ("A four-digit year (`2025`) or an inclusive range (`2023:2025`, first year not "
                  "after the last): keeps the snapshots of those years. Omitted: every December "
                  "archive and the current snapshot.") if route is not Route.AGGREGATES else (
                  "A four-digit year (`2025`) or an inclusive range (`2023:2025`, first year not "
                  "after the last): the December archives and the current snapshot of those years, "
                  "as history takes them; none gives 404. Omitted: the current snapshot only."),
        "sort": ("The field to sort by: a field name or an alias. Missing values sort last; ties "
                 "break on `Country Code`. Default: `Country Name`, ascending."
                 + (" With `weights` only (else a 400): `Custom Score` (alias `custom`) or `Custom Rank`."
                    if "weights" in route.accepted else "") + ANY_CASE),
        "order": ("`asc` or `desc`. Default: `desc` for numbers (ranks included), `asc` for text "
                  "and true/false fields." + ANY_CASE),
        "fields": ("The top-level fields to keep, comma-separated: names or aliases. Keys keep "
                   f"their usual order; `{DETAILS}` is kept whenever present. `Population, total` "
                   "is recognised whole despite its comma." + ANY_CASE) if readiness else (
                   "The values to keep besides `Country Code`, `Country Name` and `snapshot`, "
                   "comma-separated: names or aliases, in their usual order. Default: the composite, "
                   "the five dimension scores and both ranks." + ANY_CASE),
        "shortnames": ("`true` (or `1`) adds `RegionShort` after `Region` and the alias keys ("
                       + ", ".join(f"`{alias}`" for alias in FIELD_ALIASES)
                       + ") after their long fields." + ANY_CASE),
        "indicators": (f"Comma-separated indicator codes such as `IT.NET.USER.ZS,GE.EST`, any case, "
                       f"at most {MAX_INDICATORS} distinct: letters, digits, `.` and `_`, at most 40 "
                       "characters each. "
                       + (f"Keeps only those `{DETAILS}` elements, in country mode (checked, then "
                          "ignored, at the global level)." if readiness else
                          "Keeps only those indicators' rows.")),
        "limit": (f"At most this many rows, 1 to {MAX_LIMIT}, applied after sorting. `count` is the "
                  "number of rows served; the `X-Total-Count` header, the number that matched."
                  + (" While rows remain, the `Link` header (RFC 8288, `rel=\"next\"`) gives the "
                     "next page's URL." if route is not Route.LEGACY else "")),
        "offset": (f"Skips this many rows, 0 to {MAX_OFFSET}, after sorting and before `limit`. "
                   "Default 0. Follow the `Link` header (`rel=\"next\"`) rather than counting: "
                   "it is there while rows remain and absent on the last page."),
        "snapshot": ("A snapshot id `YYYY-MM` from `/api/v1/snapshots` (any listed one, June archives "
                     "included): the answer comes from that snapshot, and `X-Readiness-Snapshot` names "
                     "it. An id not listed gives 404. Give one of `year`, `years` and `snapshot`."),
        "weights": ("Your own composite: dimension weights, five numbers in the order "
                    + ", ".join(f"`{key}`" for key in DIMENSION_KEYS)
                    + " (`1,1,1,1,1`), or `dimension:weight` pairs (`infrastructure:2,human:1`; a "
                    "dimension not named weighs 0). Each weight 0 to 9999, at most four decimals, "
                    "not all 0. Adds `Custom Score` and `Custom Rank` beside the published values; "
                    "they are not the published index. See docs/METHOD.md#your-own-weights."),
        "shape": ("`wide` (default) or `long`: one row per economy, snapshot and measure (`measure`, "
                  "`value`), as tidy-data tools read it." + ANY_CASE),
        "by": ("Groups the economies: `world` (default, one group), `region`, `income` or `fcv`."
               + ANY_CASE),
        "format": ("`json` (default) or `csv`: `text/csv; charset=utf-8` (RFC 4180, CRLF line "
                   "ends, UTF-8 with a byte order mark, a header row even without rows)"
                   + (f", one row per economy, `{DETAILS}` left out." if readiness else ".")
                   + " Errors stay JSON." + ANY_CASE),
    }
    return texts[name] + (REPEATED.format(name=name) if name in LIST_PARAMETERS else "") + EMPTY


def _schema(name: str, route: Route) -> Json:
    schemas: dict[str, Json] = {
        "code": _pattern(_CODES),
        "codes": _pattern_list(_CODE_ITEM),
        "level": _enum(("global", "country")),
        "region": _enum(REGION_NAMES),
        "income": _enum(INCOME_NAMES),
        "fcv": _enum(BOOLEANS),
        "year": _pattern(_YEAR),
        "years": _pattern(_YEARS),
        "sort": _enum((*SORT_NAMES, *CUSTOM_SORT_NAMES) if "weights" in route.accepted else SORT_NAMES),
        "order": _enum(("asc", "desc")),
        "fields": _list(FIELD_NAMES if route in (Route.V1, Route.LEGACY) else HISTORY_FIELD_NAMES),
        "shortnames": _enum(BOOLEANS),
        "indicators": _pattern_list(_INDICATOR_ITEM),
        "limit": _pattern(_LIMIT),
        "offset": _pattern(_OFFSET),
        "snapshot": _pattern(_SNAPSHOT),
        "weights": _pattern(_WEIGHTS),
        "shape": _enum(("wide", "long")),
        "by": _enum(("world", "region", "income", "fcv")),
        "format": _enum(("json", "csv")),
    }
    return schemas[name]


def query_parameter(name: str, route: Route) -> Json:
    """The parameter object of ``name`` on ``route``: inline, never a ``$ref``."""
    parameter: Json = {"name": name, "in": "query", "required": False,
                       "description": _text(name, route), "schema": _schema(name, route)}
    if name in LIST_PARAMETERS:
        # An array: explode false sends codes=a,b, as the service reads it; a generated client
        # that sends codes=a&codes=b (exploded) is read alike, repeated values merged.
        parameter.update(style="form", explode=False)
    return parameter


def route_parameters(route: Route) -> list[JsonValue]:
    """The query parameters of ``route``, in the order the service lists them in its errors."""
    return [query_parameter(name, route) for name in route.accepted]


IF_NONE_MATCH: Json = {
    "name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
    "description": "An `ETag` from an earlier answer: 304 without a body if it still matches.",
}
IF_MODIFIED_SINCE: Json = {
    "name": "If-Modified-Since", "in": "header", "required": False, "schema": {"type": "string"},
    "description": ("An HTTP date: 304 without a body when the snapshot was published no later. "
                    "Read only without `If-None-Match` (RFC 9110)."),
}
