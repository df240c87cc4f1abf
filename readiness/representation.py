"""What a response carries: the headers of every JSON response and which representation of a
cached answer a request gets. Both ways of sending an answer (``handlers.py`` and ``hits.py``)
read these rules from here."""

from __future__ import annotations

from dataclasses import dataclass

from readiness.cache import Answer

JSON_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Type", "application/json; charset=utf-8"),
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Expose-Headers", "ETag, Deprecation, Link"),
    ("X-Content-Type-Options", "nosniff"),
)
"""On every response: JSON, CORS and nosniff (DESIGN §4)."""

DEPRECATION = "@1798761600"
"""RFC 9745 date of the legacy route's deprecation: 2027-01-01T00:00:00Z (SPEC 9)."""

SUCCESSOR_LINK = '</api/v1/readiness>; rel="successor-version"'
"""RFC 8288 link from the legacy route to its successor (DESIGN §3, legacy route)."""

LEGACY_HEADERS: tuple[tuple[str, str], ...] = JSON_HEADERS + (
    ("Deprecation", DEPRECATION),
    ("Link", SUCCESSOR_LINK),
)
"""On every response of the legacy route: the JSON headers, its deprecation and successor."""

VARY = "Accept-Encoding"
"""Answers have a gzip and an identity representation; shared caches must key on this."""


@dataclass(frozen=True, slots=True)
class Representation:
    """The response to send for a cached answer: 200 with a body or 304 without one."""

    status: int
    etag: str
    gzipped: bool
    body: bytes


def represent(answer: Answer, accept_encoding: str, if_none_match: str) -> Representation:
    """Choose the gzip copy when the client accepts it and the answer has one; 304 when
    ``If-None-Match`` names either representation (the ETag is the chosen one's)."""
    compressed = answer.gzipped
    if compressed is not None and not accepts_gzip(accept_encoding):
        compressed = None
    etag = answer.etag if compressed is None else answer.gzip_etag
    if etag_matches(if_none_match, answer):
        return Representation(304, etag, compressed is not None, b"")
    if compressed is None:
        return Representation(200, etag, False, answer.body)
    return Representation(200, etag, True, compressed)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header admits gzip (``gzip`` or ``*``, with q above 0)."""
    for item in accept_encoding.lower().split(","):
        coding, _, parameters = item.partition(";")
        if coding.strip() in ("gzip", "*"):
            weight = parameters.strip()
            return not (weight.startswith("q=") and _is_zero(weight[2:]))
    return False


def etag_matches(if_none_match: str, answer: Answer) -> bool:
    """Whether If-None-Match names either representation of the answer (weak comparison)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return answer.etag in tags or answer.gzip_etag in tags


def _is_zero(weight: str) -> bool:
    try:
        return float(weight) == 0
    except ValueError:
        return False
