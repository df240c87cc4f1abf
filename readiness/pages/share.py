"""What a page says when its link is shared: the ``description``, Open Graph and Twitter card
meta of every page (templates/share_meta.html), with its preview image (``preview.py``), in
the page's language, and the links to the page in the site's other languages.

Crawlers read the page as the server sends it, without running its scripts, and need absolute
URLs: they are written from the site's public address (``READINESS_PUBLIC_URL``), else from
the request's own scheme and host (``origin_of``), docs/PAGES.md#share-previews.

A page in one language names its own address with that language's ``?lang=`` (its canonical
URL, ``og:url``, its preview's URL), so a link shared from a Chinese page opens and previews in
Chinese whoever follows it; the address without ``?lang=`` (the language negotiated) is its
``x-default`` alternate (docs/PAGES.md#languages).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from readiness.domain.bands import band_of
from readiness.domain.citation import request_base
from readiness.pages.language import LANGUAGES
from readiness.pages.preview import COMPARED
from readiness.pages.preview_svg import Profile, score_text
from readiness.pages.translations import N_, Language

MAP_IMAGE = "/preview/map.png"
COMPARE_IMAGE = "/preview/compare.png"

OG_LOCALES: Mapping[str, str] = {"en": "en_US", "zh": "zh_CN"}
"""Each language's ``og:locale`` (Open Graph's language_TERRITORY form): Chinese in simplified
characters is mainland China's, as the pages' ``zh-Hans`` is."""

FALLBACK_ORIGIN = "http://localhost"
"""The origin written when the request's host is not a plain host name or address (and no
public URL is set): never a value a client wrote that could break out of an attribute."""


@dataclass(frozen=True, slots=True)
class Share:
    """A page's share meta in its language: its title and description, its own path and its
    preview image's, the image's alternative text, and the language."""

    title: str
    description: str
    path: str
    """The page's path without a query: ``/explore/KEN`` (an embed's is its page's)."""
    image: str
    image_alt: str
    site_name: str
    language: str
    """The page's language, one of LANGUAGES."""

    @property
    def url(self) -> str:
        """The page's own address in its language (canonical, ``og:url``): ``/explore/KEN?lang=zh``."""
        return language_path(self.path, self.language)

    @property
    def locale(self) -> str:
        """``og:locale``: ``zh_CN`` on a Chinese page."""
        return OG_LOCALES[self.language]

    @property
    def alternate_locales(self) -> tuple[str, ...]:
        """``og:locale:alternate``: the site's other languages."""
        return tuple(OG_LOCALES[other] for other in LANGUAGES if other != self.language)

    @property
    def alternates(self) -> tuple[tuple[str, str], ...]:
        """(hreflang, path) of the page in every language, then ``x-default``: the address
        without ``?lang=``, whose language the reader's browser chooses."""
        return (*((code, language_path(self.path, code)) for code in LANGUAGES), ("x-default", self.path))


def language_path(path: str, language: str) -> str:
    """``path`` (no query) in ``language``: ``/explore/KEN?lang=zh``."""
    return f"{path}?lang={language}"


def image_path(path: str, language: str) -> str:
    """The preview image ``path`` in ``language``: its ``?lang=`` but for the default language,
    whose preview is the address without it (preview.py)."""
    return path if language == LANGUAGES[0] else language_path(path, language)


_PAGES: dict[str, tuple[str, str, str]] = {
    "index.html": ("/", N_("Readiness Index Data Service"),
                   N_("Education-readiness scores of %(economies)s economies: on a map, in a table, country by "
                      "country, and through a public read-only JSON and CSV API.")),
    "explore.html": ("/explore", N_("Explore · Readiness Index"),
                     N_("Every economy's composite and five dimension scores in one table, snapshot %(snapshot)s: "
                        "ranked, filtered by region and income, with custom weights and CSV downloads.")),
    "method.html": ("/method", N_("The method · Readiness Index"),
                    N_("How the Readiness Index is built: its indicators, how they are normalized, the five "
                       "dimension scores, the composite, the bands and the ranks.")),
    "docs.html": ("/docs", N_("API reference · Readiness Index"),
                  N_("The Readiness Index Data Service's API: every route, parameter and answer of the public "
                     "read-only JSON and CSV API, to try in the browser.")),
    "map.html": ("/map", N_("Map · Readiness Index"),
                 N_("Every economy's composite readiness score on a world map, snapshot %(snapshot)s, coloured by "
                    "band; choose a dimension, a region or an earlier snapshot.")),
    "embed_map.html": ("/map", N_("Map · Readiness Index"),
                       N_("Every economy's composite readiness score on a world map, snapshot %(snapshot)s.")),
    "compare.html": ("/compare", N_("Compare · Readiness Index"),
                     N_("Up to eight economies' readiness scores across the snapshots, with their region's and the "
                        "world's means. The preview shows %(economies)s.")),
    "embed_compare.html": ("/compare", N_("Compare · Readiness Index"),
                           N_("Economies' readiness scores across the snapshots, with their region's and the "
                              "world's means.")),
}
"""Per named page: its path, title (the page's ``<title>`` too) and description, in English
(the catalogue's message); ``%(snapshot)s`` and ``%(economies)s`` filled in."""


def page_share(template: str, snapshot: str, names: Mapping[str, str], synthetic: bool, words: Language) -> Share:
    """The share meta of the named page ``template`` (any page not listed: the landing page's)
    in ``words``' language, for the snapshot ``snapshot`` whose economies are ``names`` (the
    data's names by code)."""
    path, title, description = _PAGES.get(template, _PAGES["index.html"])
    if template in ("compare.html", "embed_compare.html"):
        image = COMPARE_IMAGE
        economies = words.listed([words.economy(code, names.get(code, code)) for code in COMPARED])
        alt = words.gettext("Line chart of the composite readiness score of %(economies)s across the snapshots") % {
            "economies": economies}
    else:
        image = MAP_IMAGE
        economies = words.number(len(names))
        alt = words.gettext("World map of every economy's composite readiness score, snapshot %(snapshot)s, "
                            "by band") % {"snapshot": snapshot}
    text = _noticed(words.gettext(description) % {"snapshot": snapshot, "economies": economies}, synthetic, words)
    return Share(words.gettext(title), text, path, image_path(image, words.code), alt,
                 words.gettext("Readiness Index"), words.code)


def country_share(profile: Profile, snapshot: str, synthetic: bool, words: Language) -> Share:
    """The share meta of ``/explore/{code}`` and its embed: the headline numbers, in the words,
    the language and the format of the page (``profile`` made in ``words``' language)."""
    band = band_of(profile.composite)
    headline = (words.gettext("composite %(score)s (%(band)s)") % {"score": score_text(profile.composite, words),
                                                                   "band": words.gettext(band.name)}
                if band is not None else words.gettext("no composite"))
    values = {"economy": profile.name, "snapshot": snapshot, "headline": headline, "rank": profile.rank}
    description = words.gettext("%(economy)s in the Readiness Index, snapshot %(snapshot)s: %(headline)s, global "
                                "rank %(rank)s; its five dimension scores against the world mean, its region and "
                                "its history.") % values
    alt = words.gettext("%(economy)s's readiness scores, snapshot %(snapshot)s: %(headline)s, bars against the "
                        "world mean") % values
    return Share(words.gettext("%(economy)s · Readiness Index") % values, _noticed(description, synthetic, words),
                 f"/explore/{profile.code}", image_path(f"/preview/explore/{profile.code}.png", words.code), alt,
                 words.gettext("Readiness Index"), words.code)


def origin_of(public_url: str | None, protocol: str, host: str) -> str:
    """The origin absolute URLs start with: ``public_url`` if set, else the request's
    ``protocol`` and ``host`` when the host is a plain name or address, by the rule the
    citations' URLs follow (``citation.request_base``); FALLBACK_ORIGIN if not."""
    return public_url or request_base(protocol, host) or FALLBACK_ORIGIN


def _noticed(description: str, synthetic: bool, words: Language) -> str:
    """``description``, followed on synthetic data by the notice that it is not the index."""
    if not synthetic:
        return description
    return words.gettext("%(description)s Synthetic data: not the published index.") % {"description": description}
