"""bench/http_cache.py and bench/baseline_server.py: the bare baseline's answers are what the
service sends (so a ratio compares like with like), and every case is compared with a case of
the same answer. The benchmark itself is never run here (nothing is timed:
docs/TESTING.md#the-suite-is-deterministic-on-a-machine-twice-as-slow)."""

from __future__ import annotations

from tornado.httpclient import AsyncHTTPClient
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port
from tornado.web import Application

from readiness.domain.answer import Answer
from tests.bench_scripts import bench_module
from tests.conftest import SAMPLE, access_lines, gen_test

http_cache = bench_module("http_cache")
baseline_server = bench_module("baseline_server")


def test_every_case_is_compared_with_a_case_of_the_same_answer() -> None:
    cases = {case.name: case for case in http_cache.all_cases()}
    routes = {"csv", "indicators", "indicators-ken", "history", "history-ken", "catalogue"}
    assert routes <= {case.answer for case in cases.values() if case.target == http_cache.TIER_TARGET}
    for case in cases.values():
        if case.baseline is None:
            continue
        baseline = cases[case.baseline]
        if case.target == http_cache.TIER_TARGET and case.server == "tier1":
            assert baseline.server == "bare" and baseline.answer == case.answer, case.name
            assert baseline.path.endswith(http_cache.ANSWERS[case.answer].query_string), case.name
        if case.revalidate:
            assert baseline.name == "bare bytes KEN", case.name


def test_each_content_type_only_case_is_compared_with_the_plain_handler_of_its_answer() -> None:
    cases = {case.name: case for case in http_cache.all_cases()}
    plain = [case for case in cases.values() if case.target == http_cache.PLAIN_TARGET]
    assert sorted(case.answer for case in plain) == ["global", "ken"]
    for case in plain:
        baseline = cases[case.baseline]
        assert case.server == "tier1" and case.path == http_cache.api_path(case.answer)
        assert baseline.server == "bare" and baseline.plain and baseline.answer == case.answer
        assert baseline.path == http_cache.bare_path("plain", case.answer)
    assert http_cache.TIER_TARGET == 0.85 and http_cache.REVALIDATION_TARGET == 1.0  # the older targets stay


@gen_test
async def test_the_plain_baseline_sends_the_body_with_only_a_content_type(http_client: AsyncHTTPClient) -> None:
    answer = Answer.of(b'{"data":"' + b"x" * 2000 + b'"}')
    sock, port = bind_unused_port()
    server = HTTPServer(Application([(r"/plain/(ken)", baseline_server.PlainHandler, {"answers": {"ken": answer}})]))
    server.add_sockets([sock])
    try:
        response = await http_client.fetch(f"http://127.0.0.1:{port}/plain/ken?code=KEN", decompress_response=False)
    finally:
        server.stop()
    assert response.body == answer.body
    headers = {name.lower(): value for name, value in response.headers.get_all()}
    assert http_cache.plain_header_problems(headers, answer) == []
    with_etag = {**headers, "etag": answer.etag}
    assert http_cache.plain_header_problems(with_etag, answer) == ["headers beyond Content-Type: etag"]


def test_only_selects_the_new_cases_with_their_baselines() -> None:
    selected = {case.name for case in http_cache.selected_cases("CSV|indicators|history|catalogue")}
    assert "tier-1 hit history KEN" in selected and "bare bytes history KEN" in selected
    assert "bare bytes KEN" in selected  # the 304's baseline
    assert "tier-1 hit KEN" not in selected and "tier-1 hit global" not in selected


# The baseline reads every snapshot's summary of the 217-economy sample: 10 s alone on an idle
# machine, several times that while the suite's workers share two cores.
@gen_test(timeout=120)
async def test_the_baselines_answers_are_the_services_bytes_and_headers(
    app: Application, http_client: AsyncHTTPClient, base_url: str
) -> None:
    built = await http_cache.build_answers(SAMPLE)
    assert set(built) == set(http_cache.ANSWERS)
    for name, (_, answer) in built.items():
        for attempt in ("miss", "hit"):  # the second is the hit lane's; identity, as wrk asks
            response = await http_client.fetch(base_url + http_cache.api_path(name), decompress_response=False)
            assert response.code == 200, (name, attempt)
            assert response.body == answer.body, (name, attempt)
            assert response.headers["Etag"] == answer.etag, (name, attempt)
            for header, value in answer.headers:
                assert response.headers[header] == value, (name, attempt, header)
    assert [line["cache"] for line in access_lines(app)] == ["miss", "hit"] * len(built)
