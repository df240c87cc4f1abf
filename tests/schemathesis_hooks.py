"""Schemathesis extension for the run in tests/test_openapi.py (``SCHEMATHESIS_HOOKS``).

One check replaces the built-in ``positive_data_acceptance``: the same check, except for the
rules that join two values, which OpenAPI cannot state (docs/DECISIONS.md#the-openapi-document-and-the-route-index):

- ``level=country`` without ``code`` or ``codes`` is a 400 (each value alone is valid);
- ``years=2025:2023``, a range whose first year is after its last, is a 400 (each year alone
  is valid);
- two of ``year``, ``years`` and ``snapshot`` together are a 400 (each chooses the snapshots);
- ``weights`` all 0, or naming a dimension twice, is a 400 (each weight alone is valid);
- ``sort`` by ``Custom Score``, ``Custom Rank`` or ``custom`` without ``weights`` is a 400 (the
  custom values exist only with weights).

Only a 400 whose message is exactly that rule's is excused (a HEAD answer has no body: the
same request is sent as GET to read it); anything else fails as before.

A second check replaces ``negative_data_rejection``: the same check, except for a malformed
``code`` beside a well-formed ``codes``, which wins and leaves ``code`` unread
(docs/DECISIONS.md#query-parameters). Excused only when the same request without ``code``
gets the same status: the answer did not depend on it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import requests
import schemathesis
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

LEVEL_WITHOUT_CODE = "Invalid request. level=country needs code or codes"
YEARS_REVERSED = "(first year not after the last)"
SNAPSHOT_CHOOSERS = ("year", "years", "snapshot")
TWO_CHOOSERS = "each choose the snapshots to answer from; give one of them."
WEIGHTS_REFUSED = "Invalid request. weights="
CUSTOM_SORTS = ("custom score", "custom rank", "custom")
CUSTOM_SORT_REFUSED = "needs weights: Custom Score and Custom Rank exist only with your own weights"
CODES = re.compile(r"[A-Za-z]{3}(?:,[A-Za-z]{3})*")


def _excused(case: Any, response: Any) -> bool:
    """True when the 400 is one of the rules the document states in words only."""
    if response.status_code != 400:
        return False
    request = response.request
    try:
        if request.method == "HEAD":
            message = str(requests.get(str(request.url), timeout=10).json().get("error", ""))
        else:
            message = str(response.json().get("error", ""))
    except ValueError:
        return False
    # Arrays (codes, fields, indicators) as the service reads them: their values comma-joined.
    query = {str(name): ",".join(map(str, value)) if isinstance(value, list) else str(value)
             for name, value in (case.query or {}).items()}
    level_without_code = (
        query.get("level", "").strip().lower() == "country"
        and not query.get("code", "").strip()
        and not query.get("codes", "").strip()
        and message.startswith(LEVEL_WITHOUT_CODE)
    )
    first, _, last = query.get("years", "").strip().partition(":")
    years_reversed = bool(last) and first > last and message.endswith(YEARS_REVERSED + ".")
    chosen = [name for name in SNAPSHOT_CHOOSERS if query.get(name, "").strip()]
    two_choosers = len(chosen) > 1 and message == f"Invalid request. {' and '.join(chosen)} {TWO_CHOOSERS}"
    weights = message.startswith(WEIGHTS_REFUSED) and _weights_jointly_refused(query.get("weights", ""))
    custom_sort = (
        query.get("sort", "").strip().lower() in CUSTOM_SORTS and not query.get("weights", "").strip()
        and message.startswith(f"Invalid request. sort={query['sort'].strip()!r} {CUSTOM_SORT_REFUSED}")
    )
    return level_without_code or years_reversed or two_choosers or weights or custom_sort


def _weights_jointly_refused(value: str) -> bool:
    """True when a schema-valid ``weights`` breaks a rule between its weights: all are 0, or a
    ``dimension:weight`` list names a dimension twice."""
    pieces = [piece.strip() for piece in value.strip().split(",")]
    named = [piece.partition(":")[0] for piece in pieces if ":" in piece]
    try:
        all_zero = all(float(piece.rpartition(":")[2]) == 0 for piece in pieces)
    except ValueError:
        return False
    return bool(value.strip()) and (all_zero or len(set(named)) < len(named))


@schemathesis.check
def positive_data_acceptance_but_joint_rules(ctx: Any, response: Any, case: Any) -> bool | None:
    """``positive_data_acceptance``, except for the joint rules of this module's docstring."""
    if _excused(case, response):
        return None
    return positive_data_acceptance(ctx, response, case)


def _losing_code_unread(response: Any) -> bool:
    """True when a 2xx answered a request whose ``codes`` is well-formed, so that ``code`` was
    not read, and the same request without ``code`` gets the same status."""
    if not 200 <= response.status_code < 300:
        return False
    request = response.request
    parts = urlsplit(str(request.url))
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    values = dict(pairs)
    if "code" not in values or not CODES.fullmatch(values.get("codes", "").strip()):
        return False
    without = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in pairs if k != "code"])))
    return requests.request(str(request.method), without, timeout=10).status_code == response.status_code


@schemathesis.check
def negative_data_rejection_but_losing_code(ctx: Any, response: Any, case: Any) -> bool | None:
    """``negative_data_rejection``, except for the unread ``code`` of this module's docstring."""
    if _losing_code_unread(response):
        return None
    return negative_data_rejection(ctx, response, case)
