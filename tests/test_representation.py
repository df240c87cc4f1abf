"""readiness.representation: which bytes, ETag and status a cached answer is sent with."""

from __future__ import annotations

import gzip

import pytest

from readiness.cache import Answer
from readiness.representation import LEGACY_HEADERS, JSON_HEADERS, accepts_gzip, etag_matches, represent

LARGE = Answer.of(b'{"data":"' + b"x" * 4000 + b'"}')
SMALL = Answer.of(b'{"data":1}')


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("gzip", True),
        ("GZIP", True),
        ("deflate, gzip;q=0.5", True),
        ("*", True),
        ("br;q=1, *;q=0.1", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0", False),
        ("gzip;q=nonsense", True),
        ("deflate, br", False),
        ("", False),
        ("gzipped", False),
    ],
)
def test_accepts_gzip(header: str, accepted: bool) -> None:
    assert accepts_gzip(header) is accepted


def test_etag_matches_either_representation_weakly_or_star() -> None:
    assert etag_matches(LARGE.etag, LARGE)
    assert etag_matches(LARGE.gzip_etag, LARGE)
    assert etag_matches(f'"other", W/{LARGE.etag}', LARGE)
    assert etag_matches(" * ", LARGE)
    assert not etag_matches("", LARGE)
    assert not etag_matches('"other"', LARGE)
    assert not etag_matches(SMALL.etag, LARGE)


def test_represent_identity_without_accept_encoding() -> None:
    chosen = represent(LARGE, "", "")
    assert (chosen.status, chosen.etag, chosen.gzipped, chosen.body) == (200, LARGE.etag, False, LARGE.body)


def test_represent_gzip_copy_when_accepted() -> None:
    chosen = represent(LARGE, "gzip, deflate", "")
    assert (chosen.status, chosen.etag, chosen.gzipped) == (200, LARGE.gzip_etag, True)
    assert gzip.decompress(chosen.body) == LARGE.body


def test_represent_small_answer_has_no_gzip_copy_so_identity() -> None:
    chosen = represent(SMALL, "gzip", "")
    assert (chosen.etag, chosen.gzipped, chosen.body) == (SMALL.etag, False, SMALL.body)


@pytest.mark.parametrize("accept", ["", "gzip"])
@pytest.mark.parametrize("sent", ["etag", "gzip_etag"])
def test_represent_304_for_either_etag_carries_the_chosen_ones(accept: str, sent: str) -> None:
    chosen = represent(LARGE, accept, getattr(LARGE, sent))
    assert (chosen.status, chosen.body) == (304, b"")
    assert chosen.etag == (LARGE.gzip_etag if accept else LARGE.etag)
    assert chosen.gzipped is bool(accept)


def test_legacy_headers_extend_the_json_headers() -> None:
    assert LEGACY_HEADERS[: len(JSON_HEADERS)] == JSON_HEADERS
    assert {name for name, _ in LEGACY_HEADERS[len(JSON_HEADERS) :]} == {"Deprecation", "Link"}
