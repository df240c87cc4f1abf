"""What each column of a download means: its type, description and unit, in one place.

The bulk files of a snapshot (``readiness/domain/package.py``: its ``datapackage.json``, the
Parquet files' field metadata) and the OpenAPI document's indicator rows read them here. The
country fields' words are the data contract's (``loaders.COUNTRY_FIELDS``, docs/DATA.md);
the indicator keys' are docs/API.md#indicator_details-element's. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from loaders import COMPOSITE, COUNTRY_FIELDS, DIMENSIONS, INDICATOR_FIELDS, JsonValue
from readiness.domain.vocabulary import CUSTOM_RANK, CUSTOM_SCORE, FIELD_ALIASES

SNAPSHOT_ID_COLUMN = "snapshot_id"
"""The provenance column every v1 CSV and bulk file ends with: the row's snapshot id."""
NOTICE_COLUMN = "notice"
"""The provenance column after it, where the row's snapshot has a notice (the bundled sample's:
synthetic data)."""

INDICATOR_DESCRIPTIONS: dict[str, str] = {
    "indicator_code": "Indicator code, e.g. `IT.NET.USER.ZS`.",
    "indicator_name": "Full name of the indicator.",
    "component": "Index dimension the indicator belongs to.",
    "year": "Data year.",
    "reported_value": "Value as reported by the source.",
    "data_source": "Source or imputation; always present, for traceability.",
    "normalized_value": "Value normalized to 0 to 100.",
    "global_percentile": 'Ordinal string such as `"87th"`; never a number.',
    "regional_percentile": 'Ordinal string such as `"3rd"`; never a number.',
    "notes": "Notes; may be the empty string.",
}
"""The descriptions of docs/API.md#indicator_details-element; the keys and their schemas come from INDICATOR_FIELDS."""

SCORE_UNIT = "points, 0 to 100"


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a download: its name, its Frictionless Table Schema type (``string``,
    ``integer``, ``number``, ``boolean``, ``date``), what it means and its unit (None: a code,
    a name or a flag, which has none)."""

    name: str
    type: str
    description: str
    unit: str | None = None

    def descriptor(self) -> dict[str, JsonValue]:
        """The column as a Frictionless Table Schema field (``unit`` is an extra property)."""
        field: dict[str, JsonValue] = {"name": self.name, "type": self.type, "description": self.description}
        if self.unit is not None:
            field["unit"] = self.unit
        return field


_UNITS = {
    "Population, total": "people",
    COMPOSITE: SCORE_UNIT,
    **{f"{dimension} Score": SCORE_UNIT for dimension in DIMENSIONS},
    "Global Rank": "rank, 1 = highest",
    "Regional Rank": "rank within the region, 1 = highest",
    "year": "calendar year",
    "reported_value": "the indicator's own unit, named in `indicator_name` (e.g. % of population)",
    "normalized_value": SCORE_UNIT,
    "global_percentile_value": "percentile, 0 to 100",
    "regional_percentile_value": "percentile, 0 to 100",
}


def _type(schema: Mapping[str, JsonValue], name: str) -> str:
    """The Table Schema type of a contract JSON Schema: its non-null type; ``date`` for dates."""
    if name == "Last Updated":
        return "date"
    kinds = schema.get("type")
    kind = next((k for k in kinds if k != "null"), "string") if isinstance(kinds, list) else kinds
    return str(kind) if kind in ("string", "integer", "number", "boolean") else "string"


COLUMNS: dict[str, Column] = {
    **{field.name: Column(field.name, _type(field.schema, field.name), field.description, _UNITS.get(field.name))
       for field in COUNTRY_FIELDS},
    "snapshot": Column("snapshot", "string", "The id (`YYYY-MM`) of the snapshot the row's values come from."),
    **{name: Column(name, _type(schema, name), INDICATOR_DESCRIPTIONS[name], _UNITS.get(name))
       for name, schema in INDICATOR_FIELDS.items()},
    "global_percentile_value": Column("global_percentile_value", "integer",
                                      "`global_percentile` as a number (`\"31st\"` is 31).",
                                      _UNITS["global_percentile_value"]),
    "regional_percentile_value": Column("regional_percentile_value", "integer",
                                        "`regional_percentile` as a number.", _UNITS["regional_percentile_value"]),
    "observed_year": Column("observed_year", "integer", (
        "The year the indicator's value was observed (in `/api/v1/indicators` rows: `year` there is the same "
        "value, kept for v1 and deprecated)."), _UNITS["year"]),
    SNAPSHOT_ID_COLUMN: Column(SNAPSHOT_ID_COLUMN, "string", (
        "Provenance: the id (`YYYY-MM`) of the snapshot this row comes from; "
        "`/api/v1/snapshots/{id}/datapackage.json` describes it.")),
    NOTICE_COLUMN: Column(NOTICE_COLUMN, "string", (
        "Provenance: the notice of the row's snapshot, its manifest's own words (the bundled sample's says it "
        "is synthetic: not real index data, not to be cited); present only where the snapshot has one.")),
}
"""Every column a bulk file of a snapshot has, by name."""


def column(name: str) -> Column:
    """The column ``name`` as ``COLUMNS`` describes it. Raises KeyError for a column no
    download has (a new column must be described here: tests/test_package.py)."""
    return COLUMNS[name]


def schema_column(name: str, schema: Mapping[str, JsonValue]) -> Column:
    """A column described by its JSON Schema (a route that declares its rows': ``Route.rows``)."""
    description = schema.get("description")
    kind = "string" if "enum" in schema else _type(schema, name)
    return Column(name, kind, str(description) if description is not None else COLUMNS[name].description,
                  _UNITS.get(name) if name in COLUMNS else None)


_STATISTIC = "the score's unit: points, 0 to 100"
TABLE_COLUMNS: dict[str, dict[str, Column]] = {
    "readiness": {
        "RegionShort": Column("RegionShort", "string", "The region's short code (`shortnames=true`), e.g. `SSA`."),
        **{alias: Column(alias, COLUMNS[field].type, f"`{field}` again, under its short name (`shortnames=true`).",
                         COLUMNS[field].unit)
           for alias, field in FIELD_ALIASES.items()},
        CUSTOM_SCORE: Column(CUSTOM_SCORE, "number", "The composite under the query's `weights`: not the published "
                             "index.", SCORE_UNIT),
        CUSTOM_RANK: Column(CUSTOM_RANK, "integer", "Rank by `Custom Score` among ranked economies.",
                            "rank, 1 = highest"),
    },
    "history": {
        "year": Column("year", "integer", "The snapshot's year.", "calendar year"),
        "date": Column("date", "date", "The snapshot's publication date."),
    },
    "long": {
        "measure": Column("measure", "string", "Which column of the wide row this row holds (`shape=long`)."),
        "value": Column("value", "number", "That column's value when it is a number (empty for a text or "
                        "true/false column).", "the unit of `measure`'s column"),
        "text_value": Column("text_value", "string", "That column's value when it is text or true/false "
                             "(`Region`, `Income Level`, `FCV Status`); present only when `fields` names one."),
    },
    "aggregates": {
        "year": Column("year", "integer", "The snapshot's year.", "calendar year"),
        "group": Column("group", "string", "The group of economies (`by`): `World`, a region, an income group or "
                        "FCV status."),
        "measure": Column("measure", "string", "The score summarized."),
        "count": Column("count", "integer", "Economies of the group with a value.", "economies"),
        "mean": Column("mean", "number", "Mean, two decimals.", _STATISTIC),
        "median": Column("median", "number", "Median, two decimals.", _STATISTIC),
        "min": Column("min", "number", "Smallest value.", _STATISTIC),
        "max": Column("max", "number", "Largest value.", _STATISTIC),
        "p25": Column("p25", "number", "25th percentile (linear interpolation), two decimals.", _STATISTIC),
        "p75": Column("p75", "number", "75th percentile (linear interpolation), two decimals.", _STATISTIC),
    },
    "changes": {
        "previous_snapshot": Column("previous_snapshot", "string", "The snapshot compared with (`YYYY-MM`)."),
        "measure": Column("measure", "string", "The score or `Global Rank` that moved."),
        "code": Column("code", "string", "ISO 3166-1 alpha-3 code."),
        "name": Column("name", "string", "The economy's name."),
        "previous": Column("previous", "number", "The value in the previous snapshot.", "the measure's unit"),
        "current": Column("current", "number", "The value in this snapshot.", "the measure's unit"),
        "change": Column("change", "number", "`current` - `previous`: for a rank, positive is worse.",
                         "the measure's unit"),
        "direction": Column("direction", "string", "Which way, in words: `up`, `down`, `same`; for a rank "
                            "`better`, `worse`, `same`."),
    },
}
"""The columns whose meaning is a table's own (``year`` is the snapshot's year in history and
aggregates, the data year in indicator rows), by table; every other column means what
``COLUMNS`` says."""


def table_column(table: str, name: str) -> Column:
    """The column ``name`` of ``table``'s CSV: the table's own meaning, else ``COLUMNS``'.
    Raises KeyError for a column described nowhere."""
    return TABLE_COLUMNS.get(table, {}).get(name) or COLUMNS[name]
