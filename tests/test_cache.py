"""Answer and AnswerCache: bytes with a strong ETag and gzip copy, in an LRU bounded in bytes."""

from __future__ import annotations

import gzip
import re

import pytest
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from readiness.cache.answers import _HEADER, _MAC_CONTEXT, _META, AnswerCache, AnswerCodec, _cost
from readiness.domain.answer import GZIP_MIN_BYTES, Answer
from readiness.domain.meta import AnswerMeta, Format


def test_answer_etag_is_strong_and_follows_the_body() -> None:
    etag = Answer.of(b'{"a":1}').etag
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    assert Answer.of(b'{"a":1}').etag == etag
    assert Answer.of(b'{"a":2}').etag != etag


def test_answer_gzip_copy_of_large_body_only() -> None:
    large = b'{"data":"' + b"x" * GZIP_MIN_BYTES + b'"}'
    answer = Answer.of(large)
    assert answer.gzipped is not None and gzip.decompress(answer.gzipped) == large
    assert answer.gzip_etag != answer.etag and answer.gzip_etag.endswith('-gz"')
    assert Answer.of(b"{}").gzipped is None


@pytest.mark.parametrize("body", [b"{}", b'{"k":"' + b"v" * 5000 + b'"}'])
def test_answer_pack_unpack_round_trip(body: bytes) -> None:
    answer = Answer.of(body)
    assert AnswerCodec().unpack("k", AnswerCodec().pack("k", answer)) == answer


@pytest.mark.parametrize("file_format", [Format.PARQUET, Format.ZIP])
def test_a_bulk_file_comes_back_from_redis_with_its_type_name_and_ranges(file_format: Format) -> None:
    answer = Answer.of(b"PAR1" * 2000, AnswerMeta(file_format, "2026-11", "2026-11-05", None, "package", None, True))
    back = AnswerCodec().unpack("k", AnswerCodec().pack("k", answer))
    assert back == answer and back is not None and back.headers == answer.headers
    assert ("Accept-Ranges", "bytes") in back.headers and back.gzipped is None


@pytest.mark.parametrize(
    "data", [b"", b"plain text set by someone else", AnswerCodec().pack("k", Answer.of(b"{}"))[:-1]]
)
def test_answer_unpack_foreign_or_damaged_is_none(data: bytes) -> None:
    assert AnswerCodec().unpack("k", data) is None


def test_cache_get_returns_what_was_put() -> None:
    cache = AnswerCache(10_000)
    answer = Answer.of(b"body")
    cache.put("k", answer)
    assert cache.get("k") is answer
    assert cache.get("other") is None


def test_cache_evicts_least_recently_used_within_bytes() -> None:
    answers = {key: Answer.of(bytes(100)) for key in "abc"}
    cache = AnswerCache(2 * _cost("a", answers["a"]))
    cache.put("a", answers["a"])
    cache.put("b", answers["b"])
    cache.get("a")  # a is now more recent than b
    cache.put("c", answers["c"])
    assert cache.get("b") is None
    assert cache.get("a") is answers["a"] and cache.get("c") is answers["c"]
    assert cache.size <= cache.max_bytes


def test_cache_counts_gzip_copy_in_size() -> None:
    answer = Answer.of(b"[" + b"1," * 2000 + b"1]")
    assert answer.gzipped is not None
    cache = AnswerCache(100_000)
    cache.put("k", answer)
    assert cache.size >= len(answer.body) + len(answer.gzipped)


def test_cache_replacing_a_key_keeps_size_exact() -> None:
    cache = AnswerCache(10_000)
    cache.put("k", Answer.of(bytes(100)))
    cache.put("k", Answer.of(bytes(300)))
    assert len(cache) == 1
    assert cache.size == _cost("k", Answer.of(bytes(300)))


def test_cache_answer_larger_than_cache_not_stored() -> None:
    cache = AnswerCache(1_000)
    cache.put("small", Answer.of(bytes(10)))
    cache.put("huge", Answer.of(bytes(5_000)))
    assert cache.get("huge") is None
    assert cache.get("small") is not None


def test_cache_zero_bytes_stores_nothing() -> None:
    cache = AnswerCache(0)
    cache.put("k", Answer.of(b"{}"))
    assert cache.get("k") is None and cache.size == 0


def test_cache_many_distinct_keys_stay_within_bound() -> None:
    cache = AnswerCache(50_000)
    for number in range(5_000):
        cache.put(f"key-{number}", Answer.of(str(number).encode() * 10))
    assert cache.size <= 50_000
    assert 0 < len(cache) < 5_000


def test_cache_discard_prefix_drops_one_snapshot() -> None:
    cache = AnswerCache(100_000)
    for key in ["2026-11|v1|", "2026-11|v1|code=KEN", "2026-10|v1|", "2026-111|v1|"]:
        cache.put(key, Answer.of(key.encode()))
    assert cache.discard_prefix("2026-11|") == 2
    assert cache.get("2026-10|v1|") is not None and cache.get("2026-111|v1|") is not None
    assert cache.size == sum(_cost(k, Answer.of(k.encode())) for k in ["2026-10|v1|", "2026-111|v1|"])


def test_codec_value_of_another_key_or_signing_key_is_none() -> None:
    answer = Answer.of(b'{"k":"' + b"v" * 2000 + b'"}')
    packed = AnswerCodec("fleet secret").pack("2026-11|d|v1|codes=KEN", answer)
    assert AnswerCodec("fleet secret").unpack("2026-11|d|v1|codes=KEN", packed) == answer
    assert AnswerCodec("fleet secret").unpack("2026-11|d|v1|codes=BRA", packed) is None
    assert AnswerCodec("other secret").unpack("2026-11|d|v1|codes=KEN", packed) is None
    assert AnswerCodec().unpack("2026-11|d|v1|codes=KEN", packed) is None


@given(raw=st.binary(min_size=16, max_size=16))
def test_codec_etag_comes_back_only_as_32_hex_digits(raw: bytes) -> None:
    # Whatever 16 bytes a signed value holds, the ETag header is made of hex digits alone.
    answer = Answer(b'{"a":1}', f'"{raw.hex()}"', None)
    unpacked = AnswerCodec().unpack("k", AnswerCodec().pack("k", answer))
    assert unpacked == answer
    assert re.fullmatch(r'"[0-9a-f]{32}"', unpacked.etag)


@given(parts=st.lists(st.binary(max_size=3000), max_size=4))
def test_codec_signature_is_one_blake3_stream_however_the_parts_are_split(parts: list[bytes]) -> None:
    # Servers of the previous release streamed the parts into the hash one by one; this one
    # joins them. A rolling deploy needs both to sign alike, and BLAKE3 of a stream is the
    # hash of its bytes: so the signature is pinned to the stream, not to the calls.
    codec = AnswerCodec("fleet secret")
    header, key = b"\x05" + bytes(8), "2026-11|d|v1|codes=KEN"
    stream = header + len(key.encode()).to_bytes(4, "big") + key.encode() + b"".join(parts)
    expected = blake3(stream, key=blake3(b"fleet secret", derive_key_context=_MAC_CONTEXT).digest()).digest(length=32)
    assert codec._mac(header, key, *parts) == expected
    assert codec._mac(header, key, b"".join(parts)) == expected


def test_codec_packs_only_etags_answer_of_makes() -> None:
    with pytest.raises(ValueError, match="non-hexadecimal"):
        AnswerCodec().pack("k", Answer(b'{"a":1}', '"x"\r\nX: 1', None))



META = AnswerMeta(Format.CSV, "2026-11", "2026-11-05", 217, "readiness")


def test_codec_round_trips_the_meta_and_rebuilds_the_headers() -> None:
    answer = Answer.of(b"a,b\r\n" * 400, META)
    unpacked = AnswerCodec().unpack("k", AnswerCodec().pack("k", answer))
    assert unpacked == answer
    assert unpacked is not None and unpacked.headers == answer.headers and unpacked.modified == answer.modified
    plain = Answer.of(b'{"a":1}')
    assert AnswerCodec().unpack("k", AnswerCodec().pack("k", plain)) == plain


def test_codec_round_trips_the_synthetic_flag_into_the_file_name() -> None:
    codec = AnswerCodec()
    answer = Answer.of(b"a,b\r\n", AnswerMeta(Format.CSV, "2026-11", "2026-11-05", 1, "readiness", synthetic=True))
    unpacked = codec.unpack("k", codec.pack("k", answer))
    assert unpacked == answer and unpacked is not None and unpacked.meta.synthetic
    assert ("Content-Disposition", 'attachment; filename="readiness-2026-11-synthetic.csv"') in unpacked.headers


def test_codec_refuses_a_signed_flag_byte_it_never_writes() -> None:
    codec = AnswerCodec()
    body = b'{"a":1}'
    packed = codec.pack("k", Answer.of(body, AnswerMeta(Format.JSON, "2026-11", None, 3, "readiness")))
    flags_at = len(packed) - len(b"readiness") - _META.size + 1  # after the meta's format byte

    def signed_with_flags(flags: int) -> bytes:
        forged = packed[:flags_at] + bytes([flags]) + packed[flags_at + 1 :]
        etag_start = _HEADER.size + 32
        return forged[:_HEADER.size] + codec._mac(forged[:_HEADER.size], "k", forged[etag_start:]) + forged[etag_start:]

    synthetic = codec.unpack("k", signed_with_flags(0x01))  # the forgery itself works...
    assert synthetic is not None and synthetic.meta.synthetic
    assert codec.unpack("k", signed_with_flags(0x02)) is None  # ...but not a bit this code never sets


def test_codec_round_trips_the_page_links() -> None:
    following = ('</api/v1/readiness?limit=2>; rel="first", </api/v1/readiness?limit=2&offset=2>; rel="prev", '
                 '</api/v1/readiness?region=Latin%20America%20%26%20Caribbean&limit=2&offset=4>; rel="next", '
                 '</api/v1/readiness?limit=2&offset=28>; rel="last"')
    answer = Answer.of(b'{"a":1}', AnswerMeta(Format.JSON, "2026-11", "2026-11-05", 30, "readiness", following))
    unpacked = AnswerCodec().unpack("k", AnswerCodec().pack("k", answer))
    assert unpacked == answer
    assert unpacked is not None and unpacked.headers == answer.headers
    assert ("Link", following) in unpacked.headers


def test_codec_refuses_signed_page_links_no_answer_could_have() -> None:
    codec = AnswerCodec()
    following = '</api/v1/readiness?limit=2&offset=2>; rel="next"'
    packed = codec.pack("k", Answer.of(b'{"a":1}', AnswerMeta(Format.JSON, "2026-11", None, 3, None, following)))

    def signed_with_next(text: bytes) -> bytes:
        assert len(text) == len(following)  # refused for what it says, not for its length
        forged = packed[: -len(following)] + text
        etag_start = _HEADER.size + 32
        return forged[:_HEADER.size] + codec._mac(forged[:_HEADER.size], "k", forged[etag_start:]) + forged[etag_start:]

    unpacked = codec.unpack("k", signed_with_next(b'</api/v1/readiness?limit=2&offset=9>; rel="last"'))
    assert unpacked is not None and unpacked.meta.links == '</api/v1/readiness?limit=2&offset=9>; rel="last"'
    assert codec.unpack("k", signed_with_next(b'</api/v1/readiness?a>;"\r\nX: 1234567>; rel="next"')) is None
    assert codec.unpack("k", signed_with_next(b'<https://evil.example/?limit=2&off=>; rel="next"')) is None
    assert codec.unpack("k", signed_with_next(b'</api/v1/readiness?limit=2&offset=2>; rel="nexx"')) is None


def test_meta_refuses_links_that_are_not_v1_relative_urls() -> None:
    for bad in ("", "/api/readiness?limit=2", "/api/v1/readiness?a=<b>", "/api/v1/readiness?a\r\nb", "//x/api/v1/a?b",
                "/api/v1?a=1", "/api/v1/a//b?c=1", "/api/v1/a/../b?c=1", "/api/v1/a/b/c/d/e?f=1",
                ):
        for links in (f'<{bad}>; rel="next"', bad):
            with pytest.raises(ValueError, match="links of a page"):
                AnswerMeta(links=links)
    with pytest.raises(ValueError, match="links of a page"):
        AnswerMeta(links="/api/v1/readiness?limit=2")  # a URL alone is no link
    with pytest.raises(ValueError, match="links of a page"):
        AnswerMeta(links=", ".join(['</api/v1/a?b=1>; rel="next"'] * 5))


def test_meta_takes_links_of_a_route_with_a_path_of_several_words() -> None:
    links = '</api/v1/rankings/changes?limit=2&offset=2>; rel="next"'
    assert AnswerMeta(links=links).links == links


def test_codec_value_with_altered_meta_or_older_format_is_none() -> None:
    codec = AnswerCodec()
    packed = codec.pack("k", Answer.of(b'{"a":1}', META))
    for position in range(len(packed) - 20, len(packed)):  # the meta: total, dates, name
        damaged = bytearray(packed)
        damaged[position] ^= 0x01
        assert codec.unpack("k", bytes(damaged)) is None
    assert codec.unpack("k", packed[:-1]) is None
    older = bytes([3]) + packed[1:]
    assert codec.unpack("k", older) is None


def test_codec_rebuilds_header_text_only_from_numbers_and_a_checked_name() -> None:
    # A value signed with the right key but holding a download name no answer could have (an
    # older or buggy writer) is refused rather than sent in Content-Disposition.
    codec = AnswerCodec()
    answer = Answer.of(b'{"a":1}', AnswerMeta(Format.CSV, "2026-11", "2026-11-05", 1, "readiness"))
    packed = codec.pack("k", answer)

    def signed_with_name(name: bytes) -> bytes:
        forged = packed[: -len(b"readiness")] + name
        etag_start = _HEADER.size + 32
        body_start = etag_start + 16
        mac = codec._mac(forged[:_HEADER.size], "k", forged[etag_start:body_start],
                         forged[body_start:body_start + 7], b"", forged[body_start + 7:])
        return forged[:_HEADER.size] + mac + forged[etag_start:]

    unpacked = codec.unpack("k", signed_with_name(b"indicator"))  # the forgery itself works...
    assert unpacked is not None and unpacked.meta.download == "indicator"
    assert codec.unpack("k", signed_with_name(b'ready"\r\nX')) is None  # ...but not this name


# --- tier 1 is a segmented LRU: one-off answers cannot flush the ones asked for again ----------


def test_cache_flood_of_one_off_answers_keeps_the_answers_asked_for_again() -> None:
    cache = AnswerCache(200_000)
    popular = {f"popular-{number}": Answer.of(bytes(5_000 + number)) for number in range(10)}
    for key, answer in popular.items():
        cache.put(key, answer)
        assert cache.get(key) is answer  # asked for again: promoted
    for number in range(2_000):  # a scan: 100 times the cache in answers nobody asks for twice
        cache.put(f"one-off-{number}", Answer.of(number.to_bytes(4, "big") * 2_500))
    assert all(cache.get(key) is answer for key, answer in popular.items())
    assert cache.size <= cache.max_bytes
    assert cache.evictions > 1_900


def test_cache_answer_asked_once_is_what_a_flood_evicts() -> None:
    cache = AnswerCache(100_000)
    cache.put("asked once", Answer.of(bytes(1_000)))
    for number in range(200):
        cache.put(f"one-off-{number}", Answer.of(number.to_bytes(4, "big") * 500))
    assert "asked once" not in cache


def test_cache_large_answer_never_evicts_protected_answers() -> None:
    cache = AnswerCache(100_000)
    kept = Answer.of(bytes(30_000))
    cache.put("popular", kept)
    cache.get("popular")
    cache.put("huge", Answer.of(bytes(75_000)))  # more than probation's room beside "popular"
    assert "huge" not in cache and cache.get("popular") is kept
    cache.put("large", Answer.of(bytes(60_000)))  # fits beside it: stored
    assert "large" in cache and cache.get("popular") is kept


def test_cache_protected_overflow_is_demoted_not_dropped() -> None:
    answer_cost = _cost("p-0", Answer.of(bytes(1_000)))
    cache = AnswerCache(10 * answer_cost)
    for number in range(10):
        cache.put(f"p-{number}", Answer.of(bytes(1_000)))
        cache.get(f"p-{number}")
    assert cache.protected_size <= cache.protected_max
    assert len(cache) == 10 and cache.evictions == 0  # the oldest went back to probation, still held
    assert "p-0" in cache


def test_cache_contains_does_not_promote() -> None:
    cache = AnswerCache(10_000)
    cache.put("k", Answer.of(b"{}"))
    assert "k" in cache
    assert cache.protected_size == 0


@given(
    operations=st.lists(
        st.tuples(st.sampled_from(["put", "get", "discard"]), st.integers(0, 30), st.integers(0, 6_000)),
        max_size=300,
    )
)
def test_cache_sizes_are_exact_and_bounded_whatever_the_operations(operations: list[tuple[str, int, int]]) -> None:
    cache = AnswerCache(40_000)
    for operation, number, length in operations:
        key = f"2026-{number % 3}|k{number}"
        if operation == "put":
            cache.put(key, Answer.of(bytes(length)))
        elif operation == "get":
            cache.get(key)
        else:
            cache.discard_prefix(f"2026-{number % 3}|")
        held = [*cache._probation.items(), *cache._protected.items()]
        assert cache.size == sum(_cost(key, answer) for key, answer in held) <= cache.max_bytes
        assert cache.protected_size == sum(_cost(key, answer) for key, answer in cache._protected.items())
        assert cache.protected_size <= cache.protected_max or len(cache._protected) == 1
        assert not cache._probation.keys() & cache._protected.keys()
