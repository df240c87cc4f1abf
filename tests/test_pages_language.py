"""Which language a page is in (readiness/pages/language.py), as a function and over HTTP:
``?lang=`` first, then the switch's cookie, then ``Accept-Language``, else English; a page
whose headers chose its language varies on them (docs/PAGES.md#languages)."""

from __future__ import annotations

from typing import Any

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from readiness.domain.errors import InvalidParameter
from readiness.pages.language import NEGOTIATED_VARY, Choice, choose, preferred
from tests.conftest import gen_test


@pytest.mark.parametrize(("header", "language"), [
    ("zh-CN,zh;q=0.9,en;q=0.8", "zh"), ("en-US,en;q=0.9,zh;q=0.8", "en"), ("zh-Hant-TW", "zh"),
    ("fr-FR,zh;q=0.5,en;q=0.4", "zh"), ("en;q=0.2, zh;q=0.7", "zh"), ("zh;q=0", "en"), ("zh;q=abc", "en"),
    ("fr, de", "en"), ("", "en"), ("*", "en"), ("zh, en", "zh"), ("en, zh", "en"),
])
def test_preferred_reads_the_weights_and_the_readers_order(header: str, language: str) -> None:
    assert preferred(header) == language


def test_choose_lang_parameter_wins_over_the_cookie_and_the_header() -> None:
    assert choose("zh", "en", "en-US") == Choice("zh", negotiated=False)
    assert choose(" EN ", "zh", "zh-CN") == Choice("en", negotiated=False)
    assert choose(None, "zh", "en-US") == Choice("zh", negotiated=True)
    assert choose(None, "klingon", "zh-CN") == Choice("zh", negotiated=True)  # a stray cookie is ignored
    assert choose(None, None, None) == Choice("en", negotiated=True)


@pytest.mark.parametrize("raw", ["fr", "zh-CN", ""])
def test_choose_unknown_lang_parameter_names_it_and_the_languages(raw: str) -> None:
    with pytest.raises(InvalidParameter, match=r"lang=.* is not valid; use en or zh\."):
        choose(raw, None, None)


@pytest.fixture
def fetch(http_client: AsyncHTTPClient, base_url: str) -> Any:
    async def fetch(path: str, **headers: str) -> HTTPResponse:
        return await http_client.fetch(base_url + path, raise_error=False, headers=headers)

    return fetch


def html_lang(response: HTTPResponse) -> str:
    return response.body.decode().split("<html lang=\"", 1)[1].split("\"", 1)[0]


@gen_test
async def test_page_lang_parameter_is_chinese_for_everyone_and_varies_on_nothing_else(fetch: Any) -> None:
    response = await fetch("/explore?lang=zh", **{"Accept-Language": "en-US", "Cookie": "lang=en"})
    assert response.code == 200
    assert html_lang(response) == "zh-Hans"
    assert '<html lang="zh-Hans" dir="ltr">' in response.body.decode()
    assert "<h1>浏览指数</h1>" in response.body.decode()
    assert response.headers["Vary"] == "Accept-Encoding"  # the URL alone says the language: a shared cache may keep it


@gen_test
async def test_page_accept_language_and_cookie_choose_and_the_answer_varies_on_them(fetch: Any) -> None:
    chinese = await fetch("/", **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    english = await fetch("/", **{"Accept-Language": "en-GB"})
    kept = await fetch("/", **{"Accept-Language": "en-GB", "Cookie": "lang=zh"})
    assert (html_lang(chinese), html_lang(english), html_lang(kept)) == ("zh-Hans", "en", "zh-Hans")
    assert {r.headers["Vary"] for r in (chinese, english, kept)} == {NEGOTIATED_VARY}
    assert chinese.headers["Etag"] != english.headers["Etag"]
    assert chinese.headers["Etag"] == kept.headers["Etag"]  # one page per language, however it was chosen
    # Numbers and dates the Chinese way (CLDR): the publication date in the lead.
    assert "2026年11月5日" in chinese.body.decode()


@gen_test
async def test_country_page_in_chinese_names_the_economy_as_cldr_does(fetch: Any) -> None:
    response = await fetch("/explore/COD?lang=zh")
    assert response.code == 200
    assert '<h1 id="country" data-code="COD">刚果（金）</h1>' in response.body.decode()


@gen_test
async def test_page_unknown_lang_is_the_400_page_naming_lang(fetch: Any) -> None:
    response = await fetch("/map?lang=fr", Accept="text/html")
    assert response.code == 400
    page = response.body.decode()
    assert '<html lang="en"' in page
    assert "lang=&#x27;fr&#x27; is not valid; use en or zh." in page


@gen_test
async def test_error_page_in_chinese_keeps_the_apis_message_in_english_and_says_so(fetch: Any) -> None:
    response = await fetch("/mapp?lang=zh", Accept="text/html")
    assert response.code == 404
    page = response.body.decode()
    assert "<h1>未找到页面</h1>" in page
    assert '您是不是要找 <a href="/map">/map</a>？' in page
    assert '<p class="lead" data-error-message lang="en">This site has no page at /mapp.</p>' in page
