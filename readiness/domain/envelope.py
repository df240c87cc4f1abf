"""The response envelope (docs/API.md#the-response) and the error envelope, serialized with orjson."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson

from loaders import JsonValue
from readiness.domain.errors import CountryNotFound, ReadinessError
from readiness.domain.query import Query
from readiness.domain.weights import envelope_fields

API_VERSION = "1"


def answer_body(
    query: Query,
    snapshot_label: str,
    data: Sequence[dict[str, JsonValue]],
    total: int | None = None,
    *,
    notice: str | None = None,
    unmatched: Mapping[str, JsonValue] | None = None,
) -> bytes:
    """Serialize a successful answer.

    ``data`` is an object only in country mode with exactly one match (``total``, counted
    before ``limit``; None: ``data`` is all that matched), an array otherwise
    (docs/API.md#the-response, docs/DECISIONS.md#query-parameters).
    ``snapshot_label`` is "current" or the archive's id. With weights, ``weights`` (normalized)
    and ``weights_note`` come before ``data`` (docs/METHOD.md#your-own-weights).
    The confidence keys were removed when the snapshot was loaded (docs/API.md#country-object).
    ``unmatched`` (what the query named that matched nothing) and ``notice`` (the manifest's)
    follow the specification's members, each only when there is one (v1 only: the legacy body never has them).
    """
    one = query.country_mode and len(data) == 1 and total in (None, 1)
    body: dict[str, object] = {
        "apiVersion": API_VERSION,
        "level": "country" if query.country_mode else "global",
        "snapshot": snapshot_label,
        "count": len(data),
        **(envelope_fields(query.weights) if query.weights is not None else {}),
        "data": data[0] if one else data,
    }
    return orjson.dumps(with_extras(body, notice, unmatched))


def with_extras(
    body: dict[str, object], notice: str | None, unmatched: Mapping[str, JsonValue] | None = None
) -> dict[str, object]:
    """``body`` with ``unmatched`` and ``notice`` added last, each only when there is one
    (docs/API.md#the-response): an ordinary request's envelope keeps the specification's members only, and
    every answer from a snapshot whose manifest has a notice carries it."""
    if unmatched:
        body["unmatched"] = dict(unmatched)
    if notice is not None:
        body["notice"] = notice
    return body


def error_body(error: ReadinessError) -> bytes:
    """Serialize the error envelope: ``{"apiVersion": "1", "error": "..."}`` (docs/API.md#the-response).

    The legacy route's unknown-code body has no apiVersion, as its older clients expect
    (docs/API.md#the-legacy-route, docs/DECISIONS.md#routes-and-errors).
    """
    if isinstance(error, CountryNotFound):
        return orjson.dumps({"error": error.message})
    return orjson.dumps({"apiVersion": API_VERSION, "error": error.message})
