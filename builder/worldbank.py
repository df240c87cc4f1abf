"""A small client of the World Bank Indicators API v2: paged JSON, timeouts, bounded retries.

Every answer of the API is a two-element JSON array: a metadata object (``page``, ``pages``,
``per_page``, ``total``, and for data ``sourceid`` and ``lastupdated``) and the page's rows.
An error is a one-element array ``[{"message": [{"id", "key", "value"}]}]``, often with
status 200. ``fetch_all`` follows the pages and checks each against the first, so a source
that answers something else fails loudly rather than yielding part of a table
(docs/PUBLISHING.md#0-fetch-the-raw-tables-from-the-world-bank-api). HTTP goes through
``requests`` with urllib3's ``Retry``: 5xx answers, timeouts and dropped connections are
retried after waits of backoff x 2^n seconds (2, 4, 8, 16 s by default: ``SourceSettings.waits``),
or what a ``Retry-After`` header asks, up to ``MAX_WAIT``. Pages are as large as the API
allows (``MAX_PER_PAGE``), so a series of every economy over the method's window is one page.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import takewhile
from typing import cast

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError, ProtocolError, ReadTimeoutError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import RequestHistory, Retry

from builder.waits import Wait
from config import redact
from loaders import JsonValue

PUBLIC_API = "https://api.worldbank.org/v2"
_RETRIED_STATUSES = (500, 502, 503, 504)
MAX_PER_PAGE = 32_500
"""The largest page the Indicators API v2 serves (``per_page`` 1 to 32,500). A series of
every economy and aggregate over the method's window is about 2,700 rows: one page."""
MAX_WAIT = 120.0
"""No wait between two tries is longer, whatever the backoff or a ``Retry-After`` asks."""
MAX_PARALLEL = 8
"""At most this many requests at once (``--parallel``): a public API, asked politely."""



class SourceError(Exception):
    """The source stayed unavailable or answered something unexpected; the message says what."""


@dataclass(frozen=True, slots=True)
class SourceSettings:
    """How to reach the API: base URL (a mirror or a test's fake), per-request timeout in
    seconds, retries after the first attempt, the backoff factor (waits of factor x 2^n
    seconds before retry n+1: 2, 4, 8, 16 s), the page size asked for, how many series are
    fetched at once, and the longest silence while a request or a wait goes on (``every``
    seconds: a watchdog's line, builder.waits)."""

    base_url: str = PUBLIC_API
    timeout: float = 30.0
    retries: int = 4
    backoff: float = 2.0
    per_page: int = MAX_PER_PAGE
    parallel: int = 4
    every: float = 10.0

    @property
    def waits(self) -> tuple[float, ...]:
        """The waits before each retry of one request, without a ``Retry-After``."""
        return tuple(min(MAX_WAIT, self.backoff * 2 ** n) for n in range(self.retries))


@dataclass(frozen=True, slots=True)
class Answer:
    """All rows of one paged request, with the first page's metadata (``lastupdated`` etc.)."""

    meta: Mapping[str, JsonValue]
    rows: tuple[Mapping[str, JsonValue], ...] = field(default=())
    pages: int = 1
    retries: int = 0
    """Retries over all pages (each after a 5xx answer, a timeout or a dropped connection)."""


Told = Callable[[str, float], None]
"""Told of each retry before its wait: the cause of the failed try (``HTTP 503``, ``no answer
within the timeout``) and the seconds of the wait (builder.waits.Waits.retrying)."""

_CAUSES: tuple[tuple[type[Exception], str], ...] = (
    (NewConnectionError, "connection refused or unreachable"),
    (ConnectTimeoutError, "no connection within the timeout"),
    (ReadTimeoutError, "no answer within the timeout"),
    (ProtocolError, "connection dropped"),
)
"""The failures urllib3 retries, in words (the first class that matches: NewConnectionError is a
ConnectTimeoutError)."""


class _Retry(Retry):
    """urllib3's Retry with the documented waits, spent through an injectable ``wait``, and
    each retry told (``told``) before its wait.

    urllib3 retries the first time at once and then waits factor x 2^n (0, 4, 8, 16 s for a
    factor of 2); here the first retry waits too: factor x 2^(n-1) after the n-th
    consecutive failure (2, 4, 8, 16 s), as SourceSettings.waits lists them.
    """

    def __init__(self, *args: object, wait: Wait = time.sleep, told: Told | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.wait = wait
        self.told = told

    def new(self, **kw: object) -> _Retry:
        fresh = super().new(**kw)
        fresh.wait = self.wait
        fresh.told = self.told
        return fresh

    def get_backoff_time(self) -> float:
        failures = len(list(takewhile(lambda entry: entry.redirect_location is None, reversed(self.history))))
        if failures == 0:
            return 0.0
        return float(min(self.backoff_max, self.backoff_factor * 2 ** (failures - 1)))

    def sleep_for_retry(self, response: BaseHTTPResponse) -> bool:
        after = self.get_retry_after(response)
        if after:
            self.wait(after)
            return True
        return False

    def sleep(self, response: BaseHTTPResponse | None = None) -> None:
        after = self.get_retry_after(response) if self.respect_retry_after_header and response is not None else None
        seconds = after or self.get_backoff_time()
        if self.told is not None:
            self.told(_cause(self.history[-1]) if self.history else "a failed try", seconds)
        if seconds > 0:
            self.wait(seconds)


def _cause(failed: RequestHistory) -> str:
    """Why a try failed, in words: ``HTTP 503``, ``no answer within the timeout``."""
    if failed.status is not None:
        return f"HTTP {failed.status}"
    for kind, words in _CAUSES:
        if isinstance(failed.error, kind):
            return words
    return type(failed.error).__name__ if failed.error is not None else "a failed try"


def session(settings: SourceSettings, wait: Wait = time.sleep, told: Told | None = None) -> requests.Session:
    """A session that retries 5xx answers, timeouts and refused connections with backoff,
    waiting through ``wait``, each retry told to ``told`` before its wait."""
    retry = _Retry(
        total=settings.retries,
        connect=settings.retries,
        read=settings.retries,
        status=settings.retries,
        other=0,
        backoff_factor=settings.backoff,
        status_forcelist=_RETRIED_STATUSES,
        allowed_methods=frozenset({"GET"}),
        raise_on_status=False,
        respect_retry_after_header=True,
        backoff_max=MAX_WAIT,
        retry_after_max=int(MAX_WAIT),
        wait=wait,
        told=told,
    )
    client = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    client.mount("http://", adapter)
    client.mount("https://", adapter)
    return client


def fetch_all(
    client: requests.Session,
    settings: SourceSettings,
    path: str,
    params: Mapping[str, str],
    asking: Callable[[int], None] = lambda number: None,
) -> Answer:
    """Every row of ``path`` (e.g. ``country/all/indicator/SP.POP.TOTL``), page by page;
    ``asking`` hears of each page's number before it is asked for.

    Raises SourceError when a request still fails after the retries, when an answer is not
    the API's JSON shape, carries the API's error message, or its pages disagree (a page
    number or count that changed, fewer or more rows than ``total``).
    """
    asking(1)
    first = _page(client, settings, path, params, 1)
    pages = _count(first.meta, "pages", path)
    total = _count(first.meta, "total", path)
    rows = list(first.rows)
    retries = first.retries
    for number in range(2, pages + 1):
        asking(number)
        page = _page(client, settings, path, params, number)
        if _count(page.meta, "pages", path) != pages or _count(page.meta, "total", path) != total:
            raise SourceError(f"{path}: page {number} disagrees with page 1 on pages/total "
                              "(the source changed while it was read; run again)")
        rows.extend(page.rows)
        retries += page.retries
    if len(rows) != total:
        raise SourceError(f"{path}: {len(rows)} rows over {pages} page(s), but total is {total}")
    return Answer(first.meta, tuple(rows), max(1, pages), retries)


def _page(
    client: requests.Session, settings: SourceSettings, path: str, params: Mapping[str, str],
    number: int,
) -> Answer:
    url = f"{settings.base_url.rstrip('/')}/{path}"
    query = {**params, "format": "json", "per_page": str(settings.per_page), "page": str(number)}
    where = f"{path} page {number}"
    shown = redact(settings.base_url, settings.base_url)  # a mirror's URL may carry a password
    try:
        response = client.get(url, params=query, timeout=settings.timeout)
    except requests.RequestException as error:
        raise SourceError(f"{where}: no answer from {shown} after "
                          f"{settings.retries} retries ({type(error).__name__})") from None
    if response.status_code != 200:
        raise SourceError(f"{where}: HTTP {response.status_code} from {shown}"
                          + (f" after {settings.retries} retries"
                             if response.status_code in _RETRIED_STATUSES else ""))
    try:
        document = cast(JsonValue, response.json())
    except ValueError:
        raise SourceError(f"{where}: the answer is not JSON "
                          f"({response.headers.get('Content-Type', 'no content type')})") from None
    parsed = _parsed(document, where, number)
    return Answer(parsed.meta, parsed.rows, 1, _retried(response))


def _retried(response: requests.Response) -> int:
    """How many retries urllib3 made before this answer (its Retry's history)."""
    retry = getattr(response.raw, "retries", None)
    return len(retry.history) if isinstance(retry, Retry) else 0


def _parsed(document: JsonValue, where: str, number: int) -> Answer:
    """Check one page's shape: [metadata, rows] or the API's error message."""
    if isinstance(document, list) and len(document) == 1 and isinstance(document[0], dict):
        messages = document[0].get("message")
        if isinstance(messages, list) and messages:
            said = "; ".join(
                f"{m.get('id')} {m.get('key')}: {m.get('value')}" for m in messages if isinstance(m, dict)
            )
            raise SourceError(f"{where}: the API refused the request: {said}")
    if not (isinstance(document, list) and len(document) == 2 and isinstance(document[0], dict)):
        raise SourceError(f"{where}: not the API's [metadata, rows] answer")
    meta, rows = document[0], document[1]
    if rows is None and _count(meta, "total", where) == 0:
        rows = []  # the API's answer for an empty result
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise SourceError(f"{where}: the rows are not a list of objects")
    if _count(meta, "page", where) != number:
        raise SourceError(f"{where}: the API answered page {meta.get('page')!r} instead")
    return Answer(meta, tuple(cast(dict[str, JsonValue], row) for row in rows))


def _count(meta: Mapping[str, JsonValue], key: str, where: str) -> int:
    """A metadata count; the API writes some as strings ("per_page": "50")."""
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).isdigit():
        raise SourceError(f"{where}: metadata {key!r} is {value!r}, not a count")
    return int(value)

