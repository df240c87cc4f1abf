"""The official client's disk cache (clients/python/readiness_client/cache.py): one file per URL,
read back whole or not at all, and the platform's cache directory by default.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from readiness_client.cache import CACHE_ENV, DiskCache, Entry, default_cache_dir

URL = "http://127.0.0.1:8080/api/v1/readiness?codes=KEN&limit=1000"


def test_an_entry_comes_back_as_kept(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "cache")
    entry = Entry('"abc"', {"link": '</a>; rel="next"', "x-total-count": "3"}, b'{"data": []}\n\xef\xbb\xbf')
    assert cache.get(URL) is None
    cache.put(URL, entry)
    assert cache.get(URL) == entry
    assert cache.get(URL + "&offset=1000") is None
    assert [path.name for path in (tmp_path / "cache").rglob("*")
            if path.is_file()] == [cache.path(URL).name]  # no temporary file left behind


def test_a_newer_answer_replaces_the_kept_one(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    cache.put(URL, Entry('"v1"', {}, b"old"))
    cache.put(URL, Entry('"v2"', {}, b"new"))
    assert cache.get(URL) == Entry('"v2"', {}, b"new")


def test_a_damaged_or_foreign_file_is_a_miss(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    cache.put(URL, Entry('"v1"', {}, b"body"))
    path = cache.path(URL)
    path.write_bytes(b"not json\nbody")
    assert cache.get(URL) is None
    path.write_bytes(b'{"url": "http://elsewhere/", "etag": "\\"v1\\"", "headers": {}}\nbody')
    assert cache.get(URL) is None
    path.write_bytes(b'{"url": "' + URL.encode() + b'", "headers": {}}\nbody')
    assert cache.get(URL) is None


def test_a_path_where_the_directory_should_be_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file, not a directory")
    cache = DiskCache(tmp_path / "cache")
    cache.put(URL, Entry('"v1"', {}, b"body"))
    assert cache.get(URL) is None


def test_clear_removes_every_entry(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    for offset in range(3):
        cache.put(f"{URL}&offset={offset}", Entry('"v"', {}, b""))
    assert cache.clear() == 3
    assert cache.get(f"{URL}&offset=0") is None
    assert DiskCache(tmp_path / "never-made").clear() == 0


def test_the_default_directory_is_the_users_cache_unless_named(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    monkeypatch.delenv(CACHE_ENV, raising=False)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert default_cache_dir() == tmp_path / "xdg" / "readiness-client"
        monkeypatch.delenv("XDG_CACHE_HOME")
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert default_cache_dir() == tmp_path / "home" / ".cache" / "readiness-client"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "named"))
    assert default_cache_dir() == tmp_path / "named"
