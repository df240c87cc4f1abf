"""The response envelope (docs/API.md#the-response) and the error envelope, serialized with orjson."""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from loaders import JsonValue

from readiness.domain.errors import CountryNotFound, ReadinessError
from readiness.domain.query import Query

API_VERSION = "1"


def answer_body(
    query: Query, snapshot_label: str, data: Sequence[dict[str, JsonValue]], total: int | None = None
) -> bytes:
    """Serialize a successful answer.

    ``data`` is an object only in country mode with exactly one match (``total``, counted
    before ``limit``; None: ``data`` is all that matched), an array otherwise
    (docs/API.md#the-response, docs/DECISIONS.md#query-parameters).
    ``snapshot_label`` is "current" or the archive's id.
    The confidence keys were removed when the snapshot was loaded (docs/API.md#country-object).
    """
    one = query.country_mode and len(data) == 1 and total in (None, 1)
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
    """Serialize the error envelope: ``{"apiVersion": "1", "error": "..."}`` (docs/API.md#the-response).

    The legacy route's unknown-code body has no apiVersion, as its older clients expect
    (docs/API.md#the-legacy-route, docs/DECISIONS.md#routes-and-errors).
    """
    if isinstance(error, CountryNotFound):
        return orjson.dumps({"error": error.message})
    return orjson.dumps({"apiVersion": API_VERSION, "error": error.message})
