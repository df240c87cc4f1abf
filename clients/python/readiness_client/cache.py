"""The answers kept on disk, by URL, with the ETag that revalidates them.

The service's answers change only when a snapshot is published, and every one carries a strong
``ETag``: a kept answer is sent back as ``If-None-Match`` and a ``304 Not Modified`` (no body)
serves it again from here. One file per URL, written whole and renamed into place, so a reader
(another process included) sees the old entry or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "READINESS_CLIENT_CACHE_DIR"
"""An environment variable naming the cache directory, over the platform's default."""

KEPT_HEADERS = ("content-type", "content-disposition", "etag", "last-modified", "link", "x-total-count",
                "x-readiness-snapshot")
"""The headers kept beside a body: what the client reads of an answer (a 304 need not repeat them)."""


def default_cache_dir() -> Path:
    """``$READINESS_CLIENT_CACHE_DIR``, else the user's cache directory of this platform
    (``~/.cache``, ``$XDG_CACHE_HOME``, ``~/Library/Caches``, ``%LOCALAPPDATA%``) + ``readiness-client``."""
    named = os.environ.get(CACHE_ENV)
    if named:
        return Path(named)
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    return base / "readiness-client"


@dataclass(frozen=True, slots=True)
class Entry:
    """A kept answer: its validator, the headers the client reads, and the body."""

    etag: str
    headers: dict[str, str]
    body: bytes


class DiskCache:
    """Answers by URL in ``directory`` (created on first write)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, url: str) -> Path:
        """Where the answer to ``url`` is kept: a hash of the URL, in one of 256 folders."""
        digest = hashlib.sha256(url.encode()).hexdigest()
        return self.directory / digest[:2] / f"{digest}.entry"

    def get(self, url: str) -> Entry | None:
        """The kept answer to ``url``, or None (never kept, or unreadable: then it is asked again)."""
        try:
            head, _, body = self.path(url).read_bytes().partition(b"\n")
            meta = json.loads(head)
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("url") != url or not isinstance(meta.get("etag"), str):
            return None
        return Entry(meta["etag"], dict(meta.get("headers", {})), body)

    def put(self, url: str, entry: Entry) -> None:
        """Keep ``entry`` as the answer to ``url``; a directory that cannot be written is skipped
        (the answer was served; only its next revalidation is lost)."""
        path = self.path(url)
        head = json.dumps({"url": url, "etag": entry.etag, "headers": entry.headers}).encode()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor, name = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(head + b"\n" + entry.body)
            os.replace(name, path)
        except OSError:
            Path(name).unlink(missing_ok=True)

    def clear(self) -> int:
        """Remove every kept answer; the number removed."""
        removed = 0
        for path in self.directory.glob("*/*.entry"):
            path.unlink(missing_ok=True)
            removed += 1
        return removed
