"""The official client's HTTP (clients/python/readiness_client/transport.py): URLs, ``Link``,
``Retry-After``, the error envelope, and the transport against a scripted server
(tests/client_fake.py): retries, the cap on waiting, revalidation from the disk cache.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from readiness_client.cache import DiskCache
from readiness_client.transport import ApiError, Transport, build_url, error_message, next_link, retry_after
from tests.client_fake import Fake, Reply, scripted

# --- pure functions -------------------------------------------------------------------------


def test_build_url_keeps_commas_and_colons_and_encodes_the_rest() -> None:
    url = build_url("http://h:1/", "/api/v1/readiness",
                    {"codes": "KEN,BRA", "years": "2015:2020", "region": "Latin America & Caribbean",
                     "fields": "Country Name,Population, total"})
    assert url == ("http://h:1/api/v1/readiness?codes=KEN,BRA&years=2015:2020"
                   "&region=Latin%20America%20%26%20Caribbean&fields=Country%20Name,Population,%20total")
    assert build_url("http://h:1", "/api/v1/snapshots", {}) == "http://h:1/api/v1/snapshots"


@pytest.mark.parametrize(("header", "expected"), [
    # What main sends today: next only, relative.
    ('</api/v1/history?limit=2&offset=2>; rel="next"', "http://h:1/api/v1/history?limit=2&offset=2"),
    # World Bank-style paging: first, prev, next and last, in any order.
    ('</a?page=1>; rel="first", </a?page=2>; rel="prev", </a?page=4>; rel="next", </a?page=9>; rel="last"',
     "http://h:1/a?page=4"),
    # A relation list, an unquoted rel, other parameters and an absolute target.
    ('<http://other:2/a?offset=5>; type="application/json"; rel="next last"', "http://other:2/a?offset=5"),
    ("</a?offset=5>; rel=next", "http://h:1/a?offset=5"),
    ('</a?offset=5>; REL="Next"', "http://h:1/a?offset=5"),
    # The last page, the legacy route's successor, no header.
    ('</a?page=1>; rel="first", </a?page=3>; rel="prev"', None),
    ('</api/v1/readiness>; rel="successor-version"', None),
    ('</a>; rel="nextish"', None),
    ("", None),
    (None, None),
])
def test_next_link_finds_only_rel_next(header: str | None, expected: str | None) -> None:
    assert next_link(header, "http://h:1/api/v1/readiness?limit=2") == expected


def test_retry_after_reads_seconds_and_http_dates() -> None:
    now = datetime(2026, 11, 28, 12, 0, 0, tzinfo=UTC)
    assert retry_after("1") == 1.0
    assert retry_after(" 120 ") == 120.0
    assert retry_after("Sat, 28 Nov 2026 12:00:30 GMT", now) == 30.0
    assert retry_after("Sat, 28 Nov 2026 11:00:00 GMT", now) == 0.0
    assert retry_after("Sat, 28 Nov 2026 12:01:00 -0000", now) == 60.0
    for unreadable in (None, "", "soon", "-1", "1.5"):
        assert retry_after(unreadable, now) is None


def test_error_message_is_the_envelopes_error() -> None:
    assert error_message(b'{"apiVersion":"1","error":"Invalid request. x"}', "Bad Request") == "Invalid request. x"
    assert error_message(b"<html>busy</html>", "Service Unavailable") == "Service Unavailable"
    assert error_message(b'["error"]', "Bad Request") == "Bad Request"


# --- against a scripted server --------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[Fake]:
    with scripted() as running:
        yield running


class Sleeps(list[float]):
    """The waits the transport asked for, instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_a_503_with_retry_after_is_asked_again_after_that_wait(fake: Fake) -> None:
    busy = Reply.json({"apiVersion": "1", "error": "busy"}, 503, Retry_After="1")
    fake.script("/a", busy, busy, Reply.json({"data": [1]}))
    sleeps = Sleeps()
    answer = Transport(sleep=sleeps).get(fake.url + "/a")
    assert answer.json() == {"data": [1]}
    assert sleeps == [1.0, 1.0]
    assert [request.path for request in fake.requests] == ["/a"] * 3


def test_a_429_without_retry_after_backs_off_1_2_4_then_gives_up(fake: Fake) -> None:
    fake.script("/a", Reply.json({"apiVersion": "1", "error": "slow down"}, 429))
    sleeps = Sleeps()
    with pytest.raises(ApiError, match="429: slow down") as raised:
        Transport(sleep=sleeps, max_retries=3).get(fake.url + "/a")
    assert sleeps == [1.0, 2.0, 4.0]
    assert len(fake.requests) == 4
    assert raised.value.status == 429


def test_a_wait_over_the_cap_is_raised_at_once_with_the_wait(fake: Fake) -> None:
    fake.script("/a", Reply.json({"apiVersion": "1", "error": "busy"}, 503, Retry_After="120"), Reply.json({}))
    sleeps = Sleeps()
    with pytest.raises(ApiError) as raised:
        Transport(sleep=sleeps, max_wait=30).get(fake.url + "/a")
    assert sleeps == []
    assert raised.value.retry_after == 120.0
    assert len(fake.requests) == 1


def test_an_error_envelope_becomes_an_api_error_naming_the_parameter(fake: Fake) -> None:
    message = "Invalid request. order='up' is not valid; use asc or desc."
    fake.script("/a", Reply.json({"apiVersion": "1", "error": message}, 400))
    with pytest.raises(ApiError) as raised:
        Transport().get(fake.url + "/a")
    assert (raised.value.status, raised.value.message) == (400, message)
    assert len(fake.requests) == 1  # a 400 is not retried


def test_a_kept_answer_is_revalidated_and_served_from_disk_on_304(fake: Fake, tmp_path: Path) -> None:
    fake.script("/a?limit=2",
                Reply.json({"data": [1, 2]}, ETag='"v1"', Link='</a?limit=2&offset=2>; rel="next"',
                           X_Total_Count="3", X_Readiness_Snapshot="2026-11"),
                Reply(304, {"ETag": '"v1"', "X-Readiness-Snapshot": "2026-11"}))
    transport = Transport(cache=DiskCache(tmp_path))
    first = transport.get(fake.url + "/a?limit=2")
    second = Transport(cache=DiskCache(tmp_path)).get(fake.url + "/a?limit=2")  # a new process, the same disk
    assert "if-none-match" not in fake.requests[0].headers
    assert fake.requests[1].headers["if-none-match"] == '"v1"'
    assert (first.revalidated, second.revalidated) == (False, True)
    assert second.body == first.body
    # The 304 carries no Link: the kept one still leads to the next page.
    assert second.next_url() == fake.url + "/a?limit=2&offset=2"
    assert second.headers["x-total-count"] == "3"


def test_without_a_cache_nothing_is_revalidated(fake: Fake) -> None:
    fake.script("/a", Reply.json({"data": []}, ETag='"v1"'))
    transport = Transport()
    transport.get(fake.url + "/a")
    transport.get(fake.url + "/a")
    assert all("if-none-match" not in request.headers for request in fake.requests)


def test_requests_say_which_client_sent_them(fake: Fake) -> None:
    fake.script("/a", Reply.json({}))
    Transport().get(fake.url + "/a")
    assert fake.requests[0].headers["user-agent"].startswith("readiness-client/")
