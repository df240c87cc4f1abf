"""Every page at a desk and on a phone, light and dark: axe-core finds nothing serious or critical, the
synthetic-data banner sits inside a landmark (embeds included), and at 390 px the page itself
never scrolls sideways (issue 22, item 11; docs/PAGES.md#the-checks-every-page-passes).

Each page of tests/site_pages.py is opened at 1280×800 and at 390×844, in the light and the dark
colour scheme (``prefers-color-scheme``, issue 33), and checked once it is ready. The one
exemption is the /docs one tests/test_pages_browser.py makes: Swagger UI's own
``nested-interactive`` markup, inside ``#swagger-ui`` only. A screenshot of each is saved as
``pages-<page>-<width>[-dark].png`` under test-output/screenshots/."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Error, Page

from tests.browser import OpenPage, PageServer, screenshot, skip_module_without_chromium
from tests.site_pages import PAGES, SitePage, unready, wait_until_ready
from tests.test_pages_browser import SWAGGER_UI_STRUCTURE, serious_violations

skip_module_without_chromium()

VIEWPORTS = ((1280, 800), (390, 844))
"""The reviewer's desk and phone (issue 22)."""

PHONE = 390

SCHEMES = ("light", "dark")
"""The colour schemes a reader's system may ask for: the site follows it (site.css)."""


def every_page_size_and_scheme(test: Callable[..., None]) -> Callable[..., None]:
    """Run ``test`` for each page of tests/site_pages.py, at each of VIEWPORTS, in each of
    SCHEMES (its arguments ``site_page``, ``width``, ``height`` and ``scheme``)."""
    test = pytest.mark.parametrize("site_page", PAGES, ids=[site_page.path for site_page in PAGES])(test)
    test = pytest.mark.parametrize(("width", "height"), VIEWPORTS, ids=[f"{w}x{h}" for w, h in VIEWPORTS])(test)
    return pytest.mark.parametrize("scheme", SCHEMES)(test)

LANDMARKS = ", ".join((
    "main", "nav", "aside", "header", "footer", "form[aria-label]", "form[aria-labelledby]",
    "section[aria-label]", "section[aria-labelledby]", "search",
    *(f"[role={role}]" for role in ("main", "navigation", "complementary", "banner", "contentinfo",
                                    "region", "search", "form")),
))
"""What axe's ``region`` rule counts as a landmark (a section or form only with a name).
``header`` and ``footer`` are landmarks only outside ``main``, ``article``, ``aside``, ``nav`` and
``section`` (unless given a role): the banner's check below knows it."""

BANNER_LANDMARK = """selector => {
  const banner = document.querySelector('.synthetic');
  if (!banner) return 'no .synthetic banner';
  const box = banner.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return 'not shown';
  for (let at = banner.closest(selector); at; at = at.parentElement && at.parentElement.closest(selector)) {
    const scoped = ['header', 'footer'].includes(at.tagName.toLowerCase()) && !at.hasAttribute('role')
      && at.parentElement.closest('main, article, aside, nav, section');
    if (!scoped) return '';
  }
  return 'outside any landmark';
}"""
"""'' when the page's synthetic-data banner is shown inside a landmark, else what is wrong."""

SIDEWAYS = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def open_ready(
    pages: OpenPage, server: PageServer, site_page: SitePage, width: int, height: int, scheme: str = "light"
) -> tuple[Page, list[str]]:
    """``site_page`` in a fresh page of ``width``×``height`` in colour ``scheme``, ready; the problems on the way."""
    page = pages(width=width, color_scheme=scheme)
    page.set_viewport_size({"width": width, "height": height})
    response = page.goto(server.url(site_page.path))
    if response is None or response.status != 200:
        return page, [f"status {response.status if response else 'none'}"]
    try:
        wait_until_ready(page, site_page)
    except Error:
        return page, ["never ready: " + "; ".join(unready(page, site_page))]
    return page, []


def serious_on(page: Page, site_page: SitePage) -> list[str]:
    """axe's serious and critical findings, less Swagger UI's known one on /docs (and there,
    none at all outside Swagger UI's own markup)."""
    found = serious_violations(page)
    if site_page.path != "/docs":
        return found
    ours = serious_violations(page, {"exclude": [["#swagger-ui"]]})
    return ours + [line for line in found if not line.startswith(SWAGGER_UI_STRUCTURE)]


def fit_and_axe(page: Page, site_page: SitePage, width: int) -> list[str]:
    """The problems of a ready page shown ``width`` wide: on a phone, a page wider than the
    window; anywhere, axe's serious or critical findings."""
    problems = []
    if width == PHONE:
        scroll_width, inner = page.evaluate(SIDEWAYS)
        if scroll_width > inner + 1:
            problems.append(f"scrolls sideways: the page is {scroll_width} px wide in a {inner} px window")
    return problems + [f"axe: {line}" for line in serious_on(page, site_page)]


@every_page_size_and_scheme
def test_page_passes_axe_keeps_the_banner_in_a_landmark_and_fits_the_phone(
    pages: OpenPage, page_server: PageServer, site_page: SitePage, width: int, height: int, scheme: str
) -> None:
    page, problems = open_ready(pages, page_server, site_page, width, height, scheme)
    if not problems:
        outside = page.evaluate(BANNER_LANDMARK, LANDMARKS)
        if outside:
            problems.append(f"synthetic banner: {outside}")
        problems += fit_and_axe(page, site_page, width)
        screenshot(page, f"pages-{site_page.slug}-{width}{'' if scheme == 'light' else '-dark'}", full_page=False)
    assert not problems, "\n".join(problems)


def test_the_banner_check_finds_a_banner_outside_any_landmark(pages: OpenPage, page_server: PageServer) -> None:
    # The check above passes by finding nothing wrong: it must still find what it is for.
    page = pages()
    page.goto(page_server.url("/method"))
    assert page.evaluate(BANNER_LANDMARK, LANDMARKS) == ""
    page.evaluate("document.body.prepend(document.querySelector('.synthetic'))")
    assert page.evaluate(BANNER_LANDMARK, LANDMARKS) == "outside any landmark"
    page.evaluate("document.querySelector('footer').append(document.querySelector('.synthetic'))")
    assert page.evaluate(BANNER_LANDMARK, LANDMARKS) == ""
    # A footer inside an article is no landmark (nor is the article).
    page.evaluate("document.body.append(document.createElement('article'));"
                  "document.querySelector('article').append(document.querySelector('footer'))")
    assert page.evaluate(BANNER_LANDMARK, LANDMARKS) == "outside any landmark"
    page.evaluate("document.querySelector('.synthetic').remove()")
    assert page.evaluate(BANNER_LANDMARK, LANDMARKS) == "no .synthetic banner"


def test_the_sideways_check_finds_a_page_wider_than_the_phone(pages: OpenPage, page_server: PageServer) -> None:
    page = pages(width=PHONE)
    page.goto(page_server.url("/method"))
    scroll_width, inner = page.evaluate(SIDEWAYS)
    assert inner == PHONE and scroll_width <= inner + 1
    page.evaluate("document.querySelector('main').append(Object.assign(document.createElement('div'),"
                  " {style: 'width: 600px; height: 1px'}))")
    scroll_width, inner = page.evaluate(SIDEWAYS)
    assert scroll_width > inner + 1
