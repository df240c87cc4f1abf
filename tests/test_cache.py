"""AnswerCache and Answer: bytes with a strong ETag, in an LRU bounded in bytes."""

from __future__ import annotations

from readiness.cache import Answer, AnswerCache, _cost


def test_answer_etag_is_strong_and_follows_the_body() -> None:
    etag = Answer(b'{"a":1}').etag
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    assert Answer(b'{"a":1}').etag == etag
    assert Answer(b'{"a":2}').etag != etag


def test_cache_get_returns_what_was_put() -> None:
    cache = AnswerCache(10_000)
    answer = Answer(b"body")
    cache.put("k", answer)
    assert cache.get("k") is answer
    assert cache.get("other") is None


def test_cache_evicts_least_recently_used_within_bytes() -> None:
    answers = {key: Answer(bytes(100)) for key in "abc"}
    cache = AnswerCache(2 * _cost("a", answers["a"]))
    cache.put("a", answers["a"])
    cache.put("b", answers["b"])
    cache.get("a")  # a is now more recent than b
    cache.put("c", answers["c"])
    assert cache.get("b") is None
    assert cache.get("a") is answers["a"] and cache.get("c") is answers["c"]
    assert cache.size <= cache.max_bytes


def test_cache_replacing_a_key_keeps_size_exact() -> None:
    cache = AnswerCache(10_000)
    cache.put("k", Answer(bytes(100)))
    cache.put("k", Answer(bytes(300)))
    assert len(cache) == 1
    assert cache.size == _cost("k", Answer(bytes(300)))


def test_cache_answer_larger_than_cache_not_stored() -> None:
    cache = AnswerCache(1_000)
    cache.put("small", Answer(bytes(10)))
    cache.put("huge", Answer(bytes(5_000)))
    assert cache.get("huge") is None
    assert cache.get("small") is not None


def test_cache_many_distinct_keys_stay_within_bound() -> None:
    cache = AnswerCache(50_000)
    for number in range(5_000):
        cache.put(f"key-{number}", Answer(str(number).encode() * 10))
    assert cache.size <= 50_000
    assert 0 < len(cache) < 5_000
