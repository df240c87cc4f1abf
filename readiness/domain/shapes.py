"""The long layout of the table routes (``shape=long``, docs/API.md#shapelong-one-row-per-measure):
one row per (economy, snapshot, measure) instead of one per (economy, snapshot), as tidy-data
tools (tidyverse, pandas ``melt``/``pivot``) read tables. Pure functions over the wide rows.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from loaders import FIELD_BY_NAME, Kind
from readiness.domain.tables import HISTORY_IDENTITY, Record

LONG_KEYS: tuple[str, ...] = ("measure", "value")
"""What a long row adds to its identity: the wide column's name and its value."""

HISTORY_LONG_COLUMNS: tuple[str, ...] = HISTORY_IDENTITY + LONG_KEYS
"""A long history row: Country Code, Country Name, snapshot, year, date, measure, value."""

INDICATOR_LONG_IDENTITY: tuple[str, ...] = (
    "Country Code", "Country Name", "Region", "Income Level", "snapshot", "indicator_code"
)
INDICATOR_MEASURES: tuple[str, ...] = (
    "reported_value", "normalized_value", "global_percentile_value", "regional_percentile_value"
)
"""The measures of a long indicator row: the numbers of an indicator row, in its order (the data
year, names, source and notes describe a value and stay in the wide layout)."""
INDICATOR_LONG_COLUMNS: tuple[str, ...] = INDICATOR_LONG_IDENTITY + LONG_KEYS

TEXT_VALUE = "text_value"
"""The column a long row holds a text or true/false value in (``Region``, ``Income Level``,
``FCV Status`` named by history's ``fields``): ``value`` holds numbers only, so a long table reads
as one numeric column (docs/DECISIONS.md#the-data-routes-indicators-history-the-catalogue-change-reports)."""


def text_measures(measures: Sequence[str]) -> tuple[str, ...]:
    """The ``measures`` whose values are not numbers (the country fields of another kind than
    ``Kind.NUMBER``): in ``shape=long`` their values go in ``text_value``, ``value`` null."""
    return tuple(name for name in measures if name in FIELD_BY_NAME and FIELD_BY_NAME[name].kind is not Kind.NUMBER)


def long_page(
    rows: Sequence[Record],
    identity: Sequence[str],
    measures: Sequence[str],
    offset: int,
    limit: int | None,
    text: Collection[str] = (),
) -> list[Record]:
    """The long rows ``offset`` to ``offset + limit`` of ``rows``: each wide row gives one row per
    measure, in ``measures`` order, with the wide row's ``identity`` keys, ``measure`` and
    ``value`` (null when the wide row's value is). With ``text`` measures (``text_measures``),
    every row also has ``text_value``: theirs there, ``value`` null; null in the others. Every
    wide row gives ``len(measures)`` rows, so only the wide rows the page covers are laid out."""
    per_row = len(measures)
    if not per_row:
        return []
    first = offset // per_row
    last = len(rows) if limit is None else min(len(rows), -(-(offset + limit) // per_row))
    laid_out: list[Record] = []
    for row in rows[first:last]:
        kept = {name: row.get(name) for name in identity}
        if text:
            laid_out += [
                {**kept, "measure": measure, "value": None, TEXT_VALUE: row.get(measure)} if measure in text
                else {**kept, "measure": measure, "value": row.get(measure), TEXT_VALUE: None}
                for measure in measures
            ]
        else:
            laid_out += [{**kept, "measure": measure, "value": row.get(measure)} for measure in measures]
    skipped = offset - first * per_row
    return laid_out[skipped:] if limit is None else laid_out[skipped:skipped + limit]
