"""The query parameters, declared once: what each name accepts and means (docs/API.md#parameters).

A ``Parameter`` is data: its name, its description, the values it accepts (a closed set of
canonical spellings, or the pattern of an open set), whether it is an array and whether it
pages. A ``Grammar`` is what one route's query string may say: its parameters in the order its
errors list them, and whether an unknown name is refused. The route table
(``readiness/domain/routes.py``) gives each route its grammar; from the declarations come the
parser's accepted names (``readiness/domain/query.py``), the OpenAPI parameters
(``readiness/http/openapi_parameters.py``) and the edge's names (``readiness/edge_routes.py``).

Where one name means a little more on some routes (``fields`` on history names a history row's
fields; ``sort`` where ``weights`` is taken also takes the custom values), each meaning is a
declaration of its own, so no consumer asks which route it is on. The patterns are as strict as the parser
or stricter, never looser, and admit the empty string (an empty value counts as absent), so
that schemathesis' positive and negative data agree with the service
(docs/DECISIONS.md#the-openapi-document-and-the-route-index). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from loaders import COUNTRY_FIELDS, DETAILS, REGION_SHORT, SERIES_FIELDS
from readiness.domain.errors import UnknownParameter
from readiness.domain.vocabulary import (
    CUSTOM_SORT_NAMES,
    FIELD_ALIASES,
    INCOME_GROUPS,
    REGION_ALIASES,
    nearest_name,
    trimmed,
)

MAX_CODES = 300
MAX_INDICATORS = 100
MAX_LIMIT = 1000
"""``limit`` accepts 1..MAX_LIMIT rows (docs/API.md#parameters: limit)."""
MAX_OFFSET = 9_999_999
"""``offset`` accepts 0..MAX_OFFSET rows skipped (docs/API.md#parameters: offset)."""
MAX_RECENT = 999
"""``mrv`` keeps at most this many of the most recent snapshots (docs/API.md#parameters: mrv)."""
MAX_SNAPSHOTS = 100
"""History's ``snapshot`` names at most this many distinct snapshots (docs/API.md#parameters: snapshot)."""

CODE_PATTERN = "[A-Za-z]{3}"
INDICATOR_PATTERN = "[A-Za-z0-9._]{1,40}"
YEAR_PATTERN = "[0-9]{4}"
YEARS_PATTERN = "[0-9]{4}(:[0-9]{4})?"
LIMIT_PATTERN = "[0-9]{1,4}"
OFFSET_PATTERN = "[0-9]{1,7}"
SNAPSHOT_PATTERN = "[0-9]{4}-[0-9]{2}"
WEIGHT_PATTERN = "[0-9]{1,4}(\\.[0-9]{1,4})?"
"""What one code, indicator code, year, year range and limit look like: ASCII only, so nothing
a client sends can become a path or an unbounded key; offset, a snapshot id and one weight
likewise. The parser matches these (``readiness/domain/query.py``)."""

DIMENSION_KEYS: tuple[str, ...] = ("infrastructure", "human", "access", "innovation", "governance")
"""How ``weights`` names the five dimensions, in DIMENSIONS order (docs/METHOD.md#your-own-weights)."""

ANY_CASE = " Case-insensitive (ASCII letters: `lac` is `LAC`); the list shows the canonical spellings."

BOOLEANS: tuple[str, ...] = ("true", "false", "1", "0")
REGION_NAMES: tuple[str, ...] = tuple(dict.fromkeys([*REGION_SHORT, *REGION_SHORT.values(), *REGION_ALIASES]))
"""Every region value the service accepts, in its canonical spelling: names, short codes, aliases."""
INCOME_NAMES: tuple[str, ...] = (*INCOME_GROUPS.values(), *INCOME_GROUPS)
SORT_NAMES: tuple[str, ...] = (*(field.name for field in COUNTRY_FIELDS), *FIELD_ALIASES)
FIELD_NAMES: tuple[str, ...] = (*(field.name for field in COUNTRY_FIELDS), DETAILS, *FIELD_ALIASES)
HISTORY_ROW_FIELDS: frozenset[str] = frozenset(SERIES_FIELDS)
"""The fields a history row can hold, which ``fields`` may name on history: those a snapshot's
series keeps (``loaders.SERIES_FIELDS``), history's source."""
HISTORY_FIELD_NAMES: tuple[str, ...] = (
    *(field.name for field in COUNTRY_FIELDS if field.name in HISTORY_ROW_FIELDS),
    *FIELD_ALIASES,
)
"""What ``fields`` names on history: the fields a history row can hold (``indicator_details``,
accepted and meaningless there, is left out)."""

CODES_ANY = f"^(?:{CODE_PATTERN}(?:,{CODE_PATTERN})*)?$"
CODE_ITEM = f"^{CODE_PATTERN}$"
INDICATOR_ITEM = f"^{INDICATOR_PATTERN}$"
"""One element of the ``codes`` and ``indicators`` arrays: one code, never empty (``["KEN", ""]``
joined is ``codes=KEN,``, a 400). The service also reads an element that is itself a comma-separated
list; the document says one code each, so that the number of elements bounds the number of codes."""
YEAR_ANY = f"^(?:{YEAR_PATTERN})?$"
YEARS_ANY = f"^(?:{YEARS_PATTERN})?$"
LIMIT_ANY = f"^(?:[1-9][0-9]{{0,{len(str(MAX_LIMIT)) - 2}}}|{MAX_LIMIT})?$"
"""1 to MAX_LIMIT without leading zeros: stricter than the parser (which reads ``007``), never looser."""
OFFSET_ANY = f"^(?:0|[1-9][0-9]{{0,{len(str(MAX_OFFSET)) - 1}}})?$"
"""0 to MAX_OFFSET (all nines) without leading zeros: stricter than the parser, never looser."""
SNAPSHOT_ANY = "^(?:[0-9]{4}-(?:0[1-9]|1[0-2]))?$"
"""A snapshot id with a month from 01 to 12, as the parser accepts."""
SNAPSHOT_ITEM = "^[0-9]{4}-(?:0[1-9]|1[0-2])$"
"""One element of history's ``snapshot`` array: a snapshot id, never empty."""
RECENT_ANY = f"^(?:[1-9][0-9]{{0,{len(str(MAX_RECENT)) - 1}}})?$"
"""1 to MAX_RECENT (all nines) without leading zeros: exactly what the parser reads, so the canonical
query writes a value as it came."""


def _not_all_zeros(most: int) -> str:
    """1 to ``most`` digits, not all 0: the first non-zero one after 0 to most - 1 zeros."""
    return "|".join("0" * zeros + "[1-9]" + (f"[0-9]{{0,{most - 1 - zeros}}}" if zeros < most - 1 else "")
                    for zeros in range(most))


def _times(pattern: str, count: int) -> str:
    """``pattern`` exactly ``count`` times (nothing for none)."""
    return f"(?:{pattern}){{{count}}}" if count else ""


_ANY_WEIGHT = "[0-9]{1,4}(?:\\.[0-9]{1,4})?"
_ZERO_WEIGHT = "0{1,4}(?:\\.0{1,4})?"
_NON_ZERO_WEIGHT = f"(?:(?:{_not_all_zeros(4)})(?:\\.[0-9]{{1,4}})?|0{{1,4}}\\.(?:{_not_all_zeros(4)}))"
_POSITIONAL_WEIGHTS = "|".join(
    _times(f"{_ZERO_WEIGHT},", first) + _NON_ZERO_WEIGHT + _times(f",{_ANY_WEIGHT}", len(DIMENSION_KEYS) - 1 - first)
    for first in range(len(DIMENSION_KEYS))
)
"""Five weights, the first non-zero one at each of the five places in turn."""
_NAMED_WEIGHTS = "|".join(
    "".join(f"(?:{key}:{_ZERO_WEIGHT},)?" for key in DIMENSION_KEYS[:first])
    + f"{DIMENSION_KEYS[first]}:{_NON_ZERO_WEIGHT}"
    + "".join(f"(?:,{key}:{_ANY_WEIGHT})?" for key in DIMENSION_KEYS[first + 1:])
    for first in range(len(DIMENSION_KEYS))
)
"""One to five dimension:weight pairs in DIMENSION_KEYS order, the first non-zero weight's
dimension at each place in turn, those before it 0."""
WEIGHTS_ANY = f"^(?:{_POSITIONAL_WEIGHTS}|{_NAMED_WEIGHTS})?$"
"""Five weights, or one to five dimension:weight pairs, not all 0 and no dimension twice: the
parser's rules between the weights, stated in plain regular expressions (no lookaround, which
schemathesis' generator, hypothesis, meets only by filtering). Stricter than the parser, never
looser: pairs in DIMENSION_KEYS order only (the parser reads any order, long names and any case)."""


@dataclass(frozen=True, slots=True, eq=False)
class Parameter:
    """One query parameter: its name, what it means (``text``: Markdown, every name in backticks,
    no angle brackets, for docs/API.md's readers and the OpenAPI document) and what it accepts.

    ``choices`` is a closed set, every spelling the service accepts in its canonical case (any
    ASCII case is accepted too); ``pattern`` an open set's anchored regex (admitting the empty
    string), of one element when ``many``. ``many``: an array, comma-separated or repeated, the
    repeated values merged. ``paging``: it chooses which rows of the answer are served.
    ``default``: the value that means the same as leaving it out. ``allowed``: for a list of
    field names, the fields the route's rows have (None: every field). ``country_mode_only``:
    checked wherever given, applied only when ``code`` or ``codes`` selects economies.
    ``joint``: those of ``choices`` the service reads only beside another parameter
    (``level=country`` needs a code, the specification's 400), left out of the OpenAPI document,
    whose schemas, one per parameter, cannot state a rule between two; ``text`` says them.

    ``bounds``: a whole number's least and greatest values, for the OpenAPI document's integer
    schema (generated clients type it ``int``); its ``pattern`` stays the parser's, as strict.
    ``columns``: for ``fields`` on a table whose rows are not economies (the indicator table), its
    columns in serving order, matched by name in any ASCII case (None: the economies' fields and
    their aliases).

    ``read`` is set for a parameter only its own route reads, declared in the route's entry
    (``readiness/domain/routes.py``): it checks one value and returns its canonical text (or
    raises InvalidParameter naming the parameter), which the route's compute function gets as
    ``query.option(name)``. The shared parameters have none: ``Query.parse`` reads each into a
    field of its own.
    """

    name: str
    text: str
    choices: tuple[str, ...] = ()
    pattern: str | None = None
    many: bool = False
    paging: bool = False
    default: str | None = None
    allowed: frozenset[str] | None = None
    country_mode_only: bool = False
    joint: tuple[str, ...] = ()
    bounds: tuple[int, int] | None = None
    columns: tuple[str, ...] | None = None
    read: Callable[[str], str] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Alias:
    """Another name for one or more parameters, as another API spells it (``per_page`` for
    ``limit``, the World Bank's; ``time`` for ``years``, Our World in Data's): docs/API.md#aliases.

    ``of`` names the parameters it gives a value to: given beside any of them, or beside another
    alias of one of them, it is a 400 naming both (``ConflictingParameters``). ``resolve`` turns
    its value, beside the values given so far (canonical names, earlier aliases resolved), into
    the canonical names' values it stands for, which ``Query.parse`` then reads as if given: one
    meaning, one canonical query and one cache key. It raises InvalidParameter naming the alias
    for a value it cannot read; a canonical name's refusal of what it wrote is reported under the
    alias, with ``accepted``. ``convention`` says whose spelling it is, ``text`` what it means
    (Markdown, for docs/API.md). Aliases are left out of the OpenAPI document, whose parameter
    schemas cannot say "not both" (docs/DECISIONS.md#aliases-the-conventions-analysts-know)."""

    name: str
    of: tuple[str, ...]
    convention: str
    text: str
    accepted: str
    resolve: Callable[[str, Mapping[str, str]], dict[str, str]]


@dataclass(frozen=True, slots=True, eq=False)
class Grammar:
    """What one route's query string may say: its ``parameters``, in the order its errors list
    them, and whether a name it does not take is refused (``strict``: every v1 route) or
    ignored (the legacy route, as it always was: docs/DECISIONS.md#parameter-rules). Names
    beginning with ``_`` are ignored everywhere (cache busters)."""

    parameters: tuple[Parameter, ...] = ()
    strict: bool = True
    aliases: tuple[Alias, ...] = ()
    """Other names for some of ``parameters`` (``Alias``), in the order they are resolved."""
    names: tuple[str, ...] = field(init=False)
    """The parameters' names, in order."""
    accepted: tuple[str, ...] = field(init=False)
    """Every name it reads, in order: the parameters', then the aliases'."""
    lists: frozenset[str] = field(init=False)
    """The names whose repeated values are merged (``many``)."""
    _by_name: Mapping[str, Parameter] = field(init=False, repr=False)
    _by_alias: Mapping[str, Alias] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(parameter.name for parameter in self.parameters))
        object.__setattr__(self, "accepted", (*self.names, *(alias.name for alias in self.aliases)))
        object.__setattr__(self, "lists", frozenset(p.name for p in self.parameters if p.many))
        object.__setattr__(self, "_by_name", {parameter.name: parameter for parameter in self.parameters})
        object.__setattr__(self, "_by_alias", {alias.name: alias for alias in self.aliases})

    def __contains__(self, name: str) -> bool:
        """Whether ``name`` is one of its parameters (an alias is not: ``alias``)."""
        return name in self._by_name

    def alias(self, name: str) -> Alias | None:
        """The declaration of the alias ``name``, or None when it is none of this grammar's."""
        return self._by_alias.get(name)

    def parameter(self, name: str) -> Parameter:
        """The declaration of ``name``. Raises KeyError when the route does not take it."""
        return self._by_name[name]

    def values(self, params: Mapping[str, str]) -> dict[str, str]:
        """The values of ``params`` (one per name) that count: names beginning with ``_`` and,
        on a lenient route, other unknown names dropped; each value trimmed of ASCII
        whitespace; an empty one absent (docs/DECISIONS.md#query-parameters).

        Raises UnknownParameter, suggesting the nearest accepted name, for another name on a
        strict route."""
        if self.strict:
            for name in params:
                if name not in self._by_name and self.alias(name) is None and not name.startswith("_"):
                    raise UnknownParameter(name, nearest_name(name, self.accepted), self.accepted)
        kept: dict[str, str] = {}
        for name in self.accepted:  # aliases included: Query.parse resolves them
            value = params.get(name)
            if value is not None and (value := trimmed(value)):
                kept[name] = value
        return kept


def _codes_text(country_query: bool) -> str:
    text = (
        f"Comma-separated ISO 3166-1 alpha-3 codes such as `KEN,BRA`, any case, at most {MAX_CODES} "
        "distinct. Codes that match nothing are skipped"
    )
    if country_query:
        text = ("Selects country mode: `data` is an object when exactly one economy matches, else "
                "an array. " + text + " (on the legacy route: 404)")
    return text + "."


_CODES_WIN = " When both `codes` and `code` are given, `codes` wins."
_SORT = ("The field to sort by: a field name or an alias. Missing values sort last; ties break on "
         "`Country Code`. Default: `Country Name`, ascending.")
_LIMIT = (f"At most this many rows, 1 to {MAX_LIMIT}, applied after sorting. `count` is the number of rows "
          "served; the `X-Total-Count` header, the number that matched.")
_FORMAT = ("`json` (default) or `csv`: `text/csv; charset=utf-8` (RFC 4180, CRLF line ends, UTF-8 with a byte "
           "order mark, a header row even without rows)")
_YEARS = "A four-digit year (`2025`) or an inclusive range (`2023:2025`; `2025:2023` is the same range): "

READINESS_CODE = Parameter("code", _codes_text(True), pattern=CODES_ANY)
READINESS_CODES = Parameter("codes", _codes_text(True) + _CODES_WIN, pattern=CODE_ITEM, many=True)
CODE = Parameter("code", _codes_text(False), pattern=CODES_ANY)
CODES = Parameter("codes", _codes_text(False) + _CODES_WIN, pattern=CODE_ITEM, many=True)
LEVEL = Parameter(
    "level",
    "`global`. A code selects country mode whatever `level` says. `country` is read too, but only beside "
    "`code` or `codes`, where it changes nothing: without either it is a 400, so the list leaves it out."
    + ANY_CASE,
    choices=("global", "country"), default="global", joint=("country",),
)
REGION = Parameter(
    "region",
    "Keeps the economies of one region: its name, its short code (`RegionShort`) or an alias. `SA` means "
    "Latin America & Caribbean (South Asia is `SAS`). With codes, both filters apply." + ANY_CASE,
    choices=REGION_NAMES,
)
INCOME = Parameter(
    "income",
    "Keeps the economies of one World Bank income group: its name or its short form (`LIC`, `LMC`, `UMC`, "
    "`HIC`)." + ANY_CASE,
    choices=INCOME_NAMES,
)
FCV = Parameter(
    "fcv",
    "`true` (or `1`) keeps the fragile, conflict-affected or violent economies (`FCV Status`), `false` (or "
    "`0`) the others." + ANY_CASE,
    choices=BOOLEANS,
)
YEAR = Parameter(
    "year",
    "A four-digit year: the answer comes from that year's December archive (snapshot id `YYYY-12`, e.g. "
    "`2025-12`), or for the current snapshot's year from the current snapshot (its December not out yet). "
    "Omitted: the current snapshot. A year without either gives 404; `/api/v1/snapshots` lists them.",
    pattern=YEAR_ANY, bounds=(1000, 9999),
)
YEARS = Parameter(
    "years",
    _YEARS + "keeps the snapshots of those years. Omitted: every December archive and the current snapshot.",
    pattern=YEARS_ANY,
)
RECENT = Parameter(
    "mrv",
    f"Most recent values, as the World Bank's API reads it: keeps the 1 to {MAX_RECENT} newest of the snapshots "
    "the answer would otherwise read (those of `years` when given, else every December archive and the current "
    "snapshot). Read like `years`: `year` or `snapshot` given beside it choose instead.",
    pattern=RECENT_ANY, bounds=(1, MAX_RECENT),
)
HISTORY_SNAPSHOTS = Parameter(
    "snapshot",
    f"Snapshot ids `YYYY-MM` from `/api/v1/snapshots`, at most {MAX_SNAPSHOTS} distinct (June archives "
    "included): the history of those snapshots, oldest first, instead of the December archives and the current "
    "one. An id not listed gives 404. Given, it chooses over `years` and `mrv` (checked, then ignored).",
    pattern=SNAPSHOT_ITEM, many=True,
)
AGGREGATE_YEARS = Parameter(
    "years",
    _YEARS + "the December archives and the current snapshot of those years, as history takes them; none "
    "gives 404. Omitted: the current snapshot only.",
    pattern=YEARS_ANY,
)
SNAPSHOT = Parameter(
    "snapshot",
    "A snapshot id `YYYY-MM` from `/api/v1/snapshots` (any listed one, June archives included): the answer "
    "comes from that snapshot, and `X-Readiness-Snapshot` names it. An id not listed gives 404. Give one of "
    "`year`, `years` and `snapshot`: given together, `year` chooses (a year means its December), then "
    "`snapshot` over `years`; the others are checked (a malformed one is a 400), then ignored.",
    pattern=SNAPSHOT_ANY,
)
SORT = Parameter("sort", _SORT + ANY_CASE, choices=SORT_NAMES)
CUSTOM_SORT = Parameter(
    "sort",
    _SORT + " Also `Custom Score` (alias `custom`) or `Custom Rank`, by `weights`; without them, by the "
    "published weights (all equal, `1,1,1,1,1`, as if given: Custom Score is then the composite)." + ANY_CASE,
    choices=(*SORT_NAMES, *CUSTOM_SORT_NAMES),
)
ORDER = Parameter(
    "order",
    "`asc` or `desc`. Default: `desc` for numbers (ranks included), `asc` for text and true/false fields."
    + ANY_CASE,
    choices=("asc", "desc"),
)
READINESS_FIELDS = Parameter(
    "fields",
    "The top-level fields to keep, comma-separated: names or aliases. Keys keep their usual order; "
    f"`{DETAILS}` is kept whenever present. `Population, total` is recognised whole despite its comma."
    + ANY_CASE,
    choices=FIELD_NAMES, many=True,
)
HISTORY_FIELDS_PARAMETER = Parameter(
    "fields",
    "The values to keep besides `Country Code`, `Country Name` and `snapshot`, comma-separated: names or "
    "aliases, in their usual order. Default: the composite, the five dimension scores and both ranks."
    + ANY_CASE,
    choices=HISTORY_FIELD_NAMES, many=True, allowed=HISTORY_ROW_FIELDS,
)
def indicator_fields(columns: tuple[str, ...], identity: tuple[str, ...]) -> Parameter:
    """``fields`` on the indicator table, whose rows have ``columns``: those besides ``identity``
    (always kept) that a client may name, matched in any ASCII case."""
    named = tuple(column for column in columns if column not in identity)
    return Parameter(
        "fields",
        "The columns to keep besides " + ", ".join(f"`{column}`" for column in identity) + ", comma-separated, "
        "in their usual order. Default: every column." + ANY_CASE,
        choices=named, many=True, columns=named,
    )


SHORTNAMES = Parameter(
    "shortnames",
    "`true` (or `1`) adds `RegionShort` after `Region` and the alias keys ("
    + ", ".join(f"`{alias}`" for alias in FIELD_ALIASES) + ") after their long fields." + ANY_CASE,
    choices=BOOLEANS, default="false",
)
_INDICATOR_CODES = (f"Comma-separated indicator codes such as `IT.NET.USER.ZS,GE.EST`, any case, at most "
                    f"{MAX_INDICATORS} distinct: letters, digits, `.` and `_`, at most 40 characters each. ")
READINESS_INDICATORS = Parameter(
    "indicators",
    _INDICATOR_CODES + f"Keeps only those `{DETAILS}` elements, in country mode (checked, then ignored, at the "
    "global level).",
    pattern=INDICATOR_ITEM, many=True, country_mode_only=True,
)
INDICATORS = Parameter(
    "indicators", _INDICATOR_CODES + "Keeps only those indicators' rows.", pattern=INDICATOR_ITEM, many=True
)
LIMIT = Parameter(
    "limit",
    _LIMIT + " The `Link` header (RFC 8288) gives the next page's URL (`rel=\"next\"`) while rows remain, and "
    "the `first`, `prev` and `last` pages' where there are such pages. Alias: `per_page`.",
    pattern=LIMIT_ANY, paging=True, bounds=(1, MAX_LIMIT),
)
LEGACY_LIMIT = Parameter("limit", _LIMIT, pattern=LIMIT_ANY, paging=True, bounds=(1, MAX_LIMIT))
OFFSET = Parameter(
    "offset",
    f"Skips this many rows, 0 to {MAX_OFFSET}, after sorting and before `limit`. Default 0. Follow the `Link` "
    "header (`rel=\"next\"`) rather than counting: it is there while rows remain and absent on the last page. "
    "Alias: `page` (`offset` is `(page - 1) * limit`).",
    pattern=OFFSET_ANY, paging=True, default="0", bounds=(0, MAX_OFFSET),
)
WEIGHTS = Parameter(
    "weights",
    "Your own composite: dimension weights, five numbers in the order "
    + ", ".join(f"`{key}`" for key in DIMENSION_KEYS)
    + " (`1,1,1,1,1`), or `dimension:weight` pairs (`infrastructure:2,human:1`; a dimension not named weighs "
    "0, none named twice). Each weight 0 to 9999, at most four decimals, not all 0. The pattern lists the pairs "
    "in the order above; any order is read alike, and long names (`Human Capital`) in any case. Adds `Custom "
    "Score` and `Custom Rank` beside the published values; they are not the published index. See "
    "/method#your-own-weights.",
    pattern=WEIGHTS_ANY,
)
SHAPE = Parameter(
    "shape",
    "`wide` (default) or `long`: one row per economy, snapshot and measure (`measure`, `value`), as tidy-data "
    "tools read it." + ANY_CASE,
    choices=("wide", "long"), default="wide",
)
BY = Parameter(
    "by",
    "Groups the economies: `world` (default, one group), `region`, `income` or `fcv`." + ANY_CASE,
    choices=("world", "region", "income", "fcv"), default="world",
)
READINESS_FORMAT = Parameter(
    "format",
    _FORMAT + f", one row per economy, `{DETAILS}` left out. Errors stay JSON." + ANY_CASE,
    choices=("json", "csv"), default="json",
)
FORMAT = Parameter("format", _FORMAT + ". Errors stay JSON." + ANY_CASE, choices=("json", "csv"), default="json")

COUNTRY_QUERY = Grammar((
    READINESS_CODE, READINESS_CODES, LEVEL, REGION, INCOME, FCV, YEAR, SNAPSHOT, CUSTOM_SORT, ORDER,
    READINESS_FIELDS, SHORTNAMES, READINESS_INDICATORS, LIMIT, WEIGHTS, OFFSET, READINESS_FORMAT,
))
"""The grammar of ``/api/v1/readiness``, the country query, and the default of ``Query.parse``
(docs/API.md#parameters). The legacy route reads a subset (``readiness/domain/routes.py``)."""
