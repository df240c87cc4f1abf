"""Names a client may use: field aliases, region aliases and short codes, income groups, and
the nearest parameter name to a misspelt one (docs/API.md#field-names-and-aliases,
docs/DECISIONS.md#parameter-rules).

The one place that maps what a client types to the names in the data; everything else works
with the canonical names only.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence

from loaders import COMPOSITE, COUNTRY_FIELDS, DETAILS, REGION_SHORT
from readiness.domain.errors import InvalidParameter

FIELD_ALIASES: dict[str, str] = {
    "score": COMPOSITE,
    "access": "School Access and Gender Parity Score",
    "innovation": "Innovation Score",
    "infra": "Infrastructure Score",
    "human": "Human Capital Score",
    "governance": "Governance Score",
}
"""Short alias to actual field (docs/API.md#field-names-and-aliases)."""

ALIAS_OF: dict[str, str] = {field: alias for alias, field in FIELD_ALIASES.items()}
"""Actual field to its short alias: the keys shortnames=true adds (docs/API.md#parameters)."""

REGION_ALIASES: dict[str, str] = {
    "LAC": "Latin America & Caribbean",
    "SA": "Latin America & Caribbean",
    "South America": "Latin America & Caribbean",
    "EAP": "East Asia & Pacific",
    "MENA": "Middle East & North Africa",
    "NA": "North America",
}
"""Region aliases (docs/API.md#regions). "SA" means Latin America & Caribbean, as the specification says."""

_SPACE = " \t\n\r\x0b\x0c"


def trimmed(value: str) -> str:
    """``value`` without surrounding ASCII whitespace.

    ``str.strip()`` would also remove Unicode spaces (U+00A0, U+2003, ...), accepting a value
    no client typed as a name (docs/DECISIONS.md#parameter-rules).
    """
    return value.strip(_SPACE)


def folded(value: str) -> str:
    """``value`` for a case-insensitive match of an ASCII name: A-Z lower-cased, nothing else.

    ``casefold`` and ``lower`` map some non-ASCII letters onto ASCII ones (long s "ſ" to "s",
    the Kelvin sign to "k"), so look-alikes would pass as names. Every name a client may type
    is ASCII: a value with another character is returned as it is and matches none.
    """
    return value.lower() if value.isascii() else value


_REGIONS: dict[str, str] = {
    **{folded(name): name for name in REGION_SHORT},
    **{folded(short): name for name, short in REGION_SHORT.items()},
    **{folded(alias): name for alias, name in REGION_ALIASES.items()},
}

_SORTABLE: dict[str, str] = {
    **{folded(field.name): field.name for field in COUNTRY_FIELDS},
    **{folded(alias): field for alias, field in FIELD_ALIASES.items()},
}

CUSTOM_SCORE = "Custom Score"
CUSTOM_RANK = "Custom Rank"
CUSTOM_FIELDS: tuple[str, ...] = (CUSTOM_SCORE, CUSTOM_RANK)
"""The keys ``weights`` adds to each economy (docs/METHOD.md#your-own-weights): not fields of the
data, so neither ``fields`` nor the legacy route knows them; v1's ``sort`` does (without weights,
by the published ones)."""
CUSTOM_SORT_NAMES: tuple[str, ...] = (*CUSTOM_FIELDS, "custom")
"""What v1's ``sort`` takes for them: their names, and ``custom`` for Custom Score."""
_CUSTOM_SORTABLE: dict[str, str] = {
    **{folded(name): name for name in CUSTOM_FIELDS},
    "custom": CUSTOM_SCORE,
}

_FIELD_NAMES = ", ".join(field.name for field in COUNTRY_FIELDS)
_ALIAS_NAMES = ", ".join(FIELD_ALIASES)

ACCEPTED_REGIONS = (
    "a region name ("
    + ", ".join(REGION_SHORT)
    + "), a short code ("
    + ", ".join(REGION_SHORT.values())
    + ") or an alias ("
    + ", ".join(REGION_ALIASES)
    + ")"
)
ACCEPTED_SORT = f"a field name ({_FIELD_NAMES}) or an alias ({_ALIAS_NAMES})"
ACCEPTED_FIELDS = (
    f"comma-separated field names ({_FIELD_NAMES}, {DETAILS}) or aliases ({_ALIAS_NAMES})"
)

# Field names that contain a comma ("Population, total") span several comma-separated pieces.
_MOST_PIECES = max(field.name.count(",") for field in COUNTRY_FIELDS) + 1


def canonical_region(value: str) -> str:
    """Map a region name, alias or short code, in any (ASCII) case, to its full name.

    Raises InvalidParameter listing accepted names (docs/DECISIONS.md#query-parameters).
    """
    region = _REGIONS.get(folded(trimmed(value)))
    if region is None:
        raise InvalidParameter("region", value, ACCEPTED_REGIONS)
    return region


def sort_field(value: str) -> str:
    """Map a field name (any ASCII case) or alias to the actual field to sort by; ``Custom Score``
    (alias ``custom``) and ``Custom Rank`` too, which ``Query.parse`` accepts on the routes that take
    weights.

    Raises InvalidParameter listing the sortable fields (docs/DECISIONS.md#query-parameters).
    """
    key = folded(trimmed(value))
    field = _SORTABLE.get(key) or _CUSTOM_SORTABLE.get(key)
    if field is None:
        raise InvalidParameter("sort", value, ACCEPTED_SORT)
    return field


def field_list(value: str, allowed: Collection[str] | None = None) -> tuple[str, ...]:
    """Split a fields parameter into actual names, in the order given (duplicates kept).

    Names match case-insensitively (ASCII); aliases map to their field on both routes; a name
    that contains a comma ("Population, total") is recognised across the split. ``allowed``:
    the only names the route's rows have (history's), None for every field. Raises
    InvalidParameter naming the first unknown (or not allowed) field and listing the valid
    ones, the route's own (docs/API.md#field-names-and-aliases), or naming the whole value
    when it names no field at all (only commas).
    """
    accepted = ACCEPTED_FIELDS if allowed is None else accepted_fields(allowed)
    pieces = [trimmed(piece) for piece in value.split(",")]
    names: list[str] = []
    start = 0
    while start < len(pieces):
        if not pieces[start]:
            start += 1
            continue
        for width in range(min(_MOST_PIECES, len(pieces) - start), 0, -1):
            candidate = folded(", ".join(pieces[start : start + width]))
            name = DETAILS if candidate == DETAILS else _SORTABLE.get(candidate)
            if name is not None:
                if allowed is not None and name not in allowed:
                    raise InvalidParameter("fields", ", ".join(pieces[start : start + width]), accepted)
                names.append(name)
                start += width
                break
        else:
            raise InvalidParameter("fields", pieces[start], accepted)
    if not names:
        raise InvalidParameter("fields", value, accepted)
    return tuple(names)


def column_list(value: str, columns: Sequence[str]) -> tuple[str, ...]:
    """The ``columns`` a ``fields`` parameter names (any ASCII case), each once, in their order.
    Raises InvalidParameter naming the first piece that names none, listing them, or the whole
    value when it names none at all (only commas)."""
    by_name = {folded(column): column for column in columns}
    accepted = "comma-separated column names (" + ", ".join(columns) + ")"
    named = set()
    for piece in (trimmed(piece) for piece in value.split(",")):
        if not piece:
            continue
        column = by_name.get(folded(piece))
        if column is None:
            raise InvalidParameter("fields", piece, accepted)
        named.add(column)
    if not named:
        raise InvalidParameter("fields", value, accepted)
    return tuple(column for column in columns if column in named)


def accepted_fields(allowed: Collection[str]) -> str:
    """What ``fields`` accepts on a route whose rows have only the ``allowed`` fields: their
    names in serving order and the aliases of those among them."""
    names = ", ".join(field.name for field in COUNTRY_FIELDS if field.name in allowed)
    aliases = ", ".join(alias for alias, name in FIELD_ALIASES.items() if name in allowed)
    return f"comma-separated field names ({names})" + (f" or aliases ({aliases})" if aliases else "")


INCOME_GROUPS: dict[str, str] = {
    "LIC": "Low income",
    "LMC": "Lower middle income",
    "UMC": "Upper middle income",
    "HIC": "High income",
}
"""World Bank income groups: short form to the full name the data holds (docs/API.md#parameters)."""

_INCOMES: dict[str, str] = {
    **{folded(name): name for name in INCOME_GROUPS.values()},
    **{folded(short): name for short, name in INCOME_GROUPS.items()},
}

ACCEPTED_INCOMES = (
    "an income group ("
    + ", ".join(INCOME_GROUPS.values())
    + ") or its short form ("
    + ", ".join(INCOME_GROUPS)
    + "), any case"
)


def canonical_income(value: str) -> str:
    """Map an income group's full name or short form (LIC, LMC, UMC, HIC), in any (ASCII) case,
    to the full name the data holds.

    Raises InvalidParameter listing the accepted names (docs/API.md#parameters).
    """
    income = _INCOMES.get(folded(trimmed(value)))
    if income is None:
        raise InvalidParameter("income", value, ACCEPTED_INCOMES)
    return income


MAX_NAME_CHARS_COMPARED = 64
"""Only this much of an unknown parameter name is compared with the accepted ones: a name
may be kilobytes long, and no accepted name is near one that long."""


def nearest_name(name: str, accepted: Sequence[str]) -> str | None:
    """The accepted parameter name a client probably meant by ``name``: its ASCII lower-case
    form when that is accepted (``CODE`` -> ``code``), else the closest by ``difflib`` (ratio
    0.6 or more), else None (docs/DECISIONS.md#parameter-rules)."""
    candidate = folded(name[:MAX_NAME_CHARS_COMPARED])
    if candidate in accepted:
        return candidate
    close = difflib.get_close_matches(candidate, accepted, n=1, cutoff=0.6)
    return close[0] if close else None
