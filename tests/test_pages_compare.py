"""/compare and /embed/compare in a real browser (Chromium through Playwright), as a person uses
them: the lines and the table of the API's history, adding an economy by typing its name,
removing one, Back, the ninth refused, an unknown code said, the means, another score, other
years, the embed's frame policy, axe and a phone (docs/PAGES.md#compare). Fixtures:
tests/browser.py; screenshots go to test-output/screenshots/."""

from __future__ import annotations

import csv
import io
import json
import re
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlsplit

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.browser import OpenPage, PageServer, Watch, fit_script, screenshot, skip_module_without_chromium

skip_module_without_chromium()

SERIOUS = ("serious", "critical")
COMPOSITE = "Composite Readiness Score"
HISTORY_SNAPSHOTS = ["2023-12", "2024-12", "2025-12", "2026-11"]
"""What history shows of the bundled sample: its December archives and the current snapshot."""


def api(server: PageServer, path: str) -> Any:
    """What the API answers to ``path``, parsed: the expectations come from the API itself."""
    with urllib.request.urlopen(server.url(path), timeout=10) as response:
        return json.load(response)


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results.response["violations"] if v["impact"] in SERIOUS]


def query(page: Page) -> dict[str, list[str]]:
    """The page URL's query, parsed."""
    return parse_qs(urlsplit(page.url).query)


def drawn(page: Page, economies: int, means: int = 0) -> None:
    """Wait until the page says it draws ``economies`` economies (and ``means`` means)."""
    words = f"{economies} econom{'y' if economies == 1 else 'ies'}"
    if means:
        words += f" and {means} mean{'s' if means > 1 else ''}"
    expect(page.locator("#status")).to_have_text(f"{words} over 4 snapshots.")


def lines(page: Page) -> int:
    """How many lines the chart draws."""
    return page.locator("#compare-chart svg.chart g.series").count()


def table(page: Page) -> dict[str, list[str]]:
    """The table under the chart: row name -> its cells' text, and "" -> the column headers."""
    head = page.locator("#compare-table thead th").all_inner_texts()
    rows = {"": head[1:]}
    for row in page.locator("#compare-table tbody tr").all():
        rows[row.locator("th").inner_text().strip()] = row.locator("td").all_inner_texts()
    return rows


def history_table(server: PageServer, codes: str, field: str) -> dict[str, list[str]]:
    """What the table must say: the API's history of ``codes`` for ``field``, two decimals."""
    rows: dict[str, list[str]] = {"": HISTORY_SNAPSHOTS}
    for row in api(server, f"/api/v1/history?codes={codes}")["data"]:
        cells = rows.setdefault(row["Country Name"], ["–"] * len(HISTORY_SNAPSHOTS))
        cells[HISTORY_SNAPSHOTS.index(row["snapshot"])] = f"{row[field]:.2f}"
    return rows


def test_compare_draws_a_line_per_economy_and_a_table_equal_to_the_history(
    page: Page, page_server: PageServer
) -> None:
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND"))
    drawn(page, 3)
    assert lines(page) == 3
    chart = page.get_by_role("img", name="Composite readiness score, 2023-12 to 2026-11", exact=False)
    expect(chart).to_be_visible()
    for series in chart.locator("g.series").all():  # a marker per snapshot, not only colour
        expect(series.locator("path.marker")).to_have_count(4)
    outlines = [chart.locator("g.series").nth(i).locator("path.marker").first.get_attribute("d") for i in range(3)]
    shapes = {re.sub(r"[^A-Za-z]", "", outline or "") for outline in outlines}  # the path's commands: its shape
    assert shapes == {"MaaZ", "MLLLZ", "MLLZ"}  # a circle, a square, a triangle
    expected = history_table(page_server, "KEN,BRA,IND", COMPOSITE)
    assert table(page) == {"": expected[""], "Kenya": expected["Kenya"], "Brazil": expected["Brazil"],
                           "India": expected["India"]}
    expect(page.locator("#shown")).to_contain_text(
        "Snapshots shown: 2023-12, 2024-12, 2025-12 and 2026-11 (current): every December archive and the current")
    expect(page.locator("footer [data-snapshot]")).to_have_text("2026-11")
    for economy in ("Kenya", "Brazil", "India"):
        expect(page.get_by_role("button", name=f"Remove {economy}")).to_be_visible()

    # The chart's CSV is the history request behind it.
    page.get_by_role("link", name="Data (CSV)").hover()  # as a person reaches for it
    link = page.get_by_role("link", name="Data (CSV)").get_attribute("href")
    assert link is not None and link.startswith("/api/v1/history?") and "format=csv" in link
    response = page.request.get(page_server.url(link))
    assert response.ok
    rows = list(csv.DictReader(io.StringIO(response.body().decode("utf-8-sig"))))
    assert {(row["Country Name"], row["snapshot"]): f"{float(row[COMPOSITE]):.2f}" for row in rows} == {
        (name, snapshot): value for name, values in expected.items() if name
        for snapshot, value in zip(HISTORY_SNAPSHOTS, values, strict=True)}
    page.get_by_role("button", name="Embed").click()
    expect(page.get_by_label("Link or snippet to copy")).to_have_value(
        f'<iframe src="{page_server.url("/embed/compare?codes=KEN,BRA,IND")}" title="Composite readiness score, '
        '2023-12 to 2026-11: Kenya, Brazil and India" width="100%" height="680" style="border:0" loading="lazy">'
        "</iframe>" + fit_script(page_server.url("")))
    screenshot(page, "compare")
    screenshot(page, "compare-1280", full_page=False)


def test_compare_adds_an_economy_typed_by_name_and_back_removes_it(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND"))
    drawn(page, 3)
    box = page.get_by_role("combobox", name="Add an economy")
    box.fill("germ")
    option = page.get_by_role("option", name="Germany (DEU)")
    expect(option).to_be_visible()
    screenshot(page, "compare-picker", full_page=False)
    option.click()
    drawn(page, 4)
    assert query(page)["codes"] == ["KEN,BRA,IND,DEU"]
    assert lines(page) == 4
    assert table(page)["Germany"] == history_table(page_server, "DEU", COMPOSITE)["Germany"]
    expect(box).to_have_value("")

    # The keyboard alone: a code, the arrow, Enter.
    box.fill("fr")
    box.press("ArrowDown")
    expect(page.get_by_role("option", name="France (FRA)")).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", "add-option-0")
    box.press("Enter")
    drawn(page, 5)
    assert query(page)["codes"] == ["KEN,BRA,IND,DEU,FRA"]

    page.go_back()  # each addition was a history entry of its own
    drawn(page, 4)
    assert query(page)["codes"] == ["KEN,BRA,IND,DEU"]
    page.go_back()
    drawn(page, 3)
    assert query(page)["codes"] == ["KEN,BRA,IND"]
    expect(page.get_by_role("button", name="Remove Germany")).to_have_count(0)
    assert lines(page) == 3


def test_compare_removes_an_economy_with_its_button(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND"))
    drawn(page, 3)
    page.get_by_role("button", name="Remove Brazil").click()
    drawn(page, 2)
    assert query(page)["codes"] == ["KEN,IND"]
    assert "Brazil" not in table(page)
    expect(page.locator(":focus")).to_have_accessible_name("Remove India")  # the next one, not <body>
    page.go_back()
    drawn(page, 3)
    assert query(page)["codes"] == ["KEN,BRA,IND"]


def test_compare_refuses_a_ninth_economy_visibly(page: Page, page_server: PageServer) -> None:
    eight = "KEN,BRA,IND,DEU,USA,CHN,JPN,NGA"
    page.goto(page_server.url(f"/compare?codes={eight}"))
    drawn(page, 8)
    page.get_by_role("combobox", name="Add an economy").fill("France")
    page.get_by_role("option", name="France (FRA)").click()
    expect(page.get_by_role("alert")).to_contain_text("at most eight economies: remove one before adding France")
    assert query(page)["codes"] == [eight]
    assert lines(page) == 8
    screenshot(page, "compare-eight", full_page=False)

    # Nine in a link: the ninth is named, not dropped silently.
    page.goto(page_server.url(f"/compare?codes={eight},FRA"))
    drawn(page, 8)
    expect(page.get_by_role("alert")).to_contain_text("at most eight economies: FRA left out")


def test_compare_says_which_codes_the_api_does_not_know(page: Page, page_server: PageServer, watch: Watch) -> None:
    assert api(page_server, "/api/v1/history?codes=KEN,XXX")["unmatched"] == {"codes": ["XXX"]}
    page.goto(page_server.url("/compare?codes=KEN,XXX"))
    drawn(page, 1)
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("No economy has the code XXX")
    expect(alert).to_contain_text('"unmatched"')
    expect(page.locator("#legend")).to_contain_text("XXX (no such economy)")
    assert lines(page) == 1
    page.get_by_role("button", name="Remove XXX").click()
    drawn(page, 1)
    expect(alert).to_be_empty()
    assert query(page)["codes"] == ["KEN"]

    # A code the API refuses outright: its own message, on the page.
    page.goto(page_server.url("/compare?codes=KEN,KEN1"))
    expect(page.get_by_role("alert")).to_contain_text("codes='KEN1' is not valid")
    expect(page.get_by_role("button", name="Remove KEN1")).to_be_visible()
    watch.errors.clear()  # Chromium logs the 400 as a console error


def test_compare_means_are_the_aggregates(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND"))
    drawn(page, 3)
    page.get_by_role("checkbox", name="Region means").check()
    drawn(page, 3, 3)
    page.get_by_role("checkbox", name="World mean").check()
    drawn(page, 3, 4)
    assert query(page)["means"] == ["region,world"]
    assert lines(page) == 7
    shown = table(page)
    regions = api(page_server, "/api/v1/aggregates?by=region&years=2023:2026")["data"]
    world = api(page_server, "/api/v1/aggregates?by=world&years=2023:2026")["data"]
    for group in ("Sub-Saharan Africa", "Latin America & Caribbean", "South Asia", "World"):
        means = {row["snapshot"]: f"{row['mean']:.2f}" for row in regions + world
                 if row["group"] == group and row["measure"] == COMPOSITE}
        assert shown[f"{group} mean"] == [means[snapshot] for snapshot in HISTORY_SNAPSHOTS], group
    hollow = page.locator("#compare-chart g.series.mean path.marker.hollow")
    assert hollow.count() == 4 * 4  # the means' markers are hollow, their lines dashed
    page.go_back()
    drawn(page, 3, 3)
    expect(page.get_by_role("checkbox", name="World mean")).not_to_be_checked()
    screenshot(page, "compare-means")


def test_compare_switches_to_a_dimension_and_to_other_years(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND"))
    drawn(page, 3)
    page.get_by_label("Score", exact=True).select_option(label="Governance score")
    expect(page.get_by_role("heading", level=2, name="Governance score, 2023-12 to 2026-11")).to_be_visible()
    drawn(page, 3)
    assert query(page)["score"] == ["governance"]
    expected = history_table(page_server, "KEN,BRA,IND", "Governance Score")
    assert table(page)["Kenya"] == expected["Kenya"] and table(page)["India"] == expected["India"]

    page.get_by_label("To (last snapshot shown)").select_option("2025")
    expect(page.locator("#shown")).to_contain_text(
        "Snapshots shown: 2023-12, 2024-12 and 2025-12, of the ones history has: the December archives and the current"
        " snapshot, 2023-12 to 2026-11.")
    assert query(page)["years"] == ["2023:2025"]
    expect(page.locator("#compare-table thead th")).to_have_count(4)
    expect(page.locator("footer [data-snapshot]")).to_have_text("2025-12")

    # The other pages' year= pins the last snapshot shown; the URL says it as years.
    page.goto(page_server.url("/compare?codes=KEN&score=INFRA&year=2024"))
    expect(page.locator("#shown")).to_contain_text("Snapshots shown: 2023-12 and 2024-12,")
    assert query(page) == {"codes": ["KEN"], "score": ["infra"], "years": ["2023:2024"]}
    expect(page.get_by_label("Score", exact=True)).to_have_value("infra")


def test_compare_passes_axe(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND&means=region,world"))
    drawn(page, 3, 4)
    page.get_by_role("combobox", name="Add an economy").fill("ar")  # the list open too
    expect(page.get_by_role("listbox")).to_be_visible()
    assert serious_violations(page) == []


def test_embed_compare_is_framable_read_only_and_passes_axe(page: Page, page_server: PageServer) -> None:
    response = page.goto(page_server.url("/embed/compare?codes=KEN,BRA&means=world"))
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors *" in policy and "frame-ancestors 'none'" not in policy
    drawn(page, 2, 1)
    assert lines(page) == 3
    expect(page.get_by_role("combobox")).to_have_count(0)
    expect(page.get_by_role("button", name="Remove Kenya")).to_have_count(0)
    expect(page.get_by_role("checkbox")).to_have_count(0)
    expect(page.get_by_role("navigation")).to_have_count(0)
    expect(page.get_by_role("note", name="Synthetic data")).to_be_visible()
    back = page.get_by_role("link", name="Open on the Readiness Index site")
    expect(back).to_have_attribute("href", "/compare?codes=KEN,BRA&means=world")
    world = {row["snapshot"]: f"{row['mean']:.2f}"
             for row in api(page_server, "/api/v1/aggregates?years=2023:2026")["data"] if row["measure"] == COMPOSITE}
    page.get_by_text("The numbers").click()  # folded in a frame, a click away
    assert table(page)["World mean"] == [world[snapshot] for snapshot in HISTORY_SNAPSHOTS]
    screenshot(page, "embed-compare")
    assert serious_violations(page) == []

    site = page.request.get(page_server.url("/compare"))
    assert "frame-ancestors 'none'" in site.headers["content-security-policy"]


def test_compare_fits_a_phone(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=390)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND&means=region,world"))
    drawn(page, 3, 4)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll of the page
    chart = page.locator("#compare-chart svg.chart").bounding_box()
    assert chart is not None and chart["x"] >= 0 and chart["x"] + chart["width"] <= 390
    page.get_by_role("combobox", name="Add an economy").fill("ke")
    listbox = page.get_by_role("listbox").bounding_box()
    assert listbox is not None and listbox["x"] + listbox["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "compare-390-picker", full_page=False)
    page.get_by_role("combobox", name="Add an economy").fill("")
    screenshot(page, "compare-390")


def test_compare_finds_the_names_people_type(page: Page, page_server: PageServer) -> None:
    # The picker uses the landing page's matcher (search.js) over the same table of other names.
    page.goto(page_server.url("/compare?codes=KEN"))
    drawn(page, 1)
    box = page.get_by_role("combobox", name="Add an economy")
    for typed, first in (("drc", "Congo, Dem. Rep. (COD)"), ("turkey", "Turkiye (TUR)"),
                         ("south korea", "Korea, Rep. (KOR)")):
        box.fill(typed)
        expect(page.get_by_role("option").first).to_have_text(first)
    box.press("ArrowDown")
    box.press("Enter")
    drawn(page, 2)
    assert query(page)["codes"] == ["KEN,KOR"]


HELD = """(table) => {
  const wrap = table.closest('.table-wrap');
  wrap.scrollLeft = wrap.scrollWidth;
  const box = wrap.getBoundingClientRect();
  const heads = [...table.tHead.rows[0].cells].map((cell) => cell.getBoundingClientRect());
  const names = [...table.tBodies[0].rows].map((row) => row.cells[0].getBoundingClientRect());
  return { scrolled: wrap.scrollLeft, box: [box.left, box.right], last: [heads.at(-1).left, heads.at(-1).right],
           firstHead: heads[0].left, names: names.map((name) => name.left) };
}"""


def test_compare_table_scrolls_in_its_box_with_the_names_held_on_a_phone(
    pages: OpenPage, page_server: PageServer
) -> None:
    # At 390 px the table of three economies and four means is wider than the screen: it scrolls
    # inside its box, the last snapshot's column comes wholly into view, the names stay at the left.
    page = pages(width=390)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_server.url("/compare?codes=KEN,BRA,IND&means=region,world"))
    table = page.locator("#compare-table")
    expect(table.locator("tbody tr")).to_have_count(7)
    table.scroll_into_view_if_needed()
    held = table.evaluate(HELD)
    assert held["scrolled"] > 0, held  # wider than its box: it scrolls
    left, right = held["box"]
    assert left <= held["last"][0] and held["last"][1] <= right + 1, held  # the last column whole, not cut
    assert abs(held["firstHead"] - left) <= 2 and all(abs(name - left) <= 2 for name in held["names"]), held
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "compare-390-table-scrolled", full_page=False)
