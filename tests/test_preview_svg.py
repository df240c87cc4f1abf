"""The share previews' drawings (readiness/pages/preview_svg.py) as plain functions: numbers
written as the pages write them, text escaped, the map's classes by band, end labels apart, every
word in the preview's language; and Chinese drawn with real glyphs by resvg on a machine made by
the project's files (`make fonts`, the Dockerfile)."""

from __future__ import annotations

import re

import pytest

from readiness.domain.bands import BANDS
from readiness.pages.preview import png
from readiness.pages.preview_svg import (
    Comparison,
    Frame,
    Line,
    MapShape,
    Profile,
    ScoreBar,
    WorldMap,
    compare_svg,
    country_svg,
    map_svg,
    score_text,
    text_width,
)
from readiness.pages.translations import languages

ENGLISH, CHINESE = languages()["en"], languages()["zh"]
FRAME = Frame("2026-11", synthetic=True, words=ENGLISH)
CHINESE_FRAME = Frame("2026-11", synthetic=True, words=CHINESE)
TEXT = re.compile(r"<text [^>]*>([^<]*)</text>")


def test_score_text_writes_two_decimals_as_the_pages_do() -> None:
    assert [score_text(v, ENGLISH) for v in (42.48, 7.0, 1234.5, None)] == ["42.48", "7.00", "1,234.50", "–"]
    assert [score_text(v, CHINESE) for v in (42.48, 1234.5)] == ["42.48", "1,234.50"]  # CLDR's zh_Hans


def test_country_svg_in_chinese_says_everything_in_chinese_and_fits_its_band_chip() -> None:
    profile = Profile("肯尼亚", "KEN", "撒哈拉以南非洲", 81.0, "第 97 名（共 190 个）",
                      (ScoreBar("综合", 81.0, 57.86), ScoreBar("基础设施", None, 50.0)))
    svg = country_svg(profile, CHINESE_FRAME)
    texts = TEXT.findall(svg)
    # No Latin letter in any text but the snapshot's id and numbers: every word is the catalogue's.
    assert [text for text in texts if re.search(r"[A-Za-z]", text)] == []
    assert "领先" in texts and "各项得分与世界平均值" in texts and "准备度指数 · 快照 2026-11" in texts
    assert "撒哈拉以南非洲 · 全球排名第 97 名（共 190 个）" in texts and "世界 57.86" in texts
    assert "合成数据：生成的数值，不是已发布的指数；不得引用。" in texts
    chip = re.search(r'<rect x="48" y="352" width="(\d+)"', svg)
    assert chip is not None and int(chip.group(1)) >= 22 + 2 * 22  # two characters of 22 px, and the padding


def test_text_width_counts_a_chinese_character_as_a_square() -> None:
    assert text_width("领先", 22) == 44
    assert text_width("Leading", 22) == 7 * 15  # DejaVu Sans Bold's, as the chip was sized before
    assert text_width("", 22) == 0


def test_map_and_compare_svg_in_chinese() -> None:
    shapes = (MapShape("M0,0h1v1z", 80.0), MapShape("M3,0h1v1z", None))
    credit = "Natural Earth 1:110m (public domain), via world-atlas 2.0.2 (ISC licence); Equal Earth projection"
    texts = TEXT.findall(map_svg(WorldMap((0, 0, 4, 1), shapes, credit), CHINESE_FRAME))
    assert "领先：1" in texts and "无数据：1" in texts and "本快照中无得分" in texts
    assert "地图：Natural Earth 1:110m（公有领域），经由 world-atlas 2.0.2（ISC 许可）；Equal Earth 投影。" in texts
    lines = (Line("肯尼亚", (40.0, 1234.5)), Line("巴西", (50.0, None)))
    texts = TEXT.findall(compare_svg(Comparison("综合准备度得分：肯尼亚和巴西", ("2025-12", "2026-11"), lines),
                                     CHINESE_FRAME))
    assert "肯尼亚 1,234.50" in texts and "巴西 50.00" in texts
    assert [text for text in texts if re.search(r"[A-Za-z]", text)] == []


def test_chinese_preview_is_drawn_with_real_glyphs() -> None:
    def drawn(name: str) -> bytes:
        profile = Profile(name, "KEN", "", None, "—", ())
        return png(country_svg(profile, CHINESE_FRAME)).body

    # Without a Chinese font every character is the same empty box: two names of as many
    # characters draw alike. `make fonts` (and the Dockerfile) install WenQuanYi Micro Hei.
    if drawn("\ue000\ue001\ue002") == drawn("\ue003\ue004\ue005") and drawn("肯尼亚") == drawn("巴西国"):
        pytest.skip("no Chinese font: make fonts (apt-get install fonts-wqy-microhei)")
    assert drawn("肯尼亚") != drawn("巴西国")
    assert drawn("肯尼亚") != drawn("\ue000\ue001\ue002")  # a glyph, not the box of a character the font lacks


def test_country_svg_escapes_names_and_says_the_notice() -> None:
    profile = Profile("Côte <d'Ivoire> & co", "CIV", "Sub-Saharan Africa", 41.5, "120 of 178",
                      (ScoreBar("Composite", 41.5, 57.86),))
    svg = country_svg(profile, FRAME)
    assert "Côte &lt;d'Ivoire&gt; &amp; co" in svg and "<d'Ivoire>" not in svg
    assert 'data-value="composite">41.50</text>' in svg and ">Emerging</text>" in svg
    assert "Synthetic data" in svg and "snapshot 2026-11" in svg
    assert "Synthetic data" not in country_svg(profile, Frame("2026-11", synthetic=False, words=ENGLISH))


def test_map_svg_colours_each_shape_by_its_band_and_counts_them() -> None:
    shapes = (MapShape("M0,0h1v1z", 80.0), MapShape("M1,0h1v1z", 75.0), MapShape("M2,0h1v1z", 10.0),
              MapShape("M3,0h1v1z", None))
    svg = map_svg(WorldMap((0, 0, 4, 1), shapes, "test shapes"), FRAME)
    assert re.findall(r'<path d="M\d,0h1v1z" fill="([^"]+)"', svg) == ["#253494", "#253494", "#e3f4ab", "url(#no-data)"]
    assert f">{BANDS[0].name}: 2</text>" in svg and ">No data: 1</text>" in svg and "Map: test shapes." in svg


def test_compare_svg_keeps_end_labels_apart_and_inside_the_plot() -> None:
    lines = tuple(Line(f"E{i}", (50.0, 50.0 + i * 0.1)) for i in range(8))  # eight lines ending together
    svg = compare_svg(Comparison("A title", ("2025-12", "2026-11"), lines), FRAME)
    ends = sorted(float(y) for y in re.findall(r'<text x="950.0" y="([\d.]+)"', svg))
    assert len(ends) == 8 and all(b - a >= 26 - 1e-9 for a, b in zip(ends, ends[1:], strict=False))
    assert 120 <= ends[0] and ends[-1] <= 520 + 7
