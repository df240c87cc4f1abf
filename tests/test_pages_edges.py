"""The edges of the site in Chromium (docs/PAGES.md#error-pages, #print, #dark-mode): a mistyped
page address shows a page of the site, a profile prints on two A4 pages with its citation, and
every page follows the reader's dark colour scheme. axe's runs of every page in both schemes
are tests/test_pages_axe.py's. Fixtures: tests/browser.py."""

from __future__ import annotations

import io

import pytest
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from tests.browser import OpenPage, PageServer, Watch, screenshot, skip_module_without_chromium
from tests.test_pages_browser import serious_violations
from tests.test_pages_country import loaded

skip_module_without_chromium()

SCHEMES = ("light", "dark")


def without_status_errors(watch: Watch, status: int) -> None:
    """Chromium logs a document's own 4xx as a console error: the test expects it."""
    watch.errors[:] = [error for error in watch.errors if str(status) not in error]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", [1280, 390])
def test_a_mistyped_address_shows_the_404_page_and_the_page_meant(
    pages: OpenPage, page_server: PageServer, watch: Watch, scheme: str, width: int
) -> None:
    page = pages(width=width, color_scheme=scheme)
    response = page.goto(page_server.url("/mapp"))
    assert response is not None and response.status == 404
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(page.locator("[data-error-message]")).to_have_text("This site has no page at /mapp.")
    expect(page.get_by_role("note", name="Synthetic data")).to_be_visible()
    assert serious_violations(page) == []
    screenshot(page, f"error-404-{width}-{scheme}", full_page=False)
    page.get_by_role("link", name="/map").click()
    expect(page).to_have_url(page_server.url("/map"))
    without_status_errors(watch, 404)


def test_an_economy_address_that_is_no_code_shows_the_400_page(
    page: Page, page_server: PageServer, watch: Watch
) -> None:
    response = page.goto(page_server.url("/explore/south-korea"))
    assert response is not None and response.status == 400
    expect(page.get_by_role("heading", level=1)).to_have_text("This address is not valid")
    expect(page.locator("[data-error-message]")).to_contain_text("'south-korea' is not an economy code")
    assert serious_violations(page) == []
    screenshot(page, "error-400", full_page=False)
    page.get_by_role("link", name="Korea, Rep.").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Korea, Rep.")
    without_status_errors(watch, 400)


def test_a_browsers_fetch_of_the_api_still_gets_json(page: Page, page_server: PageServer, watch: Watch) -> None:
    page.goto(page_server.url("/"))
    answer = page.evaluate("fetch('/api/v1/nope').then(async (r) => [r.status, r.headers.get('content-type'),"
                           " (await r.json()).error])")
    assert answer == [404, "application/json; charset=utf-8",
                      "Not found: '/api/v1/nope'. The API lives at /api/v1/readiness."]
    without_status_errors(watch, 404)


def printed(page: Page) -> PdfReader:
    """The page as Chromium prints it on A4 (the print style sheet's @page), read back."""
    return PdfReader(io.BytesIO(page.pdf(format="A4", prefer_css_page_size=True)))


@pytest.mark.parametrize("code", ["KEN", "ABW", "IND"])
def test_a_profile_prints_on_two_a4_pages_with_its_citation(page: Page, page_server: PageServer, code: str) -> None:
    page.goto(page_server.url(f"/explore/{code}"))
    loaded(page)
    document = printed(page)
    text = " ".join(" ".join(sheet.extract_text().split()) for sheet in document.pages)
    assert len(document.pages) == 2, f"{code}: {len(document.pages)} pages"
    width, height = (float(value) for value in document.pages[0].mediabox.upper_right)
    assert (round(width), round(height)) == (595, 842)  # A4 in points
    # What the print keeps: the headline, the scores, the ranks, the history, the citation, pinned.
    for words in ("At a glance", "Scores against the region and the world", "Global rank", "Across snapshots",
                  "Data quality", "Cite this", "Readiness Index, snapshot 2026-11",
                  "Do not cite this snapshot: its data is synthetic",
                  f"/explore/{code}?snapshot=2026-11", "Synthetic sample data."):
        assert words in text, words
    # What it leaves to the screen, and says so; and no controls on paper.
    assert "Regional peers" not in text and "How this score is built" not in text
    assert "Printed in short" in text
    assert "Snapshot 2026-11 (current" not in text  # the snapshot selector


def test_the_print_shows_what_the_screen_hides_of_the_citation(page: Page, page_server: PageServer) -> None:
    # On screen "Cite this" is closed; on paper it is open. The same page, printed and not.
    page.goto(page_server.url("/explore/KEN"))
    loaded(page)
    expect(page.locator("details.cite blockquote")).to_be_hidden()
    page.emulate_media(media="print")
    expect(page.locator("details.cite blockquote")).to_be_visible()
    expect(page.locator("header.site nav")).to_be_hidden()
    screenshot(page, "country-print")


@pytest.mark.parametrize("path", ["/", "/explore/KEN", "/map", "/explore", "/method"])
def test_dark_mode_follows_the_readers_setting(pages: OpenPage, page_server: PageServer, path: str) -> None:
    colours = "() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
    light = pages(color_scheme="light")
    light.goto(page_server.url(path))
    assert light.evaluate(colours) == ["rgb(255, 255, 255)", "rgb(27, 31, 36)"]
    dark = pages(color_scheme="dark")
    dark.goto(page_server.url(path))
    assert dark.evaluate(colours) == ["rgb(13, 17, 23)", "rgb(230, 237, 243)"]
    if path in ("/", "/explore/KEN"):
        dark.wait_for_load_state("networkidle")
        screenshot(dark, f"dark{path.replace('/', '-').rstrip('-') or '-landing'}", full_page=False)
