"""The response and error envelopes of docs/API.md#the-response."""

from __future__ import annotations

import orjson

from readiness.domain.envelope import answer_body, error_body
from readiness.domain.errors import ArchiveNotFound, CountryNotFound, InvalidParameter
from readiness.domain.query import Query


def test_answer_one_country_match_data_is_object() -> None:
    body = orjson.loads(answer_body(Query(codes=("KEN",)), "current", [{"Country Code": "KEN"}]))
    assert body == {"apiVersion": "1", "level": "country", "snapshot": "current", "count": 1,
                    "data": {"Country Code": "KEN"}}


def test_answer_country_mode_several_or_none_data_is_array() -> None:
    query = Query(codes=("BRA", "KEN"))
    assert orjson.loads(answer_body(query, "current", []))["data"] == []
    assert orjson.loads(answer_body(query, "current", [{}, {}]))["count"] == 2


def test_answer_global_level_one_match_still_array() -> None:
    body = orjson.loads(answer_body(Query(region="North America"), "2024-12", [{"Country Code": "USA"}]))
    assert body["level"] == "global" and body["snapshot"] == "2024-12"
    assert body["data"] == [{"Country Code": "USA"}]


def test_answer_keys_in_envelope_order() -> None:
    assert list(orjson.loads(answer_body(Query(), "current", []))) == [
        "apiVersion", "level", "snapshot", "count", "data"]


def test_error_body_has_version_and_message() -> None:
    error = InvalidParameter("order", "up", "asc or desc")
    assert orjson.loads(error_body(error)) == {
        "apiVersion": "1", "error": "Invalid request. order='up' is not valid; use asc or desc."}
    assert orjson.loads(error_body(ArchiveNotFound(2023)))["error"].startswith("No archived snapshot for year=2023")


def test_error_body_legacy_unknown_code_has_no_version() -> None:
    assert orjson.loads(error_body(CountryNotFound(["XXX", "YYY"]))) == {
        "error": "Country code not found: XXX, YYY"}


def test_answer_country_mode_cut_by_limit_stays_an_array() -> None:
    query = Query(codes=("BRA", "KEN"), limit=1)
    parsed = orjson.loads(answer_body(query, "current", [{"Country Code": "BRA"}], total=2))
    assert parsed["data"] == [{"Country Code": "BRA"}] and parsed["count"] == 1
    one = orjson.loads(answer_body(Query(codes=("KEN",)), "current", [{"Country Code": "KEN"}], total=1))
    assert one["data"] == {"Country Code": "KEN"}


def test_answer_notice_and_unmatched_follow_specs_members_only_when_present() -> None:
    query = Query(codes=("KEN", "XXX"))
    plain = orjson.loads(answer_body(query, "current", [{"Country Code": "KEN"}], notice=None, unmatched={}))
    assert list(plain) == ["apiVersion", "level", "snapshot", "count", "data"]  # the specification's envelope
    full = orjson.loads(answer_body(query, "current", [{"Country Code": "KEN"}], notice="SYNTHETIC",
                                    unmatched={"codes": ["XXX"]}))
    assert list(full) == ["apiVersion", "level", "snapshot", "count", "data", "unmatched", "notice"]
    assert (full["data"], full["unmatched"], full["notice"]) == (
        {"Country Code": "KEN"}, {"codes": ["XXX"]}, "SYNTHETIC"
    )
