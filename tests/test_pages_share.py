"""Share previews over HTTP (readiness/pages/share.py, preview.py, preview_svg.py): every page's
description, Open Graph and Twitter card meta with absolute URLs, and the preview images they
name: real PNGs of the page's numbers, kept and priced like API answers; all of it in the page's
language, with the page in the site's other languages linked (docs/PAGES.md#share-previews)."""

from __future__ import annotations

import html
import io
import re
import struct
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.ioloop import IOLoop
from tornado.web import Application

from config.settings import Settings, SettingsError
from loaders import COMPOSITE, SnapshotStore
from readiness.app import make_app, new_metrics
from readiness.cache.answers import AnswerCodec
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import ANSWER_PREFIX, RedisTier, connect
from readiness.http.logs import AccessLog
from readiness.pages import Site, site_assets
from readiness.pages.preview import COMPARED, PREVIEW_COST, png, profile
from readiness.pages.preview_svg import Frame, country_svg
from readiness.pages.share import FALLBACK_ORIGIN, origin_of
from readiness.pages.translations import languages
from tests.conftest import Clock, assert_error_envelope, eventually, gen_test

PAGES = ("/", "/docs", "/explore", "/explore/KEN", "/method", "/map", "/compare",
         "/embed/map", "/embed/compare", "/embed/explore/KEN")
META = re.compile(r'<meta (?:name|property)="([^"]+)" content="([^"]*)">')
ALTERNATE = re.compile(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]*)">')
CANONICAL = re.compile(r'<link rel="canonical" href="([^"]*)">')
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def fetch(http_client: AsyncHTTPClient, base_url: str) -> Any:
    async def fetch(path: str, **kwargs: Any) -> HTTPResponse:
        return await http_client.fetch(path if path.startswith("http") else base_url + path, raise_error=False,
                                       **kwargs)

    return fetch


def meta_of(page: bytes) -> dict[str, str]:
    """The page's ``<meta>`` name/property -> content, unescaped."""
    return {name: html.unescape(content) for name, content in META.findall(page.decode())}


def alternates_of(page: bytes) -> dict[str, str]:
    """The page's ``<link rel="alternate">`` hreflang -> href."""
    return dict(ALTERNATE.findall(page.decode()))


def png_size(body: bytes) -> tuple[int, int]:
    """A PNG's width and height from its IHDR chunk; AssertionError if it is no PNG."""
    assert body[:8] == PNG_SIGNATURE and body[12:16] == b"IHDR"
    width, height = struct.unpack(">II", body[16:24])
    return width, height


@gen_test
async def test_explore_ken_og_image_is_a_png_of_kenyas_numbers(
    fetch: Any, base_url: str, sample_store: SnapshotStore
) -> None:
    meta = meta_of((await fetch("/explore/KEN")).body)
    image = meta["og:image"]
    assert image == f"{base_url}/preview/explore/KEN.png"  # absolute: the request's origin
    response = await fetch(image)
    assert response.code == 200 and response.headers["Content-Type"] == "image/png"
    assert png_size(response.body) == (1200, 630)
    # The SVG it is rendered from holds Kenya's composite as the page writes it (two decimals),
    # and the served bytes are that SVG's rendering, pixel for pixel.
    snapshot = sample_store.current
    assert snapshot is not None
    composite = snapshot.countries["KEN"].record[COMPOSITE]
    assert isinstance(composite, float)
    english = languages()["en"]
    svg = country_svg(profile(snapshot, "KEN", english), Frame(snapshot.id, snapshot.synthetic, english))
    assert f'data-value="composite">{composite:.2f}</text>' in svg and ">Kenya</text>" in svg
    assert png(svg).body == response.body
    # The description says the same number, for the apps that show text only.
    assert f"composite {composite:.2f}" in meta["description"] and meta["og:description"] == meta["description"]


@gen_test
@pytest.mark.parametrize("path", PAGES)
async def test_every_page_has_share_meta_with_absolute_urls_and_a_real_image(
    fetch: Any, base_url: str, path: str
) -> None:
    meta = meta_of((await fetch(path)).body)
    for name in ("description", "og:title", "og:description", "og:url", "og:image", "og:image:alt",
                 "twitter:card", "twitter:title", "twitter:description", "twitter:image", "twitter:image:alt"):
        assert meta.get(name), f"{path} lacks {name}"
    assert meta["twitter:card"] == "summary_large_image"
    assert meta["og:url"].startswith(f"{base_url}/") and meta["og:image"] == meta["twitter:image"]
    assert "Synthetic data" in meta["description"]  # the sample is synthetic, and the preview says so
    image = await fetch(meta["og:image"])
    assert image.code == 200 and png_size(image.body) == (1200, 630)
    assert (meta["og:image:width"], meta["og:image:height"]) == ("1200", "630")


@gen_test
@pytest.mark.parametrize("headers", [{}, {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}], ids=["lang", "header"])
async def test_chinese_page_shares_in_chinese_with_a_chinese_preview(
    fetch: Any, base_url: str, sample_store: SnapshotStore, headers: dict[str, str]
) -> None:
    # Asked for with ?lang=zh, or by a browser's Accept-Language: the same Chinese meta.
    page = (await fetch("/explore/KEN" + ("" if headers else "?lang=zh"), headers=headers)).body
    meta = meta_of(page)
    snapshot = sample_store.current
    assert snapshot is not None
    chinese = languages()["zh"]
    composite = snapshot.countries["KEN"].record[COMPOSITE]
    assert isinstance(composite, float)
    # The page's words: Kenya by CLDR's name, the band by the catalogue's, the number as the page writes it.
    assert meta["og:title"] == "肯尼亚 · 准备度指数" == meta["twitter:title"]
    score = chinese.number(composite, 2)
    assert meta["description"].startswith(f"肯尼亚在准备度指数中，快照 {snapshot.id}：综合得分 {score}（")
    assert meta["description"].endswith("合成数据：不是已发布的指数。")
    assert meta["og:description"] == meta["twitter:description"] == meta["description"]
    assert meta["og:image:alt"].startswith("肯尼亚的准备度得分") and meta["twitter:image:alt"] == meta["og:image:alt"]
    assert meta["og:site_name"] == "准备度指数"
    assert (meta["og:locale"], meta["og:locale:alternate"]) == ("zh_CN", "en_US")
    # Its own address in Chinese, and the page in each language and the negotiated one, absolute.
    assert CANONICAL.findall(page.decode()) == [f"{base_url}/explore/KEN?lang=zh"]
    assert meta["og:url"] == f"{base_url}/explore/KEN?lang=zh"
    assert alternates_of(page) == {"en": f"{base_url}/explore/KEN?lang=en", "zh": f"{base_url}/explore/KEN?lang=zh",
                                   "x-default": f"{base_url}/explore/KEN"}
    # The preview is Chinese too: the SVG of Kenya's numbers in Chinese, rendered.
    assert meta["og:image"] == meta["twitter:image"] == f"{base_url}/preview/explore/KEN.png?lang=zh"
    image = await fetch(meta["og:image"])
    assert image.code == 200 and png_size(image.body) == (1200, 630)
    svg = country_svg(profile(snapshot, "KEN", chinese), Frame(snapshot.id, snapshot.synthetic, chinese))
    assert ">肯尼亚</text>" in svg and "各项得分与世界平均值" in svg and "合成数据" in svg
    assert png(svg).body == image.body
    assert image.body != (await fetch("/preview/explore/KEN.png")).body


@gen_test
@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_compare_names_the_economies_its_preview_draws_and_the_landing_page_counts_them(
    fetch: Any, sample_store: SnapshotStore, lang: str
) -> None:
    snapshot = sample_store.current
    assert snapshot is not None
    words = languages()[lang]
    names = [words.economy(code, str(snapshot.countries[code].record["Country Name"])) for code in COMPARED]
    if lang == "en":
        assert names == ["Kenya", "Brazil", "India"]
    compare = meta_of((await fetch(f"/compare?lang={lang}")).body)
    for text in (compare["description"], compare["og:image:alt"]):
        found = [text.find(name) for name in names]  # each named, in the preview's order
        assert -1 not in found and found == sorted(found), text
    landing = meta_of((await fetch(f"/?lang={lang}")).body)
    assert words.number(len(snapshot.countries)) in landing["description"]
    assert not any(name in landing["description"] for name in names)


@gen_test
async def test_english_page_names_its_locale_and_the_chinese_one(fetch: Any, base_url: str) -> None:
    page = (await fetch("/map")).body
    meta = meta_of(page)
    assert (meta["og:locale"], meta["og:locale:alternate"]) == ("en_US", "zh_CN")
    assert meta["og:url"] == f"{base_url}/map?lang=en" and meta["og:image"] == f"{base_url}/preview/map.png"
    assert alternates_of(page) == {"en": f"{base_url}/map?lang=en", "zh": f"{base_url}/map?lang=zh",
                                   "x-default": f"{base_url}/map"}
    # The page's <title> is its share title (share.py), in either language.
    for path in ("/map", "/map?lang=zh"):
        body = (await fetch(path)).body.decode()
        title = re.search(r"<title>([^<]*)</title>", body)
        assert title is not None and html.unescape(title.group(1)) == meta_of(body.encode())["og:title"]


@gen_test
@pytest.mark.parametrize("path", ["/preview/map.png", "/preview/compare.png?codes=KEN,BRA"])
async def test_preview_in_chinese_is_its_own_image_and_an_unknown_lang_is_refused(
    fetch: Any, sample_store: SnapshotStore, path: str
) -> None:
    separator = "&" if "?" in path else "?"
    english, chinese = await fetch(path), await fetch(f"{path}{separator}lang=zh")
    assert english.code == chinese.code == 200 and png_size(chinese.body) == (1200, 630)
    assert chinese.body != english.body and chinese.headers["ETag"] != english.headers["ETag"]
    # Only the address chooses: a browser's Accept-Language does not change the image at a URL.
    assert (await fetch(path, headers={"Accept-Language": "zh"})).body == english.body
    assert_error_envelope(await fetch(f"{path}{separator}lang=fr"), 400, "lang=")


@gen_test
async def test_preview_is_cached_with_its_etag_and_never_gzipped(fetch: Any) -> None:
    first = await fetch("/preview/map.png", headers={"Accept-Encoding": "gzip"}, decompress_response=False)
    assert first.code == 200 and "Content-Encoding" not in first.headers  # a PNG is compressed already
    etag = first.headers["ETag"]
    again = await fetch("/preview/map.png", headers={"If-None-Match": etag})
    assert again.code == 304
    assert (await fetch("/preview/map.png")).headers["ETag"] == etag


@gen_test
async def test_compare_preview_draws_the_codes_asked_and_refuses_others(fetch: Any) -> None:
    default = await fetch("/preview/compare.png")
    asked = await fetch("/preview/compare.png?codes=deu,fra")
    assert default.code == asked.code == 200 and default.body != asked.body
    for bad in ("XXX", "KEN,,BR", ",".join(["KEN", "BRA", "IND", "DEU", "FRA", "USA", "CHN", "JPN", "GBR"]), ""):
        assert_error_envelope(await fetch(f"/preview/compare.png?codes={bad}"), 400, "codes=")


@gen_test
async def test_preview_of_an_unknown_economy_is_a_404(fetch: Any) -> None:
    assert_error_envelope(await fetch("/preview/explore/XXX.png"), 404, "")


class TestWithBudgetAndPublicUrl:
    """An app with a compute budget of a little more than one preview, no waiting, and a public URL."""

    @pytest.fixture
    def app(self, sample_store: SnapshotStore, budget_clock: Clock) -> Application:
        settings = Settings(compute_bytes_per_second=PREVIEW_COST + 64 * 1024, compute_max_wait_ms=0,
                            compute_overdraft_ms=0, compute_shed_pause_ms=0,
                            public_url="https://readiness.example.org")
        return make_app(settings, sample_store, access=AccessLog(io.BytesIO()))

    @gen_test
    async def test_previews_take_the_compute_budget_and_a_cached_one_takes_none(self, fetch: Any) -> None:
        assert (await fetch("/preview/explore/KEN.png")).code == 200
        refused = await fetch("/preview/explore/BRA.png")  # a second render within the second: over the budget
        assert_error_envelope(refused, 503, "")
        assert refused.headers["Retry-After"] == "1"
        assert (await fetch("/preview/explore/KEN.png")).code == 200  # kept: served without rendering

    @gen_test
    async def test_public_url_is_the_origin_of_every_absolute_url(self, fetch: Any) -> None:
        meta = meta_of((await fetch("/explore/KEN", headers={"Host": "attacker.example"})).body)
        assert meta["og:image"] == "https://readiness.example.org/preview/explore/KEN.png"
        assert meta["og:url"] == "https://readiness.example.org/explore/KEN?lang=en"


class TestThroughRedis:
    """The app with the real Redis as its second tier, every computed answer written at once."""

    @pytest.fixture
    def app(self, sample_store: SnapshotStore, real_redis_url: str, io_loop: IOLoop) -> Iterator[Application]:
        metrics = new_metrics(sample_store)
        client = connect(real_redis_url, timeout=5.0)
        tier = RedisTier(client, CircuitBreaker(3, 60), metrics)
        yield make_app(Settings(redis_admit_window_seconds=0), sample_store, metrics=metrics, redis=tier,
                       access=AccessLog(io.BytesIO()))
        io_loop.run_sync(client.aclose)

    @gen_test
    async def test_a_rendered_preview_is_shared_through_redis(self, fetch: Any, real_redis_url: str) -> None:
        served = await fetch("/preview/explore/KEN.png")
        assert served.code == 200
        with redis.Redis.from_url(real_redis_url) as shared:

            def kept() -> list[bytes]:
                return [key for key in shared.keys(ANSWER_PREFIX + "*") if key.endswith(b"|preview|country|KEN|en")]

            await eventually(lambda: bool(kept()), "the preview written to Redis")
            (key,) = kept()
            found = AnswerCodec().unpack(key.decode().removeprefix(ANSWER_PREFIX), shared.get(key) or b"")
        assert found is not None and found.body == served.body and found.etag == served.headers["ETag"]


def test_origin_is_the_requests_unless_its_host_is_not_plain() -> None:
    assert origin_of(None, "https", "Readiness.Example.org:8443") == "https://readiness.example.org:8443"
    assert origin_of(None, "http", "[::1]:8080") == "http://[::1]:8080"
    for host in ('evil.org"><script>', "a b", "", "host/path"):
        assert origin_of(None, "http", host) == FALLBACK_ORIGIN
    assert origin_of("https://x.org", "http", "other") == "https://x.org"


def test_site_keeps_pages_for_four_origins_at_most_in_each_language(sample_store: SnapshotStore) -> None:
    site = Site(sample_store, site_assets())
    first = site.page("map.html", "http://a", "en")
    assert b'content="http://a/preview/map.png"' in first.body
    site.page("map.html", "http://a", "zh")
    for origin in ("http://b", "http://c", "http://d"):
        for language in ("en", "zh"):
            site.page("map.html", origin, language)
    assert site.page("map.html", "http://a", "en") is first  # four origins in two languages: all kept
    site.page("map.html", "http://e", "en")  # a ninth set drops the oldest used (a's Chinese pages)
    assert site.page("map.html", "http://a", "en") is first
    assert len(site._pages) == 8 and ("http://a", "zh") not in site._pages


@pytest.mark.parametrize("raw", ["readiness.example.org", "https://x.org/path", "ftp://x.org", "https://"])
def test_public_url_setting_refuses_what_is_not_an_origin(raw: str) -> None:
    with pytest.raises(SettingsError, match="READINESS_PUBLIC_URL="):
        Settings.from_env({"READINESS_PUBLIC_URL": raw})


def test_public_url_setting_drops_a_trailing_slash() -> None:
    assert Settings.from_env({"READINESS_PUBLIC_URL": "https://x.org/"}).public_url == "https://x.org"
