""""Cite this" in every page's footer (docs/PAGES.md#cite-this), in Chromium through Playwright:
the citation of the snapshot on screen and a permalink pinned to it, which opened again shows
that snapshot. Fixtures: tests/browser.py."""

from __future__ import annotations

import urllib.request
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect

from tests.browser import PageServer, skip_module_without_chromium

skip_module_without_chromium()


def citation_text(server: PageServer, snapshot: str) -> str:
    """The API's plain-text citation of ``snapshot``: what the block must show for it."""
    with urllib.request.urlopen(server.url(f"/api/v1/citation?format=text&snapshot={snapshot}"), timeout=30) as answer:
        text: str = answer.read().decode().strip()
    return text


def test_cite_this_pins_the_current_snapshot_into_the_permalink(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/map?score=governance"))
    expect(page.locator("[data-snapshot]").first).to_have_text("2026-11")
    page.locator("#cite-this summary").click()
    link = page.locator("#cite-this [data-permalink]")
    expect(link).not_to_have_attribute("href", "/")
    href = link.get_attribute("href") or ""
    parts = urlsplit(href)
    assert parts.path == "/map" and parse_qs(parts.query) == {"score": ["governance"], "snapshot": ["2026-11"]}
    assert link.inner_text() == href
    expect(page.locator("#cite-this [data-citation]")).to_have_text(citation_text(page_server, "2026-11"))
    bibtex = page.locator('#cite-this [data-citation-format="bibtex"]').get_attribute("href")
    assert bibtex == "/api/v1/citation?format=bibtex&snapshot=2026-11"


def test_cite_this_follows_the_snapshot_the_page_shows(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore/KEN?year=2024"))
    expect(page.locator("footer [data-snapshot]")).to_have_text("2024-12")
    page.locator("#cite-this summary").click()
    citation = page.locator("#cite-this [data-citation]")
    expect(citation).to_have_text(citation_text(page_server, "2024-12"))
    assert "snapshot 2024-12" in citation.inner_text()
    href = page.locator("#cite-this [data-permalink]").get_attribute("href") or ""
    assert parse_qs(urlsplit(href).query) == {"year": ["2024"]}  # already pinned: nothing added
    ris = page.locator('#cite-this [data-citation-format="ris"]').get_attribute("href")
    assert ris == "/api/v1/citation?format=ris&snapshot=2024-12"
    # The permalink, opened, shows the same snapshot.
    page.goto(href)
    expect(page.locator("footer [data-snapshot]")).to_have_text("2024-12")


def test_cite_this_open_while_the_page_changes_its_snapshot_cites_the_new_one(
    page: Page, page_server: PageServer,
) -> None:
    # The page's snapshot words ("[data-snapshot]") are rewritten with the bare id whenever it
    # shows another snapshot; the citation once carried that attribute too, and was rewritten
    # with them when the page's own load finished after the block was opened (seen under load).
    page.goto(page_server.url("/explore/KEN?year=2024"))
    expect(page.locator("footer [data-snapshot]")).to_have_text("2024-12")
    page.locator("#cite-this summary").click()
    citation = page.locator("#cite-this [data-citation]")
    expect(citation).to_have_text(citation_text(page_server, "2024-12"))
    page.get_by_label("Snapshot", exact=True).select_option("2026-11")
    expect(page.locator("footer [data-snapshot]")).to_have_text("2026-11")
    expect(citation).to_have_text(citation_text(page_server, "2026-11"))
    ris = page.locator('#cite-this [data-citation-format="ris"]').get_attribute("href")
    assert ris == "/api/v1/citation?format=ris&snapshot=2026-11"


def test_cite_this_is_on_every_page_but_the_landing_page_which_has_its_own(page: Page, page_server: PageServer) -> None:
    for path in ("/explore", "/method", "/compare?codes=KEN", "/docs"):
        page.goto(page_server.url(path))
        expect(page.locator("#cite-this summary")).to_have_text("Cite this")
    page.goto(page_server.url("/"))
    expect(page.locator("#cite-this")).to_have_count(0)
    expect(page.locator("#citing")).to_have_text("Cite this")
