"""Which language a page is in: ``?lang=`` first, then the ``lang`` cookie the switch sets,
then the browser's ``Accept-Language``, else English (docs/PAGES.md#languages).

A page whose language came from the cookie or ``Accept-Language`` says so (``negotiated``):
its answer then varies on those headers, and a shared cache must not give it to another
reader; a page asked for with ``?lang=`` is the same for everyone who asks for that URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from readiness.domain.errors import InvalidParameter

LANGUAGES = ("en", "zh")
"""The site's languages, by their ``?lang=`` value; the first is the default."""

DEFAULT = LANGUAGES[0]

DIRECTIONS: Mapping[str, str] = {"en": "ltr", "zh": "ltr"}
"""Each language's writing direction, for ``<html dir>``: the pages' style sheets use CSS logical
properties (``margin-inline-start``, not ``margin-left``), so a right-to-left language is a
catalogue and an ``rtl`` here (docs/PAGES.md#right-to-left). A test holds it to CLDR's character
order, so a language cannot be added with the wrong direction."""

COOKIE = "lang"
"""The cookie the language switch sets (``static/i18n.js``): the reader's choice, kept across pages."""

NEGOTIATED_VARY = "Accept-Encoding, Accept-Language, Cookie"
"""``Vary`` of a page whose language was negotiated: the edge (nginx) stores no answer that
varies on more than ``Accept-Encoding``, so such a page passes it uncached (docs/PAGES.md#languages)."""

LONGEST_HEADER = 200
"""Characters of ``Accept-Language`` read: a browser's is far shorter; the rest is ignored."""


@dataclass(frozen=True, slots=True)
class Choice:
    """The language of one page request and whether headers chose it (module docstring)."""

    language: str
    negotiated: bool


def choose(asked: str | None, cookie: str | None, accept_language: str | None) -> Choice:
    """The language of a page request (module docstring).

    Raises InvalidParameter naming ``lang`` and the languages for a ``?lang=`` the site has
    not; an unknown cookie or ``Accept-Language`` is ignored, as a browser's header may name any.
    """
    if asked is not None:
        wanted = asked.strip().lower()
        if wanted not in LANGUAGES:
            raise InvalidParameter("lang", asked, " or ".join(LANGUAGES))
        return Choice(wanted, negotiated=False)
    if cookie is not None and cookie in LANGUAGES:
        return Choice(cookie, negotiated=True)
    return Choice(preferred(accept_language or ""), negotiated=True)


def preferred(accept_language: str) -> str:
    """The first of LANGUAGES by the weights of ``accept_language`` (RFC 9110 §12.5.4):
    ``zh-CN,zh;q=0.9,en;q=0.8`` -> ``zh``; DEFAULT when it names none of them."""
    best, best_weight = DEFAULT, 0.0
    for item in accept_language[:LONGEST_HEADER].split(","):
        tag, _, parameters = item.strip().partition(";")
        language = tag.strip().lower().split("-")[0]
        weight = _weight(parameters)
        # Strictly greater: of equal weights the earlier tag wins, in the reader's own order.
        if language in LANGUAGES and weight > best_weight:
            best, best_weight = language, weight
    return best


def _weight(parameters: str) -> float:
    name, _, value = parameters.strip().partition("=")
    if name.strip().lower() != "q":
        return 1.0
    try:
        weight = float(value)
    except ValueError:
        return 0.0
    return weight if 0.0 <= weight <= 1.0 else 0.0
