"""GET over HTTP the way the service asks to be read: revalidate with ``If-None-Match``, wait as
``Retry-After`` says (up to a cap), follow ``Link: rel="next"``, and turn an error envelope into
an exception naming what the service said.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode, urljoin

import requests

from readiness_client.cache import KEPT_HEADERS, DiskCache, Entry

__version__ = "0.1.0"
USER_AGENT = f"readiness-client/{__version__}"

RETRIED = frozenset({429, 503})
"""Statuses that mean "not now" (too many requests, busy): asked again after ``Retry-After``."""

_LINK = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,]+)*)")
_REL = re.compile(r"""\brel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))""", re.IGNORECASE)


class ApiError(Exception):
    """The service refused a request: ``status``, and its ``message`` (the error envelope's
    ``error``, which names the parameter and what is accepted)."""

    def __init__(self, status: int, message: str, url: str, retry_after: float | None = None) -> None:
        super().__init__(f"{status}: {message} ({url})")
        self.status = status
        self.message = message
        self.url = url
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer: the URL asked, its headers (lower-case names), its body, and whether the body
    came from the disk cache after a ``304 Not Modified``."""

    url: str
    headers: Mapping[str, str]
    body: bytes
    revalidated: bool = False

    def json(self) -> Any:
        return json.loads(self.body)

    def text(self) -> str:
        return self.body.decode("utf-8-sig")

    def next_url(self) -> str | None:
        """The absolute URL of the next page (``Link: <…>; rel="next"``), or None on the last."""
        return next_link(self.headers.get("link"), self.url)


def build_url(base_url: str, path: str, params: Mapping[str, str]) -> str:
    """``base_url`` + ``path`` + the query, in the order given; commas and colons left readable
    (``codes=KEN,BRA``, ``years=2015:2020``), everything else percent-encoded."""
    query = urlencode(list(params.items()), quote_via=quote, safe=",:")
    return base_url.rstrip("/") + path + (f"?{query}" if query else "")


def next_link(header: str | None, base: str) -> str | None:
    """The target of the ``rel="next"`` link of an RFC 8288 ``Link`` header, resolved against
    ``base``; None without one. Reads any number of links (``first``, ``prev``, ``last`` beside
    it) and relation lists (``rel="next last"``)."""
    if not header:
        return None
    for match in _LINK.finditer(header):
        for rel in _REL.finditer(match.group(2)):
            if "next" in (rel.group(1) or rel.group(2) or "").lower().split():
                return urljoin(base, str(match.group(1)))
    return None


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait: a number of seconds or an HTTP date
    (RFC 9110); None when absent or unreadable. A date past is 0."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000", "no zone said": an HTTP date is UTC
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def error_message(body: bytes, fallback: str) -> str:
    """The ``error`` of an error envelope, or ``fallback`` when the body is not one."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return fallback
    message = parsed.get("error") if isinstance(parsed, dict) else None
    return message if isinstance(message, str) else fallback


class Transport:
    """GETs with revalidation from ``cache``, ``max_retries`` retries of 429 and 503, each after
    its ``Retry-After`` (or 1, 2, 4… s without one), and never a wait over ``max_wait`` seconds:
    an answer asking for longer is raised at once (``ApiError.retry_after`` says how long)."""

    def __init__(
        self,
        *,
        session: requests.Session | None = None,
        cache: DiskCache | None = None,
        max_retries: int = 3,
        max_wait: float = 60.0,
        timeout: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if session is None:
            # A session given is used as configured; our own says which client sent the request.
            session = requests.Session()
            session.headers["User-Agent"] = USER_AGENT
        self.session = session
        self.cache = cache
        self.max_retries = max_retries
        self.max_wait = max_wait
        self.timeout = timeout
        self.sleep = sleep

    def get(self, url: str) -> Answer:
        """The answer to ``url``: a 200's, or the kept one on a 304. Raises ApiError."""
        kept = self.cache.get(url) if self.cache is not None else None
        headers = {"If-None-Match": kept.etag} if kept is not None else {}
        attempt = 0
        while True:
            response = self.session.get(url, headers=headers, timeout=self.timeout)
            if response.status_code not in RETRIED:
                break
            wait = retry_after(response.headers.get("Retry-After"))
            message = error_message(response.content, response.reason or "busy")
            if attempt >= self.max_retries:
                raise ApiError(response.status_code, message, url, wait)
            wait = float(2**attempt) if wait is None else wait
            if wait > self.max_wait:
                raise ApiError(response.status_code, message, url, wait)
            self.sleep(wait)
            attempt += 1
        if response.status_code == 304 and kept is not None:
            # The 304 repeats the validators; the rest (Link, Content-Type) is the kept answer's.
            fresh = {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers}
            return Answer(url, {**kept.headers, **fresh}, kept.body, revalidated=True)
        if response.status_code != 200:
            raise ApiError(response.status_code, error_message(response.content, response.reason or ""), url)
        answer = Answer(url, {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers},
                        response.content)
        etag = response.headers.get("ETag")
        if self.cache is not None and etag:
            self.cache.put(url, Entry(etag, dict(answer.headers), answer.body))
        return answer
