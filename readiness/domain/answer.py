"""``Answer``: what every route's compute function produces, a serialized body with its strong
ETag, gzip copy and representation headers, computed once so that every cache tier stores and
every sender sends the same bytes (docs/CACHING.md#the-path-of-one-request). Pure: no I/O."""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, field

from readiness.domain.meta import AnswerMeta, Headers, meta_headers

GZIP_MIN_BYTES = 1024
"""Smaller bodies are not worth compressing: headers and CPU cost more than they save."""

GZIP_LEVEL = 4
"""Much less CPU than level 6 for slightly more bytes (measured on the 217-economy answer:
docs/PERFORMANCE.md#query-engine-uncached-answers-from-the-in-memory-snapshot): every miss
pays it, and the event loop waits meanwhile."""

ETAG_BYTES = 16
"""The ETag is a BLAKE2b-128 digest: 32 hex digits, or 16 bytes where it is stored raw."""

JSON_META = AnswerMeta()
"""The meta of a JSON answer that names no snapshot (a fixed document such as OpenAPI's)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A response body ready to send: its strong ETag, gzip copy and representation headers
    (``meta``: Content-Type, Last-Modified, X-Readiness-Snapshot, ...) are computed once, so
    the handler and the hit lane send them without formatting anything (docs/CACHING.md)."""

    body: bytes
    etag: str
    gzipped: bytes | None
    meta: AnswerMeta = JSON_META
    download: tuple[str, str] | None = None
    """A file download's content type and file name (the citation files), which replace the
    meta's ``Content-Type`` and name the attachment. Never kept in Redis: the codec packs only
    the meta."""
    headers: Headers = field(default=(), init=False, compare=False, repr=False)
    """The representation headers ``meta`` gives (``readiness.domain.meta.meta_headers``), and
    ``download``'s."""
    modified: int | None = field(default=None, init=False, compare=False, repr=False)
    """``Last-Modified`` in seconds since the epoch, for If-Modified-Since."""

    def __post_init__(self) -> None:
        headers = meta_headers(self.meta)
        if self.download is not None:
            content_type, filename = self.download
            headers = (
                ("Content-Type", content_type),
                ("Content-Disposition", f'attachment; filename="{filename}"'),
                *(header for header in headers if header[0] not in ("Content-Type", "Content-Disposition")),
            )
        object.__setattr__(self, "headers", headers)
        object.__setattr__(self, "modified", self.meta.modified)

    @classmethod
    def of(cls, body: bytes, meta: AnswerMeta = JSON_META, download: tuple[str, str] | None = None) -> Answer:
        """Wrap a serialized body, computing its ETag and (if worth it) its gzip copy;
        ``download``: a file's content type and name (``Answer.download``). A file already
        compressed (``Format.binary``: Parquet, zip) gets no gzip copy: it would not be smaller,
        and its byte ranges are the identity body's."""
        worth = len(body) >= GZIP_MIN_BYTES and not meta.format.binary
        compressed = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0) if worth else None
        return cls(body, etag_of(body), compressed, meta, download)

    @property
    def gzip_etag(self) -> str:
        """ETag of the gzip representation: a different representation needs its own."""
        return self.etag[:-1] + '-gz"'

    @property
    def size(self) -> int:
        """Bytes this answer holds."""
        return len(self.body) + len(self.gzipped or b"") + len(self.etag)


def etag_of(body: bytes) -> str:
    """The strong validator of a body: every server derives the same one from the same bytes."""
    return f'"{hashlib.blake2b(body, digest_size=ETAG_BYTES).hexdigest()}"'
