"""The other names of the economies (readiness/pages/names.py): one table, for the landing
page's search and the explorer's, written into both pages. How the searches use it, in Chromium:
tests/test_pages_edges.py and tests/test_pages_explorer.py."""

from __future__ import annotations

import json
import unicodedata

from loaders import Snapshot, SnapshotStore
from readiness.pages import Site, site_assets
from readiness.pages.names import ALTERNATIVE_NAMES, NAMES_JSON


def folded(text: str) -> str:
    """As search.js folds a name: no accents, lower case."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


def test_every_economy_named_is_in_the_sample(sample_current: Snapshot) -> None:
    assert set(ALTERNATIVE_NAMES) <= set(sample_current.countries)


def test_the_names_people_type_are_there() -> None:
    # The examples (issue 33): each finds its economy.
    wanted = {"DRC": "COD", "Turkey": "TUR", "Ivory Coast": "CIV", "South Korea": "KOR", "North Korea": "PRK",
              "Russia": "RUS", "Vietnam": "VNM", "UK": "GBR", "USA": "USA"}
    for name, code in wanted.items():
        assert name in ALTERNATIVE_NAMES[code] or folded(name) == folded(code), name


def test_no_other_name_is_two_economies_or_repeats_an_own_name(sample_current: Snapshot) -> None:
    owners: dict[str, str] = {}
    for code, names in ALTERNATIVE_NAMES.items():
        own = folded(str(sample_current.countries[code].record["Country Name"]))
        for name in names:
            assert folded(name) not in owners, (name, code, owners.get(folded(name)))
            assert folded(name) != own, (name, code)  # the economy's own name finds it already
            owners[folded(name)] = code
    other_names = {folded(str(c.record["Country Name"])): c.code for c in sample_current.countries.values()}
    clashes = {name: (code, other_names[name]) for name, code in owners.items()
               if name in other_names and other_names[name] != code}
    assert not clashes


def test_the_pages_with_a_search_carry_the_table(sample_store: SnapshotStore) -> None:
    site = Site(sample_store, site_assets())
    block = '<script type="application/json" id="economy-names">'
    for template in ("index.html", "explore.html", "compare.html"):
        page = site.page(template, "http://localhost", "en").body.decode()
        carried = page.split(block, 1)[1].split("</script>", 1)[0]
        assert json.loads(carried) == {code: list(names) for code, names in ALTERNATIVE_NAMES.items()}
    assert "<" not in NAMES_JSON
