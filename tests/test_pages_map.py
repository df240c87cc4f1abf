"""The map (/map and /embed/map) in a real browser: what a person sees, hovers, clicks and tabs to,
checked against what the API answers (docs/PAGES.md#the-map). Fixtures: tests/browser.py."""

from __future__ import annotations

import json
import struct
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from playwright.sync_api import Page, expect

from readiness.domain.bands import BANDS, band_of
from readiness.pages.assets import STATIC_DIR
from tests.browser import (
    SCREENSHOTS,
    OpenPage,
    PageServer,
    Watch,
    another_site,
    screenshot,
    skip_module_without_chromium,
)

skip_module_without_chromium()

GEOMETRY: dict[str, Any] = json.loads((STATIC_DIR / "world-110m.json").read_text(encoding="utf-8"))
DRAWN = {feature["code"] for feature in GEOMETRY["features"]}
COMPOSITE = "Composite Readiness Score"
BUDGET = 300_000
"""The map page's bytes over the wire, compressed, everything it loads included (issue 22)."""


def rows(server: PageServer, score: str = "score", snapshot: str = "") -> dict[str, dict[str, Any]]:
    """The API's rows of every economy for ``score``, by code: the expectations come from the API."""
    url = server.url(f"/api/v1/readiness?fields=Country%20Code,Country%20Name,{score}{snapshot}")
    with urllib.request.urlopen(url, timeout=10) as response:
        return {row["Country Code"]: row for row in json.load(response)["data"]}


def expected_classes(data: dict[str, dict[str, Any]], field: str) -> dict[str, str]:
    """The class each drawn economy must have: its band's position from the top."""
    classes = {}
    for code, row in data.items():
        if code in DRAWN:
            band = band_of(row[field])
            classes[code] = "no-data" if band is None else f"c-{BANDS.index(band)}"
    return classes


def drawn_classes(page: Page) -> dict[str, str]:
    """The class of each economy's shape on the map, by the code its link names."""
    classes: dict[str, str] = page.eval_on_selector_all(
        "#map svg a[data-code]",
        "links => Object.fromEntries(links.map((a) => "
        "[a.dataset.code, a.querySelector('path').getAttribute('class')]))",
    )
    return classes


def map_drawn(page: Page, label: str = "Composite score") -> None:
    expect(page.locator("#status")).to_contain_text(f"{label} of 217 economies")


def serious_violations(page: Page) -> list[str]:
    """axe-core's serious and critical findings on the page, as tests/test_pages_browser.py reads them."""
    violations = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in violations if v["impact"] in ("serious", "critical")]


def headers(server: PageServer, path: str, **sent: str) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(server.url(path), headers=sent)
    with urllib.request.urlopen(request, timeout=10) as response:
        return dict(response.headers), response.read()


def story_framing(url: str) -> str:
    """A page of another site that frames ``url``."""
    return (f'<!DOCTYPE html><html lang="en"><title>A story</title><iframe src="{url}" '
            'title="Map" width="900" height="760"></iframe></html>')


def test_map_draws_every_shape_coloured_by_the_apis_scores(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map"))
    map_drawn(page)
    data = rows(page_server)
    expect(page.locator("#map svg path[data-code]")).to_have_count(len(GEOMETRY["features"]))
    assert drawn_classes(page) == expected_classes(data, COMPOSITE)  # every economy with a shape, its band
    assert set(drawn_classes(page)) == DRAWN & set(data)
    # Shapes with no economy in the data (Western Sahara, Taiwan, ...) are drawn hatched, not linked.
    unlinked = page.eval_on_selector_all("#map svg .countries > path", "paths => paths.map((p) => p.dataset.code)")
    assert set(unlinked) == DRAWN - set(data) and unlinked
    assert page.eval_on_selector("#map svg .countries > path", "p => getComputedStyle(p).fill") == 'url("#map-no-data")'
    # One colour per class, the legend's swatch colour, different for each.
    fills = {}
    for index, band in enumerate(BANDS):
        code = next(code for code, name in expected_classes(data, COMPOSITE).items() if name == f"c-{index}")
        fill = page.eval_on_selector(f"#map a[data-code={code}] path", "p => getComputedStyle(p).fill")
        swatch = page.eval_on_selector(f"#map-legend .swatch.c-{index}", "s => getComputedStyle(s).backgroundColor")
        assert fill == swatch, band.name
        fills[band.name] = fill
    assert len(set(fills.values())) == len(BANDS)
    legend = page.locator("#map-legend li")
    expect(legend).to_have_count(len(BANDS) + 1)
    for index, band in enumerate(BANDS):
        expect(legend.nth(index)).to_contain_text(f"{band.name} ({band.range})")
    expect(legend.last).to_contain_text("No data")
    caption = "Composite score, snapshot 2026-11 (current, published 2026-11-05)"
    expect(page.locator("#map-caption")).to_have_text(caption)
    expect(page.locator("footer [data-snapshot]")).to_have_text("2026-11")
    attribution = page.locator("#map-after")
    for words in ("Natural Earth", "public domain", "world-atlas 2.0.2", "ISC"):
        expect(attribution).to_contain_text(words)
    screenshot(page, "map")


def test_hovering_a_shape_says_its_score_and_clicking_opens_its_page(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map"))
    map_drawn(page)
    kenya = rows(page_server)["KEN"]
    band = band_of(kenya[COMPOSITE])
    assert band is not None
    shape = page.locator("#map a[data-code=KEN]")
    ranked = [row for row in rows(page_server, "score,Global%20Rank").values() if row["Global Rank"] is not None]
    rank = rows(page_server, "score,Global%20Rank")["KEN"]["Global Rank"]
    expect(shape).to_have_attribute("aria-label", f"Kenya, Composite score: {kenya[COMPOSITE]:.2f}, "
                                                  f"Rank {rank} of {len(ranked)}, Band: {band.name}")
    expect(shape.locator("title")).to_contain_text("Kenya")
    shape.hover()
    tooltip = page.locator("#map-tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("Kenya")
    expect(tooltip).to_contain_text(f"{kenya[COMPOSITE]:.2f}")
    expect(tooltip).to_contain_text(f"Band: {band.name}")
    screenshot(page, "map-tooltip", full_page=False)
    shape.click()
    page.wait_for_url(page_server.url("/explore/KEN"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Kenya")


def test_tab_reaches_the_map_links_with_a_visible_focus_mark(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map"))
    map_drawn(page)
    page.locator("#map-snapshot select").focus()
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_accessible_name("Zoom in")  # out and whole map: disabled, not yet zoomed
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip the map's links"
    page.keyboard.press("Tab")
    focused = page.evaluate("[document.activeElement.namespaceURI, document.activeElement.dataset.code]")
    assert focused == ["http://www.w3.org/2000/svg", "AFG"]  # the links go by name: Afghanistan first
    expect(page.locator("#map .map-highlight path")).to_have_count(2)  # the focus mark: halo and line
    expect(page.locator("#map-tooltip")).to_contain_text("Afghanistan")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.code") == "ALB"
    screenshot(page, "map-focus", full_page=False)
    page.keyboard.press("Enter")
    page.wait_for_url(page_server.url("/explore/ALB"))


def test_economies_too_small_to_draw_are_listed_with_their_scores(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map"))
    map_drawn(page)
    data = rows(page_server)
    small = sorted((row for code, row in data.items() if code not in DRAWN), key=lambda row: row["Country Name"])
    assert small, "the sample has microstates with no shape at 1:110m"
    items = page.locator("#map-small li")
    expect(items).to_have_count(len(small))
    expect(page.locator("#small-title")).to_have_text(f"Too small to draw ({len(small)})")
    for index, row in enumerate(small):
        item = items.nth(index)
        band = band_of(row[COMPOSITE])
        assert band is not None
        expect(item.get_by_role("link")).to_have_text(row["Country Name"])
        expect(item.get_by_role("link")).to_have_attribute("href", f"/explore/{row['Country Code']}")
        expect(item).to_contain_text(f"{row[COMPOSITE]:.2f} · {band.name}")
    expect(page.locator("#status")).to_contain_text(f"{len(data) - len(small)} on the map, {len(small)} too small")


def test_snapshot_selector_changes_the_colours_and_the_url(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map"))
    map_drawn(page)
    now = drawn_classes(page)
    page.locator("#map-snapshot select").select_option("2023-12")
    expect(page).to_have_url(page_server.url("/map?year=2023"))
    expect(page.locator("#map-caption")).to_contain_text("snapshot 2023-12")
    then = expected_classes(rows(page_server, snapshot="&year=2023"), COMPOSITE)
    assert then != now  # the test would pass without a redraw otherwise
    assert drawn_classes(page) == then
    expect(page.locator("footer [data-snapshot]")).to_have_text("2023-12")
    page.go_back()  # a new history entry: Back returns to the current snapshot
    expect(page.locator("#map-caption")).to_contain_text("snapshot 2026-11")
    expect(page.locator("#map-snapshot select")).to_have_value("2026-11")
    assert drawn_classes(page) == now


def test_year_beside_snapshot_chooses_as_the_api_does(page: Page, page_server: PageServer) -> None:
    """Given together, ``year`` chooses the snapshot (docs/API.md#parameters): the page draws,
    names and links the one the API answers from."""
    page.goto(page_server.url("/map?year=2024&snapshot=2024-06"))
    map_drawn(page)
    expect(page).to_have_url(page_server.url("/map?year=2024"))
    expect(page.locator("footer [data-snapshot]")).to_have_text("2024-12")
    expect(page.locator("#map-snapshot select")).to_have_value("2024-12")
    assert drawn_classes(page) == expected_classes(rows(page_server, snapshot="&year=2024"), COMPOSITE)


def test_score_select_changes_the_fill_legend_and_url(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map"))
    map_drawn(page)
    page.get_by_label("Score", exact=True).select_option(label="Infrastructure score")
    map_drawn(page, "Infrastructure score")
    expect(page).to_have_url(page_server.url("/map?score=infra"))
    assert drawn_classes(page) == expected_classes(rows(page_server, "infra"), "Infrastructure Score")
    # A dimension is cut at the bands' bounds; the band names are the composite's, so not said.
    expect(page.locator("#map-legend li").first).to_contain_text(BANDS[0].range)
    expect(page.locator("#map-legend")).not_to_contain_text(BANDS[0].name)
    page.go_back()
    map_drawn(page)
    expect(page.get_by_label("Score", exact=True)).to_have_value(COMPOSITE)


def test_map_reads_its_url_with_the_apis_names_and_says_what_it_cannot_show(
    page: Page, page_server: PageServer, watch: Watch
) -> None:
    page.goto(page_server.url("/map?score=GOVERNANCE&snapshot=2024-12"))
    map_drawn(page, "Governance score")
    expect(page).to_have_url(page_server.url("/map?score=governance&year=2024"))  # the canonical words
    expect(page.get_by_label("Score", exact=True)).to_have_value("Governance Score")
    expect(page.locator("#map-snapshot select")).to_have_value("2024-12")
    assert drawn_classes(page) == expected_classes(rows(page_server, "governance", "&year=2024"), "Governance Score")
    page.goto(page_server.url("/map?score=Region"))
    map_drawn(page)
    expect(page.locator("#problem")).to_be_visible()
    expect(page.locator("#problem")).to_contain_text("score=Region is not a score")
    expect(page.locator("#problem")).to_contain_text("The map shows the composite score")
    page.goto(page_server.url("/map?score=bogus"))
    map_drawn(page)
    expect(page.locator("#problem")).to_contain_text("score=bogus is not a score: use one of score, access")
    assert "score=bogus" in page.url  # kept, so a reload says it again
    page.goto(page_server.url("/map?year=1999"))
    expect(page.locator("#status")).to_contain_text("The map could not be drawn")
    expect(page.locator("#status")).to_contain_text("year=")
    expect(page.locator("#map svg")).to_have_count(0)
    watch.errors.clear()  # Chromium logs the API's 404 as a console error


@pytest.mark.parametrize("path", ["/map", "/embed/map?score=infra", "/map?region=ssa"])
def test_map_pages_have_no_serious_accessibility_violation(page: Page, page_server: PageServer, path: str) -> None:
    page.goto(page_server.url(path))
    expect(page.locator("#status")).to_contain_text(
        "Infrastructure score of" if "infra" in path else "Composite score of")
    if "region" in path:
        page.get_by_text("All economies in a table").click()  # the table too
    assert serious_violations(page) == []


def test_embed_map_can_be_framed_by_any_site_and_the_map_page_by_none(
    page: Page, page_server: PageServer, watch: Watch
) -> None:
    embed, _ = headers(page_server, "/embed/map")
    own, _ = headers(page_server, "/map")
    assert "frame-ancestors *" in embed["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in own["Content-Security-Policy"]
    frames = {"/embed": story_framing(page_server.url("/embed/map?score=infra&year=2024")),
              "/page": story_framing(page_server.url("/map"))}
    with another_site(frames) as site:
        page.goto(f"{site}/embed")
        frame = page.frame_locator("iframe")
        expect(frame.locator("#status")).to_contain_text("Infrastructure score of 217 economies")
        expect(frame.locator("#map svg a[data-code=KEN]")).to_have_attribute("target", "_blank")  # not in the frame
        expect(frame.locator("#map-caption")).to_contain_text("snapshot 2024-12")
        expect(frame.get_by_role("link", name="Open on the Readiness Index site")).to_have_attribute(
            "href", "/map?score=infra&year=2024")
        expect(frame.locator(".chart-tools")).to_have_count(0)
        expect(frame.get_by_role("note", name="Synthetic data")).to_be_visible()
        screenshot(page, "map-embed-framed")
        assert watch.errors == []
        page.goto(f"{site}/page")
        page.wait_for_timeout(1000)
        expect(page.frame_locator("iframe").locator("#map-view")).to_have_count(0)  # refused: nothing shows
    assert watch.errors and all("frame-ancestors 'none'" in error for error in watch.errors), watch.errors
    watch.errors.clear()


def test_map_page_weighs_under_the_budget_compressed(page: Page, page_server: PageServer) -> None:
    loaded: list[str] = []
    page.on("response", lambda response: loaded.append(response.url))
    page.goto(page_server.url("/map"))
    map_drawn(page)
    sizes = {}
    for url in dict.fromkeys(loaded):
        path = url.removeprefix(page_server.url(""))
        head, body = headers(page_server, path, **{"Accept-Encoding": "gzip"})
        sizes[path] = len(body)
        if path.endswith(".json") and path.startswith("/static/"):
            assert head.get("Content-Encoding") == "gzip"  # the geometry travels compressed
    assert any(path.startswith("/static/world-110m.") for path in sizes)
    total = sum(sizes.values())
    print(f"map page, compressed: {total} bytes in {len(sizes)} responses: {sizes}")
    assert total <= BUDGET, sizes


def downloaded_svg(page: Page, folder: Path, filename: str) -> ElementTree.ElementTree[ElementTree.Element]:
    """The map's SVG download, named ``filename``, saved in ``folder`` and parsed."""
    with page.expect_download() as download:
        page.get_by_role("button", name="Download SVG").click()
    assert download.value.suggested_filename == filename
    saved = folder / filename
    download.value.save_as(saved)
    return ElementTree.parse(saved)


def test_map_downloads_are_the_map_with_its_legend(page: Page, page_server: PageServer, tmp_path: Path) -> None:
    page.goto(page_server.url("/map?score=human"))
    map_drawn(page, "Human capital score")
    tree = downloaded_svg(page, tmp_path, "map-human-2026-11.svg")
    texts = [node.text for node in tree.iter("{http://www.w3.org/2000/svg}text")]
    assert "Human capital score, snapshot 2026-11" in texts
    assert "No data" in texts and BANDS[0].range in texts
    codes = {node.get("data-code") for node in tree.iter("{http://www.w3.org/2000/svg}path")}
    assert "KEN" in codes
    expect(page.locator("#map .map-export")).to_have_count(0)  # gone from the page once the file is made
    expect(page.locator("#map svg")).to_have_attribute("viewBox", GEOMETRY["viewBox"])
    csv = page.get_by_role("link", name="Data (CSV)")
    expect(csv).to_have_attribute("href", "/api/v1/readiness?format=csv&fields=Country%20Code%2CCountry%20Name%2C"
                                  "Human%20Capital%20Score")


def test_map_fits_a_phone(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=390)
    page.goto(page_server.url("/map"))
    map_drawn(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways swipe
    box = page.locator("#map svg").bounding_box()
    assert box is not None and box["width"] <= 390 and box["width"] > 300
    expect(page.locator("#map-small")).to_be_visible()
    legend_size = page.eval_on_selector("#map-legend li", "li => parseFloat(getComputedStyle(li).fontSize)")
    assert legend_size >= 11
    screenshot(page, "map-phone")


# A region (docs/PAGES.md#the-map, "Zoom to a region"): the map zooms to it, fades the rest, and the
# legend, the list and the table under the map count its economies only.

WORLD = [float(number) for number in GEOMETRY["viewBox"].split()]


def region_rows(server: PageServer, region: str, score: str = "score") -> dict[str, dict[str, Any]]:
    """The API's rows of ``region``'s economies (the API's own filter), by code."""
    url = server.url(f"/api/v1/readiness?region={region}&fields=Country%20Code,Country%20Name,Region,{score}")
    with urllib.request.urlopen(url, timeout=10) as response:
        return {row["Country Code"]: row for row in json.load(response)["data"]}


def region_drawn(page: Page, count: int, region: str, label: str = "Composite score") -> None:
    expect(page.locator("#status")).to_contain_text(f"{label} of {count} economies in {region}")


def view_box(page: Page) -> list[float]:
    box: list[float] = page.eval_on_selector("#map svg", "s => s.getAttribute('viewBox').split(' ').map(Number)")
    return box


def shape_box(page: Page, code: str) -> list[float]:
    box: list[float] = page.eval_on_selector(
        f"#map path[data-code={code}]", "p => { const b = p.getBBox(); return [b.x, b.y, b.width, b.height]; }")
    return box


def contains(outer: list[float], inner: list[float]) -> bool:
    return (outer[0] <= inner[0] and outer[1] <= inner[1] and inner[0] + inner[2] <= outer[0] + outer[2]
            and inner[1] + inner[3] <= outer[1] + outer[3])


def table_rows(page: Page) -> list[tuple[str, str, str, str]]:
    """The table under the map as a reader sees it: code (from the link), name, score, band."""
    found: list[tuple[str, str, str, str]] = page.eval_on_selector_all(
        "#map-table tbody tr",
        "rows => rows.map((r) => [r.querySelector('a').getAttribute('href').split('/').pop(), "
        "r.querySelector('a').textContent, r.cells[1].textContent, r.cells[2].textContent])")
    return [tuple(row) for row in found]  # type: ignore[misc]


def test_a_region_zooms_the_map_and_narrows_legend_list_and_table(page: Page, page_server: PageServer) -> None:
    data = region_rows(page_server, "SSA")
    assert "KEN" in data and "USA" not in data
    page.goto(page_server.url("/map?region=ssa"))
    region_drawn(page, len(data), "Sub-Saharan Africa")
    expect(page).to_have_url(page_server.url("/map?region=SSA"))  # the API's short code
    expect(page.get_by_label("Region", exact=True)).to_have_value("SSA")
    expect(page.locator("#map-caption")).to_contain_text("Composite score, Sub-Saharan Africa, snapshot 2026-11")
    # Zoomed: narrower than the world, Kenya inside, the United States outside, the world's proportions.
    box = view_box(page)
    assert box[2] < WORLD[2] * 0.7 and box[3] < WORLD[3] * 0.7, box  # Africa is tall: its height sets the zoom
    assert 1.25 - 0.01 <= box[2] / box[3] <= WORLD[2] / WORLD[3] + 0.01  # between a tall frame and the world's
    size = page.eval_on_selector("#map svg", "s => [s.getBoundingClientRect().width, s.getBoundingClientRect().height]")
    assert abs(size[0] / size[1] - box[2] / box[3]) < 0.02  # drawn with the box's proportions: not stretched
    assert contains(box, shape_box(page, "KEN")) and not contains(box, shape_box(page, "USA"))
    # Every economy with a shape is still a link; those outside the region are faded.
    expect(page.locator("#map a[data-code=USA]")).to_have_attribute("href", "/explore/USA")
    expect(page.locator("#map a[data-code=USA]")).to_have_class("outside")
    assert page.eval_on_selector("#map a[data-code=KEN]", "a => getComputedStyle(a).opacity") == "1"
    assert float(page.eval_on_selector("#map a[data-code=USA]", "a => getComputedStyle(a).opacity")) < 0.5
    assert drawn_classes(page) == expected_classes(rows(page_server), COMPOSITE)  # the colours are unchanged
    # The legend counts the region's drawn economies per band, as the API answers.
    counts = [0] * len(BANDS)
    for code, row in data.items():
        if code in DRAWN:
            band = band_of(row[COMPOSITE])
            assert band is not None
            counts[BANDS.index(band)] += 1
    legend = page.locator("#map-legend li .count")
    for index, count in enumerate(counts):
        expect(legend.nth(index)).to_have_text(f" · {count}")
    expect(legend.last).to_have_text(" · 0")
    # The economies too small to draw: the region's only.
    small = sorted(row["Country Name"] for code, row in data.items() if code not in DRAWN)
    assert small, "the sample's Sub-Saharan Africa has islands with no shape (Cabo Verde, Comoros, ...)"
    expect(page.locator("#map-small li a")).to_have_text(small)
    # The table: closed at first, then exactly the region's economies, best first, the API's scores.
    table = page.locator("#map-table")
    expect(table).to_be_hidden()
    page.get_by_text("All economies in a table").click()
    expect(table).to_be_visible()
    expect(page.locator("#map-table-count")).to_have_text(f"({len(data)})")
    best_first = sorted(data.values(), key=lambda row: (-row[COMPOSITE], row["Country Name"]))
    expected = []
    for row in best_first:
        band = band_of(row[COMPOSITE])
        assert band is not None
        expected.append((row["Country Code"], row["Country Name"], f"{row[COMPOSITE]:.2f}", band.name))
    assert table_rows(page) == expected
    screenshot(page, "map-region")


def test_the_table_under_the_world_map_lists_every_economy(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map?score=infra"))
    map_drawn(page, "Infrastructure score")
    page.get_by_text("All economies in a table").click()
    data = rows(page_server, "infra")
    found = table_rows(page)
    assert {code for code, *_ in found} == set(data)
    values = [float(value) for _, _, value, _ in found]
    assert values == sorted(values, reverse=True)
    for code, _, value, kind in found:
        assert value == f"{data[code]['Infrastructure Score']:.2f}"
        band = band_of(data[code]["Infrastructure Score"])
        assert band is not None and kind == band.range  # a dimension's class, not the composite's band name
    expect(page.locator("#map-table thead")).to_contain_text("Class")


def test_choosing_a_region_is_a_history_entry(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map?year=2024"))
    map_drawn(page)
    assert view_box(page) == WORLD
    page.get_by_label("Region", exact=True).select_option(label="South Asia")
    region_drawn(page, len(region_rows(page_server, "SAS")), "South Asia")
    expect(page).to_have_url(page_server.url("/map?region=SAS&year=2024"))
    box = view_box(page)
    assert box[2] < WORLD[2] / 4 and contains(box, shape_box(page, "IND")) and not contains(box, shape_box(page, "KEN"))
    page.go_back()
    map_drawn(page)
    expect(page).to_have_url(page_server.url("/map?year=2024"))
    expect(page.get_by_label("Region", exact=True)).to_have_value("")
    assert view_box(page) == WORLD
    expect(page.locator("#map a.outside")).to_have_count(0)
    page.go_forward()
    region_drawn(page, len(region_rows(page_server, "SAS")), "South Asia")
    expect(page.get_by_label("Region", exact=True)).to_have_value("SAS")


def test_a_region_across_the_antimeridian_is_not_the_world(page: Page, page_server: PageServer) -> None:
    """Fiji's shape is cut at 180°: East Asia & Pacific is zoomed to where its economies lie, not
    stretched over the whole map by Fiji's sliver on the far left."""
    page.goto(page_server.url("/embed/map?region=East%20Asia%20%26%20Pacific"))  # the embed reads it too
    data = region_rows(page_server, "EAP")
    region_drawn(page, len(data), "East Asia & Pacific")
    box = view_box(page)
    assert box[0] > WORLD[2] * 0.4 and box[2] < WORLD[2] * 0.55, box  # Fiji's sliver at x=4 would make it 0
    for code in ("CHN", "AUS", "JPN", "IDN", "NZL"):
        assert contains(box, shape_box(page, code)), code
    expect(page.get_by_role("link", name="Open on the Readiness Index site")).to_have_attribute(
        "href", "/map?region=EAP")


def test_an_unknown_region_says_the_apis_message(page: Page, page_server: PageServer, watch: Watch) -> None:
    try:
        urllib.request.urlopen(page_server.url("/api/v1/readiness?region=Atlantis"), timeout=10)
        raise AssertionError("the API accepted region=Atlantis")
    except urllib.error.HTTPError as error:
        message = json.load(error)["error"]
    assert "region='Atlantis'" in message
    page.goto(page_server.url("/map?region=Atlantis"))
    map_drawn(page)
    expect(page.locator("#problem")).to_be_visible()
    expect(page.locator("#problem")).to_contain_text(message)
    expect(page.locator("#problem")).to_contain_text("The map shows the whole world")
    assert "region=Atlantis" in page.url  # kept, so a reload says it again
    assert view_box(page) == WORLD
    watch.errors.clear()  # Chromium logs the API's 400 as a console error


def test_a_zoomed_map_downloads_as_shown_at_the_worlds_size(
    page: Page, page_server: PageServer, tmp_path: Path
) -> None:
    data = region_rows(page_server, "SSA")
    page.goto(page_server.url("/map?region=SSA"))
    region_drawn(page, len(data), "Sub-Saharan Africa")
    shown = view_box(page)
    tree = downloaded_svg(page, tmp_path, "map-score-ssa-2026-11.svg")
    root = tree.getroot()
    factor = WORLD[2] / shown[2]
    assert root.get("viewBox") == f"0 -30 {WORLD[2]:g} {round(shown[3] * factor, 1) + 52:g}"  # the world's width
    texts = [node.text for node in tree.iter("{http://www.w3.org/2000/svg}text")]
    assert "Composite score, Sub-Saharan Africa, snapshot 2026-11" in texts
    groups = [node for node in tree.iter("{http://www.w3.org/2000/svg}g") if node.get("clip-path")]
    assert len(groups) == 1  # the shapes, scaled to the region's box and clipped to it
    transform = groups[0].get("transform", "")
    assert transform.endswith(f" translate({-shown[0]:g} {-shown[1]:g})"), transform
    assert float(transform.removeprefix("scale(").split(")")[0]) == pytest.approx(factor)
    clip = next(tree.iter("{http://www.w3.org/2000/svg}clipPath")).find("{http://www.w3.org/2000/svg}rect")
    assert clip is not None and [float(clip.get(name, "nan")) for name in ("x", "y", "width", "height")] == shown
    expect(page.locator("#map svg")).to_have_attribute("viewBox", " ".join(f"{value:g}" for value in shown))
    expect(page.locator("#map clipPath")).to_have_count(0)  # gone from the page once the file is made
    with page.expect_download() as download:
        page.get_by_role("button", name="Download PNG").click()
    png = SCREENSHOTS / "map-region-download.png"  # looked at: the zoomed view, its title, legend and credit
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    download.value.save_as(png)
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (WORLD[2] * 2, round((round(shown[3] * factor, 1) + 52) * 2))
    csv = page.get_by_role("link", name="Data (CSV)")
    expect(csv).to_have_attribute("href", "/api/v1/readiness?format=csv&region=SSA&fields=Country%20Code%2C"
                                  "Country%20Name%2CComposite%20Readiness%20Score")


def test_a_region_on_a_phone(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=390)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_server.url("/map?region=ssa"))
    region_drawn(page, len(region_rows(page_server, "SSA")), "Sub-Saharan Africa")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_text("All economies in a table").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the table too
    page.locator("#map-caption").scroll_into_view_if_needed()
    screenshot(page, "map-region-phone", full_page=False)
    screenshot(page, "map-region-phone-full")



# Rank in the tooltip, the tooltip cleared on zoom, a map a phone can zoom (issue 33).

def hover_tooltip(page: Page, code: str) -> str:
    page.locator(f"#map a[data-code={code}]").hover()
    tooltip = page.locator("#map-tooltip")
    expect(tooltip).to_be_visible()
    text: str = tooltip.inner_text()
    return text


def test_the_tooltip_says_the_rank_and_goes_when_the_map_zooms(page: Page, page_server: PageServer) -> None:
    everyone = rows(page_server, "score,Global%20Rank,Regional%20Rank,Microstate,Region")
    ranked = [row for row in everyone.values() if row["Global Rank"] is not None]
    kenya = everyone["KEN"]
    page.goto(page_server.url("/map"))
    map_drawn(page)
    assert f"Rank {kenya['Global Rank']} of {len(ranked)}" in hover_tooltip(page, "KEN")
    # A region chosen: the map zooms, and no tooltip is left over a shape that has moved.
    page.get_by_label("Region", exact=True).select_option("SSA")
    region_drawn(page, len(region_rows(page_server, "SSA")), "Sub-Saharan Africa")
    expect(page.locator("#map-tooltip")).to_be_hidden()
    in_region = [row for row in ranked if row["Region"] == "Sub-Saharan Africa"]
    assert (f"Rank {kenya['Global Rank']} of {len(ranked)} ({kenya['Regional Rank']} of {len(in_region)} in the region)"
            in hover_tooltip(page, "KEN"))
    screenshot(page, "map-tooltip-rank", full_page=False)
    page.get_by_role("button", name="Zoom in").click()
    expect(page.locator("#map-tooltip")).to_be_hidden()
    # A dimension's rank is counted as the method ranks: one more than the ranked economies above.
    infra = "Infrastructure Score"
    scored = rows(page_server, "infra,Microstate")
    ranked_infra = [row for row in scored.values() if not row["Microstate"] and row[infra] is not None]
    higher = sum(1 for row in ranked_infra if row[infra] > scored["KEN"][infra])
    page.goto(page_server.url("/map?score=infra"))
    map_drawn(page, "Infrastructure score")
    assert f"Rank {higher + 1} of {len(ranked_infra)}" in hover_tooltip(page, "KEN")


def test_a_phone_zooms_and_drags_the_map(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=390, has_touch=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_server.url("/map"))
    map_drawn(page)
    start = page.url
    belgium = page.locator("#map path[data-code=BEL]")
    before = belgium.bounding_box()
    assert before is not None and before["width"] < 6  # Europe at a phone's width: too small to read
    zoom_in = page.get_by_role("button", name="Zoom in")
    expect(page.get_by_role("button", name="Whole map")).to_be_disabled()
    zoom_in.click()
    zoom_in.click()
    zoom_in.click()
    assert view_box(page)[2] == pytest.approx(WORLD[2] / 8, abs=0.2)
    # Drag Europe into view: the map follows the pointer, and letting go opens no page.
    page.locator("#map svg").scroll_into_view_if_needed()
    svg_box = page.locator("#map svg").bounding_box()
    assert svg_box is not None
    target = belgium.bounding_box()
    assert target is not None
    centre = (svg_box["x"] + svg_box["width"] / 2, svg_box["y"] + svg_box["height"] / 2)
    here = (target["x"] + target["width"] / 2, target["y"] + target["height"] / 2)
    page.mouse.move(*centre)
    page.mouse.down()
    page.mouse.move(centre[0] + centre[0] - here[0], centre[1] + centre[1] - here[1], steps=6)
    page.mouse.up()
    assert page.url == start  # a drag is not a click
    after = belgium.bounding_box()
    assert after is not None and after["width"] > 6 * before["width"], (before, after)
    assert after["x"] >= svg_box["x"] and after["x"] + after["width"] <= svg_box["x"] + svg_box["width"]
    expect(page.locator("#map-tooltip")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "map-zoom-phone", full_page=False)
    page.get_by_role("button", name="Whole map").click()
    assert view_box(page) == WORLD
    expect(page.get_by_role("button", name="Zoom out")).to_be_disabled()
