"""The landing page as a visitor uses it (readiness/pages/static/landing.js, search.js), in
Chromium: find an economy by what people type, the map, both ends of the ranking and this
release's largest moves, each checked against the API's own answers (docs/PAGES.md#the-landing-page).
Fixtures: tests/browser.py."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import OpenPage, PageServer, screenshot, skip_module_without_chromium
from tests.site_pages import page_at, wait_until_ready
from tests.test_pages_browser import serious_violations

skip_module_without_chromium()

LANDING = page_at("/")


def api(server: PageServer, path: str) -> Any:
    with urllib.request.urlopen(server.url(path), timeout=30) as response:
        return json.load(response)


def two_decimals(value: float) -> str:
    return f"{value:,.2f}"


def open_landing(page: Page, server: PageServer) -> None:
    page.goto(server.url("/"))
    wait_until_ready(page, LANDING)


@pytest.mark.parametrize(("typed", "first", "code"), [
    ("DRC", "Congo, Dem. Rep.", "COD"), ("turkey", "Turkiye", "TUR"), ("Ivory Coast", "Cote d'Ivoire", "CIV"),
    ("south korea", "Korea, Rep.", "KOR"), ("ken", "Kenya", "KEN"), ("usa", "United States", "USA"),
    ("côte", "Cote d'Ivoire", "CIV"),
])
def test_search_finds_what_people_type_and_enter_opens_the_profile(
    page: Page, page_server: PageServer, typed: str, first: str, code: str
) -> None:
    open_landing(page, page_server)
    search = page.get_by_role("searchbox", name="Find an economy")
    search.fill(typed)
    results = page.locator("#find-results a")
    expect(results.first).to_have_text(first)
    expect(results.first).to_have_attribute("href", f"/explore/{code}")
    expect(page.locator("#find-status")).to_contain_text("match")
    if code == "COD":
        screenshot(page, "landing-search", full_page=False)
    search.press("Enter")
    expect(page).to_have_url(page_server.url(f"/explore/{code}"))
    expect(page.get_by_role("heading", level=1)).to_have_text(first)


def test_search_lists_every_match_the_closest_first_and_says_when_none(page: Page, page_server: PageServer) -> None:
    open_landing(page, page_server)
    search = page.get_by_role("searchbox", name="Find an economy")
    search.fill("korea")
    expect(page.locator("#find-results a")).to_have_text(["Korea, Dem. People's Rep.", "Korea, Rep."])
    expect(page.locator("#find-status")).to_have_text("2 economies match.")
    search.fill("zzz")
    expect(page.locator("#find-status")).to_have_text("No economy matches “zzz”.")
    expect(page.locator("#find-results")).to_be_hidden()
    search.press("Enter")  # no match: the explorer's name search, as the form says without the script
    expect(page).to_have_url(page_server.url("/explore?q=zzz"))


def test_without_javascript_the_search_is_the_explorers(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(java_script_enabled=False)
    page.goto(page_server.url("/"))
    page.get_by_role("searchbox", name="Find an economy").fill("kenya")
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(page_server.url("/explore?q=kenya"))


def test_both_ends_of_the_ranking_are_the_apis(page: Page, page_server: PageServer) -> None:
    fields = "Country%20Code,Country%20Name,score,Global%20Rank"
    top = api(page_server, f"/api/v1/readiness?sort=Global%20Rank&order=asc&limit=10&fields={fields}")["data"]
    bottom = api(page_server, f"/api/v1/readiness?sort=Global%20Rank&order=desc&limit=10&fields={fields}")["data"]
    open_landing(page, page_server)
    for target, rows in (("#top", top), ("#bottom", bottom)):
        shown = page.locator(f"{target} tbody tr")
        expect(shown).to_have_count(10)
        for index, row in enumerate(rows):
            expect(shown.nth(index)).to_have_text(
                f"{row['Global Rank']}{row['Country Name']}{two_decimals(row['Composite Readiness Score'])}")
        expect(shown.nth(0).get_by_role("link")).to_have_attribute("href", f"/explore/{rows[0]['Country Code']}")
    expect(page.locator("#top tbody tr").first).to_contain_text("1United States")
    expect(page.locator("#bottom caption")).to_have_text("The 10 lowest ranks")


def test_the_largest_moves_are_the_change_reports(page: Page, page_server: PageServer) -> None:
    movers = api(page_server, "/api/v1/rankings/changes?limit=8")["data"]
    open_landing(page, page_server)
    rows = page.locator("#movers tbody tr")
    expect(rows).to_have_count(len(movers))
    expect(page.locator("#movers caption")).to_have_text(
        f"Composite score, {movers[0]['from']} to {movers[0]['to']}: the largest changes")
    for index, mover in enumerate(movers):
        change = mover["score_change"]
        sign = "+" if change > 0 else "−" if change < 0 else "±"
        expect(rows.nth(index).locator("th")).to_have_text(mover["Country Name"])
        expect(rows.nth(index).locator("td").first).to_have_text(
            f"{sign}{two_decimals(abs(change))} to {two_decimals(mover['score_to'])}")
        if mover["rank_change"]:
            expect(rows.nth(index).locator("td").nth(1)).to_contain_text(
                f"rank {mover['rank_from']} → {mover['rank_to']}")
    expect(page.get_by_role("link", name="/api/v1/rankings/changes?limit=8")).to_be_visible()


def test_the_map_is_the_current_composite_and_links_to_profiles(page: Page, page_server: PageServer) -> None:
    open_landing(page, page_server)
    expect(page.locator("#map-caption")).to_contain_text("Composite score, snapshot 2026-11")
    expect(page.locator("#map-score")).to_have_count(0)  # no controls here: /map has them
    expect(page.locator("#map-tools")).to_be_hidden()
    expect(page.locator("#status")).to_contain_text("too small to draw (in the table under the map)")
    expect(page.locator(".map-small")).to_be_hidden()
    kenya = page.locator('#map a[data-code="KEN"]')
    expect(kenya).to_have_attribute("href", "/explore/KEN")
    expect(page.get_by_role("link", name="open the map")).to_have_attribute("href", "/map")
    assert page.url == page_server.url("/")  # the map left the address alone
    screenshot(page, "landing-1280")


def test_landing_on_a_phone_starts_with_the_search(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=390)
    open_landing(page, page_server)
    box = page.get_by_role("searchbox", name="Find an economy").bounding_box()
    assert box is not None and box["y"] + box["height"] < 844 and box["width"] > 200  # in the first screen
    page.get_by_role("searchbox", name="Find an economy").fill("drc")
    expect(page.locator("#find-results a").first).to_have_text("Congo, Dem. Rep.")
    screenshot(page, "landing-390", full_page=False)
    assert serious_violations(page) == []
