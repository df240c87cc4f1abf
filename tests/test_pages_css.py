"""The site's style sheets are ready for a right-to-left language: every rule whose direction
matters is written in CSS logical properties (``margin-inline-start``, ``inset-inline-start``,
``text-align: start``, ``border-inline-end``), never in left and right, so ``<html dir="rtl">``
mirrors the layout (docs/PAGES.md#right-to-left). What is truly physical is allowed by name
below, with the reason. tests/test_pages_languages_browser.py renders a page right to left."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from readiness.pages.assets import STATIC_DIR

SHEETS = sorted(STATIC_DIR.glob("*.css"))

PHYSICAL_ALLOWED: dict[tuple[str, str], str] = {
    ("country.css", ".histogram"): "a number line, 0 on the left to 100 on the right in every language, as the "
    "charts are: country.js places its marker at left: N%, so the rules around it are physical and the "
    "histogram's direction is fixed ltr",
    ("site.css", "svg"): "the charts and the map are drawn in their SVG's own coordinates, left to right: "
    "direction: ltr keeps their text anchors (start, end) meaning what the drawing means",
}
"""(style sheet, selector prefix) -> why its rules may name a physical side or fix a direction.
A rule is allowed when every selector of it starts with the prefix."""

SIDE_PROPERTY = re.compile(r"(?:^|-)(?:left|right)(?:-|$)")
"""margin-left, padding-right, border-left-color, left, right, border-top-left-radius..."""

SIDE_VALUE = re.compile(r"\b(?:left|right)\b")
"""text-align: left, float: right, justify-content: right, transform-origin: left, clear: left..."""

BOX_SHORTHANDS = frozenset({"margin", "padding", "inset", "border-width", "border-style", "border-color",
                            "scroll-margin", "scroll-padding"})
"""Shorthands whose four-value form is top, right, bottom, left."""

DIRECTION_SIGN = "var(--inline-sign)"
"""site.css's 1 or -1 with the direction: a box-shadow's horizontal offset multiplied by it mirrors."""


@dataclass(frozen=True)
class Declaration:
    sheet: str
    selector: str
    prop: str
    value: str

    def __str__(self) -> str:
        return f"{self.sheet}: {self.selector} {{ {self.prop}: {self.value} }}"


def declarations(sheet: str, css: str) -> Iterator[Declaration]:
    """Every declaration of ``css``, with the selector of the rule holding it (at-rules'
    blocks, such as @media, are looked into); comments and strings do not count."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    css = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', css)  # content: "...; ..." holds no rule
    preludes: list[str] = []
    text = ""
    for character in css:
        if character == "{":
            preludes.append(" ".join(text.split()))
            text = ""
        elif character in ";}":
            name, colon, value = text.partition(":")
            if colon and preludes and not preludes[-1].startswith("@"):
                yield Declaration(sheet, preludes[-1], name.strip().lower(), " ".join(value.split()))
            text = ""
            if character == "}" and preludes:
                preludes.pop()
        else:
            text += character


def top_level(value: str, separator: str) -> list[str]:
    """``value`` split at ``separator`` (" " or ","), outside parentheses."""
    parts, depth, part = [], 0, ""
    for character in value:
        depth += (character == "(") - (character == ")")
        if depth == 0 and (character == separator or (separator == " " and character.isspace())):
            parts.append(part)
            part = ""
        else:
            part += character
    return [item.strip() for item in [*parts, part] if item.strip()]


LENGTH = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[a-z%]+)?")


def physical(declaration: Declaration) -> str | None:
    """Why ``declaration`` names a physical side (or fixes a direction), or None if it does not."""
    prop, value = declaration.prop, declaration.value.lower()
    if prop.startswith("--"):
        return None
    if SIDE_PROPERTY.search(prop):
        return "a left or right property"
    if SIDE_VALUE.search(value):
        return "a left or right value"
    if prop in ("direction", "unicode-bidi"):
        return "a fixed direction"
    values = top_level(value, " ")
    if prop in BOX_SHORTHANDS and len(values) == 4 and values[1] != values[3]:
        return "a four-value shorthand whose right is not its left"
    if prop == "border-radius":
        corners = top_level(value.split("/")[0], " ")
        if len(set(corners)) > 1:
            return "corners that differ between left and right"
    if prop == "box-shadow":
        for shadow in top_level(value, ","):
            offsets = [part for part in top_level(shadow, " ") if LENGTH.fullmatch(part) or part.startswith("calc(")]
            if offsets and offsets[0] not in ("0", "0px") and DIRECTION_SIGN not in offsets[0]:
                return f"a shadow offset sideways without {DIRECTION_SIGN}"
    if prop in ("transform", "translate") and re.search(r"translatex\(\s*-?[1-9.]|translate\(\s*-?[1-9.]", value):
        return "a move sideways"
    return None


def allowed(declaration: Declaration) -> bool:
    prefixes = [prefix for (sheet, prefix) in PHYSICAL_ALLOWED if sheet == declaration.sheet]
    return all(any(selector == prefix or selector.startswith(prefix + " ") or selector.startswith(prefix + ".")
                   for prefix in prefixes)
               for selector in top_level(declaration.selector, ","))


def every_declaration() -> list[Declaration]:
    return [item for path in SHEETS for item in declarations(path.name, path.read_text("utf-8"))]


@pytest.mark.parametrize(("prop", "value"), [
    ("margin-left", "6px"), ("left", "0"), ("border-right", "1px solid"), ("border-top-left-radius", "4px"),
    ("padding-right", "12px"), ("text-align", "left"), ("float", "right"), ("justify-content", "right"),
    ("padding", "2px 4px 2px 6px"), ("margin", "0 auto 0 8px"), ("border-radius", "4px 0 0 4px"),
    ("box-shadow", "inset -1px 0 0 var(--line)"), ("box-shadow", "0 1px 2px red, 3px 0 0 blue"),
    ("transform", "translateX(-50%)"), ("direction", "ltr"),
])
def test_physical_finds_each_way_of_naming_a_side(prop: str, value: str) -> None:
    assert physical(Declaration("x.css", ".x", prop, value)) is not None


@pytest.mark.parametrize(("prop", "value"), [
    ("margin-inline-start", "6px"), ("inset-inline-start", "0"), ("border-inline-end", "1px solid"),
    ("text-align", "start"), ("text-align", "end"), ("text-align", "center"), ("padding", "2px 4px 2px 4px"),
    ("padding", "4px 12px 8px"), ("margin", "0 auto"), ("border-radius", "6px"), ("padding-inline", "6px 4px"),
    ("box-shadow", "inset 0 -1px 0 var(--line)"), ("box-shadow", "0 4px 12px rgb(0 0 0 / 15%)"),
    ("box-shadow", "inset calc(-1px * var(--inline-sign)) 0 0 var(--line)"), ("justify-content", "flex-end"),
    ("transform", "translateY(-50%)"), ("--left-gap", "4px"),
])
def test_physical_lets_logical_and_symmetric_rules_pass(prop: str, value: str) -> None:
    assert physical(Declaration("x.css", ".x", prop, value)) is None


def test_declarations_reads_rules_inside_media_blocks_and_skips_comments_and_strings() -> None:
    css = """/* left: 0 */ a { color: red; }
    @media (max-width: 600px) { .b, .c { left: 0; content: "x; right: 1"; } }"""
    found = [(d.selector, d.prop, d.value) for d in declarations("x.css", css)]
    assert found == [("a", "color", "red"), (".b, .c", "left", "0"), (".b, .c", "content", '""')]


def test_every_style_sheet_of_the_site_uses_logical_properties() -> None:
    found = every_declaration()
    assert len(found) > 300 and {path.name for path in SHEETS} >= {"site.css", "map.css", "country.css"}
    offending = [f"{item} -- {why}" for item in found if (why := physical(item)) and not allowed(item)]
    assert offending == [], "\n".join(offending)


def test_every_allowance_is_used() -> None:
    # An allowance whose rules became logical is removed, not kept as a hole for later rules.
    used = {(item.sheet, prefix) for item in every_declaration() if physical(item)
            for (sheet, prefix) in PHYSICAL_ALLOWED if sheet == item.sheet and allowed(item)}
    assert used == set(PHYSICAL_ALLOWED)
