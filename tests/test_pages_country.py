"""The country page as a profile (docs/PAGES.md#the-country-page) and its embed, in Chromium
through Playwright: every number the page shows is recomputed here from the API's own answers
(the table of one snapshot, the record, the history), by the rules of
docs/METHOD.md#the-country-profile. Fixtures: tests/browser.py."""

from __future__ import annotations

import json
import math
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from playwright.sync_api import Page, expect

from readiness.domain.bands import BANDS, band_of
from tests.browser import (
    OpenPage,
    PageServer,
    Watch,
    another_site,
    fit_script,
    screenshot,
    skip_module_without_chromium,
)

skip_module_without_chromium()

COMPOSITE = "Composite Readiness Score"
LABELS = {  # the page's names of the scores (readiness/pages/static/api.js)
    COMPOSITE: "Composite",
    "Infrastructure Score": "Infrastructure",
    "Human Capital Score": "Human capital",
    "School Access and Gender Parity Score": "School access & gender parity",
    "Innovation Score": "Innovation",
    "Governance Score": "Governance",
}
DIMENSION_FIELDS = list(LABELS)[1:]
TABLE_FIELDS = ["Country Code", "Country Name", "Region", "Microstate", "Global Rank", *LABELS]
NEAR = 2.5


def api(server: PageServer, path: str) -> Any:
    """What the API answers to ``path``, parsed: the expectations come from the API itself."""
    with urllib.request.urlopen(server.url(path), timeout=30) as response:
        return json.load(response)


def table(server: PageServer, query: str = "") -> list[dict[str, Any]]:
    """Every economy's scores in one snapshot (``query``: "&year=2024"), as the page asks for them."""
    rows: list[dict[str, Any]] = api(server, f"/api/v1/readiness?fields={quote(','.join(TABLE_FIELDS))}{query}")["data"]
    return rows


def hundredths(value: float) -> int:
    """JavaScript's Math.round(value * 100), which the page uses (half up, not half even)."""
    return math.floor(value * 100 + 0.5)


def world_mean(rows: list[dict[str, Any]], field: str) -> float:
    values: list[float] = [row[field] for row in rows if isinstance(row[field], (int, float))]
    return sum(values) / len(values)  # in the table's order, as the page sums


def against(value: float, mean: float) -> str:
    difference = (hundredths(value) - hundredths(mean)) / 100
    return "near" if abs(difference) <= NEAR else "above" if difference > 0 else "below"


def percentile(value: float, rows: list[dict[str, Any]], field: str) -> int:
    """The method's percentile rule (step 10) among ranked economies: at or below, half up, at least 1."""
    values = [row[field] for row in rows if row["Global Rank"] is not None and row[field] is not None]
    at_or_below = sum(1 for other in values if other <= value)
    return max(1, (200 * at_or_below + len(values)) // (2 * len(values)))


def ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def loaded(page: Page) -> None:
    """Wait until the page has drawn its snapshot's sections and its history."""
    expect(page.locator("#scores tbody tr")).to_have_count(6)
    expect(page.locator("#history svg")).to_be_visible()


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("code", ["KEN", "TUV"])  # a ranked economy and a microstate
def test_each_score_is_labelled_against_the_world_with_its_percentile(
    page: Page, page_server: PageServer, code: str
) -> None:
    rows = table(page_server)
    record = api(page_server, f"/api/v1/readiness?code={code}")["data"]
    world = {row["measure"]: row for row in api(page_server, "/api/v1/aggregates")["data"] if row["group"] == "World"}
    page.goto(page_server.url(f"/explore/{code}"))
    loaded(page)
    for field, label in LABELS.items():
        row = page.locator(f'#scores tbody tr[data-field="{field}"]')
        expect(row.locator("th")).to_have_text(label)
        mean = world_mean(rows, field)
        assert f"{mean:.2f}" == f"{world[field]['mean']:.2f}"  # the world mean is /api/v1/aggregates' World mean
        expect(row.locator("td").nth(2)).to_contain_text(f"{mean:.2f}")
        word = against(record[field], mean)
        expect(row.locator("td[data-against]")).to_have_attribute("data-against", word)
        difference = (hundredths(record[field]) - hundredths(mean)) / 100
        expect(row.locator("td[data-against]")).to_contain_text(f"{abs(difference):.2f}")
        shown = row.locator("td[data-percentile]")
        if record["Microstate"]:
            expect(shown).to_have_text("—")  # the method gives microstates no percentile
        else:
            expect(shown).to_have_text(ordinal(percentile(record[field], rows, field)))


@pytest.mark.parametrize("code", ["KEN", "AGO", "TUV"])
def test_strengths_and_gaps_name_the_right_dimensions(page: Page, page_server: PageServer, code: str) -> None:
    rows = table(page_server)
    record = api(page_server, f"/api/v1/readiness?code={code}")["data"]
    name = record["Country Name"]

    def standing(field: str) -> tuple[float, float]:
        difference = (hundredths(record[field]) - hundredths(world_mean(rows, field))) / 100
        rank = 0 if record["Microstate"] else percentile(record[field], rows, field)
        return rank, difference

    order = sorted(DIMENSION_FIELDS, key=standing, reverse=True)  # stable: ties keep the table's order

    def words(field: str) -> str:
        rank, difference = standing(field)
        where = (f"{ordinal(int(rank))} percentile" if not record["Microstate"]
                 else f"{abs(difference):.2f} points {'below' if difference < 0 else 'above'} the world average")
        return f"{LABELS[field]} ({record[field]:.2f}, {where})"

    page.goto(page_server.url(f"/explore/{code}"))
    loaded(page)
    expect(page.locator("#words p").first).to_have_text(
        f"{name}'s strongest dimension is {words(order[0])}; its largest gap is {words(order[-1])}.")
    below = [LABELS[f] for f in DIMENSION_FIELDS if against(record[f], world_mean(rows, f)) == "below"]
    if below:
        expect(page.locator("#words p").nth(1)).to_contain_text("below it in ")
        for label in below:
            expect(page.locator("#words p").nth(1)).to_contain_text(label)


def test_peer_table_lists_the_region_with_microstates_unranked(page: Page, page_server: PageServer) -> None:
    rows = table(page_server)
    region = [row for row in rows if row["Region"] == "Sub-Saharan Africa"]
    microstates = {row["Country Code"] for row in region if row["Microstate"]}
    assert microstates  # the sample has some (Seychelles, Sao Tome and Principe)
    page.goto(page_server.url("/explore/KEN"))
    loaded(page)
    peers = page.locator("#peers tbody tr")
    expect(peers).to_have_count(len(region))
    codes = [str(peers.nth(i).get_attribute("data-code")) for i in range(len(region))]
    assert sorted(codes) == sorted(row["Country Code"] for row in region)  # exactly the region
    by_code = {row["Country Code"]: row for row in region}
    composites = [by_code[c][COMPOSITE] for c in codes]
    assert composites == sorted(composites, reverse=True)  # best first
    for index, code in enumerate(codes):
        rank = peers.nth(index).locator("td[data-rank]")
        expected = "—" if code in microstates else str(by_code[code]["Global Rank"])
        expect(rank).to_have_text(expected)
        if code in microstates:
            expect(peers.nth(index).locator(".micro-mark")).to_have_text("microstate")
    own = page.locator("#peers tbody tr.self")
    expect(own).to_have_count(1)
    expect(own).to_have_attribute("data-code", "KEN")
    expect(own).to_have_attribute("aria-current", "true")
    expect(page.locator("#peers-note")).to_contain_text("never ranked")
    page.locator('#peers tbody tr[data-code="BWA"] a').click()
    expect(page).to_have_url(page_server.url("/explore/BWA"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Botswana")


def test_band_counts_are_the_apis_table_counted(page: Page, page_server: PageServer) -> None:
    rows = table(page_server)
    counts = Counter(band.name for row in rows if (band := band_of(row[COMPOSITE])) is not None)
    page.goto(page_server.url("/explore/KEN"))
    loaded(page)
    for band in BANDS:
        shown = page.locator(f'#distribution tr[data-band="{band.name}"] [data-count]')
        expect(shown).to_have_text(str(counts[band.name]))
    kenya = band_of(api(page_server, "/api/v1/readiness?code=KEN")["data"][COMPOSITE])
    assert kenya is not None
    expect(page.locator("#distribution tr.self")).to_have_attribute("data-band", kenya.name)
    expect(page.locator("#distribution-words")).to_contain_text(
        f"in the {kenya.name} band, with {counts[kenya.name]} of the {sum(counts.values())} economies")
    histogram = page.get_by_role("img", name="Histogram of the composites")
    expect(histogram).to_be_visible()
    expect(histogram.locator(".column")).to_have_count(20)
    expect(histogram.locator(".column.own")).to_have_count(1)
    expect(page.locator("#headline [data-band]")).to_have_text(kenya.name)


@pytest.mark.parametrize("code", ["KEN", "AGO", "TUV"])
def test_data_quality_lists_exactly_the_imputed_indicators(page: Page, page_server: PageServer, code: str) -> None:
    details = api(page_server, f"/api/v1/readiness?code={code}")["data"]["indicator_details"]
    scored = [item for item in details if item["component"]]
    imputed = [item["indicator_code"] for item in scored if item["data_source"].startswith("Imputed")]
    missing = [item for item in scored if item["normalized_value"] is None]
    page.goto(page_server.url(f"/explore/{code}"))
    loaded(page)
    words = page.locator("#quality-words")
    expect(words).to_contain_text(f"{len(scored)} scored indicators, {len(scored) - len(imputed) - len(missing)} are "
                                  f"reported values, {len(imputed)} {'was' if len(imputed) == 1 else 'were'} imputed")
    items = page.locator("#imputed-list li")
    expect(items).to_have_count(len(imputed))
    assert [items.nth(i).get_attribute("data-code") for i in range(len(imputed))] == imputed


def test_year_shows_that_december_and_the_history_stays_whole(page: Page, page_server: PageServer) -> None:
    archived = api(page_server, "/api/v1/readiness?code=KEN&year=2024")
    assert archived["snapshot"] == "2024-12"
    history = api(page_server, "/api/v1/history?code=KEN")["data"]
    rows = table(page_server, "&year=2024")
    page.goto(page_server.url("/explore/KEN?year=2024"))
    loaded(page)
    expect(page.locator("#headline [data-composite]")).to_have_text(f"{archived['data'][COMPOSITE]:.2f}")
    expect(page.locator("#showing")).to_contain_text("Showing snapshot 2024-12")
    expect(page.locator("footer [data-snapshot]")).to_have_text("2024-12")
    expect(page.get_by_label("Snapshot", exact=True)).to_have_value("2024-12")
    mean = world_mean(rows, COMPOSITE)  # the world of 2024-12, not of today
    expect(page.locator(f'#scores tr[data-field="{COMPOSITE}"] td').nth(2)).to_contain_text(f"{mean:.2f}")
    expect(page.locator("#history g.series").first.locator("circle")).to_have_count(len(history))
    expect(page.locator('#peers tbody tr[data-code="BWA"] a')).to_have_attribute("href", "/explore/BWA?year=2024")


def test_choosing_a_snapshot_pushes_history_and_back_restores_it(page: Page, page_server: PageServer) -> None:
    current = api(page_server, "/api/v1/readiness?code=KEN")["data"][COMPOSITE]
    december = api(page_server, "/api/v1/readiness?code=KEN&year=2024")["data"][COMPOSITE]
    june = api(page_server, "/api/v1/readiness?code=KEN&snapshot=2024-06")["data"][COMPOSITE]
    composite = page.locator("#headline [data-composite]")
    page.goto(page_server.url("/explore/KEN"))
    loaded(page)
    expect(composite).to_have_text(f"{current:.2f}")
    page.get_by_label("Snapshot", exact=True).select_option("2024-12")
    expect(page).to_have_url(page_server.url("/explore/KEN?year=2024"))
    expect(composite).to_have_text(f"{december:.2f}")
    page.get_by_label("Snapshot", exact=True).select_option("2024-06")
    expect(page).to_have_url(page_server.url("/explore/KEN?snapshot=2024-06"))
    expect(composite).to_have_text(f"{june:.2f}")
    expect(page.locator("#showing")).to_contain_text("2024-06")
    page.go_back()
    expect(page).to_have_url(page_server.url("/explore/KEN?year=2024"))
    expect(page.get_by_label("Snapshot", exact=True)).to_have_value("2024-12")
    expect(composite).to_have_text(f"{december:.2f}")
    expect(page.locator("#showing")).to_contain_text("2024-12")
    page.go_back()
    expect(page).to_have_url(page_server.url("/explore/KEN"))
    expect(composite).to_have_text(f"{current:.2f}")


def test_an_economy_absent_from_the_snapshot_says_so(page: Page, page_server: PageServer) -> None:
    # Every economy of the sample is in every snapshot: the archive's answer for this one is
    # replaced by what the API answers for a code a snapshot lacks (no row, the code unmatched).
    absent = api(page_server, "/api/v1/readiness?code=ZZZ&year=2024")
    assert absent["count"] == 0 and absent["unmatched"] == {"codes": ["ZZZ"]}
    absent["unmatched"] = {"codes": ["KEN"]}
    page.route(lambda url: url.endswith("/api/v1/readiness?code=KEN&year=2024"),
               lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(absent)))
    page.goto(page_server.url("/explore/KEN?year=2024"))
    expect(page.locator("#status")).to_have_text(
        "Kenya is not in snapshot 2024-12: that snapshot has no record of it. "
        "Choose another snapshot; its history below lists the snapshots that have it.")
    expect(page.locator("#status")).to_have_class("error")
    expect(page.locator("#headline")).to_be_hidden()
    expect(page.locator("#history svg")).to_be_visible()


def test_a_year_without_a_december_shows_the_apis_message(page: Page, page_server: PageServer, watch: Watch) -> None:
    page.goto(page_server.url("/explore/KEN?year=2022"))
    expect(page.locator("#status")).to_contain_text("year=2022")
    expect(page.locator("#scores")).to_be_hidden()
    page.wait_for_load_state("networkidle")  # the other refused requests logged too, not after the filter
    watch.errors[:] = [e for e in watch.errors if "404" not in e and "400" not in e]  # the API's refusal


def test_history_chart_has_its_tools_and_the_embed_snippet(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore/KEN?year=2024"))
    loaded(page)
    tools = page.get_by_role("group", name="Take this chart away")
    for name in ("Download PNG", "Download SVG", "Share", "Embed"):
        expect(tools.get_by_role("button", name=name)).to_be_visible()
    csv_link = tools.get_by_role("link", name="Data (CSV)")
    expect(csv_link).to_have_attribute("href", "/api/v1/history?code=KEN&format=csv")
    with urllib.request.urlopen(page_server.url("/api/v1/history?code=KEN&format=csv"), timeout=30) as response:
        lines = response.read().decode("utf-8-sig").strip().splitlines()
    assert len(lines) == 1 + len(api(page_server, "/api/v1/history?code=KEN")["data"])
    tools.get_by_role("button", name="Embed").click()
    snippet = tools.get_by_label("Link or snippet to copy")
    expect(snippet).to_have_value(f'<iframe src="{page_server.url("/embed/explore/KEN?year=2024")}" '
                                  'title="Kenya: readiness scores across snapshots" width="100%" height="760" '
                                  'style="border:0" loading="lazy"></iframe>' + fit_script(page_server.url("")))
    with page.expect_download() as download:
        tools.get_by_role("button", name="Download PNG").click()
    assert download.value.suggested_filename == "ken-history.png"
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def other_origin(page_server: PageServer) -> Iterator[str]:
    """A second web server on another port (another origin) whose page frames the embed and,
    to show the difference, the country page."""
    host = ("<!DOCTYPE html><title>A newsroom</title><h1>Our story</h1>"
            f'<iframe id="embed" title="Kenya, embedded" src="{page_server.url("/embed/explore/KEN?year=2024")}" '
            'width="800" height="900"></iframe>'
            f'<iframe id="page" title="Kenya, the page" src="{page_server.url("/explore/KEN")}" '
            'width="400" height="300"></iframe>')
    with another_site({"/host.html": host}) as site:
        yield f"{site}/host.html"


def test_the_embed_is_framed_by_another_origin_and_the_page_is_not(
    page: Page, page_server: PageServer, other_origin: str, watch: Watch
) -> None:
    with urllib.request.urlopen(page_server.url("/embed/explore/KEN"), timeout=30) as response:
        assert "frame-ancestors *" in response.headers["Content-Security-Policy"]
    with urllib.request.urlopen(page_server.url("/explore/KEN"), timeout=30) as response:
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    december = api(page_server, "/api/v1/readiness?code=KEN&year=2024")["data"][COMPOSITE]
    page.goto(other_origin)
    embed = page.frame_locator("#embed")
    expect(embed.get_by_role("heading", level=1)).to_have_text("Kenya")
    expect(embed.locator("#headline [data-composite]")).to_have_text(f"{december:.2f}")
    expect(embed.locator("footer [data-snapshot]")).to_have_text("2024-12")
    expect(embed.get_by_role("link", name="Open on the Readiness Index site")).to_have_attribute(
        "href", "/explore/KEN?year=2024")
    expect(page.frame_locator("#page").locator("#country")).to_have_count(0)  # refused: frame-ancestors 'none'
    watch.errors[:] = [e for e in watch.errors if "frame-ancestors" not in e]


def test_embed_shows_name_band_bars_against_the_world_and_history(pages: OpenPage, page_server: PageServer) -> None:
    kenya = api(page_server, "/api/v1/readiness?code=KEN")["data"]
    band = band_of(kenya[COMPOSITE])
    assert band is not None
    page = pages(width=640)
    page.goto(page_server.url("/embed/explore/KEN"))
    loaded(page)
    expect(page.get_by_role("heading", level=1)).to_have_text("Kenya")
    expect(page.locator("#headline [data-band]")).to_have_text(band.name)
    expect(page.locator("#scores tbody tr td[data-against]")).to_have_count(6)
    expect(page.get_by_role("note", name="Synthetic data")).to_be_visible()
    expect(page.locator("header.site")).to_have_count(0)  # minimal chrome
    expect(page.get_by_role("button", name="Embed")).to_have_count(0)
    expect(page.locator("#history")).not_to_contain_text("null")
    screenshot(page, "country-embed")
    assert serious_violations(page) == []


def test_unknown_code_embed_is_the_404_page(page: Page, page_server: PageServer, watch: Watch) -> None:
    response = page.goto(page_server.url("/embed/explore/XXX"))
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    watch.errors[:] = [e for e in watch.errors if "404" not in e]


def test_country_page_passes_axe_and_reads_at_desktop_and_phone_sizes(pages: OpenPage, page_server: PageServer) -> None:
    page = pages()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(page_server.url("/explore/KEN"))
    loaded(page)
    screenshot(page, "country-profile-1280", full_page=False)
    screenshot(page, "country-profile")
    assert serious_violations(page) == []
    phone = pages(width=390)
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(page_server.url("/explore/KEN"))
    loaded(phone)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways swipe for the page
    screenshot(phone, "country-profile-390", full_page=False)
    phone.locator("#distribution-title").scroll_into_view_if_needed()
    screenshot(phone, "country-profile-390-distribution", full_page=False)
    assert serious_violations(phone) == []


@pytest.mark.parametrize(("code", "query", "expected"), [("KEN", "", " million "), ("IND", "", " billion "),
                                                           ("ABW", "?year=2024", "Population 107,400 ")])
def test_profile_header_says_population_and_publication_date(
    page: Page, page_server: PageServer, code: str, query: str, expected: str | None
) -> None:
    # The header's second line, from the record the page asked for: its population in words and
    # its publication date (Last Updated), for the snapshot shown.
    record = api(page_server, f"/api/v1/readiness?code={code}{'&' + query[1:] if query else ''}")["data"]
    population, published = record["Population, total"], record["Last Updated"]
    page.goto(page_server.url(f"/explore/{code}{query}"))
    loaded(page)
    about = page.locator("#summary .about")
    if population >= 1e9:
        words = f"{population / 1e9:.2f}".rstrip("0").rstrip(".") + " billion"
    elif population >= 1e6:
        words = f"{population / 1e6:.1f} million"
    else:
        words = f"{population:,}"
    expect(about).to_have_text(f"Population {words} · data published {published}")
    expect(about.locator("time")).to_have_attribute("datetime", published)
    expect(about).to_contain_text(expected)  # the words for its size (the sample's 2024 Aruba: 107,400)
    if code == "KEN":
        screenshot(page, "country-header", full_page=False)


def test_the_indicator_table_scrolls_in_its_box_with_names_and_heads_held_on_a_phone(
    pages: OpenPage, page_server: PageServer
) -> None:
    page = pages(width=390)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_server.url("/explore/KEN"))
    table = page.locator("#indicators")
    expect(table.locator("tbody tr").first).to_be_visible()
    table.scroll_into_view_if_needed()
    held = table.evaluate("""(table) => {
      const wrap = table.closest('.table-wrap');
      wrap.scrollLeft = wrap.scrollWidth;
      wrap.scrollTop = wrap.scrollHeight;
      const box = wrap.getBoundingClientRect();
      const heads = [...table.tHead.rows[0].cells].map((cell) => cell.getBoundingClientRect());
      const last = table.tBodies[0].rows[table.tBodies[0].rows.length - 1].cells[0].getBoundingClientRect();
      return { scrolled: [wrap.scrollLeft, wrap.scrollTop], box: [box.left, box.top, box.right, box.bottom],
               lastHead: [heads.at(-1).left, heads.at(-1).right], headTop: heads[0].top,
               name: [last.left, last.bottom] };
    }""")
    left, top, right, bottom = held["box"]
    assert held["scrolled"][0] > 0 and held["scrolled"][1] > 0, held  # it scrolls both ways in its box
    assert bottom - top <= 844 * 0.8, held  # the box is shorter than the screen
    assert abs(held["headTop"] - top) <= 2, held  # the column heads held at its top
    assert abs(held["name"][0] - left) <= 2 and held["name"][1] <= bottom + 1, held  # the last row's name held
    assert left <= held["lastHead"][0] and held["lastHead"][1] <= right + 1, held  # the last column wholly in view
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "country-indicators-390-scrolled", full_page=False)
