"""The site in Chinese, in Chromium, as a reader whose browser asks for it (``locale="zh-CN"``
sends ``Accept-Language: zh-CN``): no English on a page, or in what its link says when shared,
but proper names, codes and the words of the API (on /docs, Swagger UI's body alone), numbers
and dates written the Chinese way, and a switch that changes the language and keeps the page's
address; and a page forced right to left mirrors its layout (docs/PAGES.md#languages,
#right-to-left). Fixtures: tests/browser.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser import OpenPage, PageServer, screenshot, skip_module_without_chromium
from tests.site_pages import PAGES, SitePage, page_at, wait_until_ready

skip_module_without_chromium()

SHARED_TEXT = ("description", "og:site_name", "og:title", "og:description", "og:image:alt", "twitter:title",
               "twitter:description", "twitter:image:alt")
"""The share meta a chat or social app shows as text (readiness/pages/share.py)."""

SHARE_META = """() => Object.fromEntries([...document.head.querySelectorAll("meta[name], meta[property]")]
  .map(meta => [meta.getAttribute("name") || meta.getAttribute("property"), meta.content]))"""

ALTERNATES = """() => Object.fromEntries([...document.head.querySelectorAll("link[rel=alternate][hreflang]")]
  .map(link => [link.hreflang, link.href]))"""

VISIBLE_TEXT = """() => {
  // Every visible text of the page, less what is English by design: an element marked with
  // another language (the switch's "English", the citation of an English-titled dataset), code
  // and commands (paths, parameters), mathematical variables (<var>), and what no reader sees.
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const skipped = "code, pre, var, script, style, noscript, [hidden], [lang]:not([lang^=zh])";
    if (!parent || parent.closest(skipped)) continue;
    if (!parent.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    texts.push(node.textContent);
  }
  return texts.join(" ");
}"""

ALLOWED = frozenset({
    # Formats, protocols and tools named as such.
    "JavaScript", "OpenAPI", "BibTeX", "curl",
    # The logarithm and its variable, as mathematics writes them (the method's transform log(1 + x)).
    "log", "x",
    # Keys as the keyboard labels them.
    "Ctrl", "Enter",
    # The map's source, by its proper names (static/world-110m.json).
    "Natural", "Earth", "world-atlas", "Equal",
})
"""Latin words a Chinese page may hold besides codes and acronyms (all capitals: KEN, API, CSV)."""

URL = re.compile(r"\S*[/?=]\S*")
LATIN_WORD = re.compile(r"(?<![0-9])[A-Za-z][A-Za-z'’-]*")  # not a unit after a number (1:110m)


def english_words(text: str) -> list[str]:
    """The Latin words of ``text`` that are neither codes, acronyms, parts of a URL or parameter,
    nor ALLOWED: on a Chinese page, English left untranslated."""
    words = LATIN_WORD.findall(URL.sub(" ", text))
    return sorted({word for word in words if not (word.isupper() or word in ALLOWED)})


def test_english_words_finds_english_and_lets_codes_urls_and_names_pass() -> None:
    assert english_words("肯尼亚 KEN 的得分 API /api/v1/readiness?code=KEN Natural Earth") == []
    assert english_words("加载中… Loading the map") == ["Loading", "map", "the"]


def open_chinese(pages: OpenPage, server: PageServer, site_page: SitePage, width: int = 1280) -> Page:
    page = pages(width=width, locale="zh-CN")
    response = page.goto(server.url(site_page.path))
    assert response is not None and response.status == 200
    wait_until_ready(page, site_page)
    return page


@pytest.mark.parametrize("site_page", PAGES, ids=lambda p: p.path)
def test_chinese_page_holds_no_english_but_names_and_codes(
    pages: OpenPage, page_server: PageServer, site_page: SitePage
) -> None:
    page = open_chinese(pages, page_server, site_page)
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
    assert page.evaluate("document.documentElement.dir") == "ltr"
    # Let the scripts' later text arrive (statuses, lists), then read everything shown.
    page.wait_for_load_state("networkidle")
    text = page.evaluate(VISIBLE_TEXT)
    assert english_words(text) == [], text
    assert english_words(page.title()) == []
    # What the page's link says when shared is Chinese too, and says it is.
    meta = page.evaluate(SHARE_META)
    assert {name: english_words(meta[name]) for name in SHARED_TEXT} == dict.fromkeys(SHARED_TEXT, []), meta
    assert meta["og:title"] == page.title() and re.search(r"[\u4e00-\u9fff]", meta["description"])
    assert (meta["og:locale"], meta["og:locale:alternate"]) == ("zh_CN", "en_US")
    assert meta["og:url"].endswith("?lang=zh") and meta["og:image"].endswith("?lang=zh")
    alternates = page.evaluate(ALTERNATES)
    assert sorted(alternates) == ["en", "x-default", "zh"]
    assert alternates["zh"] == meta["og:url"] and alternates["x-default"] == meta["og:url"].removesuffix("?lang=zh")
    screenshot(page, f"zh-{site_page.slug}", full_page=False)


def test_docs_in_chinese_leaves_only_swagger_uis_body_in_english(pages: OpenPage, page_server: PageServer) -> None:
    docs = page_at("/docs")
    page = open_chinese(pages, page_server, docs)
    # The page's own chrome is Chinese: its title, heading, introduction and the note on the reference.
    expect(page).to_have_title("API 参考 · 准备度指数")
    expect(page.locator("main > h1")).to_have_text("API 参考")
    expect(page.locator("main > p").first).to_contain_text("下方的参考界面为英文")
    # Without JavaScript its message is Chinese too (read from the markup: a <noscript> is not shown).
    noscript = page.eval_on_selector("main noscript", "element => element.textContent")
    assert english_words(re.sub(r"<[^>]+>", " ", noscript)) == [] and "JavaScript" in noscript
    # The one part of the page's content in English, and so marked: Swagger UI's body, which
    # draws the API's English OpenAPI document. Nothing else of <main> is exempt.
    marked = page.evaluate("""() => [...document.querySelectorAll("main [lang]:not([lang^=zh])")]
      .filter(element => !element.parentElement.closest("main [lang]:not([lang^=zh])"))
      .map(element => element.id || element.outerHTML.slice(0, 80))""")
    assert marked == ["swagger-ui"]
    assert page.eval_on_selector("#swagger-ui", "element => element.lang") == "en"
    assert english_words(page.inner_text("#swagger-ui"))  # real English: the exemption is needed
    outside = page.evaluate(VISIBLE_TEXT.replace("[lang]:not([lang^=zh])", "#swagger-ui, header [lang=en], "
                                                 "footer [lang=en]"))
    assert english_words(outside) == [], outside


RTL_LAYOUT = """() => {
  const box = (element) => element.getBoundingClientRect();
  const brand = box(document.querySelector("header.site .brand"));
  const languages = box(document.querySelector("header.site .languages"));
  const items = [...document.querySelectorAll("header.site nav li")].map(item => box(item).left);
  const heads = [...document.querySelectorAll("#scores thead th")].map(head => box(head).left);
  const first = document.querySelector("#scores thead th");  // "Score": text-align start
  const range = document.createRange();
  range.selectNodeContents(first);
  const columns = [...document.querySelectorAll(".histogram .column")].map(column => box(column).left);
  return {
    width: window.innerWidth, brandLeft: brand.left, brandRight: brand.right, languagesLeft: languages.left,
    languagesRight: languages.right, firstItem: items[0], secondItem: items[1],
    firstHead: heads[0], lastHead: heads.at(-1),
    headTextLeft: range.getBoundingClientRect().left - box(first).left,
    headTextRight: box(first).right - range.getBoundingClientRect().right,
    histogramFirst: columns[0], histogramLast: columns.at(-1),
    svgDirection: getComputedStyle(document.querySelector("main svg")).direction,
    scrollWidth: document.scrollingElement.scrollWidth,
  };
}"""


def open_forced(pages: OpenPage, page_server: PageServer, direction: str, width: int) -> Page:
    """/explore/KEN with ``dir=direction`` forced on its <html> as the server sends it, so the
    page's scripts draw it in that direction from the start (as a right-to-left language would)."""
    page = pages(width=width)

    def forced(route: Route) -> None:
        body = route.fetch().text()
        assert '<html lang="en" dir="ltr">' in body
        route.fulfill(status=200, content_type="text/html; charset=utf-8",
                      body=body.replace('<html lang="en" dir="ltr">', f'<html lang="en" dir="{direction}">', 1))

    page.route(re.compile(r"/explore/KEN$"), forced)
    page.goto(page_server.url("/explore/KEN"))
    wait_until_ready(page, page_at("/explore/KEN"))
    page.wait_for_selector(".histogram .column", state="attached")
    return page


def test_page_forced_right_to_left_mirrors_its_layout(pages: OpenPage, page_server: PageServer) -> None:
    ltr = open_forced(pages, page_server, "ltr", 1280).evaluate(RTL_LAYOUT)
    page = open_forced(pages, page_server, "rtl", 1280)
    rtl = page.evaluate(RTL_LAYOUT)
    width = rtl["width"]
    # Left to right, the header starts at the left: the site's name first, the switch at the end.
    assert ltr["brandLeft"] < 40 and ltr["languagesRight"] > width - 60 and ltr["firstItem"] < ltr["secondItem"]
    # Right to left, the same header mirrored: its first item at the right, the switch at the left.
    assert rtl["brandRight"] > width - 40 and rtl["languagesLeft"] < 60
    assert rtl["firstItem"] > rtl["secondItem"]
    # Tables run right to left: the first column at the right, a header's text at its cell's start (right).
    assert ltr["firstHead"] < ltr["lastHead"] and rtl["firstHead"] > rtl["lastHead"]
    assert ltr["headTextLeft"] < ltr["headTextRight"] and rtl["headTextRight"] < rtl["headTextLeft"]
    # The charts and the histogram keep their geometry: 0 on the left, their text where drawn.
    assert rtl["histogramFirst"] < rtl["histogramLast"] and rtl["svgDirection"] == "ltr"
    assert rtl["scrollWidth"] <= width + 1
    screenshot(page, "rtl-explore-KEN", full_page=False)
    # The skip link, focused, shows at the start of the line: the right.
    page.keyboard.press("Tab")
    skip = page.locator("a.skip")
    expect(skip).to_be_focused()
    skip_box = skip.bounding_box()
    assert skip_box is not None and skip_box["x"] + skip_box["width"] > width - 40 and skip_box["y"] >= 0


def test_page_forced_right_to_left_fits_the_phone_and_holds_names_at_the_right(
    pages: OpenPage, page_server: PageServer
) -> None:
    page = open_forced(pages, page_server, "rtl", 390)
    assert page.evaluate(RTL_LAYOUT)["scrollWidth"] <= 391  # nothing pushes the page sideways
    # The indicators' table scrolls inside its box with each indicator's name held at the
    # line's start, here the right, however far the table is scrolled (to its end: the left).
    page.wait_for_selector(".indicators tbody th", state="attached")
    held = page.evaluate("""() => {
      const wrap = document.querySelector(".indicators-wrap");
      const name = () => document.querySelector(".indicators tbody th").getBoundingClientRect().right;
      const before = name();
      wrap.scrollLeft = -(wrap.scrollWidth - wrap.clientWidth);
      return {scrollable: wrap.scrollWidth > wrap.clientWidth, before, after: name(),
              right: wrap.getBoundingClientRect().right, scrolled: wrap.scrollLeft};
    }""")
    assert held["scrollable"] and held["scrolled"] < 0
    assert abs(held["after"] - held["before"]) < 1 and held["right"] - held["after"] < 4
    screenshot(page, "rtl-explore-KEN-phone", full_page=False)


def test_landing_page_in_chinese_names_numbers_and_dates_the_chinese_way(
    pages: OpenPage, page_server: PageServer
) -> None:
    page = open_chinese(pages, page_server, page_at("/"))
    # The date in prose as CLDR writes it in Chinese, the economies by their Chinese names.
    expect(page.locator(".facts time")).to_have_text(re.compile(r"^\d{4}年\d{1,2}月\d{1,2}日$"))
    expect(page.locator("footer.site time[data-published]")).to_have_text(re.compile(r"年.*月.*日"))
    search = page.get_by_role("searchbox", name="查找经济体")
    search.fill("肯尼亚")
    expect(page.locator("#find-results a").first).to_have_text("肯尼亚")
    search.fill("DRC")  # the names people type in English still find it, shown in Chinese
    expect(page.locator("#find-results a").first).to_have_text("刚果（金）")
    expect(page.locator("#top tbody tr").first.locator("th")).to_have_text(re.compile(r"^[^A-Za-z]+$"))
    screenshot(page, "zh-landing-search", full_page=False)


def test_switch_changes_the_language_keeps_the_address_and_the_next_page(
    pages: OpenPage, page_server: PageServer
) -> None:
    page = pages(locale="en-US")
    page.goto(page_server.url("/map?score=infra&region=SSA"))
    wait_until_ready(page, page_at("/map"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Map")
    page.get_by_role("link", name="中文").click()
    expect(page).to_have_url(re.compile(r"/map\?score=infra&region=SSA&lang=zh$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("地图")
    expect(page.locator("#map-region")).to_have_value("SSA")  # the view the address chose, kept
    # The choice is kept: the next page, with no lang= in its address, is in Chinese too.
    page.get_by_role("navigation", name="网站").get_by_role("link", name="比较").click()
    expect(page.get_by_role("heading", level=1)).not_to_have_text("Compare")
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
    page.get_by_role("link", name="English").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("Compare"))
