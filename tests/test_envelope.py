"""The response and error envelopes of docs/API.md#the-response."""

from __future__ import annotations

import orjson

from readiness.domain.envelope import answer_body, error_body, page_fields, resolved
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


def test_page_fields_only_when_the_query_pages() -> None:
    assert page_fields(Query(), 217) == {}  # the specification's envelope, unchanged
    assert page_fields(Query(limit=10, offset=30), 42) == {"page": 4, "pages": 5, "per_page": 10, "total": 42}
    assert page_fields(Query(limit=10, offset=35), 42)["page"] == 4  # rounded down
    assert page_fields(Query(limit=10), 0) == {"page": 1, "pages": 0, "per_page": 10, "total": 0}
    assert page_fields(Query(offset=5), 42) == {"page": 1, "pages": 1, "per_page": 42, "total": 42}  # one page
    assert page_fields(Query(offset=5), 0) == {"page": 1, "pages": 0, "per_page": 0, "total": 0}


def test_paging_fields_follow_data_and_precede_the_notice() -> None:
    body = orjson.loads(answer_body(Query(limit=1), "current", [{"a": 1}], 3, notice="n",
                                    identity=resolved("2026-11", "2026-11"), paging=page_fields(Query(limit=1), 3)))
    assert list(body) == ["apiVersion", "level", "snapshot", "snapshot_id", "current", "count", "data", "page",
                          "pages", "per_page", "total", "notice"]


def test_resolved_names_the_snapshot_and_whether_it_is_current_after_snapshot() -> None:
    assert resolved("2026-11", "2026-11") == {"snapshot_id": "2026-11", "current": True}
    assert resolved("2025-12", "2026-11") == {"snapshot_id": "2025-12", "current": False}
    assert resolved(None, "2026-11") == {"snapshot_id": None, "current": False}
    body = orjson.loads(answer_body(Query(), "current", [], identity=resolved("2026-11", "2026-11")))
    assert list(body) == ["apiVersion", "level", "snapshot", "snapshot_id", "current", "count", "data"]
    assert (body["snapshot"], body["snapshot_id"], body["current"]) == ("current", "2026-11", True)
