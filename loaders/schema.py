"""JSON Schemas for the two kinds of snapshot file, built from the contract tables.

The schemas are strict (no unknown keys) so that a builder bug is caught when a snapshot is
validated before publishing, not when a user notices a strange field. ``python -m
loaders.validate --print-schema`` prints them for people writing their own builders.
"""

from __future__ import annotations

from loaders.contract import (
    CONFIDENCE_LEVELS,
    COUNTRY_FIELDS,
    DETAILS,
    DIMENSIONS,
    INDICATOR_FIELDS,
    REQUIRED_COUNTRY_FIELDS,
    REQUIRED_INDICATOR_FIELDS,
)
from loaders.model import JsonValue

SCHEMA_VERSION = 1
"""The contract version a manifest declares; a reader refuses any other."""

_DIALECT = "https://json-schema.org/draft/2020-12/schema"

INDICATOR_SCHEMA: dict[str, JsonValue] = {
    "type": "object",
    "properties": {name: dict(schema) for name, schema in INDICATOR_FIELDS.items()},
    "required": list(REQUIRED_INDICATOR_FIELDS),
    "additionalProperties": False,
}

COUNTRY_SCHEMA: dict[str, JsonValue] = {
    "$schema": _DIALECT,
    "title": "Country file (snapshots/<YYYY-MM>/countries/<ISO3>.json)",
    "type": "object",
    "properties": {
        **{field.name: dict(field.schema) for field in COUNTRY_FIELDS},
        **{f"{dimension} Confidence": {"enum": list(CONFIDENCE_LEVELS)} for dimension in DIMENSIONS},
        DETAILS: {"type": "array", "items": INDICATOR_SCHEMA},
    },
    "required": list(REQUIRED_COUNTRY_FIELDS),
    "additionalProperties": False,
}

MANIFEST_SCHEMA: dict[str, JsonValue] = {
    "$schema": _DIALECT,
    "title": "Snapshot manifest (snapshots/<YYYY-MM>/manifest.json)",
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])$"},
        "published": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "schema_version": {"const": SCHEMA_VERSION},
        "synthetic": {"type": "boolean"},
        "notice": {"type": "string"},
        # Optional, written only by a refresh published past some of its sanity checks: the
        # operator's reason and, by check name, what each accepted check found
        # (docs/PUBLISHING.md#the-monthly-refresh-one-command). Manifests without it are as
        # before; servers older than this key refuse a manifest that has it, and servers older
        # than the object form refuse that form. The list of findings is the form written before
        # the checks had names, still read.
        "forced": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "reason": {"type": "string", "minLength": 1},
                        "checks": {
                            "type": "object",
                            "minProperties": 1,
                            "propertyNames": {"pattern": "^[a-z]+(-[a-z]+)*$"},
                            "additionalProperties": {
                                "type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1,
                            },
                        },
                    },
                    "required": ["reason", "checks"],
                    "additionalProperties": False,
                },
                {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            ],
        },
        # Optional, for the citation (docs/DATA.md#manifestjson): who publishes the snapshot and
        # under which licence (null: none granted). Same rule as "forced" for older servers.
        "publisher": {"type": "string", "minLength": 1},
        "license": {"type": ["string", "null"], "minLength": 1},
        "countries": {
            "type": "array",
            "items": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "uniqueItems": True,
        },
        "checksums": {
            "type": "object",
            "propertyNames": {"pattern": "^[A-Z]{3}$"},
            "additionalProperties": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
        },
    },
    "required": ["id", "published", "schema_version", "countries", "checksums"],
    "additionalProperties": False,
}
