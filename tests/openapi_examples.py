"""Record the OpenAPI document's response examples: the real answers of the bundled sample.

    .venv/bin/python -m tests.openapi_examples

runs every request of ``readiness.http.openapi_examples.EXAMPLES`` against the real app over the
sample and writes ``readiness/http/openapi_examples.json``. ``tests/test_openapi.py`` calls
``answers()`` too and fails when the file differs, so the examples never drift.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import orjson

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app
from readiness.http.openapi_examples import EXAMPLES, EXAMPLES_FILE
from tests.openapi_server import serving

EXAMPLE_BASE_URL = "https://readiness.example.org"
"""The public address the recorded citations name (``READINESS_PUBLIC_URL``)."""
EXAMPLE_DAY = 1795867200.0
"""2026-11-28T12:00:00Z: the access date the recorded citations carry."""


def fetch(url: str) -> tuple[int, str, bytes]:
    """Status, media type and body of a GET, errors included."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def answers(store: SnapshotStore | None = None) -> dict[str, Any]:
    """Every example's answer from the app over the sample (``store``, or a fresh one), by
    name: content type and value."""
    if store is None:
        store = SnapshotStore(Settings().data_dir)
        store.load_current()
    recorded: dict[str, Any] = {}
    # A fixed public address and day: the citations' URLs and access dates would change the file.
    settings = Settings(public_url=EXAMPLE_BASE_URL)
    with serving(make_app(settings, store, clock=lambda: EXAMPLE_DAY)) as url:
        for example in EXAMPLES:
            status, content_type, body = fetch(url + example.target)
            if status != example.status:
                raise AssertionError(f"{example.target}: {status}, expected {example.status}: {body[:300]!r}")
            media_type = content_type.split(";")[0]
            parsed = media_type == "application/json" or media_type.endswith("+json")  # CSL-JSON too
            value = orjson.loads(body) if parsed else body.decode("utf-8")
            recorded[example.name] = {"contentType": media_type, "value": value}
    return recorded


def encoded(recorded: dict[str, Any]) -> bytes:
    """The file's bytes: indented, so a diff shows what changed."""
    return orjson.dumps(recorded, option=orjson.OPT_INDENT_2) + b"\n"


if __name__ == "__main__":
    EXAMPLES_FILE.write_bytes(encoded(answers()))
    print(f"wrote {EXAMPLES_FILE} ({len(EXAMPLES)} examples)")
