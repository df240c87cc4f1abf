"""The embeds as another site uses them (docs/PAGES.md#embeds), in Chromium: a person copies the
Embed button's snippet from the page, pastes it into an article served by another origin (a
second local server on its own port), and the article is read in a column of 360, 720 and
1280 px. With the snippet's script the frame takes its content's height (the embed's
``postMessage``): no inner scroll bar, no empty space. With the no-script snippet the frame's
fixed height still shows the whole embed. Screenshots: ``embed-<kind>-<fit>-<width>.png``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import pytest
from playwright.sync_api import Frame, Page, expect

from tests.browser import OpenPage, PageServer, another_site, fit_script, screenshot, skip_module_without_chromium
from tests.processes import until

skip_module_without_chromium()

WIDTHS = (360, 720, 1280)


@dataclass(frozen=True)
class Embed:
    """A view with an Embed button, and what its embed shows once drawn."""

    kind: str
    page: str
    """The page a person copies the snippet from."""
    route: str
    """The embed route the snippet frames."""
    ready: str
    """A selector that matches once the embed's chart is drawn."""


EMBEDS = (
    Embed("explore", "/explore/KEN", "/embed/explore/KEN", "#history svg.line-chart path"),
    Embed("compare", "/compare?codes=KEN,BRA,IND", "/embed/compare?codes=KEN,BRA,IND", "#compare-chart svg path"),
    Embed("map", "/map", "/embed/map", "#map svg path"),
)

MEASURE = """() => ({
  scroll: document.documentElement.scrollHeight, client: document.documentElement.clientHeight,
  content: Math.ceil(document.documentElement.getBoundingClientRect().height),
  scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
  chartTop: document.querySelector("main svg").getBoundingClientRect().top,
})"""
"""Inside the frame: its scroll and client heights and widths, its content's height and where its chart starts."""


def snippets(page: Page, server: PageServer, embed: Embed) -> tuple[str, str]:
    """The snippets a person copies from ``embed.page``'s chart toolbar: (with the fitting script, without)."""
    page.goto(server.url(embed.page))
    copied = []
    for button in ("Embed", "Snippet without a script"):
        page.get_by_role("button", name=button, exact=True).first.click()
        field = page.get_by_role("textbox", name="Link or snippet to copy").first
        expect(field).not_to_have_value("")
        copied.append(field.input_value())
    return copied[0], copied[1]


def article(snippet: str) -> str:
    """An article of another site with the snippet pasted between two paragraphs, its column as
    wide as the window."""
    return ("<!DOCTYPE html><html lang='en'><meta charset='utf-8'><title>A newsroom</title>"
            "<style>body{margin:0;font:18px Georgia,serif}p{margin:12px 0}</style>"
            f"<h1>Our story</h1><p>Before the chart.</p>{snippet}<p>After the chart.</p></html>")


def framed(page: Page, embed: Embed) -> Frame:
    """The embed's frame in ``page``, once its chart is drawn."""
    frame = page.frame_locator("iframe")
    expect(frame.locator(embed.ready).first).to_be_attached(timeout=20_000)
    return next(f for f in page.frames if "/embed/" in f.url)


def fits(page: Page, frame: Frame) -> bool:
    """Whether the frame in ``page`` is as tall as the content of ``frame``, its document, says."""
    inside = frame.evaluate(MEASURE)
    outer = page.locator("iframe").bounding_box()
    return outer is not None and round(outer["height"]) == inside["content"] == inside["client"]


def loaded(frame: Frame) -> bool:
    return bool(frame.evaluate("document.readyState") == "complete")


@pytest.mark.parametrize("embed", EMBEDS, ids=[embed.kind for embed in EMBEDS])
def test_embed_fits_its_frame_from_another_origin_at_every_width(
    pages: OpenPage, page_server: PageServer, embed: Embed
) -> None:
    fitted, fixed = snippets(pages(), page_server, embed)
    origin = page_server.url("")
    assert fitted.startswith(f'<iframe src="{page_server.url(embed.route)}"') and fitted.endswith(fit_script(origin))
    assert fixed == fitted.removesuffix(fit_script(origin))  # the no-script snippet: the frame alone
    with another_site({"/fit": article(fitted), "/fixed": article(fixed)}) as site:
        for width in WIDTHS:
            page = pages(width=width)
            page.goto(f"{site}/fit")
            frame = framed(page, embed)
            until(partial(fits, page, frame), 20, f"{embed.kind} at {width} px: the frame takes its content's height")
            inside = frame.evaluate(MEASURE)
            assert inside["scroll"] <= inside["client"], (width, inside)  # no inner scroll bar
            assert inside["scrollWidth"] <= inside["clientWidth"], (width, inside)  # nor a sideways one
            assert inside["chartTop"] < 200, (width, inside)  # the chart first: a title and a line above it
            screenshot(page, f"embed-{embed.kind}-fit-{width}")

            page.goto(f"{site}/fixed")
            frame = framed(page, embed)
            until(partial(loaded, frame), 20, "the embed loaded")
            inside = frame.evaluate(MEASURE)
            assert inside["scroll"] <= inside["client"], (width, inside)  # the fixed height holds it all
            screenshot(page, f"embed-{embed.kind}-fixed-{width}")
            page.context.close()
