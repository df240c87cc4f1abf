"""The pages' charts in a real browser (docs/PAGES.md#charts-and-downloads): the explorer's
ranking chart (readiness/pages/static/ranking.js) draws the view best first; its toolbar
(export.js) downloads a PNG twice the chart's size, a standalone SVG and the CSV of the rows,
and shares the permalink; every chart's text is at least 11 px as rendered, on a phone too.

Until the explorer draws the chart itself, a test draws it there as the explorer would: it
imports the module by its hashed URL and calls ``drawRankingChart`` with the view's rows, as
the API answers them."""

from __future__ import annotations

import re
import struct
import urllib.request
import xml.etree.ElementTree as ElementTree
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import pandas
import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect

from readiness.pages.assets import read_assets
from tests.browser import (
    SCREENSHOTS,
    OpenPage,
    PageServer,
    another_site,
    fit_script,
    screenshot,
    skip_module_without_chromium,
)
from tests.test_pages_browser import api, serious_violations

skip_module_without_chromium()

COMPOSITE = "Composite Readiness Score"
FIELDS = ["Country Code", "Global Rank", "Country Name", "Region", "Income Level", COMPOSITE,
          "Infrastructure Score", "Human Capital Score", "School Access and Gender Parity Score",
          "Innovation Score", "Governance Score", "FCV Status"]
FIRST = 20  # ranking.js: the bars drawn before "Show all"
ACCENT = (0x0B, 0x5C, 0xAD)  # site.css --accent: the bars' colour
SVG = "{http://www.w3.org/2000/svg}"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}

DRAW = """async ([url, view]) => {
  const { drawRankingChart } = await import(url);
  let box = document.getElementById("ranking-chart-test");
  if (!box) {
    box = document.createElement("section");
    box.id = "ranking-chart-test";
    box.setAttribute("aria-label", "Ranking chart");
    document.querySelector("main").append(box);
  }
  drawRankingChart(box, view);
}"""


def module_url(page: Page, name: str) -> str:
    """The hashed URL of the static module ``name`` (``ranking.js``) as the running server
    names it: found among the page's modules and their imports, else as the files hash now."""
    stem = re.escape(name.removesuffix(".js"))
    seen: set[str] = set()
    pending: list[str] = page.locator("script[type=module]").evaluate_all("(scripts) => scripts.map((s) => s.src)")
    while pending:
        source = pending.pop()
        if source in seen:
            continue
        seen.add(source)
        if re.search(rf"/static/{stem}\.[0-9a-f]+\.js$", source):
            return urlsplit(source).path
        with urllib.request.urlopen(source, timeout=10) as response:
            body = response.read().decode()
        pending += [urljoin(source, path) for path in re.findall(r"/static/[\w-]+\.[0-9a-f]+\.js", body)]
    return read_assets().url(name)


def open_explorer(page: Page, server: PageServer, query: dict[str, str]) -> None:
    page.goto(server.url("/explore?" + urlencode(query)))
    expect(page.locator("#status")).to_contain_text("Showing")


def view_rows(server: PageServer, query: dict[str, str]) -> list[dict[str, Any]]:
    """The rows the explorer shows for ``query``: what the API answers to the same request."""
    path = "/api/v1/readiness?" + urlencode({**query, "fields": ",".join(FIELDS)})
    rows: list[dict[str, Any]] = api(server, path)["data"]
    return rows


def explorer_chart(page: Page, server: PageServer, query: dict[str, str]) -> Locator:
    """The explorer's own ranking chart of the view ``query``, drawn at its own width."""
    open_explorer(page, server, query)
    chart = page.locator("#ranking-chart svg.rank-chart")
    expect(chart).to_have_count(1)
    drawn_at_own_width(chart)
    return chart


def draw_view(page: Page, server: PageServer, query: dict[str, str], label: str) -> Locator:
    """A ranking chart of the explorer's view ``query`` charted by its sorted field, drawn by the
    test on the explorer page (below the explorer's own) as the explorer would draw it."""
    open_explorer(page, server, query)
    csv = server.url("/api/v1/readiness?" + urlencode({**query, "fields": ",".join(FIELDS), "format": "csv"}))
    view = {"field": query.get("sort", "Global Rank"), "label": label, "rows": view_rows(server, query),
            "snapshot": "2026-11", "permalink": page.url, "csv": csv}
    page.evaluate(DRAW, [module_url(page, "ranking.js"), view])
    chart = page.locator("#ranking-chart-test svg.rank-chart")
    expect(chart).to_have_count(1)
    drawn_at_own_width(chart)
    return chart


def drawn_at_own_width(chart: Locator) -> None:
    """Wait until the chart's viewBox is as wide as the chart on screen (the redraw after a resize)."""
    chart.page.wait_for_function(
        "(svg) => Math.abs(svg.viewBox.baseVal.width - svg.getBoundingClientRect().width) < 0.5",
        arg=chart.element_handle())


def bars(chart: Locator) -> list[tuple[str, float | None]]:
    """(code, value) of each row the chart draws, top to bottom; None for "no score"."""
    drawn: list[tuple[str, float | None]] = chart.evaluate("""(svg) => [...svg.querySelectorAll(".rc-row")].map((g) => {
      const rect = g.querySelector("rect");
      return [g.dataset.code, rect ? Number(rect.dataset.value) : null];
    })""")
    return [(code, value) for code, value in drawn]


def best_first(rows: list[dict[str, Any]], field: str) -> list[tuple[str, float | None]]:
    """The rows best first by ``field``: highest first, ties in the table's order, no value last."""
    ordered = sorted(rows, key=lambda row: (row[field] is None, -(row[field] or 0)))
    return [(row["Country Code"], row[field]) for row in ordered]


def test_ranking_chart_draws_the_view_best_first_whatever_the_tables_order(page: Page, page_server: PageServer) -> None:
    # The table sorted by rank, worst first: the chart still puts the best first, by composite.
    query = {"sort": "Global Rank", "order": "desc"}
    chart = explorer_chart(page, page_server, query)
    rows = view_rows(page_server, query)
    expected = best_first(rows, COMPOSITE)
    assert bars(chart) == expected[:FIRST]
    # The API's own best first: sort=score&order=desc (ties by code; no tie in the first 20 here).
    top = api(page_server, "/api/v1/readiness?sort=score&order=desc&limit=20&fields=Country%20Code")["data"]
    assert [code for code, _ in bars(chart)] == [row["Country Code"] for row in top]
    expect(chart.locator("text.rc-title")).to_have_text("Composite score, best first")
    expect(chart).to_contain_text("Snapshot 2026-11")
    expect(chart).to_contain_text(f"the first {FIRST} of {len(rows)} economies")
    assert "Composite score, best first" in (chart.get_attribute("aria-label") or "")
    best = next(row for row in rows if row["Country Code"] == expected[0][0])
    expect(chart.locator("g.rc-row").first).to_contain_text(f"{best['Country Name']}{best[COMPOSITE]:.2f}")
    chart.scroll_into_view_if_needed()
    screenshot(page, "ranking-chart", full_page=False)
    element_shot(chart, "ranking-chart-1280")

    section = page.locator("#ranking-chart")
    section.get_by_role("button", name=f"Show all {len(rows)}").click()
    expect(chart.locator("g.rc-row")).to_have_count(len(rows))
    drawn_at_own_width(chart)
    assert bars(chart) == expected
    expect(section.get_by_role("button", name=f"Show the first {FIRST}")).to_be_focused()
    # The choice stays while the view changes: a filter redraws the chart with every bar.
    page.get_by_label("Region").select_option(label="Europe & Central Asia")
    europe = view_rows(page_server, {"region": "ECA", **query})
    expect(chart.locator("g.rc-row")).to_have_count(len(europe))
    assert bars(chart) == best_first(europe, COMPOSITE)
    expect(section.get_by_role("button", name=f"Show the first {FIRST}")).to_be_visible()


def test_ranking_chart_with_your_own_weights_charts_the_custom_score(page: Page, page_server: PageServer) -> None:
    query = {"weights": "3,1,1,1,0", "region": "MENA"}
    chart = explorer_chart(page, page_server, query)
    rows = view_rows(page_server, {**query, "sort": "custom", "order": "desc"})
    assert bars(chart) == best_first(rows, "Custom Score")
    expect(chart.locator("text.rc-title").first).to_contain_text("Custom score (your weights,")
    assert "not the published index" in (chart.get_attribute("aria-label") or "")


def test_ranking_chart_of_a_filtered_dimension_lists_economies_without_a_score_last(
    page: Page, page_server: PageServer
) -> None:
    query = {"region": "SSA", "sort": "Governance Score", "order": "asc"}
    chart = draw_view(page, page_server, query, "Governance")
    rows = view_rows(page_server, query)
    assert len(rows) > 30  # a long view: the first 20 drawn
    assert bars(chart) == best_first(rows, "Governance Score")[:FIRST]
    page.locator("#ranking-chart-test").get_by_role("button", name=f"Show all {len(rows)}").click()
    expect(chart.locator("g.rc-row")).to_have_count(len(rows))
    assert bars(chart) == best_first(rows, "Governance Score")
    expect(chart.locator("text.rc-title")).to_have_text("Governance score, best first")
    unscored = [row for row in rows if row["Governance Score"] is None]
    for row in unscored:
        expect(chart.locator(f'g.rc-row[data-code="{row["Country Code"]}"]')).to_contain_text("no score")
    # A short view is drawn whole, with no button.
    query = {"region": "SAS", "sort": "Country Name"}
    chart = draw_view(page, page_server, query, "Economy")
    rows = view_rows(page_server, query)
    assert bars(chart) == best_first(rows, COMPOSITE)
    expect(page.locator("#ranking-chart-test .rc-toggle")).to_have_count(0)
    expect(chart).to_contain_text("the table is sorted by Economy")


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGBA pixels of an 8-bit RGBA, non-interlaced PNG (what
    Chromium's canvas writes); raises AssertionError for anything else. Pillow is not a
    dependency: this is the PNG specification's decoding, filters included."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, idat, header = 8, b"", b""
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])[0]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, colour, interlace) == (8, 6, 0), (depth, colour, interlace)
    raw, stride, rows, previous = zlib.decompress(idat), width * 4, [], bytearray(width * 4)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = previous[i]
            c = previous[i - 4] if i >= 4 else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def pixels(rows: list[bytes], colour: tuple[int, int, int]) -> int:
    return sum(1 for row in rows for i in range(0, len(row), 4) if tuple(row[i:i + 3]) == colour and row[i + 3] == 255)


def download(tools: Locator, name: str) -> Path:
    """Press ``name`` in the chart's toolbar ``tools``; the file it downloads, saved beside the screenshots."""
    with tools.page.expect_download() as info:
        tools.get_by_role("button", name=name, exact=True).or_(tools.get_by_role("link", name=name, exact=True)).click()
    path = SCREENSHOTS / info.value.suggested_filename
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    info.value.save_as(path)
    return path


def test_ranking_chart_downloads_png_svg_and_csv(page: Page, page_server: PageServer) -> None:
    query = {"region": "LAC", "sort": "Infrastructure Score", "order": "desc"}
    chart = explorer_chart(page, page_server, query)
    tools = page.locator("#ranking-chart").get_by_role("group", name="Take this chart away")
    rows = view_rows(page_server, query)
    shown = bars(chart)
    assert shown == best_first(rows, COMPOSITE)[:FIRST]
    box = chart.bounding_box()
    assert box is not None

    png = download(tools, "Download PNG")
    assert png.name == "ranking-composite-score-2026-11.png"
    width, height, image = decode_png(png.read_bytes())
    assert (width, height) == (round(box["width"] * 2), round(box["height"] * 2))
    assert image[0][:4] == b"\xff\xff\xff\xff"  # the white background the file carries
    assert pixels(image, ACCENT) > 1000  # the bars, in the page's colour: the styles travelled
    expect(tools.get_by_role("status")).to_have_text("PNG saved.")

    svg = download(tools, "Download SVG")
    assert svg.name == "ranking-composite-score-2026-11.svg"
    root = ElementTree.parse(svg).getroot()
    assert root.tag == f"{SVG}svg"
    assert (float(root.get("width", 0)), float(root.get("height", 0))) == pytest.approx((box["width"], box["height"]),
                                                                                      abs=0.5)
    rects = root.findall(f".//{SVG}g/{SVG}rect")
    assert [float(rect.get("data-value", "nan")) for rect in rects] == [v for _, v in shown if v is not None]
    # Solid bars in the accent colour; a microstate's hollow (ranking.js marks them), in the file too.
    listed = api(page_server, "/api/v1/readiness?fields=Country%20Code,Microstate")["data"]
    micro = {row["Country Code"] for row in listed if row["Microstate"]}
    for rect, (code, _) in zip(rects, [bar for bar in shown if bar[1] is not None], strict=True):
        style = dict(part.split(":", 1) for part in (rect.get("style") or "").split(";") if part)
        assert style["fill"] == ("rgb(255, 255, 255)" if code in micro else "rgb(11, 92, 173)"), code
        assert rect.get("class") is None  # no class left for a style sheet the file does not have
    texts = root.findall(f".//{SVG}text")
    assert all("font-size:" in (text.get("style") or "") for text in texts)
    assert any(text.text == "Composite score, best first" for text in texts)

    csv = download(tools, "Data (CSV)")
    table = pandas.read_csv(csv, encoding="utf-8-sig")
    assert list(table["Country Code"]) == [row["Country Code"] for row in rows]
    assert list(table[COMPOSITE]) == pytest.approx([row[COMPOSITE] for row in rows], nan_ok=True)


def test_share_shows_the_permalink_selected_and_copies_it(pages: OpenPage, page_server: PageServer) -> None:
    # Without clipboard permission the link is shown selected, for Ctrl+C; it is the view's link.
    page = pages()
    query = {"region": "EAP", "sort": "Country Name"}
    chart = explorer_chart(page, page_server, query)
    drawn = bars(chart)
    tools = page.locator("#ranking-chart").get_by_role("group", name="Take this chart away")
    tools.get_by_role("button", name="Share").click()
    field = tools.get_by_role("textbox", name="Link or snippet to copy")
    expect(field).to_be_visible()
    link = page.locator("#permalink").evaluate("(a) => a.href")
    expect(field).to_have_value(link)
    assert field.evaluate("(input) => [input.selectionStart, input.selectionEnd]") == [0, len(link)]
    said = re.compile(r"^Link (copied\.|selected: copy it with Ctrl\+C or ⌘C\.)$")
    expect(tools.get_by_role("status")).to_have_text(said)
    expect(tools.get_by_role("button", name="Embed")).to_have_count(0)  # the explorer has no embed route
    element_shot(page.locator("#ranking-chart"), "ranking-chart-share")
    # With it, the link is on the clipboard; opened, it shows the same chart.
    page = pages(permissions=["clipboard-read", "clipboard-write"])
    explorer_chart(page, page_server, query)
    tools = page.locator("#ranking-chart").get_by_role("group", name="Take this chart away")
    tools.get_by_role("button", name="Share").click()
    expect(tools.get_by_role("status")).to_have_text("Link copied.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == link
    page.goto(copied)
    chart = page.locator("#ranking-chart svg.rank-chart")
    expect(chart.locator("g.rc-row")).to_have_count(len(drawn))
    assert bars(chart) == drawn


def test_line_chart_tools_download_a_png_and_give_an_embed_snippet_that_frames(
    page: Page, page_server: PageServer
) -> None:
    # The toolbar under the country view's line chart, with the embed route it has.
    page.goto(page_server.url("/explore/KEN"))
    line = page.locator("#history svg.line-chart")
    expect(line).to_have_count(1)
    drawn_at_own_width(line)
    page.evaluate("""async (url) => {
      const { chartTools } = await import(url);
      const box = document.createElement("div");
      box.id = "tools-test";
      document.getElementById("history").append(box);
      box.append(chartTools({
        chart: () => document.querySelector("#history svg.line-chart"), name: () => "kenya",
        csv: () => "/api/v1/history?code=KEN&format=csv", permalink: () => location.href,
        embed: () => "/embed/explore/KEN", title: () => "Kenya's \\"scores\\" & <ranks>",
      }));
    }""", module_url(page, "export.js"))
    tools = page.locator("#tools-test")
    box = line.bounding_box()
    assert box is not None
    width, height, image = decode_png(download(tools, "Download PNG").read_bytes())
    assert (width, height) == (round(box["width"] * 2), round(box["height"] * 2))
    assert pixels(image, (0x1A, 0x7F, 0x37)) > 50  # a series' own colour (site.css --s3), carried into the file

    tools.get_by_role("button", name="Embed").click()
    field = tools.get_by_role("textbox", name="Link or snippet to copy")
    snippet = (f'<iframe src="{page_server.url("/embed/explore/KEN")}" '
               'title="Kenya\'s &quot;scores&quot; &amp; &lt;ranks>" '
               'width="100%" height="760" style="border:0" loading="lazy"></iframe>'
               + fit_script(page_server.url("")))
    expect(field).to_have_value(snippet)
    expect(tools.get_by_role("status")).to_contain_text("Embed code")
    # Pasted into another site's page (another origin: a server of the test's own), the snippet
    # shows the economy.
    with another_site({"/post": f"<!doctype html><title>A blog</title><h1>My post</h1>{snippet}"}) as blog:
        page.goto(f"{blog}/post")
        expect(page.frame_locator("iframe").get_by_role("heading", level=1)).to_have_text("Kenya")


SMALLEST_TEXT = """(svg) => [...svg.querySelectorAll("text")].map((text) => ({
  text: text.textContent,
  computed: parseFloat(getComputedStyle(text).fontSize),
  rendered: text.getBoundingClientRect().height,
  scale: svg.getScreenCTM().a,
}))"""


def assert_text_at_least_11px(chart: Locator) -> list[dict[str, Any]]:
    """Every text of ``chart`` is at least 11 px: its CSS size, that size as the chart's scale
    renders it, and its box on screen."""
    texts: list[dict[str, Any]] = chart.evaluate(SMALLEST_TEXT)
    assert texts
    for text in texts:
        assert text["computed"] >= 11, text
        assert text["computed"] * text["scale"] >= 11, text
        assert text["rendered"] >= 11, text
    return texts


def test_chart_text_is_at_least_11px_on_a_phone(pages: OpenPage, page_server: PageServer) -> None:
    page = pages()
    page.set_viewport_size(PHONE)
    page.goto(page_server.url("/explore/KEN"))
    line = page.locator("#history svg.chart")
    expect(line).to_have_count(1)
    drawn_at_own_width(line)
    assert line.bounding_box()["width"] < 400  # type: ignore[index]
    ticks = assert_text_at_least_11px(line)
    snapshots = api(page_server, "/api/v1/history?code=KEN")["data"]
    axis = line.evaluate("(svg) => [svg.dataset.axisMin, svg.dataset.axisMax]")  # fitted to Kenya's scores
    assert {text["text"] for text in ticks} >= {*axis, snapshots[-1]["snapshot"], "Composite", "Governance"}
    line.scroll_into_view_if_needed()
    element_shot(line, "line-chart-390px")
    # Wider again: redrawn at the new width, the text the same size.
    page.set_viewport_size(DESKTOP)
    drawn_at_own_width(line)
    assert line.bounding_box()["width"] > 600  # type: ignore[index]
    assert_text_at_least_11px(line)

    page = pages()
    page.set_viewport_size(PHONE)
    chart = explorer_chart(page, page_server, {})
    assert chart.bounding_box()["width"] < 400  # type: ignore[index]
    assert_text_at_least_11px(chart)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # nothing sideways
    chart.scroll_into_view_if_needed()
    screenshot(page, "ranking-chart-390px", full_page=False)
    element_shot(chart, "ranking-chart-390px-chart")
    assert serious_violations(page, {"include": [["#ranking-chart"]]}) == []
    # Wider again: the names go beside the bars, the text the same size.
    page.set_viewport_size(DESKTOP)
    drawn_at_own_width(chart)
    assert chart.bounding_box()["width"] > 900  # type: ignore[index]
    assert_text_at_least_11px(chart)


def element_shot(element: Locator, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    element.screenshot(path=str(path))
    return path


# Line charts you can read (chart.js, issue 33): the y axis fitted to the values, zero shown or the
# break drawn and said; each line's name at its end, nudged apart so no two overlap.

LINE_LAYOUT = """(svg) => ({
  min: Number(svg.dataset.axisMin), max: Number(svg.dataset.axisMax), label: svg.getAttribute("aria-label"),
  ticks: [...svg.querySelectorAll(":scope > text.tick")].map((t) => t.textContent),
  broken: svg.querySelectorAll(".axis-break").length, note: svg.querySelector(".axis-note")?.textContent ?? null,
  ends: [...svg.querySelectorAll("g.series g.end-label")].map((g) => {
    const box = g.querySelector("text").getBoundingClientRect();
    return { label: g.dataset.label, text: g.querySelector("text").textContent,
             top: box.top, bottom: box.bottom, left: box.left, right: box.right };
  }),
  points: Math.max(...[...svg.querySelectorAll("g.series circle, g.series path.marker")]
    .map((p) => p.getBoundingClientRect().right)),
  right: svg.getBoundingClientRect().right,
})"""


def line_layout(chart: Locator) -> dict[str, Any]:
    layout: dict[str, Any] = chart.evaluate(LINE_LAYOUT)
    return layout


def assert_labels_apart(ends: list[dict[str, Any]]) -> None:
    """No two end-of-line labels overlap, and each is wholly inside the chart."""
    ordered = sorted(ends, key=lambda end: end["top"])
    for upper, lower in zip(ordered, ordered[1:], strict=False):
        assert upper["bottom"] <= lower["top"] + 0.5, (upper, lower)


def test_compare_lines_are_fitted_and_named_at_their_ends(pages: OpenPage, page_server: PageServer) -> None:
    history = api(page_server, "/api/v1/history?codes=KEN,BRA,IND&fields=score")["data"]
    values = [row[COMPOSITE] for row in history if row[COMPOSITE] is not None]
    for width in (1280, 390):
        page = pages(width=width)
        page.goto(page_server.url("/compare?codes=KEN,BRA,IND&means=region,world"))
        chart = page.locator("#compare-chart svg.line-chart")
        expect(chart).to_have_count(1)
        expect(chart.locator("g.end-label")).to_have_count(7)  # three economies, three regions' means, the world's
        drawn_at_own_width(chart)
        layout = line_layout(chart)
        # Fitted: the axis holds every value, starts well above zero (the values are 30 to 70), says so.
        assert 0 < layout["min"] <= min(values) and max(values) <= layout["max"] < 100, layout
        assert layout["max"] - layout["min"] <= 60
        assert layout["broken"] == 1 and layout["note"] == f"Axis from {layout['min']:g}, not zero"
        assert f"the axis runs from {layout['min']:g} to {layout['max']:g}, not from zero" in layout["label"]
        assert f"{layout['min']:g}" in layout["ticks"] and "100" not in layout["ticks"]
        # Named at their ends: every line, right of the last points, none over another, all in view.
        names = {end["label"] for end in layout["ends"]}
        assert {"Kenya", "Brazil", "India", "World mean", "Sub-Saharan Africa mean"} <= names
        assert_labels_apart(layout["ends"])
        for end in layout["ends"]:
            assert end["left"] > layout["points"] and end["right"] <= layout["right"] + 0.5, end
        if width == 1280:
            assert all(end["text"] == end["label"] for end in layout["ends"])  # room for every name whole
        chart.scroll_into_view_if_needed()
        element_shot(chart, f"compare-lines-{width}")


def test_profile_lines_name_innovation_and_governance_apart(pages: OpenPage, page_server: PageServer) -> None:
    # Kenya's innovation and governance scores lie within a point or two of each other: their names
    # were drawn over each other; now each is nudged clear of the other.
    history = api(page_server, "/api/v1/history?code=KEN")["data"]
    last = history[-1]
    assert abs(last["Innovation Score"] - last["Governance Score"]) < 3
    for width in (1280, 390):
        page = pages(width=width)
        page.goto(page_server.url("/explore/KEN"))
        chart = page.locator("#history svg.line-chart")
        expect(chart).to_have_count(1)
        drawn_at_own_width(chart)
        layout = line_layout(chart)
        assert {end["label"] for end in layout["ends"]} == {
            "Composite", "Infrastructure", "Human capital", "School access & gender parity", "Innovation", "Governance"}
        assert_labels_apart(layout["ends"])
        scores = [row[field] for row in history for field in row if field.endswith("Score") and row[field] is not None]
        assert layout["min"] <= min(scores) and max(scores) <= layout["max"]
        assert layout["max"] - layout["min"] < 100  # fitted, not 0 to 100
        chart.scroll_into_view_if_needed()
        element_shot(chart, f"profile-lines-{width}")


def test_fitted_axis_shows_zero_when_the_values_come_near_it(page: Page, page_server: PageServer) -> None:
    page.goto(page_server.url("/explore/KEN"))
    axes = page.evaluate("""async (url) => {
      const { fittedAxis, spreadLabels } = await import(url);
      return { near: fittedAxis([3, 72, null]), flat: fittedAxis([41, 42.5]), none: fittedAxis([null]),
               top: fittedAxis([97, 99.5]), spread: spreadLabels([100, 101, 102, 40], 14, 10, 110) };
    }""", module_url(page, "chart.js"))
    assert axes["near"] == {"min": 0, "max": 80, "ticks": [0, 20, 40, 60, 80], "broken": False}
    flat = axes["flat"]
    assert flat["broken"] and flat["min"] <= 41 and flat["max"] >= 42.5 and flat["max"] - flat["min"] >= 10
    assert axes["none"]["ticks"] == [0, 25, 50, 75, 100]
    assert axes["top"]["max"] == 100 and axes["top"]["min"] < 97
    spread = axes["spread"]
    assert spread[3] == 40  # far from the others: where its line ends
    middle = sorted(spread[:3])
    assert middle[1] - middle[0] >= 14 and middle[2] - middle[1] >= 14 and middle[2] <= 110
    assert spread[:3] == sorted(spread[:3])  # the lines' order kept
