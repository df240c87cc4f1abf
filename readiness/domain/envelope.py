"""The response envelope (docs/API.md#the-response) and the error envelope, serialized with orjson."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson

from loaders import JsonValue
from readiness.domain.errors import CountryNotFound, ReadinessError
from readiness.domain.query import Query
from readiness.domain.weights import envelope_fields

API_VERSION = "1"


def resolved(snapshot_id: str | None, current_id: str | None) -> dict[str, JsonValue]:
    """The members naming the snapshot an answer comes from, the same on every v1 JSON envelope,
    right after ``snapshot`` (docs/API.md#the-response): ``snapshot_id``, its id (never
    ``"current"``: a saved answer says which month it holds), and ``current``, whether it is the
    current snapshot. ``snapshot_id`` null (and ``current`` false) when the answer shows none."""
    return {"snapshot_id": snapshot_id, "current": snapshot_id is not None and snapshot_id == current_id}


def answer_body(
    query: Query,
    snapshot_label: str,
    data: Sequence[dict[str, JsonValue]],
    total: int | None = None,
    *,
    notice: str | None = None,
    unmatched: Mapping[str, JsonValue] | None = None,
    identity: Mapping[str, JsonValue] | None = None,
    paging: Mapping[str, int] | None = None,
) -> bytes:
    """Serialize a successful answer.

    ``data`` is an object only in country mode with exactly one match (``total``, counted
    before ``limit``; None: ``data`` is all that matched), an array otherwise
    (docs/API.md#the-response, docs/DECISIONS.md#query-parameters).
    ``snapshot_label`` is "current" or the archive's id (the specification's member), followed
    on v1 by ``identity`` (``resolved``: the id and whether it is current). With weights, ``weights`` (normalized)
    and ``weights_note`` come before ``data`` (docs/METHOD.md#your-own-weights).
    The confidence keys were removed when the snapshot was loaded (docs/API.md#country-object).
    ``unmatched`` (what the query named that matched nothing) and ``notice`` (the manifest's)
    follow the specification's members, each only when there is one (v1 only: the legacy body never has them),
    after ``paging`` (``page_fields``) on v1.
    """
    one = query.country_mode and len(data) == 1 and total in (None, 1)
    body: dict[str, object] = {
        "apiVersion": API_VERSION,
        "level": "country" if query.country_mode else "global",
        "snapshot": snapshot_label,
        **(identity or {}),
        "count": len(data),
        **(envelope_fields(query.weights) if query.weights is not None else {}),
        "data": data[0] if one else data,
    }
    return orjson.dumps(with_extras(body, notice, unmatched, paging))


def page_fields(query: Query, total: int) -> dict[str, int]:
    """What an answer says of its page when the query asks for one (``limit`` or ``offset``, or
    their aliases), as the World Bank's API does (docs/API.md#paging): ``page`` (from 1:
    ``offset // per_page + 1``), ``pages`` (0 when no row matched), ``per_page`` (``limit``;
    without one, every row is on one page of ``total`` rows) and ``total``, the rows that matched
    (``X-Total-Count``). None for a query that pages nothing: its envelope keeps the
    specification's members only."""
    if query.limit is None and not query.offset:
        return {}
    per_page = query.limit if query.limit is not None else total
    if not per_page:
        return {"page": 1, "pages": 0, "per_page": 0, "total": total}
    return {"page": query.offset // per_page + 1, "pages": -(-total // per_page), "per_page": per_page,
            "total": total}


def with_extras(
    body: dict[str, object],
    notice: str | None,
    unmatched: Mapping[str, JsonValue] | None = None,
    paging: Mapping[str, int] | None = None,
) -> dict[str, object]:
    """``body`` with ``paging`` (``page_fields``, on the paged routes), ``unmatched`` and
    ``notice`` added last, each only when there is one (docs/API.md#the-response): an ordinary
    request's envelope keeps the specification's members first, and every answer from a snapshot
    whose manifest has a notice carries it."""
    if paging:
        body.update(paging)
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
