"""The site's words in each of its languages: gettext catalogues for its own sentences,
CLDR (Babel) for the names of economies, numbers and dates (docs/PAGES.md#languages).

The catalogues are ``locale/<language>/LC_MESSAGES/messages.po``, extracted from the
templates, these modules and the scripts by ``make i18n`` (babel.cfg), which also compiles
them to the ``.mo`` files read here; both are committed, and a test fails when a ``.mo`` is
older than its ``.po``. English is the source language: its words are the messages themselves.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

import orjson
from babel import Locale
from babel.core import get_global
from babel.dates import format_date
from babel.numbers import format_decimal

from readiness.pages.assets import STATIC_DIR
from readiness.pages.language import DIRECTIONS, LANGUAGES

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "messages"

TAGS: Mapping[str, str] = {"en": "en", "zh": "zh-Hans"}
"""Each language's BCP 47 tag, for ``<html lang>`` and the scripts' ``Intl`` formats: Chinese
is written in simplified characters (as GEFRI's and the World Bank's Chinese pages are)."""

BABEL_LOCALES: Mapping[str, str] = {"en": "en", "zh": "zh_Hans"}

AUTONYMS: Mapping[str, str] = {"en": "English", "zh": "中文"}
"""Each language's name in itself, for the switch: a reader finds their own language in its own script."""

ALPHA2: Mapping[str, str] = {"XKX": "XK"}
"""The data's codes CLDR's ISO 3166 alpha-3 aliases lack (Kosovo is XKX at the World Bank, XK
in CLDR). An economy CLDR has no territory for (CHI, the Channel Islands) is named by the catalogue."""

_SCRIPT_MESSAGE = re.compile(r"""\bt\(\s*"((?:[^"\\\n]|\\.)*)\"""")
"""A message a script translates: ``t("...")`` (``static/i18n.js``), as babel.cfg extracts it."""


def N_(message: str) -> str:  # noqa: N802 -- gettext's own name for "mark, translate later"
    """``message`` itself, marked for the catalogue: translated where it is shown."""
    return message


DATA_WORDS_FILE = Path(__file__).resolve().parent / "data_words.txt"


def _data_lines(path: Path = DATA_WORDS_FILE) -> tuple[tuple[str, str], ...]:
    lines = (line for line in path.read_text("utf-8").splitlines() if line and not line.startswith("#"))
    return tuple((key, name) for key, _, name in (line.partition("\t") for line in lines))


DATA_WORDS = tuple(word for word, name in _data_lines() if not name)
"""Words of the data that pages show (data_words.txt: regions, income groups, an economy CLDR
does not name, the bands, dimensions, sources, the map's credit): the API keeps them in English,
the pages translate them by the catalogue; the scripts get them as ``words`` (``static/i18n.js``'s
``word``). A file, not Python, read by ``make i18n`` too (scripts/babel_templates.py)."""

INDICATORS = tuple(code for code, name in _data_lines() if name)
"""The indicators whose names the catalogue translates, by code: the code is the message, as an
indicator's name holds ``%``, which gettext's tools take for a Python format to check."""


@dataclass(frozen=True, slots=True)
class Language:
    """One language of the site: its catalogue and its CLDR locale."""

    code: str
    tag: str
    translations: gettext.NullTranslations
    locale: Locale

    @classmethod
    def load(cls, code: str, directory: Path = LOCALE_DIR) -> Language:
        """The language ``code`` (one of LANGUAGES). Raises FileNotFoundError when a language
        other than English has no compiled catalogue (``make i18n``)."""
        translations = (gettext.NullTranslations() if code == LANGUAGES[0]
                        else gettext.translation(DOMAIN, directory, [code]))
        return cls(code, TAGS[code], translations, Locale.parse(BABEL_LOCALES[code]))

    @property
    def direction(self) -> str:
        """``rtl`` or ``ltr``, for ``<html dir>`` (``language.DIRECTIONS``): the pages' layout follows
        it (CSS logical properties)."""
        return DIRECTIONS[self.code]

    def gettext(self, message: str) -> str:
        """``message`` in this language (itself when the catalogue has no translation)."""
        return self.translations.gettext(message)

    def pgettext(self, context: str, message: str) -> str:
        """``message`` in this language, in ``context`` (one English word, two meanings: "Share")."""
        return self.translations.pgettext(context, message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        """The form of ``singular``/``plural`` for ``count``, in this language."""
        return self.translations.ngettext(singular, plural, count)

    def economy(self, code: str, name: str) -> str:
        """The name of the economy ``code`` (``name`` in the data): the data's own (the World
        Bank's) in English; CLDR's in other languages, else the catalogue's translation of ``name``."""
        if self.code == LANGUAGES[0]:
            return name
        aliases = get_global("territory_aliases").get(code, ())
        alpha2 = ALPHA2.get(code) or (aliases[0] if aliases and len(aliases[0]) == 2 else None)
        local = self.locale.territories.get(alpha2) if alpha2 else None
        return local or self.gettext(name)

    def indicator(self, code: str, name: str) -> str:
        """The name of the indicator ``code`` (``name`` in the data): the catalogue's translation
        by code (data_words.txt), else ``name``."""
        local = self.gettext(code)
        return name if local == code else local

    def listed(self, items: Sequence[str]) -> str:
        """``items`` in a sentence as this language lists them: "a, b and c", "a、b和c"; by the
        messages compare-state.js's ``list`` uses, so the pages and the previews agree."""
        if len(items) < 2:
            return "".join(items)
        return self.gettext("{list} and {last}").format(list=self.gettext(", ").join(items[:-1]), last=items[-1])

    def number(self, value: float, digits: int = 0) -> str:
        """``value`` with ``digits`` decimals, grouped as this language writes numbers."""
        return format_decimal(round(value, digits), format=f"#,##0.{'0' * digits}" if digits else "#,##0",
                              locale=self.locale)

    def date(self, iso: str) -> str:
        """An ISO date (``2026-11-28``) as this language writes it in prose (CLDR's long form:
        ``2026年11月28日``); ``iso`` itself if it is none, and in English, whose pages have always
        shown ISO dates (unambiguous to every English reader)."""
        if self.code == LANGUAGES[0]:
            return iso
        try:
            day = date.fromisoformat(iso[:10])
        except ValueError:
            return iso
        return format_date(day, "long", locale=self.locale)

    def script_block(self, messages: Iterable[str], economies: Mapping[str, str]) -> str:
        """The JSON the pages' scripts read their words from (``static/i18n.js``): the
        language's tag, each of ``messages`` translated, the economies' names by code
        (``economies``: the data's names), the data's words and the indicators' names by code.
        English sends none of them: its words are the messages and the data's own. ``<`` is
        escaped, so nothing in it closes the script block."""
        english = self.code == LANGUAGES[0]
        document = {
            "lang": self.tag,
            "messages": {} if english else {m: self.gettext(m) for m in messages if self.gettext(m) != m},
            "economies": {} if english else {code: self.economy(code, name) for code, name in economies.items()},
            "words": {} if english else {word: self.gettext(word) for word in DATA_WORDS},
            "indicators": {} if english else {code: self.gettext(code) for code in INDICATORS
                                              if self.gettext(code) != code},
        }
        return orjson.dumps(document).decode().replace("<", "\\u003c")


@lru_cache(maxsize=1)
def script_messages(directory: Path = STATIC_DIR) -> tuple[str, ...]:
    """Every message the scripts translate (``t("...")`` in ``static/*.js``), read once per
    process: the files are part of the release."""
    found = {orjson.loads(f'"{match.group(1)}"') for path in sorted(directory.glob("*.js"))
             for match in _SCRIPT_MESSAGE.finditer(path.read_text("utf-8"))}
    return tuple(sorted(found))


@lru_cache(maxsize=1)
def languages() -> Mapping[str, Language]:
    """Every language of the site, loaded once per process (their catalogues are part of the release)."""
    return {code: Language.load(code) for code in LANGUAGES}
