"""The site's words in Chinese (readiness/pages/translations.py): the compiled catalogue is the
catalogue translators edit, every message the pages and scripts use has a translation, and
economies, numbers and dates come from CLDR (docs/PAGES.md#languages)."""

from __future__ import annotations

import io
import json

import pytest
from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from readiness.pages.language import DIRECTIONS, LANGUAGES
from readiness.pages.translations import DATA_WORDS, LOCALE_DIR, Language, languages, script_messages

PO = LOCALE_DIR / "zh" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")


def test_compiled_catalogue_is_the_po_compiled() -> None:
    # Both are committed (a clone, CI and the image need no build step): make i18n keeps them one.
    with PO.open("rb") as source:
        catalogue = read_po(source)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)
    assert MO.read_bytes() == compiled.getvalue(), "run make i18n: the .mo is not the .po compiled"


def test_every_message_of_the_pages_and_scripts_is_translated() -> None:
    with PO.open("rb") as source:
        catalogue = read_po(source)
    untranslated = [message.id for message in catalogue if message.id and not message.string]
    assert untranslated == []
    chinese = languages()["zh"]
    # The scripts' messages as the pages send them (t("...")): each in the catalogue, in Chinese.
    missing = [m for m in script_messages() if m.strip(" .·,") and chinese.gettext(m) == m]
    assert missing == []
    assert set(DATA_WORDS) <= {message.id for message in catalogue}  # and so translated (above)


def test_script_messages_are_the_t_calls_of_the_scripts() -> None:
    messages = script_messages()
    assert "Composite score" in messages and "{score}, best first" in messages
    assert not any("${" in message for message in messages)


@pytest.mark.parametrize(("code", "name", "chinese"), [
    ("KEN", "Kenya", "肯尼亚"), ("COD", "Congo, Dem. Rep.", "刚果（金）"), ("XKX", "Kosovo", "科索沃"),
    ("CHI", "Channel Islands", "海峡群岛"), ("HKG", "Hong Kong SAR, China", "中国香港特别行政区"),
])
def test_economy_names_are_cldrs_in_chinese_and_the_datas_in_english(code: str, name: str, chinese: str) -> None:
    assert languages()["zh"].economy(code, name) == chinese
    assert languages()["en"].economy(code, name) == name


def test_numbers_and_dates_are_written_as_each_language_writes_them() -> None:
    chinese, english = languages()["zh"], languages()["en"]
    assert chinese.date("2026-11-05") == "2026年11月5日"
    assert english.date("2026-11-05") == "2026-11-05"  # English pages keep ISO dates
    assert english.number(1234567.891, 2) == "1,234,567.89"
    assert chinese.number(217) == "217"
    assert chinese.date("not a date") == "not a date"


def test_script_block_carries_chinese_words_and_nothing_for_english() -> None:
    chinese = json.loads(languages()["zh"].script_block(["Composite score"], {"KEN": "Kenya"}))
    assert chinese == {"lang": "zh-Hans", "messages": {"Composite score": "综合得分"}, "economies": {"KEN": "肯尼亚"},
                       "words": chinese["words"], "indicators": chinese["indicators"]}
    assert chinese["indicators"]["EG.ELC.ACCS.ZS"] == "通电率（占人口百分比）"
    assert chinese["words"]["Sub-Saharan Africa"] == "撒哈拉以南非洲"
    english = json.loads(languages()["en"].script_block(["Composite score"], {"KEN": "Kenya"}))
    assert english == {"lang": "en", "messages": {}, "economies": {}, "words": {}, "indicators": {}}


def test_language_direction_is_the_tables_and_agrees_with_cldr() -> None:
    assert languages()["zh"].direction == "ltr"
    assert Language.load("en").direction == "ltr"
    # The table (language.DIRECTIONS) names every language, each as CLDR writes it: a
    # right-to-left language added as "ltr" (or the reverse) fails here.
    assert set(DIRECTIONS) == set(LANGUAGES)
    for code, language in languages().items():
        cldr = "rtl" if language.locale.character_order == "right-to-left" else "ltr"
        assert DIRECTIONS[code] == cldr, code
    assert Locale.parse("ar").character_order == "right-to-left"  # what an Arabic entry would be held to
