"""The HTTP face, over the real app and the bundled sample: docs/API.md, DECISIONS.md, CACHING.md."""

from __future__ import annotations

import gzip
import hashlib
import logging
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson
import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.web import Application

from config import Settings
from loaders import COUNTRY_FIELDS, JsonValue, SnapshotStore
from readiness.app import make_app
from tests.conftest import SAMPLE as SAMPLE_DIR
from tests.conftest import access_lines, assert_error_envelope, body, gen_test, links, scrape
from tests.test_hits import exchange
from tests.test_query import BAD_INPUT

V1 = "/api/v1/readiness"
LEGACY = "/api/readiness"

# Every request shape of docs/API.md#examples, as a user would type it.
SHAPES = {
    "all countries": "",
    "one country": "?code=KEN",
    "several countries": "?codes=KEN,BRA,USA",
    "region, sorted": "?region=LAC&sort=score&order=desc",
    "field subset": "?fields=Country%20Name,score",
    "short names": "?shortnames=true",
    "indicator subset": "?code=KEN&indicators=GE.EST,IT.NET.USER.ZS",
    "archived snapshot": "?year=2024&codes=ARG,BRA",
}


@pytest.fixture
def fetch(http_client: AsyncHTTPClient, base_url: str) -> Any:
    """Fetch a path of the app under test without raising on error statuses."""

    async def fetch(path: str, **kwargs: Any) -> HTTPResponse:
        return await http_client.fetch(base_url + path, raise_error=False, **kwargs)

    return fetch


def keys_anywhere(value: JsonValue) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(keys_anywhere(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_anywhere(item) for item in value))
    return set()


def data_list(response: HTTPResponse) -> list[dict[str, JsonValue]]:
    data = body(response)["data"]
    assert isinstance(data, list)
    return data  # type: ignore[return-value]


@gen_test
@pytest.mark.parametrize("shape", SHAPES)
async def test_readiness_every_spec_shape_answers_on_both_routes(
    fetch: Any, shape: str, sample_store: SnapshotStore
) -> None:
    v1 = await fetch(V1 + SHAPES[shape])
    legacy = await fetch(LEGACY + SHAPES[shape])
    assert v1.code == legacy.code == 200
    # The legacy route is a v1 compatibility endpoint: the same body in the specification's envelope,
    # without the notice v1 carries for the synthetic sample (docs/API.md#the-response).
    envelope, legacy_envelope = body(v1), body(legacy)
    assert list(legacy_envelope) == ["apiVersion", "level", "snapshot", "count", "data"]
    assert sample_store.current is not None and sample_store.current.notice
    # v1 adds which snapshot it is (snapshot_id, current) after the specification's snapshot.
    resolved = {"snapshot_id": "2024-12" if "year=" in SHAPES[shape] else "2026-11",
                "current": "year=" not in SHAPES[shape]}
    assert envelope == {**legacy_envelope, **resolved, "notice": sample_store.current.notice}
    assert list(envelope) == ["apiVersion", "level", "snapshot", "snapshot_id", "current", "count", "data", "notice"]
    assert envelope["apiVersion"] == "1"
    assert not any(key.lower().endswith("confidence") for key in keys_anywhere(envelope))


@gen_test
async def test_readiness_no_parameters_global_summary_by_name(fetch: Any, sample_store: SnapshotStore) -> None:
    envelope = body(await fetch(V1))
    assert sample_store.current is not None
    economies = len(sample_store.current.countries)
    assert (envelope["level"], envelope["snapshot"], envelope["count"]) == ("global", "current", economies)
    names = [country["Country Name"] for country in data_list(await fetch(V1))]
    assert names == sorted(names, key=str.casefold)
    assert all("indicator_details" not in country for country in data_list(await fetch(V1)))


@gen_test
async def test_readiness_v1_names_what_matched_nothing_and_carries_the_notice(
    fetch: Any, sample_store: SnapshotStore
) -> None:
    # The example of docs/API.md#the-response, answered by the real app over the sample.
    response = await fetch(V1 + "?codes=KEN,XXX&fields=score&indicators=GE.EST,NO.SUCH")
    envelope = body(response)
    assert sample_store.current is not None
    assert list(envelope) == [
        "apiVersion", "level", "snapshot", "snapshot_id", "current", "count", "data", "unmatched", "notice"
    ]
    assert envelope["unmatched"] == {"codes": ["XXX"], "indicators": ["NO.SUCH"]}
    assert envelope["notice"] == sample_store.current.notice
    kenya = envelope["data"]
    assert isinstance(kenya, dict) and kenya["Composite Readiness Score"] == 42.48
    assert [element["indicator_code"] for element in kenya["indicator_details"]] == ["GE.EST"]  # type: ignore[index,union-attr]
    nothing = body(await fetch(V1 + "?code=xxx"))
    assert (nothing["count"], nothing["data"], nothing["unmatched"]) == (0, [], {"codes": ["XXX"]})
    # Left out by a filter is not unmatched; neither is an indicator at the global level, where
    # indicators filters nothing.
    filtered = body(await fetch(V1 + "?codes=KEN&region=NA&indicators=NO.SUCH"))
    assert filtered["count"] == 0 and filtered["unmatched"] == {"indicators": ["NO.SUCH"]}
    assert "unmatched" not in body(await fetch(V1 + "?region=NA&indicators=NO.SUCH"))


@gen_test
async def test_legacy_body_never_has_notice_or_unmatched(fetch: Any) -> None:
    for query in ("", "?code=KEN&indicators=GE.EST,NO.SUCH", "?region=NA&codes=KEN", "?year=2024&codes=ARG"):
        response = await fetch(LEGACY + query)
        assert response.code == 200
        assert list(body(response)) == ["apiVersion", "level", "snapshot", "count", "data"]
    missing = await fetch(LEGACY + "?codes=KEN,XXX")
    assert missing.code == 404 and orjson.loads(missing.body) == {"error": "Country code not found: XXX"}


@gen_test
async def test_readiness_one_code_data_is_object_with_details(fetch: Any) -> None:
    envelope = body(await fetch(V1 + "?code=ken"))
    assert (envelope["level"], envelope["count"]) == ("country", 1)
    kenya = envelope["data"]
    assert isinstance(kenya, dict)
    assert kenya["Country Code"] == "KEN" and kenya["Region"] == "Sub-Saharan Africa"
    assert list(kenya)[-1] == "indicator_details"
    details = kenya["indicator_details"]
    assert isinstance(details, list) and len(details) >= 4
    assert all("data_source" in element for element in details)  # type: ignore[operator]


@gen_test
async def test_readiness_several_codes_array_by_name(fetch: Any) -> None:
    envelope = body(await fetch(V1 + "?codes=USA,KEN,BRA"))
    assert envelope["level"] == "country" and envelope["count"] == 3
    assert [c["Country Code"] for c in data_list(await fetch(V1 + "?codes=USA,KEN,BRA"))] == ["BRA", "KEN", "USA"]


@gen_test
async def test_readiness_codes_wins_over_code(fetch: Any) -> None:
    data = body(await fetch(V1 + "?code=KEN&codes=BRA"))["data"]
    assert isinstance(data, dict) and data["Country Code"] == "BRA"


@gen_test
async def test_readiness_level_global_with_code_is_country_mode(fetch: Any) -> None:
    assert body(await fetch(V1 + "?level=global&code=KEN"))["level"] == "country"


@gen_test
async def test_readiness_region_alias_sorted_by_score(fetch: Any) -> None:
    countries = data_list(await fetch(V1 + "?region=south%20america&sort=score"))
    assert {c["Region"] for c in countries} == {"Latin America & Caribbean"}
    scores = [c["Composite Readiness Score"] for c in countries]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    ascending = data_list(await fetch(V1 + "?region=LAC&sort=score&order=asc"))
    assert ascending == countries[::-1]


@gen_test
async def test_readiness_sort_country_name_asc_alphabetical(fetch: Any) -> None:
    descending = data_list(await fetch(V1 + "?sort=Country%20Name&order=desc"))
    ascending = data_list(await fetch(V1 + "?sort=country%20name&order=asc"))
    assert ascending == descending[::-1]
    assert ascending[0]["Country Name"] == "Afghanistan"


@gen_test
async def test_readiness_archive_nulls_sort_last_in_both_orders(fetch: Any) -> None:
    for order in ("asc", "desc"):
        ranks = [c["Global Rank"] for c in data_list(await fetch(V1 + f"?year=2024&sort=Global%20Rank&order={order}"))]
        ranked = [rank for rank in ranks if rank is not None]
        assert ranks[len(ranked):] == [None] * (len(ranks) - len(ranked))  # microstates last
        assert ranked == sorted(ranked, reverse=order == "desc")  # type: ignore[type-var]
        assert len(ranked) < len(ranks)


@gen_test
async def test_readiness_fields_keep_those_fields_case_insensitively(fetch: Any) -> None:
    for country in data_list(await fetch(V1 + "?fields=SCORE,country%20name")):
        assert list(country) == ["Country Name", "Composite Readiness Score"]


@gen_test
async def test_readiness_fields_in_country_mode_keep_indicator_details(fetch: Any) -> None:
    kenya = body(await fetch(V1 + "?code=KEN&fields=score"))["data"]
    assert isinstance(kenya, dict) and list(kenya) == ["Composite Readiness Score", "indicator_details"]


@gen_test
async def test_readiness_shortnames_add_region_short_and_aliases(fetch: Any) -> None:
    for country in data_list(await fetch(V1 + "?shortnames=true")):
        assert country["score"] == country["Composite Readiness Score"]
        assert country["infra"] == country["Infrastructure Score"]
        assert country["human"] == country["Human Capital Score"]
        assert country["access"] == country["School Access and Gender Parity Score"]
        assert country["innovation"] == country["Innovation Score"]
        assert country["governance"] == country["Governance Score"]
        assert country["RegionShort"] in {"EAP", "ECA", "LAC", "MENA", "NA", "SAS", "SSA"}


@gen_test
async def test_readiness_indicators_filter_details(fetch: Any) -> None:
    kenya = body(await fetch(V1 + "?code=KEN&indicators=ge.est,it.net.user.zs"))["data"]
    assert isinstance(kenya, dict)
    codes = [element["indicator_code"] for element in kenya["indicator_details"]]  # type: ignore[union-attr, index]
    assert sorted(codes) == ["GE.EST", "IT.NET.USER.ZS"]


@gen_test
async def test_readiness_archive_year_reads_december_snapshot(fetch: Any) -> None:
    archived = body(await fetch(V1 + "?year=2024&codes=ARG,BRA"))
    current = body(await fetch(V1 + "?codes=ARG,BRA"))
    assert archived["snapshot"] == "2024-12" and archived["count"] == 2
    assert archived["data"] != current["data"]


@gen_test
@pytest.mark.parametrize("year", ["2022", "2021", "1999"])
async def test_readiness_year_without_december_archive_404(fetch: Any, year: str) -> None:
    assert_error_envelope(await fetch(V1 + f"?year={year}"), 404, f"year={year}")


@gen_test
async def test_readiness_v1_unmatched_codes_count_zero(fetch: Any) -> None:
    envelope = body(await fetch(V1 + "?code=XXX"))
    assert (envelope["count"], envelope["data"], envelope["level"]) == (0, [], "country")
    assert body(await fetch(V1 + "?codes=XXX,KEN"))["count"] == 1


@gen_test
async def test_readiness_legacy_unmatched_code_404_error_body(fetch: Any) -> None:
    response = await fetch(LEGACY + "?codes=KEN,XXX")
    assert response.code == 404
    assert body(response) == {"error": "Country code not found: XXX"}


@gen_test
@pytest.mark.parametrize("path", [LEGACY, LEGACY + "?code=XXX", LEGACY + "?year=24"])
async def test_readiness_legacy_announces_deprecation_and_successor(fetch: Any, path: str) -> None:
    response = await fetch(path)
    assert response.headers["Deprecation"] == "@1798761600"
    assert response.headers["Link"] == '</api/v1/readiness>; rel="successor-version"'
    assert "Sunset" not in response.headers


@gen_test
async def test_readiness_v1_has_no_deprecation(fetch: Any) -> None:
    assert "Deprecation" not in (await fetch(V1)).headers


@gen_test
@pytest.mark.parametrize("route", [V1, LEGACY])
async def test_readiness_level_country_without_code_400(fetch: Any, route: str) -> None:
    response = await fetch(route + "?level=country")
    assert_error_envelope(response, 400, "Invalid request.", "level=country")


@gen_test
@pytest.mark.parametrize(("params", "names", "accepted"), BAD_INPUT)
async def test_readiness_malformed_value_400_names_parameter(
    fetch: Any, params: dict[str, str], names: str, accepted: str
) -> None:
    response = await fetch(V1 + "?" + urlencode(params))
    assert_error_envelope(response, 400, "Invalid request. ", names, accepted)


@gen_test
async def test_readiness_bytes_not_utf8_400_names_parameter(fetch: Any) -> None:
    assert_error_envelope(await fetch(V1 + "?code=%FF%FE%FD"), 400, "code=")
    assert_error_envelope(await fetch(V1 + "?unknown=%FF"), 400, "Unknown parameter 'unknown'")
    assert (await fetch(LEGACY + "?unknown=%FF")).code == 200


@gen_test
@pytest.mark.parametrize(
    ("target", "shown"),
    [(V1.encode() + b"?sort=sc\xc3\xb6re", "sort='scöre'"), (V1.encode() + b"?sort=sc\xf6re", "sort='sc\ufffdre'")],
)
async def test_readiness_raw_bytes_in_query_read_as_utf8_or_replacement(
    http_server: Any, http_port: int, target: bytes, shown: str
) -> None:
    # Clients normally percent-encode; these bytes come raw, as some send them.
    response = await exchange(http_port, b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert response.status.split(b" ")[1] == b"400"
    message = orjson.loads(response.body)["error"]
    assert shown in message, message


@gen_test
async def test_readiness_repeated_parameter_last_wins_empty_absent(fetch: Any) -> None:
    data = body(await fetch(V1 + "?code=KEN&code=BRA"))["data"]
    assert isinstance(data, dict) and data["Country Code"] == "BRA"
    assert body(await fetch(V1 + "?code=KEN&code="))["level"] == "global"


@gen_test
async def test_readiness_url_over_8_kib_414(fetch: Any) -> None:
    response = await fetch(V1 + "?fields=" + "score," * 1500)
    assert_error_envelope(response, 414, "longer than 8192")


@gen_test
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
async def test_readiness_other_methods_405_with_allow(fetch: Any, method: str) -> None:
    response = await fetch(V1, method=method, body=None if method == "DELETE" else b"{}")
    assert_error_envelope(response, 405, method)
    assert response.headers["Allow"] == "GET, HEAD, OPTIONS"


@gen_test
async def test_readiness_nonstandard_method_405(fetch: Any) -> None:
    response = await fetch(V1, method="BREW", allow_nonstandard_methods=True)
    assert_error_envelope(response, 405, "BREW")


@gen_test
async def test_readiness_options_is_cors_preflight_204(fetch: Any) -> None:
    response = await fetch(V1, method="OPTIONS")
    assert response.code == 204 and response.body == b""
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"


@gen_test
@pytest.mark.parametrize("path", [V1, LEGACY, V1 + "?format=csv"])
async def test_preflight_allows_both_validators_and_accept_encoding(fetch: Any, path: str) -> None:
    """A browser script may send a conditional request (either validator) and Accept-Encoding."""
    response = await fetch(path, method="OPTIONS", headers={
        "Origin": "https://example.org", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "if-modified-since, if-none-match",
    })
    assert response.code == 204
    allowed = {name.strip().lower() for name in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert allowed == {"if-none-match", "if-modified-since", "accept-encoding", "range", "if-range"}
    assert response.headers["Access-Control-Max-Age"] == "86400"


@gen_test
async def test_readiness_head_same_headers_no_body(fetch: Any) -> None:
    for encoding in ("identity", "gzip"):
        options = {"headers": {"Accept-Encoding": encoding}, "decompress_response": False}
        get = await fetch(V1 + "?code=KEN", **options)
        head = await fetch(V1 + "?code=KEN", method="HEAD", **options)
        assert head.code == 200 and head.body == b""
        assert head.headers["Etag"] == get.headers["Etag"]
        assert head.headers["Content-Length"] == str(len(get.body))


@gen_test
async def test_readiness_common_headers(fetch: Any) -> None:
    response = await fetch(V1)
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "Server" not in response.headers


@gen_test
async def test_readiness_etag_revalidation_304_without_body(fetch: Any) -> None:
    first = await fetch(V1 + "?region=EAP")
    etag = first.headers["Etag"]
    again = await fetch(V1 + "?region=EAP", headers={"If-None-Match": etag})
    assert again.code == 304 and again.body == b""
    other = await fetch(V1 + "?region=NA", headers={"If-None-Match": etag})
    assert other.code == 200 and other.headers["Etag"] != etag


@gen_test
async def test_readiness_equivalent_requests_identical_bytes_one_cache_entry(fetch: Any, app: Application) -> None:
    variants = ["?codes=bra,KEN", "?code=KEN,BRA&_utm=1", "?codes=KEN,BRA,ken&level=global"]
    bodies = {(await fetch(V1 + variant)).body for variant in variants}
    assert len(bodies) == 1
    assert [line["cache"] for line in access_lines(app)] == ["miss", "hit", "hit"]


@gen_test
async def test_readiness_access_log_one_json_line_with_cache_outcome(fetch: Any, app: Application) -> None:
    await fetch(V1 + "?code=NGA")
    await fetch(V1 + "?code=nga")
    await fetch(V1 + "?year=12")
    lines = access_lines(app)
    assert [(line["status"], line["cache"]) for line in lines] == [(200, "miss"), (200, "hit"), (400, None)]
    first = lines[0]
    assert (first["logger"], first["level"], first["message"]) == ("readiness.access", "info", "request")
    assert first["method"] == "GET" and first["path"] == V1 and first["query"] == "code=NGA"
    assert isinstance(first["duration_ms"], float) and first["duration_ms"] >= 0
    assert first["remote"] == "127.0.0.1" and str(first["time"]).endswith("Z")


@gen_test
async def test_unknown_path_404_envelope(fetch: Any) -> None:
    assert_error_envelope(await fetch("/api/v2/readiness"), 404, "/api/v2/readiness")


@gen_test
async def test_health_and_ready(fetch: Any) -> None:
    assert body(await fetch("/healthz")) == {"status": "ok"}
    assert body(await fetch("/readyz")) == {"status": "ready", "snapshot": "2026-11"}


class TestWithoutSnapshot:
    """A data directory with nothing usable: the process runs, says it is not ready."""

    @pytest.fixture
    def app(self, tmp_path: Path) -> Application:
        store = SnapshotStore(tmp_path)
        store.load_current()
        return make_app(Settings(data_dir=tmp_path), store)

    @gen_test
    async def test_readyz_503(self, fetch: Any) -> None:
        assert_error_envelope(await fetch("/readyz"), 503, "not ready")

    @gen_test
    async def test_readiness_503_not_500(self, fetch: Any) -> None:
        assert_error_envelope(await fetch(V1), 503, "No snapshot is loaded")
        assert (await fetch("/healthz")).code == 200


@gen_test
async def test_readiness_trailing_slash_same_answer(fetch: Any) -> None:
    assert (await fetch(V1 + "/?code=KEN")).body == (await fetch(V1 + "?code=KEN")).body


@gen_test
async def test_readiness_legacy_found_code_outside_region_count_zero(fetch: Any) -> None:
    response = await fetch(LEGACY + "?code=KEN&region=NA")
    assert response.code == 200
    assert (body(response)["count"], body(response)["data"]) == (0, [])


@gen_test
async def test_readiness_year_of_the_current_snapshot_is_the_current_snapshot(fetch: Any) -> None:
    # CURRENT is 2026-11: there is no 2026-12 yet, so year=2026 is the current snapshot, as on
    # /history (docs/API.md#one-year-one-snapshot-id); a later year has none.
    pinned, current = await fetch(V1 + "?year=2026&codes=KEN"), await fetch(V1 + "?codes=KEN")
    assert pinned.code == 200 and pinned.headers["X-Readiness-Snapshot"] == "2026-11"
    envelope = body(pinned)
    assert (envelope["snapshot"], envelope["snapshot_id"], envelope["current"]) == ("2026-11", "2026-11", True)
    assert envelope["data"] == body(current)["data"]
    # Not an archive's lifetime: once 2026-12 is out, year=2026 names it.
    assert pinned.headers["Cache-Control"] == current.headers["Cache-Control"]
    assert body(await fetch(V1 + "?year=2025&codes=KEN"))["current"] is False
    assert_error_envelope(await fetch(V1 + "?year=2027"), 404, "year=2027")


@gen_test
async def test_readiness_gzip_served_from_stored_copy_when_accepted(fetch: Any) -> None:
    plain = await fetch(V1, headers={"Accept-Encoding": "identity"}, decompress_response=False)
    zipped = await fetch(V1, headers={"Accept-Encoding": "br, gzip;q=0.8"}, decompress_response=False)
    refused = await fetch(V1, headers={"Accept-Encoding": "gzip;q=0"}, decompress_response=False)
    assert "Content-Encoding" not in plain.headers and "Content-Encoding" not in refused.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.body) == plain.body
    assert zipped.headers["Etag"] != plain.headers["Etag"]
    for response in (plain, zipped):
        assert response.headers["Vary"] == "Accept-Encoding"


@gen_test
async def test_readiness_small_answer_not_compressed(fetch: Any) -> None:
    response = await fetch(V1 + "?code=KEN&fields=score&indicators=NONE", headers={"Accept-Encoding": "gzip"},
                           decompress_response=False)
    assert "Content-Encoding" not in response.headers


@gen_test
async def test_readiness_revalidation_matches_either_representation(fetch: Any) -> None:
    zipped = await fetch(V1, headers={"Accept-Encoding": "gzip"}, decompress_response=False)
    for encoding in ("gzip", "identity"):
        response = await fetch(V1, headers={"Accept-Encoding": encoding, "If-None-Match": zipped.headers["Etag"]},
                               decompress_response=False)
        assert response.code == 304 and response.body == b""
    weak = await fetch(V1, headers={"If-None-Match": f'"other", W/{zipped.headers["Etag"]}'})
    assert weak.code == 304


@gen_test
async def test_readiness_cache_control_current_short_archive_long(fetch: Any) -> None:
    stale = "stale-while-revalidate=30, stale-if-error=86400"
    assert (await fetch(V1)).headers["Cache-Control"] == f"public, max-age=300, {stale}"
    assert (await fetch(V1 + "?year=2024")).headers["Cache-Control"] == f"public, max-age=86400, {stale}"
    assert (await fetch(V1 + "?year=2022")).headers["Cache-Control"] == "no-store"
    assert (await fetch(V1 + "?order=up")).headers["Cache-Control"] == "no-store"


@gen_test
async def test_readiness_etag_is_ours_computed_once_not_tornados(fetch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    hashed: list[bytes] = []
    real = hashlib.blake2b

    def counting(data: bytes, **kwargs: Any) -> Any:
        hashed.append(data)
        return real(data, **kwargs)

    monkeypatch.setattr("readiness.domain.answer.hashlib.blake2b", counting)
    for _ in range(3):
        response = await fetch(V1 + "?code=KEN", decompress_response=False)
        digest = real(response.body, digest_size=16).hexdigest()
        assert response.headers["Etag"] == f'"{digest}"'  # not Tornado's SHA-1 of the body
    assert len(hashed) == 1  # once, when the answer was computed
    for path in ("/healthz", "/readyz"):
        assert "Etag" not in (await fetch(path)).headers


@gen_test
async def test_readiness_cors_exposes_validators_and_legacy_headers(fetch: Any) -> None:
    exposed = (await fetch(V1)).headers["Access-Control-Expose-Headers"]
    assert {name.strip() for name in exposed.split(",")} == {
        "ETag", "Deprecation", "Link", "Last-Modified", "X-Readiness-Snapshot", "X-Total-Count",
        "Content-Disposition", "Accept-Ranges", "Content-Range",
    }


CORS_READABLE = {"ETag", "Last-Modified", "Link", "X-Total-Count", "X-Readiness-Snapshot"}
"""What a browser script must be able to read of an answer: validators, paging and the snapshot."""


@gen_test
@pytest.mark.parametrize("target", [V1 + "?code=KEN", V1 + "?format=csv&limit=3", LEGACY])
async def test_cors_exposes_validators_paging_and_snapshot_on_a_computed_answer_and_a_lane_hit(
    fetch: Any, handlers_built: list[str], target: str
) -> None:
    path = target.split("?")[0]
    computed = await fetch(target)
    assert handlers_built == [path]
    hit = await fetch(target)
    assert handlers_built == [path], "the second request was not answered by the hit lane"
    for response in (computed, hit):
        assert response.code == 200
        assert response.headers["Access-Control-Allow-Origin"] == "*"
        exposed = {name.strip() for name in response.headers["Access-Control-Expose-Headers"].split(",")}
        assert CORS_READABLE <= exposed
        assert {"Etag", "Last-Modified", "X-Total-Count", "X-Readiness-Snapshot"} <= set(response.headers)
    assert hit.headers["Access-Control-Expose-Headers"] == computed.headers["Access-Control-Expose-Headers"]


@gen_test
async def test_metrics_requests_cache_outcomes_and_snapshot(fetch: Any, app: Application) -> None:
    await fetch(V1 + "?code=KEN")
    await fetch(V1 + "?code=KEN")
    await fetch(LEGACY + "?code=XXX")
    text = scrape(app)
    assert 'readiness_http_requests_total{method="GET",route="v1",status="200"} 2.0' in text
    assert 'readiness_http_requests_total{method="GET",route="legacy",status="404"} 1.0' in text
    assert 'readiness_http_request_duration_seconds_count{route="v1"} 2.0' in text
    assert 'readiness_cache_lookups_total{outcome="hit",tier="memory"} 1.0' in text
    assert "readiness_answers_computed_total 1.0" in text
    assert 'readiness_snapshot{snapshot="2026-11"} 1.0' in text
    assert "readiness_redis_breaker_open 0.0" in text


@gen_test
async def test_metrics_unknown_paths_share_one_label(fetch: Any, app: Application) -> None:
    for number in range(3):
        await fetch(f"/no/such/path/{number}")
    text = scrape(app)
    assert 'readiness_http_requests_total{method="GET",route="unknown",status="404"} 3.0' in text
    assert "/no/such" not in text


@gen_test
async def test_readiness_legacy_fields_with_aliases_and_lowercase_names(fetch: Any) -> None:
    # docs/API.md#examples: the legacy route's older examples pass aliases and lowercase names in fields.
    for route in (LEGACY, V1):
        for country in data_list(await fetch(route + "?fields=score,country%20name,infra")):
            assert list(country) == ["Country Name", "Composite Readiness Score", "Infrastructure Score"]


@gen_test
async def test_readiness_country_keys_in_design_order(fetch: Any) -> None:
    order = [field.name for field in COUNTRY_FIELDS] + ["indicator_details"]
    kenya = body(await fetch(V1 + "?code=KEN"))["data"]
    assert isinstance(kenya, dict) and list(kenya) == [name for name in order if name in kenya]
    for country in data_list(await fetch(V1)):
        assert list(country) == [name for name in order if name in country]


@gen_test
async def test_readiness_microstates_scored_not_ranked(fetch: Any) -> None:
    countries = data_list(await fetch(V1))
    microstates = [c for c in countries if c["Microstate"]]
    assert microstates, "the sample must hold a microstate"
    for country in microstates:
        assert country["Composite Readiness Score"] is not None
        assert country["Global Rank"] is None and country["Regional Rank"] is None
    ranked = sorted(c["Global Rank"] for c in countries if c["Global Rank"] is not None)  # type: ignore[type-var]
    assert ranked == list(range(1, len(ranked) + 1))


@gen_test
@pytest.mark.parametrize("year", [None, "2025", "2024"])
async def test_readiness_scores_two_decimals_percentiles_ordinal_strings(fetch: Any, year: str | None) -> None:
    query = "" if year is None else f"&year={year}"
    all_codes = ",".join(str(c["Country Code"]) for c in data_list(await fetch(V1 + "?fields=Country%20Code" + query)))
    for country in data_list(await fetch(V1 + f"?codes={all_codes}" + query)):
        for name, value in country.items():
            if name.endswith("Score") and value is not None:
                assert isinstance(value, (int, float)) and 0 <= value <= 100 and round(value, 2) == value
        for element in country["indicator_details"]:  # type: ignore[union-attr]
            for key in ("global_percentile", "regional_percentile"):
                value = element[key]  # type: ignore[index]
                assert value is None or (isinstance(value, str) and value[-2:] in ("st", "nd", "rd", "th"))


@gen_test
async def test_readiness_unexpected_exception_500_envelope_logged_counted(
    fetch: Any, app: Application, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("service bug")

    monkeypatch.setattr(app.lane.service, "answer", broken)
    with caplog.at_level(logging.ERROR, logger="tornado.application"):
        response = await fetch(V1 + "?code=KEN")
    assert_error_envelope(response, 500, "Internal error. It has been logged; please try again later.")
    assert "service bug" not in response.body.decode()  # the client never sees the details
    assert response.headers["Cache-Control"] == "no-store"
    logged = [record for record in caplog.records if record.exc_info and isinstance(record.exc_info[1], RuntimeError)]
    assert len(logged) == 1 and str(logged[0].exc_info[1]) == "service bug"  # type: ignore[index]
    assert [(line["status"], line["level"]) for line in access_lines(app)] == [(500, "error")]
    text = scrape(app)
    assert 'readiness_http_requests_total{method="GET",route="v1",status="500"} 1.0' in text


# --- parameter names: v1 refuses unknown names, the legacy route ignores them ---------------


@gen_test
@pytest.mark.parametrize(
    ("query", "name", "hint"),
    [("?regoin=LAC", "regoin", "Did you mean 'region'?"), ("?CODE=KEN", "CODE", "Did you mean 'code'?"),
     ("?code=KEN&callback=f", "callback", "Accepted parameters: code, codes,"),
     ("?lmit=10&format=csv", "lmit", "Did you mean 'limit'?")],
)
async def test_readiness_v1_unknown_name_400_did_you_mean(fetch: Any, query: str, name: str, hint: str) -> None:
    response = await fetch(V1 + query)
    assert_error_envelope(response, 400, f"Invalid request. Unknown parameter '{name}'.", hint,
                          "Accepted parameters: code, codes, level, region, income, fcv, year, snapshot, sort, "
                          "order, fields, shortnames, indicators, limit, weights, offset, format, country, per_page, "
                          "page.")
    assert response.headers["Cache-Control"] == "no-store"
    legacy = await fetch(LEGACY + query)
    assert legacy.code == 200  # the legacy route ignores unknown names, as it always did


@gen_test
async def test_readiness_underscore_names_ignored_and_out_of_the_cache_key(fetch: Any, app: Application) -> None:
    plain = await fetch(V1 + "?code=KEN")
    busted = [await fetch(V1 + f"?code=KEN&_={n}&_ts=x") for n in range(2)]
    assert {response.body for response in busted} == {plain.body}
    assert {response.headers["Etag"] for response in busted} == {plain.headers["Etag"]}
    assert [line["cache"] for line in access_lines(app)] == ["miss", "hit", "hit"]


@gen_test
async def test_readiness_new_parameter_values_are_400_on_both_routes(fetch: Any) -> None:
    for route in (V1, LEGACY):
        assert_error_envelope(await fetch(route + "?limit=0"), 400, "limit='0'", "from 1 to 1000")
        assert_error_envelope(await fetch(route + "?format=xml"), 400, "format='xml'", "json or csv")
        assert_error_envelope(await fetch(route + "?income=rich"), 400, "income='rich'", "LIC, LMC, UMC, HIC")
        assert_error_envelope(await fetch(route + "?fcv=maybe"), 400, "fcv='maybe'", "true, false, 1 or 0")
        # A CSV request with a bad value still gets the JSON error envelope.
        assert_error_envelope(await fetch(route + "?format=csv&limit=x"), 400, "limit='x'")


# --- filters, limit, X-Total-Count ---------------------------------------------------------


@gen_test
@pytest.mark.parametrize("route", [V1, LEGACY])
async def test_readiness_limit_cuts_after_sorting_total_in_header(fetch: Any, route: str) -> None:
    full = await fetch(route + "?sort=score&region=SSA")
    top = await fetch(route + "?sort=score&region=SSA&limit=5")
    assert body(top)["count"] == 5
    assert data_list(top) == data_list(full)[:5]
    assert top.headers["X-Total-Count"] == full.headers["X-Total-Count"] == str(body(full)["count"])
    everything = await fetch(route + "?limit=1000")
    assert body(everything)["count"] == 217 and everything.headers["X-Total-Count"] == "217"


def next_link(response: HTTPResponse) -> str | None:
    """The target of the ``Link`` header's ``rel="next"``, None without one."""
    return links(response.headers.get("Link")).get("next")


@gen_test
@pytest.mark.parametrize("query", ["?sort=score&region=SSA&limit=7", "?limit=50", "?codes=KEN,BRA,USA&limit=2"])
async def test_readiness_following_next_links_pages_through_every_row(fetch: Any, query: str) -> None:
    full = await fetch(V1 + "?" + "&".join(part for part in query[1:].split("&") if not part.startswith("limit=")))
    total = full.headers["X-Total-Count"]
    rows: list[dict[str, JsonValue]] = []
    path: str | None = V1 + query
    pages = 0
    while path is not None:
        page = await fetch(path)
        assert page.code == 200, page.body
        assert page.headers["X-Total-Count"] == total  # unchanged by paging
        rows += data_list(page)
        path = next_link(page)
        pages += 1
        if path is not None:
            assert path.startswith(V1 + "?") and f"offset={len(rows)}" in path
            assert body(page)["count"] == int(query.rpartition("limit=")[2])  # full pages while rows remain
        else:
            assert "next" not in links(page.headers.get("Link"))  # the last page links back only
    assert rows == data_list(full) and len(rows) == int(total)
    assert pages == -(-int(total) // int(query.rpartition("limit=")[2]))


@gen_test
async def test_readiness_offset_past_the_end_and_without_limit(fetch: Any) -> None:
    past = await fetch(V1 + "?offset=217&limit=10")
    assert body(past)["count"] == 0 and past.headers["X-Total-Count"] == "217"
    assert links(past.headers["Link"]) == {"first": "/api/v1/readiness?limit=10",
                                           "prev": "/api/v1/readiness?limit=10&offset=207"}
    rest = await fetch(V1 + "?offset=210")
    assert body(rest)["count"] == 7 and links(rest.headers["Link"]) == {"first": "/api/v1/readiness"}
    assert data_list(rest) == data_list(await fetch(V1))[210:]
    first = await fetch(V1 + "?limit=100&offset=0")
    assert first.headers["Link"] == ('</api/v1/readiness?limit=100&offset=100>; rel="next", '
                                     '</api/v1/readiness?limit=100&offset=200>; rel="last"')
    assert first.body == (await fetch(V1 + "?limit=100")).body


@gen_test
async def test_readiness_csv_pages_link_on_and_concatenate(fetch: Any) -> None:
    full = await fetch(V1 + "?format=csv&region=lac&sort=score")
    first = await fetch(V1 + "?format=csv&region=lac&sort=score&limit=20")
    assert first.headers["Link"] == (
        "</api/v1/readiness?region=Latin%20America%20%26%20Caribbean&sort=Composite%20Readiness%20Score"
        '&order=desc&limit=20&offset=20&format=csv>; rel="next", '
        "</api/v1/readiness?region=Latin%20America%20%26%20Caribbean&sort=Composite%20Readiness%20Score"
        '&order=desc&limit=20&offset=40&format=csv>; rel="last"'
    )
    lines = first.body.decode("utf-8-sig").split("\r\n")[:-1]
    path = next_link(first)
    while path is not None:
        page = await fetch(path)
        assert page.headers["Content-Type"] == "text/csv; charset=utf-8"
        assert page.headers["X-Total-Count"] == first.headers["X-Total-Count"]
        lines += page.body.decode("utf-8-sig").split("\r\n")[1:-1]  # each page has the header row
        path = next_link(page)
    assert lines == full.body.decode("utf-8-sig").split("\r\n")[:-1]


@gen_test
async def test_readiness_bad_offset_is_400_and_legacy_ignores_offset(fetch: Any) -> None:
    for bad in ("-1", "x", "1.5", "10000000"):
        assert_error_envelope(await fetch(V1 + f"?offset={bad}"), 400, f"offset='{bad}'", "0 to 9999999")
    legacy = await fetch(LEGACY + "?limit=5&offset=5")
    assert legacy.body == (await fetch(LEGACY + "?limit=5")).body
    assert next_link(legacy) is None  # the legacy route keeps its successor Link


@gen_test
async def test_readiness_limit_in_country_mode_keeps_an_array_when_more_matched(fetch: Any) -> None:
    cut = await fetch(V1 + "?codes=KEN,BRA,USA&limit=1")
    assert isinstance(body(cut)["data"], list) and body(cut)["count"] == 1
    assert cut.headers["X-Total-Count"] == "3"
    one = await fetch(V1 + "?code=KEN&limit=1")
    assert isinstance(body(one)["data"], dict) and one.headers["X-Total-Count"] == "1"


@gen_test
async def test_readiness_income_and_fcv_filter_on_both_routes(fetch: Any) -> None:
    for route in (V1, LEGACY):
        low = data_list(await fetch(route + "?income=LIC"))
        assert low and {country["Income Level"] for country in low} == {"Low income"}
        assert data_list(await fetch(route + "?income=low%20INCOME")) == low
        fragile = data_list(await fetch(route + "?fcv=true&region=SSA"))
        assert fragile and all(c["FCV Status"] is True and c["Region"] == "Sub-Saharan Africa" for c in fragile)
        stable = data_list(await fetch(route + "?fcv=0&region=SSA"))
        assert len(stable) + len(fragile) == body(await fetch(route + "?region=SSA"))["count"]


# --- which data an answer holds: Last-Modified, X-Readiness-Snapshot -------------------------


@gen_test
@pytest.mark.parametrize("route", [V1, LEGACY])
async def test_readiness_answers_name_their_snapshot_and_publication(fetch: Any, route: str) -> None:
    current = await fetch(route + "?code=KEN")
    assert current.headers["X-Readiness-Snapshot"] == "2026-11"
    assert current.headers["Last-Modified"] == "Thu, 05 Nov 2026 00:00:00 GMT"
    assert body(current)["snapshot"] == "current"  # the envelope is unchanged
    archive = await fetch(route + "?year=2024&code=KEN")
    assert archive.headers["X-Readiness-Snapshot"] == "2024-12"
    published = orjson.loads((SAMPLE_DIR / "snapshots" / "2024-12" / "manifest.json").read_bytes())["published"]
    assert parsedate_to_datetime(archive.headers["Last-Modified"]).date().isoformat() == published


@gen_test
async def test_readiness_if_modified_since_304_unless_if_none_match_differs(fetch: Any) -> None:
    first = await fetch(V1 + "?region=EAP")
    since = first.headers["Last-Modified"]
    again = await fetch(V1 + "?region=EAP", headers={"If-Modified-Since": since})
    assert again.code == 304 and again.body == b"" and again.headers["Etag"] == first.headers["Etag"]
    older = await fetch(V1 + "?region=EAP", headers={"If-Modified-Since": "Sun, 01 Nov 2026 00:00:00 GMT"})
    assert older.code == 200
    stale = await fetch(V1 + "?region=EAP", headers={"If-Modified-Since": since, "If-None-Match": '"stale"'})
    assert stale.code == 200 and stale.body == first.body  # If-None-Match decides (RFC 9110)
    archive = await fetch(V1 + "?year=2024", headers={"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"})
    assert archive.code == 304  # archives (the handler path) too


# --- CSV ----------------------------------------------------------------------------------


@gen_test
@pytest.mark.parametrize("route", [V1, LEGACY])
async def test_readiness_csv_rows_and_columns_are_the_json_answers(fetch: Any, route: str) -> None:
    query = "?region=LAC&sort=score&fields=Country%20Name,score,Population,%20total&shortnames=true"
    as_json = data_list(await fetch(route + query))
    response = await fetch(route + query + "&format=CSV")
    assert response.code == 200
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    # The sample is synthetic: v1's file name says so; the legacy route's stays as it was.
    name = "readiness-2026-11-synthetic.csv" if route == V1 else "readiness-2026-11.csv"
    assert response.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert response.headers["X-Total-Count"] == str(len(as_json))
    assert response.body.startswith(b"\xef\xbb\xbf") and response.body.endswith(b"\r\n")
    lines = response.body[3:].split(b"\r\n")[:-1]
    # v1 rows end with their snapshot and its notice (docs/API.md#csv); the legacy CSV keeps its columns.
    provenance = {"snapshot_id": "2026-11", "notice": body(await fetch(V1))["notice"]} if route == V1 else {}
    assert lines[0] == b'Country Name,"Population, total",Composite Readiness Score,score' + b"".join(
        b"," + name.encode() for name in provenance)
    assert len(lines) == len(as_json) + 1
    for line, country in zip(lines[1:], as_json, strict=True):
        values = [*country.values(), *provenance.values()]
        cells = [orjson.dumps(value) if not isinstance(value, str) else value.encode() for value in values]
        assert line == b",".join(b'"' + cell + b'"' if b"," in cell else cell for cell in cells)


@gen_test
async def test_readiness_csv_country_mode_leaves_out_indicator_details(fetch: Any) -> None:
    response = await fetch(V1 + "?codes=KEN,BRA&format=csv")
    header = response.body[3:].split(b"\r\n")[0].decode()
    assert "indicator_details" not in header
    assert header.startswith("Country Name,Country Code,Region,Income Level,")
    assert response.body.count(b"\r\n") == 3
    empty = await fetch(V1 + "?code=XXX&format=csv&year=2024")
    assert empty.code == 200 and empty.body.count(b"\r\n") == 1  # the header row alone
    assert empty.headers["Content-Disposition"] == 'attachment; filename="readiness-2024-12-synthetic.csv"'
    assert empty.headers["X-Total-Count"] == "0"


@gen_test
async def test_readiness_csv_errors_stay_json(fetch: Any) -> None:
    missing = await fetch(LEGACY + "?code=XXX&format=csv")
    assert missing.code == 404 and missing.headers["Content-Type"] == "application/json; charset=utf-8"
    assert orjson.loads(missing.body) == {"error": "Country code not found: XXX"}
    assert_error_envelope(await fetch(V1 + "?format=csv&year=2022"), 404, "year=2022")
    assert_error_envelope(await fetch(V1 + "?format=csv&sort=nope"), 400, "sort='nope'")


@gen_test
async def test_readiness_csv_is_its_own_cached_answer_with_etag_and_gzip(fetch: Any, app: Application) -> None:
    as_json = await fetch(V1)
    plain = await fetch(V1 + "?format=csv", headers={"Accept-Encoding": "identity"}, decompress_response=False)
    zipped = await fetch(V1 + "?format=csv", headers={"Accept-Encoding": "gzip"}, decompress_response=False)
    assert plain.headers["Etag"] not in (as_json.headers["Etag"], zipped.headers["Etag"])
    assert zipped.headers["Content-Encoding"] == "gzip" and gzip.decompress(zipped.body) == plain.body
    assert zipped.headers["Content-Disposition"] == plain.headers["Content-Disposition"]
    revalidated = await fetch(V1 + "?format=csv", headers={"If-None-Match": plain.headers["Etag"]})
    assert revalidated.code == 304 and "Content-Disposition" not in revalidated.headers
    assert [line["cache"] for line in access_lines(app)] == ["miss", "miss", "hit", "hit"]
