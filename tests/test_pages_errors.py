"""The error pages (readiness/pages/errors.py): a person who mistypes a page's address gets a
page of the site saying what went wrong and the way on; the API's clients keep the JSON envelope
(docs/PAGES.md#error-pages). The browser's view of them is in tests/test_pages_edges.py."""

from __future__ import annotations

import html
from typing import Any

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from loaders import SnapshotStore
from readiness.domain.errors import InvalidRequest
from readiness.pages.errors import check_code, is_page_path, meant, wants_html
from tests.conftest import assert_error_envelope, gen_test

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
"""What Chromium sends when it navigates to an address."""


@pytest.fixture
def fetch(http_client: AsyncHTTPClient, base_url: str) -> Any:
    async def fetch(path: str, accept: str = BROWSER, **kwargs: Any) -> HTTPResponse:
        return await http_client.fetch(base_url + path, raise_error=False, headers={"Accept": accept}, **kwargs)

    return fetch


def page_text(response: HTTPResponse) -> str:
    return html.unescape(response.body.decode())


def assert_error_page(response: HTTPResponse, status: int, heading: str, *fragments: str) -> None:
    """``response`` is the site's HTML error page with this status, heading and words."""
    assert response.code == status, response.body[:300]
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    if not response.effective_url.split("/", 3)[3].startswith("embed/"):
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    text = page_text(response)
    assert f"<h1>{heading}</h1>" in text
    assert '<div class="synthetic" role="note"' in text  # a page of the site, with its notice
    for fragment in fragments:
        assert fragment in text, fragment


@gen_test
async def test_a_mistyped_page_address_is_a_404_page_naming_the_page_meant(fetch: Any) -> None:
    response = await fetch("/mapp")
    assert_error_page(response, 404, "Page not found", "This site has no page at /mapp.",
                      'Did you mean <a href="/map">/map</a>?', 'action="/explore"')
    assert response.headers["Vary"] == "Accept"


@gen_test
@pytest.mark.parametrize(("path", "guess"), [("/Explore/", "/explore"), ("/comprae", "/compare"),
                                             ("/metod", "/method")])
async def test_the_404_page_guesses_near_addresses(fetch: Any, path: str, guess: str) -> None:
    assert_error_page(await fetch(path), 404, "Page not found", f'Did you mean <a href="{guess}">')


@gen_test
@pytest.mark.parametrize("accept", ["application/json", "*/*", ""])
async def test_a_client_not_asking_for_html_keeps_the_json_404(fetch: Any, accept: str) -> None:
    response = await fetch("/mapp", accept=accept)
    assert_error_envelope(response, 404, "Not found: '/mapp'")
    assert response.headers["Vary"] == "Accept"


@gen_test
@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/nope", "/api/", "/static/nope.js"])
async def test_the_api_and_its_files_answer_json_even_to_a_browser(fetch: Any, path: str) -> None:
    assert_error_envelope(await fetch(path), 404, "Not found")


@gen_test
async def test_an_api_error_stays_json_for_a_browser(fetch: Any) -> None:
    assert_error_envelope(await fetch("/api/v1/readiness?region=atlantis"), 400, "region=")


@gen_test
@pytest.mark.parametrize("prefix", ["/explore", "/embed/explore"])
async def test_an_economy_address_that_is_no_code_is_a_400_page(fetch: Any, prefix: str) -> None:
    response = await fetch(f"{prefix}/K3N")
    assert_error_page(response, 400, "This address is not valid",
                      "Invalid request. 'K3N' is not an economy code", "such as /explore/KEN")
    # Whatever the client accepts: a page route's errors are pages.
    assert (await fetch(f"{prefix}/K3N", accept="application/json")).code == 400


@gen_test
async def test_an_embeds_error_page_may_be_framed_as_the_embed(fetch: Any) -> None:
    for path in ("/embed/explore/K3N", "/embed/explore/XXX"):
        response = await fetch(path)
        assert response.code in (400, 404)
        assert "frame-ancestors *" in response.headers["Content-Security-Policy"], path


@gen_test
@pytest.mark.parametrize(("typed", "code", "name"), [
    ("kenya", "KEN", "Kenya"), ("south-korea", "KOR", "Korea, Rep."), ("Turkey", "TUR", "Turkiye"),
    ("ivory%20coast", "CIV", "Cote d'Ivoire"),
])
async def test_the_400_page_names_the_economy_a_typed_name_means(fetch: Any, typed: str, code: str, name: str) -> None:
    assert_error_page(await fetch(f"/explore/{typed}"), 400, "This address is not valid",
                      f'Did you mean <a href="/explore/{code}">{name}</a>')


@gen_test
async def test_an_unknown_code_is_a_404_page(fetch: Any) -> None:
    response = await fetch("/explore/XXX")
    assert_error_page(response, 404, "Page not found",
                      "The current snapshot (2026-11) has no economy with the code XXX.")
    assert "Did you mean" not in page_text(response)


@gen_test
async def test_a_method_a_page_does_not_allow_is_a_405_page(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await http_client.fetch(base_url + "/explore", method="POST", body=b"", raise_error=False,
                                       headers={"Accept": BROWSER})
    assert_error_page(response, 405, "Not allowed", "Method 'POST' is not allowed")


@gen_test
async def test_without_a_snapshot_the_errors_stay_json(fetch: Any, sample_store: SnapshotStore) -> None:
    sample_store.current = None  # no page can say which data it is about
    assert_error_envelope(await fetch("/mapp"), 404, "Not found")
    assert_error_envelope(await fetch("/explore/KEN"), 503, "")


@gen_test
async def test_a_long_mistyped_address_is_shortened_and_not_guessed(fetch: Any) -> None:
    response = await fetch("/" + "m" * 5000)
    assert_error_page(response, 404, "Page not found", "This site has no page at /" + "m" * 39 + "…")
    assert "Did you mean" not in page_text(response)


@pytest.mark.parametrize(("path", "expected"), [("/mapp", "/map"), ("/EXPLORE", "/explore"), ("/", "/"),
                                                ("/zzzzzz", None), ("/" + "x" * 100, None)])
def test_meant_is_the_nearest_page_or_none(path: str, expected: str | None) -> None:
    assert meant(path) == expected


@pytest.mark.parametrize(("path", "page"), [("/mapp", True), ("/explore/x/y", True), ("/api/v1/x", False),
                                            ("/api", False), ("/static/a.js", False), ("/readyz", False)])
def test_is_page_path_leaves_out_the_api_files_and_probes(path: str, page: bool) -> None:
    assert is_page_path(path) is page


def test_wants_html_reads_the_accept_header() -> None:
    assert wants_html(BROWSER) and wants_html("TEXT/HTML")
    assert not wants_html("application/json") and not wants_html("*/*") and not wants_html("")


@pytest.mark.parametrize("code", ["K3N", "KENY", "KE", "", "ÄBC", "K-N"])
def test_check_code_refuses_what_is_no_code(code: str) -> None:
    with pytest.raises(InvalidRequest, match="is not an economy code"):
        check_code(code)


def test_check_code_upper_cases_a_code() -> None:
    assert check_code("ken") == "KEN"
