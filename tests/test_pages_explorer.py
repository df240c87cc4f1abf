"""The explorer in a real browser (Chromium through Playwright), as a person uses it: links in the
API's own language (aliases, any case, 1/0) and the canonical URL they become, the API's message
for a value it does not know, the snapshot selector, your own weights, and a phone's width
(docs/PAGES.md#the-explorer). Every expectation comes from the API itself. Fixtures:
tests/browser.py; screenshots under test-output/screenshots/."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, Route, expect

from tests.browser import OpenPage, PageServer, Watch, screenshot, skip_module_without_chromium

skip_module_without_chromium()

CURRENT = "2026-11"
"""The bundled sample's current snapshot."""

MEANING = "/api/v1/query/readiness"
"""The service's parser, which the explorer asks what its URL and its sliders mean."""

SLIDERS = ("Infrastructure", "Human capital", "School access & gender parity", "Innovation", "Governance")
"""The weight sliders' labels, in the API's dimension order."""


def api(server: PageServer, path: str) -> Any:
    """What the API answers to ``path``, parsed: the expectations come from the API itself."""
    with urllib.request.urlopen(server.url(path), timeout=10) as response:
        return json.load(response)


def api_error(server: PageServer, path: str) -> str:
    """The message of the API's 400 for ``path``."""
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(server.url(path), timeout=10)
    assert refused.value.code == 400
    message: str = json.load(refused.value)["error"]
    return message


def names(server: PageServer, query: str) -> list[str]:
    """The economies' names the API lists for ``query``, in its order."""
    return [row["Country Name"] for row in api(server, f"/api/v1/readiness?{query}")["data"]]


def canonical(server: PageServer, query: str) -> str:
    """The canonical query string the service's parser makes of ``query``."""
    meaning: str = api(server, f"/api/v1/query/readiness?{query}")["query"]
    return meaning


def column(page: Page, label: str) -> list[str]:
    """The text of the explorer's column headed ``label``, top to bottom."""
    headers = page.locator("#ranking thead th").all_inner_texts()
    index = [header.replace("▲", "").replace("▼", "").strip() for header in headers].index(label) + 1
    return [text.strip() for text in page.locator(f"#ranking tbody tr > :nth-child({index})").all_inner_texts()]


PAGE_ROWS = 50
"""explore.js: the table's rows at a time; "Show all" draws the rest."""


def shown(page: Page, count: int, of: int | None = None) -> None:
    """Wait until the explorer shows ``count`` rows of ``of`` (all of them by default): the table's
    first PAGE_ROWS, then, for a longer view, every row after "Show all"."""
    expect(page.locator("#status")).to_contain_text(f"Showing {count} of {count if of is None else of} economies")
    rows = page.locator("#ranking tbody tr")
    if count > PAGE_ROWS and rows.count() < count:
        expect(rows).to_have_count(PAGE_ROWS)
        page.locator("#pager").get_by_role("button", name=f"Show all {count}").click()
    expect(rows).to_have_count(count)


def move(page: Page, label: str, steps: int) -> None:
    """Move the weight slider labelled ``label`` by ``steps`` with the keyboard (right for more),
    one press after another as fast as Playwright presses: each press is a choice of its own."""
    page.get_by_label(label, exact=True).focus()
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")


def weights_in(url: str) -> str | None:
    """The ``weights`` a request's URL carries, decoded (the page sends its commas as %2C)."""
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("weights", [None])[0]


def asked_for(urls: list[str], path: str) -> list[str]:
    """The requests among ``urls`` to the API route ``path``, in the order sent."""
    return [url for url in urls if urllib.parse.urlsplit(url).path == path]


def held_until(page: Page, held: list[Route], count: int) -> None:
    """Wait, letting the page run, until ``count`` requests are held; fails after 10 s. Polled:
    Playwright calls a route's handler only while a call of the test's is waiting on it."""
    deadline = time.monotonic() + 10
    while len(held) < count:
        assert time.monotonic() < deadline, f"the page sent {len(held)} of the {count} requests awaited"
        page.wait_for_timeout(20)


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def test_score_alias_lists_the_best_composite_first_under_the_canonical_url(
    page: Page, page_server: PageServer
) -> None:
    page.goto(page_server.url("/explore?sort=score&order=desc"))
    shown(page, 217)
    best_first = names(page_server, "sort=score&order=desc")
    assert column(page, "Economy") == best_first
    composites = [float(value) for value in column(page, "Composite") if value != "–"]
    assert composites == sorted(composites, reverse=True)
    expect(page.locator("#ranking th[scope=col]", has_text="Composite")).to_have_attribute("aria-sort", "descending")
    # The address bar and the visible link: the API's canonical form of the query.
    query = canonical(page_server, "sort=score&order=desc")
    assert query == "sort=Composite%20Readiness%20Score&order=desc"
    assert page.url == page_server.url(f"/explore?{query}")
    expect(page.locator("#permalink")).to_have_text(page_server.url(f"/explore?{query}"))
    expect(page.locator("#problem")).to_be_hidden()


@pytest.mark.parametrize(("given", "control", "value", "header", "seen"), [
    ("region=lac", "Region", "Latin America & Caribbean", "Region", {"Latin America & Caribbean"}),
    ("region=South%20America", "Region", "Latin America & Caribbean", "Region", {"Latin America & Caribbean"}),
    ("income=hic", "Income group", "High income", "Income group", {"High income"}),
    ("fcv=1", "FCV status", "true", "FCV", {"Yes"}),
])
def test_filters_in_any_alias_or_case_filter_the_table(
    page: Page, page_server: PageServer, given: str, control: str, value: str, header: str, seen: set[str]
) -> None:
    page.goto(page_server.url(f"/explore?{given}&q="))
    expected = names(page_server, f"{given}&sort=Global%20Rank&order=asc")
    assert 0 < len(expected) < 217
    shown(page, len(expected))
    assert column(page, "Economy") == expected
    assert set(column(page, header)) == seen
    expect(page.get_by_label(control)).to_have_value(value)
    assert page.url == page_server.url(f"/explore?{canonical(page_server, given)}")


@pytest.mark.parametrize("given", ["sort=bogus", "region=Atlantis", "fcv=maybe", "regoin=LAC"])
def test_a_value_the_api_refuses_is_its_message_and_no_table(
    page: Page, page_server: PageServer, watch: Watch, given: str
) -> None:
    page.goto(page_server.url(f"/explore?{given}"))
    message = api_error(page_server, f"/api/v1/readiness?{given}")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(message)
    expect(alert).to_contain_text("Nothing is shown in its place")
    expect(page.locator("#status")).to_have_text("No economies shown: the link's query is not valid.")
    expect(page.locator("#ranking tbody tr")).to_have_count(0)  # never another view instead
    assert page.url == page_server.url(f"/explore?{given}")  # the link as given, not rewritten
    # Chromium logs the API's 400 as a console error; nothing else may have been logged.
    assert all("status of 400" in error for error in watch.errors), watch.errors
    watch.errors.clear()
    # Changing a choice starts a view from the whole table.
    page.get_by_label("Income group").select_option(label="Low income")
    shown(page, len(names(page_server, "income=LIC")))
    expect(alert).to_be_hidden()


def test_year_shows_that_december_and_says_so(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore?year=2024"))
    archived = names(page_server, "year=2024&sort=Global%20Rank&order=asc")
    assert archived != names(page_server, "sort=Global%20Rank&order=asc")  # another ranking than today's
    shown(page, 217)
    assert column(page, "Economy") == archived
    expect(page.locator("#status")).to_contain_text("(snapshot 2024-12)")
    expect(page.locator("main [data-snapshot]")).to_have_text("2024-12")
    expect(page.get_by_label("Snapshot", exact=True)).to_have_value("2024-12")
    assert page.url == page_server.url("/explore?year=2024")
    link = page.get_by_role("link", name="Download these rows (CSV)").get_attribute("href")
    assert link is not None and "year=2024" in link


def test_snapshot_selector_changes_table_and_url_and_back_returns(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore?region=ssa"))
    today = names(page_server, "region=SSA&sort=Global%20Rank&order=asc")
    shown(page, len(today))
    expect(page.get_by_label("Snapshot", exact=True)).to_have_value(CURRENT)

    page.get_by_label("Snapshot", exact=True).select_option("2024-06")
    then = names(page_server, "region=SSA&snapshot=2024-06&sort=Global%20Rank&order=asc")
    expect(page.locator("#status")).to_contain_text("(snapshot 2024-06)")
    assert column(page, "Economy") == then != today
    assert page.url == page_server.url("/explore?region=Sub-Saharan%20Africa&snapshot=2024-06")
    expect(page.locator("main [data-snapshot]")).to_have_text("2024-06")

    page.go_back()  # the choice was a history entry of its own
    expect(page.locator("#status")).to_contain_text(f"(snapshot {CURRENT}, the current one)")
    assert column(page, "Economy") == today
    expect(page.get_by_label("Snapshot", exact=True)).to_have_value(CURRENT)
    assert page.url == page_server.url("/explore?region=Sub-Saharan%20Africa")


def test_your_own_weights_rerank_the_table_and_travel_in_the_url(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=1280)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(page_server.url("/explore"))
    shown(page, 217)
    expect(page.locator("#custom-label")).to_be_hidden()
    page.get_by_text("Your own weights").click()
    infrastructure = page.get_by_label("Infrastructure", exact=True)
    infrastructure.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # 1 -> 3
    expect(page).to_have_url(page_server.url("/explore?sort=Custom%20Score&order=desc&weights=3,1,1,1,1"))
    shown(page, 217)
    expect(page.locator("#custom-label")).to_contain_text("Custom weights: not the published index")
    expect(page.locator("#ranking th[scope=col]", has_text="Custom score")).to_have_attribute("aria-sort", "descending")
    assert column(page, "Economy") == names(page_server, "weights=3,1,1,1,1&sort=custom")
    rows = api(page_server, "/api/v1/readiness?weights=3,1,1,1,1&sort=custom")["data"]
    assert column(page, "Custom score")[:5] == [f"{row['Custom Score']:.2f}" for row in rows[:5]]
    assert column(page, "Composite")[:5] == [f"{row['Composite Readiness Score']:.2f}" for row in rows[:5]]
    assert serious_violations(page) == []
    screenshot(page, "explore-weights-1280", full_page=False)

    # The link is the view: opened afresh, the same ranking and the sliders where they were.
    shared = pages(width=1280)
    shared.goto(page.url)
    shown(shared, 217)
    assert column(shared, "Economy") == column(page, "Economy")
    expect(shared.get_by_label("Infrastructure", exact=True)).to_have_value("3")
    expect(shared.locator("#weights-box")).to_have_attribute("open", "")

    page.get_by_role("button", name="Reset to published weights").click()
    expect(page).to_have_url(page_server.url("/explore"))
    shown(page, 217)
    expect(page.locator("#custom-label")).to_be_hidden()
    assert "Custom score" not in page.locator("#ranking thead").inner_text()
    assert column(page, "Rank")[:3] == ["1", "2", "3"]
    page.go_back()  # weights were a history entry too
    expect(page).to_have_url(page_server.url("/explore?sort=Custom%20Score&order=desc&weights=3,1,1,1,1"))
    expect(page.locator("#custom-label")).to_be_visible()


def test_weights_in_a_shared_link_are_the_apis_canonical_ones(page: Page, page_server: PageServer) -> None:
    given = "weights=infrastructure:4,human:2&region=LAC"
    page.goto(page_server.url(f"/explore?{given}"))
    expected = names(page_server, f"{given}&sort=custom")
    shown(page, len(expected))
    assert column(page, "Economy") == expected
    query = canonical(page_server, f"{given}&sort=custom&order=desc")
    assert "weights=2,1,0,0,0" in query
    assert page.url == page_server.url(f"/explore?{query}")
    expect(page.get_by_label("Human capital", exact=True)).to_have_value("1")


def test_slider_weights_are_the_apis_canonical_form_in_the_link_and_the_request(
    page: Page, page_server: PageServer
) -> None:
    page.goto(page_server.url("/explore"))
    shown(page, 217)
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url))
    page.get_by_text("Your own weights").click()
    # From 1,1,1,1,1 to 2,4,4,2,0, eight presses in a row: only where the sliders stop counts.
    for label, steps in zip(SLIDERS, (1, 3, 3, 1, -1), strict=True):
        move(page, label, steps)
    canonical = api(page_server, f"{MEANING}?weights=2,4,4,2,0")["parameters"]["weights"]
    assert canonical == "1,2,2,1,0"  # the API's rule, no common divisor: the page has no copy of it
    expect(page).to_have_url(page_server.url(f"/explore?sort=Custom%20Score&order=desc&weights={canonical}"))
    shown(page, 217)
    # The page asked the parser about where the sliders stopped, and asked for the table with its answer.
    assert weights_in(asked_for(sent, MEANING)[-1]) == "2,4,4,2,0"
    tables = asked_for(sent, "/api/v1/readiness")
    assert weights_in(tables[-1]) == canonical
    # Never a table asked for with weights the API would write otherwise (a step on the way may
    # have been asked for while the machine was slow, but in canonical form too).
    for weights in {weights_in(url) for url in tables}:
        assert api(page_server, f"{MEANING}?weights={weights}")["parameters"]["weights"] == weights
    assert column(page, "Economy") == names(page_server, f"weights={canonical}&sort=custom")
    expect(page.locator("#custom-weights")).to_contain_text(
        "Infrastructure 1, Human capital 2, School access & gender parity 2, Innovation 1, Governance 0;")
    for label, weight in zip(SLIDERS, canonical.split(","), strict=True):
        expect(page.get_by_label(label, exact=True)).to_have_value(weight)
    screenshot(page, "explore-weights-canonical", full_page=False)


def test_a_late_answer_for_an_older_slider_choice_is_not_applied(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore"))
    shown(page, 217)
    page.get_by_text("Your own weights").click()
    # The parser's answers are held, then let through in the order the test chooses.
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route(f"**{MEANING}?*", hold)
    move(page, "Infrastructure", 1)  # 2,1,1,1,1
    held_until(page, held, 1)
    move(page, "Human capital", 1)  # 2,2,1,1,1, asked while the first is unanswered
    held_until(page, held, 2)
    assert [weights_in(route.request.url) for route in held] == ["2,1,1,1,1", "2,2,1,1,1"]
    held[1].fallback()  # the newer answer first
    newer = page_server.url("/explore?sort=Custom%20Score&order=desc&weights=2,2,1,1,1")
    expect(page).to_have_url(newer)
    shown(page, 217)
    with page.expect_response(lambda response: weights_in(response.url) == "2,1,1,1,1") as late:
        held[0].fallback()  # then the older one, late
    late.value.finished()
    # A later choice, answered after the late one was read: had the late answer been applied,
    # its view would lie between the two in the history.
    move(page, "School access & gender parity", 1)  # 2,2,2,1,1
    held_until(page, held, 3)
    held[2].fallback()
    expect(page).to_have_url(page_server.url("/explore?sort=Custom%20Score&order=desc&weights=2,2,2,1,1"))
    shown(page, 217)
    page.unroute(f"**{MEANING}?*", hold)
    page.go_back()
    expect(page).to_have_url(newer)
    shown(page, 217)
    assert column(page, "Economy") == names(page_server, "weights=2,2,1,1,1&sort=custom")


def test_all_weights_zero_is_the_apis_refusal_and_no_table(page: Page, page_server: PageServer, watch: Watch) -> None:
    page.goto(page_server.url("/explore"))
    shown(page, 217)
    page.get_by_text("Your own weights").click()
    for label in SLIDERS:
        move(page, label, -1)
    message = api_error(page_server, f"{MEANING}?weights=0,0,0,0,0")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(message)
    expect(alert).to_contain_text("Nothing is shown in its place")
    expect(page.locator("#status")).to_have_text("No economies shown.")
    expect(page.locator("#ranking tbody tr")).to_have_count(0)
    # The link says the choice as made, as a refused link stays as given.
    assert page.url == page_server.url("/explore?sort=Custom%20Score&order=desc&weights=0,0,0,0,0")
    assert all("status of 400" in error for error in watch.errors), watch.errors
    watch.errors.clear()
    screenshot(page, "explore-weights-refused", full_page=False)
    move(page, "Governance", 1)  # 0,0,0,0,1: a weighting again
    expect(page).to_have_url(page_server.url("/explore?sort=Custom%20Score&order=desc&weights=0,0,0,0,1"))
    shown(page, 217)
    expect(alert).to_be_hidden()


FITS = "(() => { const w = document.querySelector('.table-wrap'); return w.scrollWidth <= w.clientWidth; })()"
"""Whether the table fits its region: nothing to swipe to."""


def test_phone_shows_economy_and_composite_without_a_sideways_swipe(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=390)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_server.url("/explore?sort=score&order=desc"))
    shown(page, 217)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    first = page.locator("#ranking tbody tr").first
    composite = first.locator("td.num").filter(has_text=".").first
    composite.scroll_into_view_if_needed()
    for cell in (first.locator("th"), composite):
        box = cell.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.evaluate(FITS)  # nothing hidden to the right
    best = api(page_server, "/api/v1/readiness?sort=score&order=desc&limit=1")["data"][0]
    assert composite.inner_text().strip() == f"{best['Composite Readiness Score']:.2f}"
    screenshot(page, "explore-390", full_page=False)
    page.locator("#ranking").scroll_into_view_if_needed()
    screenshot(page, "explore-390-table", full_page=False)

    # The other columns are one press away, and then scroll inside the table's region.
    expect(page.locator("#ranking th[scope=col]", has_text="Region")).to_be_hidden()
    page.get_by_role("button", name="Show all columns").click()
    expect(page.get_by_role("button", name="Show all columns")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#ranking th[scope=col]", has_text="Region")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "explore-390-all-columns", full_page=False)

    # With your own weights: economy, composite and the custom score and rank, still no swipe.
    page.goto(page_server.url("/explore?weights=2,1,1,1,1"))
    shown(page, 217)
    assert page.evaluate(FITS)
    for label in ("Economy", "Composite", "Custom score", "Custom rank"):
        header = page.locator("#ranking th[scope=col]", has_text=label).first
        expect(header).to_be_visible()
        box = header.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390, (label, box)
    screenshot(page, "explore-390-weights", full_page=False)


def test_sort_keeps_the_focus_on_its_button(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore?weights=1,2,1,1,1"))
    shown(page, 217)
    button = page.locator("#ranking thead button[data-field='Custom Rank']")
    button.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(page_server.url("/explore?sort=Custom%20Rank&order=asc&weights=1,2,1,1,1"))
    expect(page.locator(":focus")).to_have_attribute("data-field", "Custom Rank")
    assert column(page, "Custom rank")[:3] == ["1", "2", "3"]
    page.keyboard.press("Enter")
    expect(page.locator(":focus")).to_have_attribute("data-field", "Custom Rank")
    expect(page.locator("#ranking th[scope=col]", has_text="Custom rank")).to_have_attribute("aria-sort", "descending")


def test_the_ranking_chart_is_drawn_for_the_view(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore?region=na"))
    shown(page, len(names(page_server, "region=NA")))
    section = page.get_by_role("region", name="The ranking as a chart")
    expect(section).to_be_visible()
    assert urllib.parse.urlsplit(page.url).query == "region=North%20America"


def test_parameters_the_explorer_does_not_use_are_named_and_left_out(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore?limit=5&q=united&fields=score&order=DESC&sort=SCORE"))
    expect(page.locator("#status")).to_contain_text("matching “united”")
    expect(page.locator("#unused")).to_have_text(
        "Not used by the explorer, and left out of the link: fields=Composite Readiness Score, limit=5 "
        "(it shows every economy the filters select, with its own columns).")
    # The name search (q, the page's own) stays; the rest is the API's canonical query.
    assert page.url == page_server.url("/explore?sort=Composite%20Readiness%20Score&order=desc&q=united")
    assert column(page, "Economy") == [name for name in names(page_server, "sort=score")
                                       if "united" in name.lower()]


# An explorer you can hold (issue 33): the table in a box of its own with its header held, 50 rows
# at a time, the chart above it at 1280 px (beside it from 1600), microstates marked alike.

BOX_LAYOUT = """() => {
  const box = document.querySelector('.ranking-box').getBoundingClientRect();
  const head = document.querySelector('#ranking thead th').getBoundingClientRect();
  const name = document.querySelector('#ranking tbody tr:last-child th').getBoundingClientRect();
  return { boxTop: box.top, boxLeft: box.left, headTop: head.top, nameLeft: name.left };
}"""


def test_the_table_shows_50_rows_at_a_time_under_a_header_that_stays(
    pages: OpenPage, page_server: PageServer
) -> None:
    expected = names(page_server, "sort=Global%20Rank&order=asc")
    page = pages(width=1280)
    page.goto(page_server.url("/explore"))
    expect(page.locator("#status")).to_have_text(
        "Showing 217 of 217 economies (snapshot 2026-11, the current one): the first 50 in the table.")
    rows = page.locator("#ranking tbody tr")
    expect(rows).to_have_count(PAGE_ROWS)
    pager = page.locator("#pager")
    expect(pager.locator("#pager-text")).to_have_text("Rows 1–50 of 217.")
    # The chart comes before the table at this width, and the page is no longer every row long.
    chart = page.locator("#ranking-chart").bounding_box()
    box = page.locator(".ranking-box").bounding_box()
    assert chart is not None and box is not None and chart["y"] + chart["height"] <= box["y"]
    assert page.evaluate("document.documentElement.scrollHeight") < 3000
    screenshot(page, "explore-1280")
    # The header stays at the top of the table's box while its rows scroll.
    page.locator(".ranking-box").scroll_into_view_if_needed()
    page.locator(".ranking-box").evaluate("(box) => { box.scrollTop = box.scrollHeight; }")
    layout = page.evaluate(BOX_LAYOUT)
    assert abs(layout["headTop"] - layout["boxTop"]) <= 2, layout
    expect(page.locator("#ranking thead th").first).to_be_in_viewport()
    screenshot(page, "explore-held-header", full_page=False)
    # Fifty more, the focus on the first of them; then all, and the pager goes.
    pager.get_by_role("button", name="Show 50 more").click()
    expect(rows).to_have_count(2 * PAGE_ROWS)
    expect(page.locator(":focus")).to_have_text(expected[PAGE_ROWS])
    expect(pager.locator("#pager-text")).to_have_text("Rows 1–100 of 217.")
    pager.get_by_role("button", name="Show all 217").click()
    expect(rows).to_have_count(217)
    expect(pager).to_be_hidden()
    assert column(page, "Economy") == expected
    expect(page.locator("#status")).to_have_text("Showing 217 of 217 economies (snapshot 2026-11, the current one).")
    # A new view starts again at its first 50.
    page.get_by_label("Income group").select_option("High income")
    high = names(page_server, "income=HIC")
    assert len(high) > PAGE_ROWS
    expect(page.locator("#status")).to_contain_text(f"Showing {len(high)} of {len(high)} economies")
    expect(rows).to_have_count(PAGE_ROWS)
    # A search of fewer rows than a page has no pager.
    page.get_by_label("Search by name or code").fill("united")
    expect(page.locator("#status")).to_contain_text("matching “united”")
    expect(pager).to_be_hidden()

    # Wide enough, the chart stands beside the table and stays in view as the page scrolls.
    wide = pages(width=1700)
    wide.goto(page_server.url("/explore"))
    expect(wide.locator("#ranking tbody tr")).to_have_count(PAGE_ROWS)
    chart = wide.locator("#ranking-chart").bounding_box()
    box = wide.locator(".ranking-box").bounding_box()
    assert chart is not None and box is not None and chart["x"] >= box["x"] + box["width"], (chart, box)
    screenshot(wide, "explore-wide", full_page=False)


def test_on_a_phone_the_table_scrolls_in_its_box_with_its_head_and_names_held(
    pages: OpenPage, page_server: PageServer
) -> None:
    page = pages(width=390)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_server.url("/explore"))
    expect(page.locator("#ranking tbody tr")).to_have_count(PAGE_ROWS)
    page.get_by_role("button", name="Show all columns").click()
    wrap = page.locator(".ranking-box")
    wrap.scroll_into_view_if_needed()
    wrap.evaluate("(box) => { box.scrollTop = box.scrollHeight; box.scrollLeft = box.scrollWidth; }")
    layout = page.evaluate(BOX_LAYOUT)
    assert abs(layout["headTop"] - layout["boxTop"]) <= 2, layout  # the head at the box's top
    assert abs(layout["nameLeft"] - layout["boxLeft"]) <= 2, layout  # the economy's name at its left
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "explore-390-held", full_page=False)


def test_microstates_are_marked_in_the_custom_chart_as_in_the_table(page: Page, page_server: PageServer) -> None:
    # Custom weights that lift small island economies into the chart's first twenty: the table gives
    # them no custom rank, so the chart marks them (a hollow bar, "(microstate)") where their score
    # puts them.
    query = "weights=1,0,0,0,5"
    rows = api(page_server, f"/api/v1/readiness?{query}&sort=custom&order=desc"
                            "&fields=Country%20Code,Country%20Name,Microstate")["data"]
    first = rows[:20]
    micro = [row for row in first if row["Microstate"]]
    assert micro and all(row["Custom Rank"] is None for row in micro)
    page.goto(page_server.url(f"/explore?{query}"))
    shown(page, 217)
    chart = page.locator("#ranking-chart svg.rank-chart")
    expect(chart.locator("g.rc-row")).to_have_count(20)
    expect(chart).to_contain_text("hollow bars: microstates, scored but not ranked")
    for row in first:
        group = chart.locator(f"g.rc-row[data-code={row['Country Code']}]")
        name = group.locator("text.rc-name")
        if row["Microstate"]:
            expect(group).to_have_class("rc-row rc-micro")
            expect(name).to_have_text(f"{row['Country Name']} (microstate)")
            fill = group.locator("rect.rc-bar").evaluate("(rect) => getComputedStyle(rect).fill")
            assert fill == "rgb(255, 255, 255)"  # hollow
        else:
            expect(group).to_have_class("rc-row")
            expect(name).to_have_text(row["Country Name"])
    # The table says the same of the same economies: "microstate" where the ranks would be.
    ranks = dict(zip(column(page, "Economy"), column(page, "Custom rank"), strict=True))
    for row in first:
        assert ranks[row["Country Name"]] == ("microstate" if row["Microstate"] else str(row["Custom Rank"]))
    page.locator(".ranking-box").evaluate("(box) => { box.scrollTop = 0; }")
    page.locator("#ranking-chart").scroll_into_view_if_needed()
    screenshot(page, "explore-weights-microstates", full_page=False)
