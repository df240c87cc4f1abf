"""readiness.http.representation: which bytes, ETag and status a cached answer is sent with."""

from __future__ import annotations

import gzip
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tornado.httputil import HTTPHeaders

from readiness.domain.answer import Answer
from readiness.domain.meta import AnswerMeta, Format
from readiness.http.representation import (
    JSON_HEADERS,
    LEGACY_HEADERS,
    CachePolicy,
    HttpDate,
    KeptHeads,
    answer_head,
    etag_matches,
    http_date_seconds,
    prefers_gzip,
    represent,
    represent_request,
)
from readiness.http.wire import head_bytes

LARGE = Answer.of(b'{"data":"' + b"x" * 4000 + b'"}')
SMALL = Answer.of(b'{"data":1}')


@pytest.mark.parametrize(
    ("header", "gzipped"),
    [
        ("gzip", True),
        ("GZIP", True),
        ("x-gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("gzip ; Q=0.5", True),
        ("*", True),
        ("br;q=1, *;q=0.1", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0", False),
        ("gzip;q=0.000", False),
        ("deflate, br", False),
        ("", False),
        ("gzipped", False),
        # The most specific entry wins: gzip and identity over *.
        ("*;q=0, gzip", True),
        ("*;q=1, gzip;q=0", False),
        ("*;q=1, x-gzip;q=0", False),
        ("*;q=1, gzip;level=1;q=0", False),  # other parameters do not hide the weight
        ("gzip;level=1;q=0", False),
        # An invalid weight makes the entry count as absent, not as q=1.
        ("gzip;q=-1", False),
        ("gzip;q=abc", False),
        ("gzip;q=nan", False),
        ("gzip;q=1.5", False),
        ("gzip;q=0.0001", False),
        ("gzip;q=", False),
        ("gzip;q=0.5;q=1", False),
        ("gzip;q=nonsense, *;q=0.5", True),  # the invalid entry is ignored; * admits gzip
        # identity: preferred when it weighs more; excluded by identity;q=0 or *;q=0.
        ("gzip;q=0.5, identity", False),
        ("gzip;q=0.5, identity;q=0.5", True),
        ("gzip;q=0.5, *;q=0.8", False),  # * weighs identity too, not named otherwise
        ("identity;q=0, *;q=0.1", True),
        ("gzip;q=0.1, *;q=0", True),
        ("gzip;q=0.1, identity;q=0.2, *;q=1", False),
        ("identity;q=0, gzip;q=0", False),  # nothing acceptable: identity, never 406
        ("gzip;q=0, gzip", False),  # listed twice: the lower weight counts
    ],
)
def test_prefers_gzip_by_rfc_9110(header: str, gzipped: bool) -> None:
    assert prefers_gzip(header) is gzipped


# Properties of Accept-Encoding negotiation (RFC 9110, section 12.5.3) over generated headers.
CODINGS = ["gzip", "GZIP", "x-gzip", "identity", "*", "br", "deflate", "zstd"]
VALID_Q = st.one_of(
    st.sampled_from(["0", "0.", "0.0", "0.000", "1", "1.", "1.0", "1.000"]),
    st.integers(0, 999).map(lambda n: f"0.{n:03d}"),
    st.integers(0, 99).map(lambda n: f"0.{n:02d}"),
)
INVALID_Q = st.sampled_from(["-1", "abc", "nan", "inf", "1.5", "2", "0.0001", "1.001", "", ".5", "1e0", "0x1"])
OWS = st.sampled_from(["", " ", "\t", "  "])


def entry(coding: str, q: str | None, extra: str = "", space: str = "") -> str:
    weight = "" if q is None else f"{space};{space}q={q}"
    return f"{coding}{extra}{weight}"


def is_gzip(coding: str) -> bool:
    return coding.lower() in ("gzip", "x-gzip")


valid_entries = st.lists(
    st.tuples(st.sampled_from(CODINGS), st.none() | VALID_Q, st.sampled_from(["", ";level=1", ";a=b"]), OWS),
    max_size=6,
)
invalid_entries = st.lists(st.tuples(st.sampled_from(CODINGS), INVALID_Q, OWS), max_size=4)


def header(valid: list[tuple[str, str | None, str, str]], separator: str = ", ") -> str:
    return separator.join(entry(coding, q, extra, space) for coding, q, extra, space in valid)


@given(valid_entries, invalid_entries, st.randoms(use_true_random=False), OWS)
def test_prefers_gzip_properties(
    valid: list[tuple[str, str | None, str, str]],
    invalid: list[tuple[str, str, str]],
    shuffler: random.Random,
    space: str,
) -> None:
    chosen = prefers_gzip(header(valid))
    weights = {(coding.lower(), float(q) if q is not None else 1.0) for coding, q, _, _ in valid}

    # A gzip entry with q=0 is a refusal, whatever else the header says.
    if any(is_gzip(coding) and q == 0 for coding, q in weights):
        assert not chosen
    # gzip listed with q > 0 and identity not named: gzip, whatever * says.
    gzip_weights = [q for coding, q in weights if is_gzip(coding)]
    if gzip_weights and min(gzip_weights) > 0 and not any(coding in ("identity", "*") for coding, _ in weights):
        assert chosen
    # Entries with an invalid weight count as absent.
    mixed = valid + [(coding, q, "", ows) for coding, q, ows in invalid]
    assert prefers_gzip(header(mixed)) is chosen
    # Order and optional whitespace do not matter.
    shuffler.shuffle(mixed)
    assert prefers_gzip(header(mixed, separator=f"{space},{space}")) is chosen
    # When gzip and identity are both named, * does not matter.
    if gzip_weights and any(coding == "identity" for coding, _ in weights):
        assert prefers_gzip(header([item for item in valid if item[0] != "*"])) is chosen
    # Nothing valid about gzip, identity or *: identity.
    if not any(coding in ("gzip", "x-gzip", "identity", "*") for coding, _ in weights):
        assert not chosen


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


def test_answer_head_200_304_and_route_headers() -> None:
    route = (("Content-Type", "application/json; charset=utf-8"), ("X-Route", "yes"))
    ok, ok_headers = answer_head(route, represent(LARGE, "gzip", ""), "public, max-age=300", "DATE")
    assert (ok.code, ok.reason) == (200, "OK")
    assert list(ok_headers.get_all()) == [
        *route,
        ("Date", "DATE"),
        ("Cache-Control", "public, max-age=300"),
        ("Vary", "Accept-Encoding"),
        ("Etag", LARGE.gzip_etag),
        ("Content-Encoding", "gzip"),
        ("Content-Length", str(len(LARGE.gzipped or b""))),
    ]
    not_modified, headers = answer_head(route, represent(LARGE, "", LARGE.etag), "no-cache", "DATE")
    assert (not_modified.code, not_modified.reason) == (304, "Not Modified")
    assert "Content-Type" not in headers and "Content-Length" not in headers and "Content-Encoding" not in headers
    assert headers["X-Route"] == "yes" and headers["Etag"] == LARGE.etag
    assert "Content-Type" not in answer_head((), represent(LARGE, "", LARGE.etag), "no-cache", "DATE")[1]


def test_kept_heads_build_each_head_once_a_second() -> None:
    heads = KeptHeads()
    chosen = represent(LARGE, "gzip", "")
    first = heads.head(JSON_HEADERS, chosen, "public", "DATE 1")
    assert list(first[1].get_all()) == list(answer_head(JSON_HEADERS, chosen, "public", "DATE 1")[1].get_all())
    assert heads.head(JSON_HEADERS, represent(LARGE, "gzip", ""), "public", "DATE 1")[1] is first[1]
    # Another representation, route, policy or second: another head.
    others = [
        heads.head(JSON_HEADERS, represent(LARGE, "", ""), "public", "DATE 1"),
        heads.head(JSON_HEADERS, represent(LARGE, "", LARGE.gzip_etag), "public", "DATE 1"),
        heads.head(LEGACY_HEADERS, chosen, "public", "DATE 1"),
        heads.head(JSON_HEADERS, chosen, "no-cache", "DATE 1"),
        heads.head(JSON_HEADERS, chosen, "public", "DATE 2"),
    ]
    assert all(head[1] is not first[1] for head in others)
    assert others[-1][1]["Date"] == "DATE 2"
    kept = heads.head(JSON_HEADERS, chosen, "public", "DATE 2")[1]
    assert kept is others[-1][1]


def test_kept_heads_wire_is_the_head_as_tornado_writes_it_then_the_body() -> None:
    heads = KeptHeads()
    start_line, headers = heads.head(JSON_HEADERS, represent(LARGE, "", ""), "public", "DATE 1")
    (data,) = heads.wire(start_line, headers, LARGE.body)
    assert data == head_bytes(start_line, headers) + LARGE.body
    assert data.startswith(b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n")
    assert b"\r\nDate: DATE 1\r\n" in data and data.index(b"\r\n\r\n") + 4 == len(data) - len(LARGE.body)
    assert heads.wire(start_line, headers, LARGE.body)[0] is data  # kept for the second
    (head_only,) = heads.wire(start_line, headers, b"")  # HEAD: the same head, no body
    assert head_only == head_bytes(start_line, headers)
    assert heads.wire(start_line, headers, b"")[0] is head_only
    # The next second: a new head, new bytes.
    later = heads.head(JSON_HEADERS, represent(LARGE, "", ""), "public", "DATE 2")
    assert b"\r\nDate: DATE 2\r\n" in heads.wire(*later, LARGE.body)[0]


def test_kept_heads_wire_a_large_body_as_head_and_lead_then_a_view_of_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    heads = KeptHeads()
    start_line, headers = heads.head(JSON_HEADERS, represent(LARGE, "", ""), "public", "D")
    monkeypatch.setattr(KeptHeads, "WHOLE_BYTES", len(LARGE.body) - 1)
    monkeypatch.setattr(KeptHeads, "LEAD_BYTES", 100)
    lead, rest = heads.wire(start_line, headers, LARGE.body)  # type: ignore[misc]
    assert lead + bytes(rest) == head_bytes(start_line, headers) + LARGE.body  # the same bytes, in two writes
    assert lead == head_bytes(start_line, headers) + LARGE.body[:100]  # the head never alone in its segment
    # The rest is the cached body itself, not a copy: a slow client holds no bytes of its own.
    assert isinstance(rest, memoryview) and rest.obj is LARGE.body
    # A head built for one response only (not kept): its bytes are made, not kept.
    other_line, other = answer_head(JSON_HEADERS, represent(LARGE, "", ""), "public", "D")
    assert heads.wire(other_line, other, b"") == (head_bytes(other_line, other),)
    assert heads.wire(other_line, other, b"")[0] is not heads.wire(other_line, other, b"")[0]


def test_kept_heads_keep_at_most_their_bytes_of_whole_responses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(KeptHeads, "BYTES", len(LARGE.body) + 1)
    heads = KeptHeads()
    identity = heads.head(JSON_HEADERS, represent(LARGE, "", ""), "public", "D")
    gzipped = heads.head(JSON_HEADERS, represent(LARGE, "gzip", ""), "public", "D")
    assert heads.wire(*identity, LARGE.body)[0] is heads.wire(*identity, LARGE.body)[0]  # within the bytes: kept
    (zipped,) = heads.wire(*gzipped, LARGE.gzipped or b"")
    assert zipped == head_bytes(*gzipped) + (LARGE.gzipped or b"")
    assert heads.wire(*gzipped, LARGE.gzipped or b"")[0] is not zipped  # past them: made for each response


def test_head_bytes_refuses_a_line_break_in_a_header() -> None:
    start_line, headers = answer_head(JSON_HEADERS, represent(LARGE, "", ""), "public", "D")
    headers["X-Bad"] = "a\r\nSet-Cookie: b"
    with pytest.raises(ValueError, match="CR or LF"):
        head_bytes(start_line, headers)


def test_kept_heads_tell_apart_answers_with_one_etag() -> None:
    # Same body, so the same ETag, but other answer headers (another snapshot's CSV).
    later = Answer.of(CSV_ANSWER.body, AnswerMeta(Format.CSV, "2026-12", "2026-12-05", 400, "readiness"))
    heads = KeptHeads()
    for answer, snapshot in ((CSV_ANSWER, "2026-11"), (later, "2026-12")):
        assert answer.etag == CSV_ANSWER.etag
        assert heads.head(JSON_HEADERS, represent(answer, "", ""), "public", "D")[1]["X-Readiness-Snapshot"] == snapshot


def test_kept_heads_keep_at_most_their_limit() -> None:
    heads = KeptHeads()
    answers = [Answer.of(b'{"n":%d}' % n) for n in range(KeptHeads.LIMIT + 1)]
    for answer in answers:
        heads.head(JSON_HEADERS, represent(answer, "", ""), "public", "D")
    first, last = (represent(answer, "", "") for answer in (answers[0], answers[-1]))
    assert heads.head(JSON_HEADERS, first, "public", "D")[1] is heads.head(JSON_HEADERS, first, "public", "D")[1]
    assert heads.head(JSON_HEADERS, last, "public", "D")[1] is not heads.head(JSON_HEADERS, last, "public", "D")[1]


def test_represent_request_reads_absent_and_present_headers() -> None:
    absent = represent_request(HTTPHeaders(), LARGE, JSON_HEADERS, "public", "D")
    assert (absent[0].code, absent[1]["Etag"], absent[2]) == (200, LARGE.etag, LARGE.body)
    present = represent_request(HTTPHeaders({"Accept-Encoding": "gzip", "If-None-Match": LARGE.gzip_etag}),
                                LARGE, JSON_HEADERS, "public", "D", KeptHeads())
    assert (present[0].code, present[1]["Etag"], present[2]) == (304, LARGE.gzip_etag, b"")


def test_http_date_formats_once_a_second() -> None:
    dates = HttpDate()
    assert dates.at(0.0) == "Thu, 01 Jan 1970 00:00:00 GMT"
    assert dates.at(0.9) is dates.at(0.0)
    assert dates.at(86400.5) == "Fri, 02 Jan 1970 00:00:00 GMT"


CSV_ANSWER = Answer.of(b"a,b\r\n" * 400, AnswerMeta(Format.CSV, "2026-11", "2026-11-05", 400, "readiness"))
PUBLISHED = "Thu, 05 Nov 2026 00:00:00 GMT"


def test_answer_head_sends_the_answers_own_headers_after_the_routes() -> None:
    _, headers = answer_head(JSON_HEADERS, represent(CSV_ANSWER, "", ""), "public, max-age=300", "DATE")
    assert headers["Content-Type"] == "text/csv; charset=utf-8"  # the answer's, over the route's JSON
    assert headers["Content-Disposition"] == 'attachment; filename="readiness-2026-11.csv"'
    assert headers["Last-Modified"] == PUBLISHED
    assert (headers["X-Readiness-Snapshot"], headers["X-Total-Count"]) == ("2026-11", "400")
    assert len(list(headers.get_all())) == len({name for name, _ in headers.get_all()})  # no duplicates
    _, not_modified = answer_head(JSON_HEADERS, represent(CSV_ANSWER, "", CSV_ANSWER.etag), "public", "DATE")
    assert "Content-Type" not in not_modified and "Content-Disposition" not in not_modified
    assert not_modified["Last-Modified"] == PUBLISHED and not_modified["X-Readiness-Snapshot"] == "2026-11"


@pytest.mark.parametrize(
    ("since", "status"),
    [
        (PUBLISHED, 304),
        ("Fri, 06 Nov 2026 00:00:00 GMT", 304),
        ("Thursday, 05-Nov-26 00:00:00 GMT", 304),  # RFC 850, obsolete but still a date
        ("Thu Nov  5 00:00:00 2026", 304),  # asctime
        ("Wed, 04 Nov 2026 23:59:59 GMT", 200),
        ("Thu, 05 Nov 2026 00:00:00 +0100", 200),  # 23:00 GMT the day before
        ("not a date", 200),
        ("", 200),
        ("Thu, 99 Nov 2026 00:00:00 GMT", 200),
        ("Thu, 05 Nov 99999999999999999999 00:00:00 GMT", 200),
    ],
)
def test_represent_if_modified_since(since: str, status: int) -> None:
    assert represent(CSV_ANSWER, "", "", since).status == status


def test_represent_if_none_match_takes_precedence_over_if_modified_since() -> None:
    assert represent(CSV_ANSWER, "", '"other"', PUBLISHED).status == 200
    assert represent(CSV_ANSWER, "", CSV_ANSWER.etag, "Wed, 01 Jan 2020 00:00:00 GMT").status == 304


def test_represent_if_modified_since_without_last_modified_is_ignored() -> None:
    assert represent(LARGE, "", "", "Fri, 01 Jan 2100 00:00:00 GMT").status == 200


@given(st.text(max_size=60))
def test_http_date_seconds_never_raises(value: str) -> None:
    seconds = http_date_seconds(value)
    assert seconds is None or isinstance(seconds, int)


# --- byte ranges of a file (docs/API.md#downloads) ------------------------------------------------

FILE = Answer.of(bytes(range(100)), AnswerMeta(Format.PARQUET, "2026-11", "2026-11-05", None, "readiness"))


def _ranged(range_header: str, if_range: str = "") -> tuple[int, bytes, str | None]:
    headers = HTTPHeaders({"Range": range_header, **({"If-Range": if_range} if if_range else {})})
    start_line, head, body = represent_request(headers, FILE, JSON_HEADERS, "public", "now")
    return start_line.code, body, head.get("Content-Range")


@pytest.mark.parametrize(
    ("header", "status", "part", "content_range"),
    [
        ("bytes=0-9", 206, range(0, 10), "bytes 0-9/100"),
        ("bytes=90-", 206, range(90, 100), "bytes 90-99/100"),
        ("bytes=-8", 206, range(92, 100), "bytes 92-99/100"),
        ("bytes=95-500", 206, range(95, 100), "bytes 95-99/100"),  # clipped to the end
        ("bytes=-500", 206, range(0, 100), "bytes 0-99/100"),  # a suffix longer than the file: all of it
        ("BYTES = 1 - 1", 206, range(1, 2), "bytes 1-1/100"),
        ("bytes=100-", 416, range(0), "bytes */100"),
        ("bytes=-0", 416, range(0), "bytes */100"),
        ("bytes=5-4", 200, range(100), None),  # invalid: ignored
        ("bytes=0-1,5-6", 200, range(100), None),  # several ranges: the whole file
        ("items=0-1", 200, range(100), None),
        ("bytes=-", 200, range(100), None),
        ("bytes=99999999999999999999-", 200, range(100), None),  # past the digits a range may have
    ],
)
def test_a_files_range_is_answered_as_rfc_9110_says(
    header: str, status: int, part: range, content_range: str | None
) -> None:
    assert _ranged(header) == (status, bytes(part), content_range)


def test_if_range_validates_the_range_by_etag_or_date() -> None:
    assert _ranged("bytes=0-1", FILE.etag)[0] == 206
    assert _ranged("bytes=0-1", "Thu, 05 Nov 2026 00:00:00 GMT")[0] == 206
    assert _ranged("bytes=0-1", '"another"')[:2] == (200, FILE.body)
    assert _ranged("bytes=0-1", "Fri, 06 Nov 2026 00:00:00 GMT")[:2] == (200, FILE.body)


def test_a_range_never_applies_to_json_or_a_304() -> None:
    headers = HTTPHeaders({"Range": "bytes=0-1"})
    assert represent_request(headers, LARGE, JSON_HEADERS, "public", "now")[0].code == 200
    conditional = HTTPHeaders({"Range": "bytes=0-1", "If-None-Match": FILE.etag})
    assert represent_request(conditional, FILE, JSON_HEADERS, "public", "now")[0].code == 304


def test_a_file_has_no_gzip_copy_and_says_it_takes_ranges() -> None:
    large_file = Answer.of(b"x" * 5000, FILE.meta)
    assert large_file.gzipped is None and ("Accept-Ranges", "bytes") in large_file.headers
    assert ("Accept-Ranges", "bytes") not in LARGE.headers


def test_cache_policy_within_lowers_max_age_only_keeping_the_stale_windows() -> None:
    policy = CachePolicy.of(300, 86400, 30, 86400)
    assert policy.within(False, 10) == "public, max-age=10, stale-while-revalidate=30, stale-if-error=86400"
    assert policy.within(False, 4000) == policy.chosen(False)
    assert policy.within(True, 4000) == "public, max-age=4000, stale-while-revalidate=30, stale-if-error=86400"
