"""Schemathesis extension for the run in tests/test_openapi_fuzz.py (``SCHEMATHESIS_HOOKS``).

One check replaces the built-in ``negative_data_rejection``: the same check, except for two
requests the document cannot tell from valid ones, each excused only when the same request
without the parameter gets the same status (the answer did not depend on it):

- a malformed ``code`` beside a well-formed ``codes``, which wins and leaves ``code`` unread
  (docs/DECISIONS.md#query-parameters). The edge drops such a ``code`` from the request it sends
  upstream (k8s/base/edge-keys.js), so checking it in the service would change nothing behind
  the edge and make the two disagree;
- an array of one empty string (``fields=[""]``), which the form style writes as an empty value,
  ``fields=``: the same bytes as an empty value, which counts as absent (the rule every parameter's
  schema states by admitting the empty string; an array's cannot without admitting empty items,
  ``fields=,``, which are refused).

``positive_data_acceptance`` runs as schemathesis ships it: the document states every rule
between values (docs/DECISIONS.md#the-openapi-document-and-the-route-index).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import requests
import schemathesis
from schemathesis.specs.openapi.checks import negative_data_rejection

CODES = re.compile(r"[A-Za-z]{3}(?:,[A-Za-z]{3})*")


def _unread(response: Any, unread: Any) -> bool:
    """True when a 2xx or 3xx answered a request with a parameter ``unread(values)`` names, and the
    same request without it gets the same status."""
    if not 200 <= response.status_code < 400:
        return False
    request = response.request
    parts = urlsplit(str(request.url))
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    names = unread(dict(pairs))
    if not names:
        return False
    without = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in pairs if k not in names])))
    headers = {k: v for k, v in request.headers.items() if k.lower() in ("if-none-match", "if-modified-since")}
    return requests.request(str(request.method), without, headers=headers, timeout=10).status_code == (
        response.status_code)


def _empty(values: dict[str, str]) -> set[str]:
    """The names given an empty value."""
    return {name for name, value in values.items() if not value.strip()}


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
    """``negative_data_rejection``, except for the unread ``code`` and empty values of this module's docstring."""
    if _losing_code_unread(response) or _unread(response, _empty):
        return None
    return negative_data_rejection(ctx, response, case)
