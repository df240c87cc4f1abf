"""Schemathesis extension for the run in tests/test_openapi_fuzz.py (``SCHEMATHESIS_HOOKS``).

One check replaces the built-in ``negative_data_rejection``: the same check, except for a
malformed ``code`` beside a well-formed ``codes``, which wins and leaves ``code`` unread
(docs/DECISIONS.md#query-parameters). Excused only when the same request without ``code``
gets the same status: the answer did not depend on it. The edge drops such a ``code`` from the
request it sends upstream (k8s/base/edge-keys.js), so checking it in the service would change
nothing behind the edge and make the two disagree.

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
