"""What a response carries: the headers of every JSON response, which representation of a
cached answer a request gets, and the status line and headers it is sent with. Both ways of
sending an answer (``handlers.py`` and ``hits.py``) take all of it from here: ``answer_head``
builds every header of an answer for both."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from email.utils import formatdate, parsedate_to_datetime
from functools import lru_cache

from tornado.httputil import HTTPHeaders, ResponseStartLine

from readiness.domain.answer import Answer
from readiness.domain.meta import Headers
from readiness.http.wire import head_bytes

EXPOSED = ("ETag, Deprecation, Link, Last-Modified, X-Readiness-Snapshot, X-Total-Count, Content-Disposition, "
           "Accept-Ranges, Content-Range")
"""The response headers a browser script may read (CORS; docs/API.md#headers)."""

JSON_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Type", "application/json; charset=utf-8"),
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Expose-Headers", EXPOSED),
    ("X-Content-Type-Options", "nosniff"),
)
"""On every response: JSON, CORS and nosniff (docs/CACHING.md)."""

DEPRECATION = "@1798761600"
"""RFC 9745 date of the legacy route's deprecation: 2027-01-01T00:00:00Z (docs/API.md)."""

SUCCESSOR_LINK = '</api/v1/readiness>; rel="successor-version"'
"""RFC 8288 link from the legacy route to its successor (docs/DECISIONS.md#routes-and-errors)."""

LEGACY_HEADERS: tuple[tuple[str, str], ...] = JSON_HEADERS + (
    ("Deprecation", DEPRECATION),
    ("Link", SUCCESSOR_LINK),
)
"""On every response of the legacy route: the JSON headers, its deprecation and successor."""

VARY = "Accept-Encoding"
"""Answers have a gzip and an identity representation; shared caches must key on this."""

_OWS = " \t"
_QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")
"""RFC 9110 qvalue: 0 to 1 with at most three decimals."""
_CODINGS = frozenset({"gzip", "identity", "*"})
_ALIASES = {"x-gzip": "gzip"}
"""RFC 9110 (section 8.4.1.3): x-gzip is gzip."""


@dataclass(frozen=True, slots=True)
class Representation:
    """The response to send for a cached answer: 200 with a body or 304 without one, and the
    answer's own headers (Content-Type, Last-Modified, ...)."""

    status: int
    etag: str
    gzipped: bool
    body: bytes
    headers: Headers = ()


STATUS_LINES = {
    200: ResponseStartLine("", 200, "OK"),
    206: ResponseStartLine("", 206, "Partial Content"),
    304: ResponseStartLine("", 304, "Not Modified"),
    416: ResponseStartLine("", 416, "Range Not Satisfiable"),
}
"""The status lines of an answer (HTTP/1.1 writes its own version)."""

_RANGE = re.compile(r"bytes[ \t]*=[ \t]*([0-9]{0,18})[ \t]*-[ \t]*([0-9]{0,18})[ \t]*", re.IGNORECASE)
"""One byte range (RFC 9110, section 14.1.2): ``bytes=first-last``, ``bytes=first-`` or ``bytes=-suffix``."""


def answer_head(
    route_headers: Sequence[tuple[str, str]], chosen: Representation, cache_control: str, date: str
) -> tuple[ResponseStartLine, HTTPHeaders]:
    """The status line and every header of an answer: the one place that builds them, for the
    handler (``BaseHandler.write_answer``) and the hit lane alike.

    The route's headers, then the answer's own (precomputed with it: ``Content-Type``,
    ``Content-Disposition``, ``Last-Modified``, ``X-Readiness-Snapshot``, ``X-Total-Count``),
    ``Date``, ``Cache-Control``, ``Vary`` and the chosen representation's ``Etag``; a 200 adds
    ``Content-Encoding`` when gzipped and ``Content-Length`` (for HEAD too: the length a GET
    would get); a 304 carries no ``Content-Type`` or ``Content-Disposition`` (it sends no
    representation).
    """
    headers = HTTPHeaders()
    for name, value in route_headers:
        headers[name] = value
    for name, value in chosen.headers:
        headers[name] = value
    headers["Date"] = date
    headers["Cache-Control"] = cache_control
    headers["Vary"] = VARY
    headers["Etag"] = chosen.etag
    if chosen.status in (304, 416):
        headers.pop("Content-Type", None)
        headers.pop("Content-Disposition", None)
    if chosen.status == 416:
        headers["Content-Length"] = "0"
    elif chosen.status != 304:
        if chosen.gzipped:
            headers["Content-Encoding"] = "gzip"
        headers["Content-Length"] = str(len(chosen.body))
    return STATUS_LINES[chosen.status], headers


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """``Cache-Control`` values: answers from the current snapshot change monthly, archives never.

    Both carry ``stale-while-revalidate`` and ``stale-if-error`` (RFC 5861), which the edge
    (nginx) and CDNs honour: the service, not each cache's configuration, says how stale an
    answer may get. While revalidating: short (30 s by default), as it adds to how long the
    previous month is served after a refresh; on error (the API down, or shedding with 503):
    a day by default, as last-known answers beat an error (docs/OPERATIONS.md#the-edge).
    """

    current: str
    archive: str

    @classmethod
    def of(cls, max_age: int, archive_max_age: int, while_revalidate: int = 30, if_error: int = 86400) -> CachePolicy:
        """Public caching for ``max_age`` seconds (current) and ``archive_max_age`` (archives),
        stale for ``while_revalidate`` seconds while revalidating and ``if_error`` on error."""
        stale = f"stale-while-revalidate={while_revalidate}, stale-if-error={if_error}"
        return cls(f"public, max-age={max_age}, {stale}", f"public, max-age={archive_max_age}, {stale}")

    def chosen(self, archival: bool) -> str:
        """``archive`` for an answer that never changes (one a query pins to a snapshot), else ``current``."""
        return self.archive if archival else self.current

    def within(self, archival: bool, seconds: int) -> str:
        """``chosen``, its ``max-age`` lowered to ``seconds`` if longer: for an answer that changes
        then whatever its snapshot does (a citation's access date, at midnight UTC)."""
        value = self.chosen(archival)
        return _MAX_AGE.sub(lambda found: f"max-age={min(int(found[1]), seconds)}", value, count=1)


_MAX_AGE = re.compile(r"max-age=([0-9]+)")


Response = tuple[ResponseStartLine, HTTPHeaders, bytes]
"""What is sent for a cached answer: status line, every header, and the body (empty for a 304)."""


def represent_request(
    request: HTTPHeaders,
    answer: Answer,
    route_headers: Headers,
    cache_control: str,
    date: str,
    heads: KeptHeads | None = None,
) -> Response:
    """The response to a request with headers ``request`` for ``answer``: the representation
    it prefers (``represent``) and its head (``answer_head``, or the one ``heads`` kept). The
    one call every sender of a cached answer makes: the handlers, the pages and the hit lane."""
    chosen = represent(
        answer,
        _header(request, "Accept-Encoding"),
        _header(request, "If-None-Match"),
        _header(request, "If-Modified-Since"),
    )
    if answer.meta.format.binary and chosen.status == 200 and "Range" in request:
        chosen = ranged(chosen, answer, request["Range"], _header(request, "If-Range"))
        if chosen.status != 200:  # a head per range: never one the hit lane keeps
            start_line, head = answer_head(route_headers, chosen, cache_control, date)
            return start_line, head, chosen.body
    if heads is None:
        start_line, head = answer_head(route_headers, chosen, cache_control, date)
    else:
        start_line, head = heads.head(route_headers, chosen, cache_control, date)
    return start_line, head, chosen.body


def _header(request: HTTPHeaders, name: str) -> str:
    """The request header ``name``, "" when absent. Asked first rather than with ``get``,
    which finds an absent header by raising and catching a KeyError: most requests send none of
    the three headers ``represent_request`` reads, and the exception costs more than the test
    (docs/PERFORMANCE.md#the-hit-lanes-costs-before-and-after)."""
    return request[name] if name in request else ""


class KeptHeads:
    """The heads (status line and headers) of the answers the hit lane sends, each built once
    a second rather than once a response, and the bytes they are written as.

    Every header of an answer but ``Date`` is fixed by its representation, its route and the
    cache policy, and building the ``HTTPHeaders`` costs a visible share of a hit
    (docs/PERFORMANCE.md#hit-path-against-a-bare-handler-content-type-only-2026-11-25). So the
    head of each representation sent this second is kept and sent again; the next second
    starts afresh with the new ``Date``, which also bounds what is kept. ``wire`` keeps the
    whole response as bytes beside its head, written as it is (``readiness/http/wire.py``).

    A kept head is shared by every response that sends it, so nothing may add a header to one:
    a sender that must (``Connection: close`` while draining, or Tornado's ``write_headers`` for
    a client that does not keep its connection alive) sends a copy. Only the hit lane uses it:
    a RequestHandler changes the headers it is given (``BaseHandler.send_response``).
    """

    LIMIT = 256
    """At most this many heads a second (distinct answers); beyond, each is built as it goes."""

    WHOLE_BYTES = 512 * 1024
    """Bodies up to this size are kept in their response's bytes for the second; a larger
    one is written as the head with its first ``LEAD_BYTES``, then a view of the rest."""

    LEAD_BYTES = 16 * 1024
    """How much of a large body goes out with its head, in the response's first write: enough
    that the head never goes alone in a segment, little enough that a client that does not read
    pins little of this copy once the kernel has taken its 32 KiB (``READINESS_UNSENT_BYTES``):
    with 64 KiB, 64 such readers held 3.7 MiB more in the process than one that reads."""

    BYTES = 16 * 1024 * 1024
    """At most this many bytes of whole responses kept a second; beyond, heads alone."""

    def __init__(self) -> None:
        self._date = ""
        self._heads: dict[tuple[int, str], _Kept] = {}
        self._sent: dict[int, _Kept] = {}
        """The same heads by the ``id`` of their headers, for ``wire``."""
        self._bytes = 0

    def head(
        self, route_headers: Headers, chosen: Representation, cache_control: str, date: str
    ) -> tuple[ResponseStartLine, HTTPHeaders]:
        """``answer_head(route_headers, chosen, cache_control, date)``, kept for this second."""
        if date != self._date:
            self._heads.clear()
            self._sent.clear()
            self._bytes = 0
            self._date = date
        key = (chosen.status, chosen.etag)
        kept = self._heads.get(key)
        if kept is not None and kept.chosen == chosen and kept.route_headers == route_headers \
                and kept.cache_control == cache_control:
            return kept.start_line, kept.headers
        start_line, headers = answer_head(route_headers, chosen, cache_control, date)
        if len(self._heads) < self.LIMIT:
            kept = self._heads[key] = _Kept(chosen, route_headers, cache_control, start_line, headers)
            self._sent[id(headers)] = kept
        return start_line, headers

    def wire(
        self, start_line: ResponseStartLine, headers: HTTPHeaders, body: bytes
    ) -> tuple[bytes] | tuple[bytes, memoryview]:
        """The whole response of ``head``'s ``start_line`` and ``headers`` with ``body`` (empty
        for a HEAD or a 304), as the pieces to write one after the other. Kept with a head kept
        this second when the body is at most ``WHOLE_BYTES`` and within ``BYTES``. A larger
        body is not copied: the head joined to its first ``LEAD_BYTES``, then a view of the
        rest of the cached body, so a client that does not read holds no copy of it (written
        apart, the head alone in its own segment, a 2.7 MB answer went at 0.75 of the bare
        server's rate, against 0.98)."""
        if len(body) > self.WHOLE_BYTES:
            return head_bytes(start_line, headers) + body[:self.LEAD_BYTES], memoryview(body)[self.LEAD_BYTES:]
        kept = self._sent.get(id(headers))  # held there, so no other object has that id
        if kept is not None:
            made = kept.with_body if body else kept.without_body
            if made is not None:
                return (made,)
        made = head_bytes(start_line, headers) + body
        if kept is not None:
            if not body:
                kept.without_body = made
            elif self._bytes + len(body) <= self.BYTES:
                kept.with_body = made
                self._bytes += len(body)
        return (made,)


@dataclass(slots=True, eq=False)
class _Kept:
    """A head ``KeptHeads`` keeps: what it was built from, and the bytes ``wire`` made of it."""

    chosen: Representation
    route_headers: Headers
    cache_control: str
    start_line: ResponseStartLine
    headers: HTTPHeaders
    with_body: bytes | None = None
    """The whole response of a GET with a body."""
    without_body: bytes | None = None
    """The response of a HEAD (or a 304): its head."""


class HttpDate:
    """The ``Date`` header's value, formatted once a second rather than once a response."""

    def __init__(self) -> None:
        self._second = -1
        self._date = ""

    def at(self, now: float) -> str:
        """RFC 9110's IMF-fixdate of ``now`` (seconds since the epoch)."""
        second = int(now)
        if second != self._second:
            self._second, self._date = second, formatdate(second, usegmt=True)
        return self._date


def represent(
    answer: Answer, accept_encoding: str, if_none_match: str, if_modified_since: str = ""
) -> Representation:
    """Choose the gzip copy when the client prefers it and the answer has one; 304 when
    ``If-None-Match`` names either representation (the ETag is the chosen one's), or, without
    ``If-None-Match``, when ``If-Modified-Since`` is not before the answer's ``Last-Modified``
    (RFC 9110, section 13.2.2: If-None-Match takes precedence)."""
    compressed = answer.gzipped
    if compressed is not None and not prefers_gzip(accept_encoding):
        compressed = None
    etag = answer.etag if compressed is None else answer.gzip_etag
    if etag_matches(if_none_match, answer) or (
        not if_none_match and if_modified_since and not_modified_since(if_modified_since, answer.modified)
    ):
        return Representation(304, etag, compressed is not None, b"", answer.headers)
    if compressed is None:
        return Representation(200, etag, False, answer.body, answer.headers)
    return Representation(200, etag, True, compressed, answer.headers)


def ranged(chosen: Representation, answer: Answer, range_header: str, if_range: str) -> Representation:
    """The part of a 200 (``chosen``, identity: a file already compressed has no gzip copy) that
    ``Range`` asks for (RFC 9110, section 14): 206 with ``Content-Range`` for one satisfiable byte
    range, 416 with ``Content-Range: bytes */length`` for one that starts past the end (or an empty
    suffix). The whole 200 for anything else: a range ``If-Range`` does not validate (neither the
    answer's ETag, compared strongly, nor its ``Last-Modified`` date), several ranges, another unit,
    or a header that does not parse (RFC 9110 lets a server ignore them)."""
    length = len(chosen.body)
    if if_range and if_range.strip() != answer.etag and http_date_seconds(if_range) != answer.modified:
        return chosen
    match = _RANGE.fullmatch(range_header.strip())
    if match is None or (not match.group(1) and not match.group(2)):
        return chosen
    first, last = match.groups()
    if not first:  # a suffix: the last N bytes
        start, end = max(length - int(last), 0), length - 1
        satisfiable = int(last) > 0 and length > 0
    else:
        start, end = int(first), length - 1 if not last else min(int(last), length - 1)
        if last and int(last) < start:
            return chosen  # invalid: ignored
        satisfiable = start < length
    if not satisfiable:
        return Representation(416, chosen.etag, False, b"", (*chosen.headers, ("Content-Range", f"bytes */{length}")))
    headers = (*chosen.headers, ("Content-Range", f"bytes {start}-{end}/{length}"))
    return Representation(206, chosen.etag, False, chosen.body[start:end + 1], headers)


def not_modified_since(if_modified_since: str, modified: int | None) -> bool:
    """Whether an answer last modified at ``modified`` (seconds since the epoch; None: unknown)
    is unchanged since the ``If-Modified-Since`` date. An unparsable date is ignored (RFC 9110)."""
    if modified is None:
        return False
    since = http_date_seconds(if_modified_since)
    return since is not None and modified <= since


@lru_cache(maxsize=64)
def http_date_seconds(value: str) -> int | None:
    """An HTTP date (IMF-fixdate, or the obsolete RFC 850 and asctime forms) in seconds since
    the epoch; None when it is not one. Memoized: clients send back the few Last-Modified
    values they were given; 64 values of at most Tornado's 64 KiB header block are kept."""
    try:
        parsed = parsedate_to_datetime(value)  # a real calendar date: no 30 February
    except (IndexError, OverflowError, TypeError, ValueError):  # email.utils on odd input
        return None
    if parsed.tzinfo is None:  # "-0000": UTC, by RFC 5322
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp())


@lru_cache(maxsize=64)
def prefers_gzip(accept_encoding: str) -> bool:
    """Whether a request's ``Accept-Encoding`` makes the gzip copy the better representation
    than identity, by RFC 9110 (section 12.5.3).

    The most specific entry wins: ``gzip`` (or ``x-gzip``) and ``identity`` over ``*``. An
    entry whose ``q`` is not a valid qvalue (0 to 1, at most three decimals) is ignored; a
    coding listed twice counts with its lower weight. Identity is chosen when it weighs more
    than gzip, when gzip weighs 0, and when neither is acceptable (never 406). An absent or
    empty header gets identity. Memoized: clients send few distinct values, and a hit is one
    lookup rather than a parse; 64 values of at most Tornado's 64 KiB header block are kept.
    """
    weights: dict[str, float] = {}
    for entry in accept_encoding.split(","):
        coding, *parameters = entry.split(";")
        coding = coding.strip(_OWS).lower()
        coding = _ALIASES.get(coding, coding)
        if coding not in _CODINGS:
            continue
        weight = _weight(parameters)
        if weight is not None:
            weights[coding] = min(weight, weights.get(coding, weight))
    anything = weights.get("*")
    gzip = weights.get("gzip", anything or 0.0)
    identity = weights.get("identity", anything)
    return gzip > 0 and (identity is None or gzip >= identity)


def etag_matches(if_none_match: str, answer: Answer) -> bool:
    """Whether If-None-Match names either representation of the answer (weak comparison)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return answer.etag in tags or answer.gzip_etag in tags


def _weight(parameters: list[str]) -> float | None:
    """An entry's ``q`` (1 without one); None when it is not a valid qvalue or is given twice."""
    weight: float | None = None
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip(_OWS).lower() != "q":
            continue  # not in RFC 9110's grammar, but harmless: ignored, not the entry
        value = value.strip(_OWS)
        if weight is not None or not _QVALUE.fullmatch(value):
            return None
        weight = float(value)
    return 1.0 if weight is None else weight
