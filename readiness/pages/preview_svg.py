"""The share previews' drawings: one SVG per kind of page, 1200 x 630 (Open Graph's size).

The pages draw their charts in the browser (chart.js, compare-lines.js, map.js); a link
preview must be an image a crawler can fetch without running a script, so these are drawn
here, in Python, with the pages' look: their palette (site.css, compare.css, map.css), their
number format (two decimals, as ``score`` in api.js writes a score) and their shapes (the map's
vendored Natural Earth paths, compare's markers). Its words are the page's language's (the
frame's ``words``: the gettext catalogue, CLDR's numbers), so a Chinese page's preview is in
Chinese. This module is the one place the previews' SVG is made
(docs/DECISIONS.md#share-previews). Pure: values in, SVG text out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from unicodedata import east_asian_width
from xml.sax.saxutils import escape, quoteattr

from readiness.domain.bands import BANDS, band_of
from readiness.pages.translations import Language

WIDTH = 1200
HEIGHT = 630
FONT = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans, Noto Sans CJK SC, Liberation Sans, Arial, sans-serif"
"""The fonts resvg looks for, in order: the first a server has is used, and a character it lacks
(Chinese, in DejaVu) is drawn from the next that has it. The image installs DejaVu and WenQuanYi
Micro Hei, Debian's packages, as `make fonts` does for the tests (Dockerfile, Makefile)."""

INK, MUTED, LINE, TINT, ACCENT = "#1b1f24", "#57606a", "#d0d7de", "#f6f8fa", "#0b5cad"
WARN_BG, WARN_LINE = "#fff4ce", "#9a6700"
"""site.css's colours: text, secondary text, rules, tint, links and bars, the synthetic banner."""

MAP_CLASSES = ("#253494", "#2c7fb8", "#7fcdbb", "#e3f4ab")
"""map.css's band classes, top band first (ColorBrewer YlGnBu)."""

BAND_CHIPS = (("#dafbe1", "#116329"), ("#ddf4ff", "#0a3069"), ("#fff8c5", "#6b4400"), ("#ffebe9", "#82071e"))
"""country.css's band chips (background, text), top band first."""

LINE_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#a56e00", "#1b1f24", "#2b8cc4", "#857600")
"""compare.css's line colours (Okabe and Ito's palette), in the order the economies are added."""

MARKERS = ("circle", "square", "triangle", "diamond", "triangle-down", "plus", "cross", "star")
"""compare-lines.js's marker of each line, in the same order."""


def score_text(value: float | None, words: Language) -> str:
    """A 0-100 score as the pages show it: two decimals, grouped as ``words``' language writes
    numbers, "–" for none (api.js ``score``)."""
    return "–" if value is None else words.number(value, 2)


@dataclass(frozen=True, slots=True)
class Frame:
    """What every preview says around its drawing: the snapshot, the notice if synthetic, and
    the language its words are in."""

    snapshot: str
    synthetic: bool
    words: Language


@dataclass(frozen=True, slots=True)
class ScoreBar:
    """One row of the profile's scores: the label, the economy's value, the world mean."""

    label: str
    value: float | None
    world: float | None


@dataclass(frozen=True, slots=True)
class Profile:
    """What a country preview draws: the profile's headline and its scores against the world."""

    name: str
    code: str
    region: str
    composite: float | None
    rank: str
    """The global rank in words: "97 of 190", or why there is none."""
    scores: tuple[ScoreBar, ...]


@dataclass(frozen=True, slots=True)
class MapShape:
    """One economy's shape on the map (an SVG path in the geometry's viewBox) and its composite."""

    d: str
    value: float | None


@dataclass(frozen=True, slots=True)
class WorldMap:
    """What the map preview draws: the geometry's box and every shape with its score."""

    view_box: tuple[float, float, float, float]
    shapes: tuple[MapShape, ...]
    attribution: str


@dataclass(frozen=True, slots=True)
class Line:
    """One economy's line on the compare chart: a value per snapshot (None: no value)."""

    label: str
    values: tuple[float | None, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """What the compare preview draws: one score of a few economies across the snapshots."""

    title: str
    labels: tuple[str, ...]
    lines: tuple[Line, ...]


def country_svg(profile: Profile, frame: Frame) -> str:
    """The country preview: the name, the composite and its band, the rank, and a bar per score
    against the world mean (as the profile's table draws them)."""
    words = frame.words
    band = band_of(profile.composite)
    parts = [
        _text(48, 150, profile.name, size=58, weight=700),
        _text(48, 192, words.gettext("%(region)s · Global rank %(rank)s") % {"region": profile.region,
                                                                              "rank": profile.rank},
              size=24, fill=MUTED),
        _text(48, 262, words.gettext("Composite (0–100)"), size=22, fill=MUTED),
        _text(48, 330, score_text(profile.composite, words), size=68, weight=700, data="composite"),
    ]
    if band is not None:
        background, ink = BAND_CHIPS[BANDS.index(band)]
        name = words.gettext(band.name)
        width = 22 + text_width(name, 22)
        parts += [f'<rect x="48" y="352" width="{width:.0f}" height="40" rx="8" fill="{background}" stroke="{ink}"/>',
                  _text(48 + width / 2, 380, name, size=22, weight=700, fill=ink, anchor="middle")]
    left, right, top, row = 470, 1150, 262, 48
    scale = right - left - 190
    parts.append(_text(left, top - 24, words.gettext("Scores against the world mean"), size=22, weight=700))
    for index, item in enumerate(profile.scores):
        y = top + index * row
        parts.append(_text(left, y + 20, item.label, size=19, weight=700 if index == 0 else 400))
        parts.append(f'<rect x="{left}" y="{y + 28}" width="{scale}" height="12" rx="6" fill="#e6e9ed"/>')
        if item.value is not None:
            parts.append(f'<rect x="{left}" y="{y + 28}" width="{_clamp(item.value) * scale / 100:.1f}" height="12" '
                         f'rx="6" fill="{ACCENT}"/>')
        if item.world is not None:
            x = left + _clamp(item.world) * scale / 100
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y + 22}" y2="{y + 46}" stroke="{INK}" '
                         'stroke-width="3"/>')
        parts.append(_text(right, y + 40, score_text(item.value, words), size=22, weight=700, anchor="end"))
        world = words.gettext("world %(score)s") % {"score": score_text(item.world, words)}
        parts.append(_text(right - 80, y + 40, world, size=15, fill=MUTED, anchor="end"))
    parts.append(_text(left, top + len(profile.scores) * row + 14,
                       words.gettext("Bar: the score, 0 to 100. Tick: the world mean."), size=15, fill=MUTED))
    return _card(words.gettext("%(economy)s: Readiness Index profile") % {"economy": profile.name}, parts, frame)


def map_svg(world: WorldMap, frame: Frame) -> str:
    """The map preview: every shape coloured by its composite's band, and the legend."""
    words = frame.words
    x0, y0, width, height = world.view_box
    box_left, box_top, box_width, box_height = 24, 100, 880, 440
    scale = min(box_width / width, box_height / height)
    counts = [0] * (len(BANDS) + 1)
    paths = []
    for shape in world.shapes:
        band = band_of(shape.value)
        index = len(BANDS) if band is None else BANDS.index(band)
        counts[index] += 1
        fill = "url(#no-data)" if band is None else MAP_CLASSES[index]
        paths.append(f'<path d={quoteattr(shape.d)} fill="{fill}"/>')
    parts = [
        '<defs><pattern id="no-data" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="4" height="4" fill="#eceef0"/><line x1="0" y1="0" x2="0" y2="4" stroke="#8c959f" '
        'stroke-width="1.5"/></pattern></defs>',
        _text(48, 78, words.gettext("Readiness Index: the composite score of every economy"), size=30, weight=700),
        f'<g transform="translate({box_left - x0 * scale:.2f} {box_top - y0 * scale:.2f}) scale({scale:.4f})" '
        f'stroke="#fff" stroke-width="{0.5 / scale:.3f}" stroke-linejoin="round">{"".join(paths)}</g>',
        _text(930, 150, words.gettext("Economies per band"), size=19, weight=700),
    ]
    for index, band in enumerate((*BANDS, None)):
        fill = "url(#no-data)" if band is None else MAP_CLASSES[index]
        y = 180 + index * 62
        parts += [f'<rect x="930" y="{y}" width="24" height="20" fill="{fill}" stroke="#6e7781" stroke-width="0.75"/>',
                  _text(964, y + 16, words.gettext("%(band)s: %(count)s") % {
                      "band": words.gettext("No data") if band is None else words.gettext(band.name),
                      "count": words.number(counts[index])}, size=19, weight=700),
                  _text(964, y + 40, words.gettext("no score in this snapshot") if band is None
                        else words.gettext(band.range),
                        size=16, fill=MUTED)]
    parts.append(_text(48, 566, words.gettext("Map: %(credit)s.") % {"credit": words.gettext(world.attribution)},
                       size=14, fill=MUTED))
    return _card(words.gettext("Readiness Index map"), parts, frame)


def compare_svg(comparison: Comparison, frame: Frame) -> str:
    """The compare preview: the line chart of compare.js (its colours and markers, 0 to 100)
    with each line's label at its end."""
    words = frame.words
    left, right, top, bottom = 90, 930, 120, 520
    labels = comparison.labels
    step = (right - left) / max(1, len(labels) - 1)

    def x(index: int) -> float:
        return (left + right) / 2 if len(labels) < 2 else left + index * step

    def y(value: float) -> float:
        return bottom - _clamp(value) * (bottom - top) / 100

    parts = [_text(48, 78, comparison.title, size=30, weight=700)]
    for tick in (0, 25, 50, 75, 100):
        parts += [f'<line x1="{left}" x2="{right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="{LINE}"/>',
                  _text(left - 12, y(tick) + 6, words.number(tick), size=17, fill=MUTED, anchor="end")]
    every = max(1, math.ceil(len(labels) * 90 / (right - left)))
    for index, label in enumerate(labels):
        if (len(labels) - 1 - index) % every == 0:
            parts.append(_text(x(index), bottom + 30, label, size=17, fill=MUTED, anchor="middle"))
    ends: list[tuple[float, str, str]] = []
    for number, line in enumerate(comparison.lines):
        colour, marker = LINE_COLOURS[number % len(LINE_COLOURS)], MARKERS[number % len(MARKERS)]
        points = [(x(i), y(v)) for i, v in enumerate(line.values) if v is not None]
        if not points:
            continue
        path = "".join(f"{'L' if i else 'M'}{px:.1f},{py:.1f}" for i, (px, py) in enumerate(points))
        parts.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="3.5"/>')
        parts += [f'<path d="{marker_path(marker, px, py, 7)}" fill="{colour}" stroke="{colour}"/>'
                  for px, py in points]
        last = next(v for v in reversed(line.values) if v is not None)
        ends.append((points[-1][1], f"{line.label} {score_text(last, words)}", colour))
    for (end, text, colour) in _spread(ends, 26, top, bottom):
        parts.append(_text(right + 20, end + 7, text, size=20, weight=700, fill=colour))
    return _card(comparison.title, parts, frame)


def marker_path(shape: str, x: float, y: float, r: float) -> str:
    """The path of compare-lines.js's marker ``shape`` of radius ``r`` centred on (x, y)."""
    arm = r * 0.42
    plus = [(-arm, -r), (arm, -r), (arm, -arm), (r, -arm), (r, arm), (arm, arm), (arm, r), (-arm, r), (-arm, arm),
            (-r, arm), (-r, -arm), (-arm, -arm)]
    turn = math.radians(45)
    shapes = {
        "square": [(-r * 0.9, -r * 0.9), (r * 0.9, -r * 0.9), (r * 0.9, r * 0.9), (-r * 0.9, r * 0.9)],
        "triangle": [(0, -r * 1.2), (r * 1.1, r * 0.8), (-r * 1.1, r * 0.8)],
        "triangle-down": [(0, r * 1.2), (r * 1.1, -r * 0.8), (-r * 1.1, -r * 0.8)],
        "diamond": [(0, -r * 1.3), (r, 0), (0, r * 1.3), (-r, 0)],
        "plus": plus,
        "cross": [(px * math.cos(turn) - py * math.sin(turn), px * math.sin(turn) + py * math.cos(turn))
                  for px, py in plus],
        "star": [((r * 0.55 if i % 2 else r * 1.3) * math.cos(math.pi / 5 * i - math.pi / 2),
                  (r * 0.55 if i % 2 else r * 1.3) * math.sin(math.pi / 5 * i - math.pi / 2)) for i in range(10)],
    }
    points = shapes.get(shape)
    if points is None:
        return f"M{x - r:.1f},{y:.1f}a{r},{r} 0 1,0 {2 * r},0a{r},{r} 0 1,0 {-2 * r},0Z"
    return "M" + "L".join(f"{x + px:.1f},{y + py:.1f}" for px, py in points) + "Z"


def _spread(
    ends: Sequence[tuple[float, str, str]], gap: float, top: float, bottom: float
) -> list[tuple[float, str, str]]:
    """End-of-line labels at their lines' heights, pushed apart to ``gap`` px, within [top, bottom]."""
    placed: list[tuple[float, str, str]] = []
    for end, text, colour in sorted(ends):
        y = max(end, placed[-1][0] + gap) if placed else max(end, top)
        placed.append((y, text, colour))
    overflow = placed[-1][0] - bottom if placed else 0
    if overflow > 0:  # pushed past the bottom: move them all up, keeping the gaps
        placed = [(y - overflow, text, colour) for y, text, colour in placed]
    return placed


def _card(title: str, parts: Sequence[str], frame: Frame) -> str:
    """The drawing ``parts`` on the preview's white card, with the synthetic notice on top (when
    the data is) and the site's name and the snapshot along the bottom."""
    words = frame.words
    footer = words.gettext("Readiness Index · snapshot %(snapshot)s") % {"snapshot": frame.snapshot}
    banner = []
    if frame.synthetic:
        banner = [f'<rect x="0" y="0" width="{WIDTH}" height="36" fill="{WARN_BG}"/>',
                  f'<rect x="0" y="33" width="{WIDTH}" height="3" fill="{WARN_LINE}"/>',
                  _text(48, 25, words.gettext("Synthetic data: generated values, not the published index; "
                                              "not to be cited."), size=18, weight=700)]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'font-family={quoteattr(FONT)}><title>{escape(title)}</title>'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>{"".join(banner)}{"".join(parts)}'
        f'<rect x="0" y="{HEIGHT - 44}" width="{WIDTH}" height="44" fill="{TINT}"/>'
        f'<line x1="0" x2="{WIDTH}" y1="{HEIGHT - 44}" y2="{HEIGHT - 44}" stroke="{LINE}"/>'
        f'{_text(48, HEIGHT - 16, footer, size=17, fill=MUTED)}</svg>'
    )


def text_width(text: str, size: float) -> float:
    """About how wide ``text`` is drawn at ``size`` px, bold, in the previews' fonts: a Chinese
    character (or any East Asian wide one) is a square of ``size``, another about 0.68 of it
    (DejaVu Sans Bold's mean advance), enough to size a chip around a word."""
    return sum(size if east_asian_width(character) in ("W", "F") else size * 15 / 22 for character in text)


def _text(x: float, y: float, text: str, *, size: int, weight: int = 400, fill: str = INK,
          anchor: str = "start", data: str | None = None) -> str:
    extra = f' data-value="{data}"' if data else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
            f'text-anchor="{anchor}"{extra}>{escape(text)}</text>')


def _clamp(value: float) -> float:
    return max(0.0, min(100.0, value))
