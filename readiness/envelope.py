"""The response envelope (SPEC 2.1) and the error envelope, serialized with orjson."""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from loaders import JsonValue

from readiness.errors import CountryNotFound, ReadinessError
from readiness.query import Query

API_VERSION = "1"


def answer_body(query: Query, snapshot_label: str, data: Sequence[dict[str, JsonValue]]) -> bytes:
    """Serialize a successful answer.

    ``data`` is an object only in country mode with exactly one match, an array otherwise
    (SPEC 4.3 rule 2, DESIGN §3). ``snapshot_label`` is "current" or the archive's id.
    The confidence keys were removed when the snapshot was loaded (SPEC 4.3 rule 4).
    """
    one = query.country_mode and len(data) == 1
    return orjson.dumps(
        {
            "apiVersion": API_VERSION,
            "level": "country" if query.country_mode else "global",
            "snapshot": snapshot_label,
            "count": len(data),
            "data": data[0] if one else data,
        }
    )


def error_body(error: ReadinessError) -> bytes:
    """Serialize the error envelope: ``{"apiVersion": "1", "error": "..."}`` (SPEC 2.1).

    The legacy route's unknown-code body has no apiVersion, as its older clients expect
    (SPEC 7, DESIGN §3 legacy route).
    """
    if isinstance(error, CountryNotFound):
        return orjson.dumps({"error": error.message})
    return orjson.dumps({"apiVersion": API_VERSION, "error": error.message})
