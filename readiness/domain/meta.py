"""What an answer says about itself besides its body: its format, snapshot, publication date,
total row count and download name, and the response headers they become (docs/API.md#headers).

An ``Answer`` (``readiness/domain/answer.py``) carries one ``AnswerMeta`` and the headers built from it
once, so a cache hit sends them without formatting anything; the Redis codec packs the meta as
numbers and a checked name, so no text read from Redis reaches a header unchecked.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from email.utils import formatdate
from enum import Enum
from functools import lru_cache

Headers = tuple[tuple[str, str], ...]


class Format(Enum):
    """The representation an answer is serialized to (docs/API.md#parameters: format)."""

    JSON = "json"
    CSV = "csv"
    PARQUET = "parquet"
    """A bulk file of a snapshot's table (docs/API.md#downloads): never a ``format=`` value."""
    ZIP = "zip"
    """A snapshot's bulk package (docs/API.md#downloads): never a ``format=`` value."""

    @property
    def content_type(self) -> str:
        """The ``Content-Type`` of an answer in this format."""
        return _CONTENT_TYPES[self]

    @property
    def extension(self) -> str:
        """The file extension of an answer in this format, without its dot: its name (``csv``)."""
        return self.value

    @property
    def binary(self) -> bool:
        """Whether answers in this format are files already compressed (Parquet, zip): sent
        without a gzip copy, with ``Accept-Ranges: bytes``, and a ``Range`` is answered
        (docs/DECISIONS.md#bulk-downloads)."""
        return self in (Format.PARQUET, Format.ZIP)


_CONTENT_TYPES = {
    Format.JSON: "application/json; charset=utf-8",
    Format.CSV: "text/csv; charset=utf-8",
    Format.PARQUET: "application/vnd.apache.parquet",
    Format.ZIP: "application/zip",
}

SNAPSHOT_ID = re.compile(r"([0-9]{4})-([0-9]{2})")
"""A snapshot id, ``YYYY-MM`` (docs/DATA.md)."""
PUBLISHED = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
"""A publication date, ``YYYY-MM-DD`` (docs/DATA.md#manifestjson)."""
DOWNLOAD_NAME = re.compile(r"[a-z]{1,32}")
"""What a CSV download's name starts with: the route's name, lower-case ASCII letters only."""
_PAGE_URL = r"/api/v1(?:/[a-z]{1,32}){1,4}(?:\?[A-Za-z0-9_.~%,:=&-]{1,8192})?"
_LINK = f'<{_PAGE_URL}>; rel="(?:first|prev|next|last)"'
PAGE_LINKS = re.compile(f"{_LINK}(?:, {_LINK}){{0,3}}")
"""The ``Link`` header of a page (RFC 8288): one to four links, ``first``, ``prev``, ``next`` and
``last``, each a page's relative URL: a v1 path (lower-case words, as a route's path in
readiness/domain/routes.py) and its canonical query when not empty, percent-encoded ASCII only, so no quote, angle
bracket or line break can reach the header."""


@dataclass(frozen=True, slots=True)
class AnswerMeta:
    """What an answer's headers say (docs/API.md#headers).

    ``snapshot`` is the id of the snapshot the data comes from (``YYYY-MM``), ``published``
    its publication date (``YYYY-MM-DD``), ``total`` the rows that matched before ``limit``
    (list answers), ``download`` the first part of a CSV file name (the route: "readiness"),
    ``links`` the ``Link`` header's value, the other pages' relative URLs (``PAGE_LINKS``),
    ``synthetic`` whether its manifest says the data is synthetic (the CSV file name says so).
    Raises ValueError for a value the headers could not carry safely.
    """

    format: Format = Format.JSON
    snapshot: str | None = None
    published: str | None = None
    total: int | None = None
    download: str | None = None
    links: str | None = None
    synthetic: bool = False

    def __post_init__(self) -> None:
        # Checked here, once per computed answer, so every header value is known to be plain.
        if self.snapshot is not None and not SNAPSHOT_ID.fullmatch(self.snapshot):
            raise ValueError(f"not a snapshot id: {self.snapshot!r}")
        if self.published is not None:
            _published_seconds(self.published)
        if self.total is not None and not 0 <= self.total < 2**32 - 1:
            raise ValueError(f"total out of range: {self.total}")
        if self.download is not None and not DOWNLOAD_NAME.fullmatch(self.download):
            raise ValueError(f"not a download name: {self.download!r}")
        if self.links is not None and not PAGE_LINKS.fullmatch(self.links):
            raise ValueError(f"not the links of a page: {self.links!r}")

    @property
    def modified(self) -> int | None:
        """``Last-Modified`` in seconds since the epoch: the publication date at 00:00:00 GMT."""
        return None if self.published is None else _published_seconds(self.published)

    @property
    def filename(self) -> str:
        """The download's file name: route (or table), then snapshot id (``readiness-2026-11.csv``),
        then ``-synthetic`` for synthetic data, so a saved file says what it holds
        (``readiness-2026-11-synthetic.csv``); the format's extension (``.parquet``, ``.zip``)."""
        parts = [self.download or "answer"]
        if self.snapshot is not None:
            parts.append(self.snapshot)
        if self.synthetic:
            parts.append("synthetic")
        return "-".join(parts) + "." + self.format.extension


@lru_cache(maxsize=256)
def meta_headers(meta: AnswerMeta) -> Headers:
    """The representation headers of an answer with ``meta``, in the order they are sent.

    Memoized: every answer of one snapshot, format and total shares them, and an answer read
    from Redis is rebuilt with them on every read.
    """
    headers: list[tuple[str, str]] = [("Content-Type", meta.format.content_type)]
    if meta.format is not Format.JSON:
        headers.append(("Content-Disposition", f'attachment; filename="{meta.filename}"'))
    if meta.format.binary:
        headers.append(("Accept-Ranges", "bytes"))
    modified = meta.modified
    if modified is not None:
        headers.append(("Last-Modified", formatdate(modified, usegmt=True)))
    if meta.snapshot is not None:
        headers.append(("X-Readiness-Snapshot", meta.snapshot))
    if meta.total is not None:
        headers.append(("X-Total-Count", str(meta.total)))
    if meta.links is not None:
        headers.append(("Link", meta.links))
    return tuple(headers)


@lru_cache(maxsize=256)
def _published_seconds(published: str) -> int:
    """A ``YYYY-MM-DD`` date at 00:00:00 GMT in seconds since the epoch; ValueError otherwise.

    Memoized: a few publication dates exist, and every answer read from Redis asks again."""
    match = PUBLISHED.fullmatch(published)
    if match is None:
        raise ValueError(f"not a publication date: {published!r}")
    year, month, day = (int(part) for part in match.groups())
    if not (year >= 1970 and 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        raise ValueError(f"not a publication date: {published!r}")
    return calendar.timegm((year, month, day, 0, 0, 0))
