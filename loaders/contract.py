"""The data contract's vocabulary: fields, their order, kind and JSON Schema, and the regions.

This is the one place that knows which top-level fields a country object has and in what
order they are served (docs/DECISIONS.md#answers), which keys an
indicator_details element has (docs/API.md#indicator_details-element), and the seven regions with their short codes
(docs/API.md#regions). The loaders' JSON Schemas, the query API and the OpenAPI
document are all built from these tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from loaders.model import JsonValue


class Kind(Enum):
    """How a field's values compare: decides the default sort order (docs/DECISIONS.md#query-parameters)."""

    NUMBER = "number"
    TEXT = "text"
    BOOLEAN = "boolean"


@dataclass(frozen=True, slots=True)
class Field:
    """One top-level field of a country object: its exact key, kind and JSON Schema."""

    name: str
    kind: Kind
    schema: Mapping[str, JsonValue]
    description: str


_SCORE: Mapping[str, JsonValue] = {"type": ["number", "null"], "minimum": 0, "maximum": 100}
_RANK: Mapping[str, JsonValue] = {"type": ["integer", "null"], "minimum": 1}
_ORDINAL: Mapping[str, JsonValue] = {"type": ["string", "null"], "pattern": "^[0-9]+(st|nd|rd|th)$"}

REGION_SHORT: dict[str, str] = {
    "East Asia & Pacific": "EAP",
    "Europe & Central Asia": "ECA",
    "Latin America & Caribbean": "LAC",
    "Middle East & North Africa": "MENA",
    "North America": "NA",
    "South Asia": "SAS",
    "Sub-Saharan Africa": "SSA",
}
"""The seven regions, full name to RegionShort code."""

DIMENSIONS: tuple[str, ...] = (
    "Infrastructure",
    "Human Capital",
    "School Access and Gender Parity",
    "Innovation",
    "Governance",
)
"""The five dimensions; each has a "<Dimension> Score" and a "<Dimension> Confidence"."""

COMPOSITE = "Composite Readiness Score"

COUNTRY_FIELDS: tuple[Field, ...] = (
    Field("Country Name", Kind.TEXT, {"type": "string", "minLength": 1},
          "Official country or territory name (World Bank spelling)."),
    Field("Country Code", Kind.TEXT, {"type": "string", "pattern": "^[A-Z]{3}$"},
          "ISO 3166-1 alpha-3 code."),
    Field("Region", Kind.TEXT, {"type": "string", "enum": list(REGION_SHORT)},
          "World Bank region."),
    Field("Income Level", Kind.TEXT, {"type": ["string", "null"]},
          "World Bank income group."),
    Field("Population, total", Kind.NUMBER, {"type": ["integer", "null"], "minimum": 0},
          "Total population; auxiliary, enters no score."),
    Field(COMPOSITE, Kind.NUMBER, _SCORE, "Overall readiness score, 0 to 100."),
    *(
        Field(f"{dimension} Score", Kind.NUMBER, _SCORE, f"{dimension} dimension score, 0 to 100.")
        for dimension in DIMENSIONS
    ),
    Field("FCV Status", Kind.BOOLEAN, {"type": "boolean"},
          "True for a fragile, conflict-affected or violent economy."),
    Field("FCV Type", Kind.TEXT, {"type": ["string", "null"]},
          "Type of FCV where applicable, else null."),
    Field("Global Rank", Kind.NUMBER, _RANK,
          "Rank by composite score among ranked economies, 1 = highest; null for microstates."),
    Field("Regional Rank", Kind.NUMBER, _RANK,
          "Rank by composite score within the region; null for microstates."),
    Field("Microstate", Kind.BOOLEAN, {"type": "boolean"},
          "True for economies under 300,000 people: scored but not ranked."),
    Field("Last Updated", Kind.TEXT, {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
          "Date of the last update, YYYY-MM-DD."),
)
"""Top-level fields of a country object, in the order they are served."""

REQUIRED_COUNTRY_FIELDS: tuple[str, ...] = ("Country Name", "Country Code", "Region")
"""Fields every country file must have; the others may be absent (docs/API.md#country-object)."""

FIELD_BY_NAME: dict[str, Field] = {field.name: field for field in COUNTRY_FIELDS}

DETAILS = "indicator_details"
"""The per-indicator array: served in country mode only, after every other field."""

INDICATOR_FIELDS: dict[str, Mapping[str, JsonValue]] = {
    "indicator_code": {"type": "string", "pattern": "^[A-Za-z0-9._]{1,40}$"},
    "indicator_name": {"type": "string"},
    "component": {"type": ["string", "null"]},
    "year": {"type": ["integer", "null"]},
    "reported_value": {"type": ["number", "null"]},
    "data_source": {"type": "string"},
    "normalized_value": _SCORE,
    "global_percentile": _ORDINAL,
    "regional_percentile": _ORDINAL,
    "notes": {"type": "string"},
}
"""Keys of one indicator_details element with their schema, in the order they are served."""

REQUIRED_INDICATOR_FIELDS: tuple[str, ...] = ("indicator_code", "indicator_name", "data_source")

CONFIDENCE_LEVELS: tuple[str, ...] = ("High", "Moderate", "Low")

SNAPSHOT_CHANNEL = "readiness:snapshots"
"""Redis pub/sub channel on which a publisher announces the id CURRENT now names, so every
server swaps at once instead of at its next poll (docs/CACHING.md#live-snapshot-swap)."""
