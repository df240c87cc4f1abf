"""The pages over HTTP (readiness/pages/): what they say without JavaScript, their headers,
ETags, 304s and gzip, the static files by hashed name, and one rendering per snapshot."""

from __future__ import annotations

import gzip
import html
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from loaders import DIMENSIONS, SnapshotStore, Summary
from readiness.domain.bands import bands_document
from readiness.domain.errors import NotReady
from readiness.pages import Site, site_assets
from readiness.pages.assets import read_assets
from readiness.pages.handlers import ASSET_CACHE, PAGE_CACHE
from tests.conftest import SAMPLE, assert_error_envelope, gen_test, tiny_data

PAGES = ("/", "/docs", "/explore", "/explore/KEN", "/method", "/map", "/compare")
EMBEDS = ("/embed/map", "/embed/compare", "/embed/explore/KEN")
ORIGIN = "http://127.0.0.1:8080"
"""The origin the Site tests render pages for (their share meta's absolute URLs)."""
STATIC_URL = re.compile(r'(?:src|href)="(/static/[^"]+)"')


@pytest.fixture
def fetch(http_client: AsyncHTTPClient, base_url: str) -> Any:
    """Fetch a path of the app under test without raising on error statuses."""

    async def fetch(path: str, **kwargs: Any) -> HTTPResponse:
        return await http_client.fetch(base_url + path, raise_error=False, **kwargs)

    return fetch


def text(response: HTTPResponse) -> str:
    return response.body.decode()


@gen_test
async def test_landing_page_says_everything_without_javascript(fetch: Any) -> None:
    response = await fetch("/")
    assert response.code == 200
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    page = text(response)
    # The synthetic notice, prominent: its own block right under the header, saying what the data
    # is in the site's words, with no repository file named (the manifest's notice names one).
    banner = page.split('<div class="synthetic" role="note"', 1)[1].split("</div>", 1)[0]
    assert "Synthetic sample data." in banner and "must not be cited" in banner
    assert 'href="/method#synthetic-sample"' in banner
    assert not re.search(r"[\w/]+\.(py|md|json)\b", banner), banner
    # The landing page starts with the data: the search (the explorer's name search without
    # JavaScript), the map, the ranking's two ends and the moves, then the API section.
    assert '<form id="find" class="find" role="search" aria-label="Find an economy" action="/explore"' in page
    assert '<input id="find-input" name="q"' in page
    order = [page.index(marker) for marker in ('id="find"', 'id="map-view"', 'id="top"', 'id="bottom"',
                                                 'id="movers"', 'id="api-heading"', 'class="examples"')]
    assert order == sorted(order)
    assert '<span data-snapshot>2026-11</span>' in page and '<time datetime="2026-11-05">' in page
    # "Cite this": the catalogue's citation text (escaped, as every value is) and the three downloads.
    assert ("Readiness Index Data Service (synthetic sample) (2026). Readiness Index, snapshot 2026-11 "
            "[Data set]. Published 2026-11-05.") in page
    assert "Do not cite this snapshot: its data is synthetic" in page
    for name in ("bibtex", "ris", "csl"):
        assert f'href="/api/v1/citation?format={name}&amp;snapshot=2026-11" download' in page
    links = ('href="/explore"', 'href="/method"', 'href="/docs"', 'href="/api/v1/openapi.json"',
             'href="/api/v1/readiness?format=csv"')
    for link in links:
        assert link in page
    examples = re.findall(r"<code data-path=\"([^\"]+)\">curl '([^']+)'</code>", page)
    assert len(examples) == 3 and all(path == shown for path, shown in examples)
    assert "<script>" not in page  # no inline script: the CSP allows none


def test_pages_without_a_synthetic_manifest_show_no_notice(sample_store: SnapshotStore) -> None:
    current = sample_store.current
    assert current is not None
    sample_store.current = replace(current, synthetic=False, notice=None)
    page = Site(sample_store, site_assets()).page("index.html", ORIGIN, "en").body.decode()
    assert "synthetic" not in page.split("<main")[0]


@gen_test
@pytest.mark.parametrize("path", PAGES)
async def test_page_headers_etag_304_and_gzip(fetch: Any, path: str) -> None:
    plain = await fetch(path, headers={"Accept-Encoding": "identity"}, decompress_response=False)
    assert plain.code == 200
    assert plain.headers["Cache-Control"] == PAGE_CACHE
    # The language came from the request's headers (none: English), so the page varies on them.
    assert plain.headers["Vary"] == "Accept-Encoding, Accept-Language, Cookie"
    assert "default-src 'self'" in plain.headers["Content-Security-Policy"]
    assert plain.headers["X-Content-Type-Options"] == "nosniff"
    zipped = await fetch(path, headers={"Accept-Encoding": "gzip"}, decompress_response=False)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.body) == plain.body
    assert zipped.headers["Etag"] != plain.headers["Etag"]
    again = await fetch(path, headers={"If-None-Match": plain.headers["Etag"]})
    assert again.code == 304 and again.body == b""


@gen_test
async def test_only_the_embeds_may_be_framed_by_another_site(fetch: Any) -> None:
    for path in PAGES + ("/explore/XXX",):
        response = await fetch(path)
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"], path
    for path in EMBEDS:
        response = await fetch(path)
        assert response.code == 200, path
        policy = response.headers["Content-Security-Policy"]
        assert "frame-ancestors *" in policy and "default-src 'self'" in policy, path
        assert 'href="/"' not in text(response).split("<main")[0], path  # no site header: minimal chrome
    assert (await fetch("/embed/explore/XXX")).code == 404


@gen_test
async def test_every_static_url_a_page_names_is_served_immutable(fetch: Any) -> None:
    named: set[str] = set()
    for path in PAGES:
        named |= set(STATIC_URL.findall(text(await fetch(path))))
    assert {url.rsplit("/", 1)[1].split(".")[0] for url in named} >= {
        "site", "landing", "explore", "country", "docs", "swagger-ui-bundle", "swagger-ui", "favicon"}
    for url in sorted(named):
        response = await fetch(url, headers={"Accept-Encoding": "gzip"}, decompress_response=False)
        assert response.code == 200, url
        assert response.headers["Cache-Control"] == ASSET_CACHE == "public, max-age=31536000, immutable"
        if len(response.body) >= 1024:  # smaller ones are not worth it (readiness/domain/answer.py)
            assert response.headers["Content-Encoding"] == "gzip", url  # all text: JS, CSS, SVG
        assert response.headers["Content-Type"].split(";")[0] in ("text/javascript", "text/css", "image/svg+xml")
        revalidated = await fetch(url, headers={"If-None-Match": response.headers["Etag"]})
        assert revalidated.code == 304, url


@gen_test
async def test_modules_import_each_other_by_hashed_name(fetch: Any) -> None:
    assets = site_assets()
    country = text(await fetch(assets.url("country.js")))
    assert f'from "{assets.url("api.js")}"' in country and f'from "{assets.url("chart.js")}"' in country
    assert '"./' not in country


@gen_test
@pytest.mark.parametrize("path", ["/static/api.js", "/static/api.0000000000.js", "/static/../server.py", "/static/"])
async def test_static_serves_only_hashed_names(fetch: Any, path: str) -> None:
    assert_error_envelope(await fetch(path), 404, "Not found")


@gen_test
async def test_swagger_ui_is_served_from_the_pinned_package(fetch: Any) -> None:
    page = text(await fetch("/docs"))
    assert '<div id="swagger-ui" lang="en" data-url="/api/v1/openapi.json">' in page
    bundle = await fetch(site_assets().url("swagger-ui-bundle.js"))
    assert bundle.code == 200 and b"SwaggerUIBundle" in bundle.body[:1000]
    assert "http" not in " ".join(STATIC_URL.findall(page))  # nothing from another origin


@gen_test
async def test_country_view_names_the_economy_escaped(fetch: Any) -> None:
    kenya = await fetch("/explore/ken")
    assert kenya.code == 200
    assert '<h1 id="country" data-code="KEN">Kenya</h1>' in text(kenya)
    ivory = text(await fetch("/explore/CIV"))
    assert "<title>Cote d&#x27;Ivoire · Readiness Index</title>" in ivory


@gen_test
async def test_country_view_of_an_unknown_code_is_a_404_page(fetch: Any) -> None:
    response = await fetch("/explore/XXX")
    assert response.code == 404
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    assert "The current snapshot (2026-11) has no economy with the code XXX." in text(response)
    # Not three letters: no code at all, a 400 page (tests/test_pages_errors.py).
    assert (await fetch("/explore/KENYA")).code == 400


@gen_test
async def test_pages_before_any_snapshot_are_503_json(http_client: AsyncHTTPClient, base_url: str,
                                                      sample_store: SnapshotStore) -> None:
    sample_store.current = None
    response = await http_client.fetch(base_url + "/", raise_error=False)
    assert_error_envelope(response, 503, "")


def test_site_renders_each_page_once_per_snapshot(tmp_path: Path, sample_store: SnapshotStore) -> None:
    site = Site(sample_store, site_assets())
    first = site.page("index.html", ORIGIN, "en")
    assert site.page("index.html", ORIGIN, "en") is first  # kept, not rendered again
    assert site.country("KEN", ORIGIN, "en") is site.country("KEN", ORIGIN, "en")
    tiny = SnapshotStore(tiny_data(tmp_path / "data", current="2025-12")).load_current()
    assert tiny is not None
    sample_store.current = tiny
    swapped = site.page("index.html", ORIGIN, "en")
    assert swapped is not first and b"<span data-snapshot>2025-12</span>" in swapped.body
    assert b"5</dd>" in swapped.body  # the tiny world's five economies
    assert site.country("KEN", ORIGIN, "en") is None  # not in the tiny world
    sample_store.current = None
    with pytest.raises(NotReady):
        site.page("index.html", ORIGIN, "en")


def test_assets_rewrite_imports_so_a_change_renames_its_importers(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\nexport const a = b;\n')
    (tmp_path / "b.js").write_text("export const b = 1;\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG" + bytes(2000))
    before = read_assets((tmp_path,))
    assert f'from "{before.url("b.js")}"'.encode() in before.get(before.url("a.js")).answer.body  # type: ignore[union-attr]
    png = before.get(before.url("logo.png"))
    assert png is not None and png.answer.gzipped is None  # compressed already
    (tmp_path / "b.js").write_text("export const b = 2;\n")
    after = read_assets((tmp_path,))
    assert after.url("b.js") != before.url("b.js") and after.url("a.js") != before.url("a.js")


def test_assets_refuse_an_import_of_a_missing_module(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b } from "./missing.js";\n')
    with pytest.raises(ValueError, match="missing"):
        read_assets((tmp_path,))


@gen_test
async def test_head_of_a_page_has_the_headers_of_its_get(fetch: Any) -> None:
    get = await fetch("/explore", decompress_response=False)
    head = await fetch("/explore", method="HEAD", decompress_response=False)
    assert head.code == 200 and head.body == b""
    assert head.headers["Etag"] == get.headers["Etag"]
    assert head.headers["Content-Length"] == get.headers["Content-Length"]
    assert head.headers["Content-Type"] == "text/html; charset=utf-8"


@pytest.fixture(scope="module")
def sample_summary() -> Summary:
    """The sample's current summary, as a server's store holds it from the moment the snapshot
    is current; its ``indicators`` are the catalogue ``/api/v1/snapshots`` serves."""
    store = SnapshotStore(SAMPLE)
    current = store.load_current()
    summary = store.summary(current.id) if current is not None else None
    assert summary is not None
    return summary


@pytest.fixture
def catalogue(sample_store: SnapshotStore, sample_summary: Summary, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The sample's catalogue; ``sample_store`` (given its snapshot by hand, without reading
    its summary) holds the summary, as the server's store does."""
    monkeypatch.setattr(sample_store, "summary", {sample_summary.id: sample_summary}.get)
    return sample_summary.indicators


def row_texts(page: str, table_id: str) -> list[list[str]]:
    """The cells' text of each body row of the table ``table_id``, tags dropped, unescaped."""
    table = page.split(f'<table id="{table_id}"', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    cells = re.compile(r"<t[hd][^>]*>(.*?)</t[hd]>", re.S)
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in cells.findall(row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


@gen_test
async def test_method_page_lists_the_catalogue_the_api_serves_without_javascript(fetch: Any, catalogue: Any) -> None:
    response = await fetch("/method")
    assert response.code == 200 and response.headers["Content-Type"] == "text/html; charset=utf-8"
    page = text(response)
    # All of it is in the HTML (the head has the scripts' words, the footer's "Cite this" a script).
    assert "<script" not in page.split("<main")[1].split("<footer")[0]
    assert '<div class="synthetic" role="note"' in page
    main = page.split('<main id="main">', 1)[1]
    assert len(catalogue) == 23
    for entry in catalogue:
        assert f'<span class="code">{entry["code"]}</span>' in main, entry["code"]
        assert html.escape(entry["name"]) in main
        for source in entry["sources"]:
            assert html.escape(source) in main
    # The catalogue's words, not a derived stand-in: direction and transform as served.
    assert "<td>log(1 + x), then min-max scaled to 0-100</td>" in main and "<td>lower is better</td>" in main
    assert 'href="/docs"' in main and 'href="/explore"' in main


@gen_test
async def test_method_page_gives_each_dimension_and_its_indicators_weight(fetch: Any, catalogue: Any) -> None:
    page = text(await fetch("/method"))
    counts = {dimension: sum(1 for entry in catalogue if entry["dimension"] == dimension) for dimension in DIMENSIONS}
    assert counts == {"Infrastructure": 4, "Human Capital": 4, "School Access and Gender Parity": 5,
                      "Innovation": 4, "Governance": 4}
    rows = row_texts(page, "dimension-weights")
    assert [row[0] for row in rows] == list(DIMENSIONS)
    assert rows[0] == ["Infrastructure", "4", "1/4 (25%)", "1/20 (5%)", "1/5 (20%)"]
    assert rows[2] == ["School Access and Gender Parity", "5", "1/5 (20%)", "1/25 (4%)", "1/5 (20%)"]
    for dimension in DIMENSIONS:
        assert f">{html.escape(dimension)}</h3>" in page
    # Each indicator's row carries its weights in its dimension and in the composite.
    assert re.search(r"Children out of school.*?1/5 \(20%\)</td><td class=\"num\">1/25 \(4%\)", page, re.S)


@gen_test
async def test_method_page_states_the_bands_and_their_boundaries(fetch: Any) -> None:
    page = text(await fetch("/method"))
    assert row_texts(page, "band-table") == [
        ["Leading", "75 and above"], ["Strong", "60 to under 75"], ["Emerging", "40 to under 60"],
        ["Low readiness", "under 40"]]
    assert "75.00 is Leading and 74.99 Strong" in page
    for words in ("competition ranking: 1, 2, 2, 4", "fewer than 300,000 people", "at least 3 donors",
                  "Imputed: region and income median", "rounded half up"):
        assert words in page, words


def test_method_page_of_a_snapshot_without_a_catalogue_file_says_what_it_cannot_tell(
    tmp_path: Path, sample_store: SnapshotStore
) -> None:
    tiny = SnapshotStore(tiny_data(tmp_path / "data", current="2025-12")).load_current()
    assert tiny is not None
    sample_store.current = tiny  # no summary of it in sample_store: the catalogue is derived from the data
    page = Site(sample_store, site_assets()).page("method.html", ORIGIN, "en").body.decode()
    codes = {element["indicator_code"] for country in tiny.countries.values() for element in country.details}
    assert codes and all(f'<span class="code">{code}</span>' in page for code in codes)
    assert "<td>not stated</td>" in page


@gen_test
async def test_every_page_links_to_the_method_and_the_country_page_embeds_the_bands(fetch: Any) -> None:
    for path in PAGES:
        assert '<li><a href="/method">Method</a></li>' in text(await fetch(path)), path
    kenya = text(await fetch("/explore/KEN"))
    embedded = re.search(r'<script type="application/json" id="bands-data">(.*?)</script>', kenya, re.S)
    assert embedded is not None and json.loads(embedded.group(1)) == bands_document()
    assert "<th scope=\"row\">Low readiness</th><td>under 40</td>" in kenya
    assert 'href="#build-title"' in kenya and '<h2 id="build-title">How this score is built</h2>' in kenya
