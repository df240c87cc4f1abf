"""The pages' static files, served under ``/static/`` by content-hashed names.

A file's URL names its content (``/static/explore.3f9c2a7b10.js``), so a browser or a shared
cache may keep it for a year (``immutable``) and a new release is fetched at once: its pages
name new URLs. JavaScript modules import each other by relative name (``./api.js``); each
import is rewritten to the imported module's hashed name before the importer is hashed, so a
change anywhere changes the name of everything that depends on it. Files are read, hashed and
compressed once per process (``readiness.pages.site_assets``): they never change while it runs.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from readiness.domain.answer import Answer

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The pages' own CSS and JavaScript modules."""

STATIC_PREFIX = "/static/"

HASH_CHARS = 10
"""Hex characters of the content hash in a name: 40 bits, so no two releases' files collide."""

CONTENT_TYPES: Mapping[str, str] = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
"""The file types served, by suffix; other files in the directories are not served."""

_TEXT = frozenset({".js", ".css", ".svg", ".json"})
"""Compressible types: the others (PNG) are compressed already."""

_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])\./([A-Za-z0-9_-]+\.js)\2""")
"""A relative module specifier in a static ``import ... from "./x.js"`` or ``import("./x.js")``."""


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file as served: its hashed URL path, media type and cached answer."""

    path: str
    content_type: str
    answer: Answer


@dataclass(frozen=True, slots=True)
class Assets:
    """Every static file by its hashed URL path, and that URL by the file's own name."""

    by_path: Mapping[str, Asset]
    urls: Mapping[str, str]

    def url(self, name: str) -> str:
        """The hashed URL of the file ``name`` (``explore.js``). KeyError for unknown files:
        a template naming a missing file fails when it is first rendered, in the tests."""
        return self.urls[name]

    def get(self, path: str) -> Asset | None:
        """The asset at URL ``path``, or None: only hashed names are served."""
        return self.by_path.get(path)


def read_assets(directories: tuple[Path, ...] = (STATIC_DIR,), extra: tuple[Path, ...] = ()) -> Assets:
    """Read, hash and wrap every served file of ``directories`` and the single files ``extra``
    (vendored files, served as they are: their imports are not rewritten).

    Raises ValueError for two files of one name or an import of a missing module.
    """
    sources: dict[str, bytes] = {}
    for path in [p for directory in directories for p in sorted(directory.iterdir())] + list(extra):
        if path.suffix in CONTENT_TYPES and path.is_file():
            if path.name in sources:
                raise ValueError(f"two static files named {path.name}")
            sources[path.name] = path.read_bytes()
    ours = {name for name in sources if name.endswith(".js")} - {path.name for path in extra}
    urls: dict[str, str] = {}
    bodies: dict[str, bytes] = {}
    pending = dict(sources)
    while pending:  # modules whose imports all have URLs first; the rest next round
        ready = {name: body for name, body in pending.items() if name not in ours or _imports(body) <= urls.keys()}
        if not ready:
            raise ValueError(f"static modules import missing or each other in a cycle: {sorted(pending)}")
        for name, body in ready.items():
            rewritten = _rewrite_imports(body, urls) if name in ours else body
            urls[name] = _hashed(name, rewritten)
            bodies[name] = rewritten
            del pending[name]
    by_path = {urls[name]: _asset(urls[name], name, body) for name, body in bodies.items()}
    return Assets(by_path, urls)


def _imports(body: bytes) -> set[str]:
    return {match.group(3) for match in _IMPORT.finditer(body.decode("utf-8", "replace"))}


def _rewrite_imports(body: bytes, urls: Mapping[str, str]) -> bytes:
    text = body.decode("utf-8")
    return _IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)}{urls[m.group(3)]}{m.group(2)}", text).encode()


def _hashed(name: str, body: bytes) -> str:
    stem, _, suffix = name.rpartition(".")
    digest = hashlib.sha256(body).hexdigest()[:HASH_CHARS]
    return f"{STATIC_PREFIX}{stem}.{digest}.{suffix}"


def _asset(path: str, name: str, body: bytes) -> Asset:
    suffix = "." + name.rpartition(".")[2]
    answer = Answer.of(body)
    if suffix not in _TEXT:
        answer = replace(answer, gzipped=None)
    return Asset(path, CONTENT_TYPES[suffix], answer)
