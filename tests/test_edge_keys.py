"""One key per meaning at the edge (docs/OPERATIONS.md#one-key-per-answer): the target the edge
keys and sends upstream (k8s/base/edge-keys.js, and the template's fast-path map) is the API's
own canonical query (``Query.canonical()``, what ``/api/v1/query/{route}`` answers) for every
request the API accepts, and the target as it came for every request it refuses.

An extra server block answers ``$edge_target`` for any request, so the rules are checked without
the cache in between. The differential test asks a real server.py (the bundled sample) what each
generated request means; the others check the measured cases, the fast path and, last, the edge
in front of one server.py, counting what reaches it.

nginx and its js module come from Debian's packages: ``make test`` installs them when missing
(as root); without them these tests skip, saying how to install them, and fail under
READINESS_NO_SKIPS.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders import DETAILS
from readiness.domain import routes
from readiness.domain.errors import ReadinessError
from readiness.domain.query import DIMENSION_NAMES, Query
from readiness.domain.vocabulary import CUSTOM_SORT_NAMES
from readiness.edge_config import TEMPLATE
from readiness.edge_fast_path import folded_key, lane_names
from readiness.edge_vocabulary import READ_BY_CODE, Keyed, implied_weights, keyed, sorts
from readiness.http.openapi import QUERY_PREFIX
from tests.conftest import ROOT, unavailable
from tests.edge_nginx import MISSING, Nginx, nginx_executable
from tests.processes import SERVER_ENV, Server, Start, free_port, free_ports, launch, wait_until_up

KEYED = {route.name: route for route in keyed()}
"""Every route the edge keys by meaning, by its word in edge-keys.js."""
TARGETS: list[tuple[Keyed, str]] = [
    (route, path.replace("{id}", "2026-11")) for route in KEYED.values() for path in route.paths
]
"""Every path the edge keys (a change report's: the current snapshot's), with its route."""


class Keys:
    """The edge's ``$edge_target`` for request targets, over one kept-alive connection; each
    checked against what njs makes of the target, whether the map's fast path took it or not."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.fast_path = False
        """Whether the last target was decided by the map without running njs."""

    def __call__(self, target: str, method: str = "GET") -> str:
        for attempt in (1, 2):
            try:
                self.connection.request(method, target)
                response = self.connection.getresponse()
                body = response.read().decode()
                assert response.status == 200, (target, response.status, body)
                edge_target = body if method != "HEAD" else response.getheader("X-Edge-Uri", "")
                # The template's map decides a target only as njs would.
                assert edge_target == response.getheader("X-Edge-Njs"), target
                self.fast_path = response.getheader("X-Edge-Fast-Path") != "njs"
                return edge_target
            except (http.client.HTTPException, ConnectionError):
                self.connection.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def fast_path_map() -> str:
    """The template's map to ``$edge_target`` as ``$edge_fast_path``, and the lanes' last maps it
    uses, whose defaults are "njs" rather than ``$edge_uri``: which targets the edge decides
    without running njs."""
    template = TEMPLATE.read_text()
    start = template.index("map $request_uri $edge_target {")
    block = template[start:template.index("\n}\n", start) + 3]
    assert block.count("default $edge_uri;") == 1
    lanes = re.findall(r'^map "\$request_method[^\n]*\n(?:    [^\n]*\n)*}\n', template, re.MULTILINE)
    assert len(lanes) == sum(1 for route in KEYED.values() if lane_names(route))
    assert all(lane.count("default $edge_uri;") == 1 for lane in lanes)
    return ("".join(lanes) + block).replace("edge_lane_", "edge_fast_lane_").replace(
        "$edge_target", "$edge_fast_path").replace("default $edge_uri;", "default njs;")


@pytest.fixture(scope="module")
def keys() -> Iterator[Keys]:
    """The shipped edge (its upstream unused) and a server block answering ``$edge_target``,
    with njs's own answer (``$edge_uri``) and the map's fast path alone in headers."""
    executable = nginx_executable()
    if executable is None:
        unavailable(MISSING)
    port = free_port()
    edge = Nginx(executable, ("127.0.0.1:9",))
    edge.extra_http = fast_path_map() + (
        f"server {{ listen 127.0.0.1:{port}; access_log off; location / {{"
        ' add_header X-Edge-Uri "$edge_target"; add_header X-Edge-Njs "$edge_uri";'
        ' add_header X-Edge-Fast-Path "$edge_fast_path"; return 200 "$edge_target"; } }')
    with edge:
        keyed_targets = Keys(port)
        yield keyed_targets
        keyed_targets.connection.close()


class Api:
    """A server.py on the bundled sample, asked what queries mean (``/api/v1/query/{route}``)
    over one kept-alive connection."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def meaning(self, route: Keyed, target: str) -> str:
        """The API's canonical target of ``target`` on the data route ``route`` (its path and
        canonical query), or ``target`` as it came when the API refuses it."""
        path, _, query = target.partition("?")
        explained = next(path for path in route.paths if path.startswith(QUERY_PREFIX))
        try:
            self.connection.request("GET", f"{explained}?{query}")
            response = self.connection.getresponse()
            body = response.read()
        except (http.client.HTTPException, ConnectionError):
            self.connection.close()  # a fresh connection for the next query
            raise
        if response.status != 200:
            assert response.status == 400, (target, response.status, body)
            return target
        canonical = json.loads(body)["query"]
        return path.removesuffix("/") + (f"?{canonical}" if canonical else "")


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """One server.py on the bundled sample (no Redis: explaining a query reads no snapshot)."""
    port, admin_port = free_ports(2)
    log = tmp_path_factory.mktemp("api") / "server.log"
    environment = {key: value for key, value in os.environ.items() if key != "READINESS_REDIS_URL"}
    with log.open("ab") as output:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "server.py")], cwd=ROOT, stdout=output, stderr=output,
            env={**environment, **SERVER_ENV, "READINESS_PORT": str(port), "READINESS_ADMIN_PORT": str(admin_port)},
        )
    try:
        wait_until_up(port, process)
        asked = Api(port)
        yield asked
        asked.connection.close()
    finally:
        process.kill()
        process.wait(timeout=10)


def meant(target: str) -> str:
    """What the edge must make of ``target``, by the service's parser in this process: the
    route's canonical target, or ``target`` as it came when the API refuses it."""
    path, _, query = target.partition("?")
    path = path.removesuffix("/")  # as the API's routes take it: one slash, optional
    route = next((route for route, known in TARGETS if known == path), None)
    if route is None:  # not a route the edge keys
        return target
    try:
        canonical = route.canonical(query)
    except ReadinessError:
        return target
    return path + (f"?{canonical}" if canonical else "")


# --- how clients spell a query ----------------------------------------------------------------


@st.composite
def cased(draw: st.DrawFn, text: str) -> str:
    """``text`` in the case a client may type it: as declared, upper, lower, or mixed."""
    how = draw(st.sampled_from(["as", "upper", "lower", "mixed"]))
    if how == "mixed":
        return "".join(c.upper() if draw(st.booleans()) else c.lower() for c in text)
    return {"as": text, "upper": text.upper(), "lower": text.lower()}[how]


def _weight(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.4f}".rstrip("0")


@st.composite
def weights(draw: st.DrawFn) -> str:
    """Five weights, or dimension:weight pairs by any of their names, scaled by any factor:
    ``1,2,3,4,5`` is ``2,4,6,8,10`` is ``0.5,1,1.5,2,2.5`` to the API."""
    base = draw(st.lists(st.integers(0, 6), min_size=5, max_size=5))
    scale = draw(st.sampled_from([1, 2, 3, 10, 0.5, 0.25]))
    if draw(st.booleans()):
        return ",".join(_weight(weight * scale) for weight in base)
    names = {position: [name for name, at in DIMENSION_NAMES.items() if at == position] for position in range(5)}
    pairs = [f"{draw(st.sampled_from(names[position]).flatmap(cased))}:{_weight(weight * scale)}"
             for position, weight in enumerate(base) if weight or draw(st.booleans())]
    return ",".join(draw(st.permutations(pairs))) or "0,0,0,0,0"


def mostly(valid: st.SearchStrategy[str], refused: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``valid``, and one time in sixteen ``refused``: most generated requests are ones the API
    answers, whose key is the point."""
    return st.integers(0, 15).flatmap(lambda roll: refused if roll == 0 else valid)


def _list(items: list[str], refused: str) -> st.SearchStrategy[str]:
    """Comma-separated items in any case, repeated, spaced, or one the API refuses."""
    item = st.sampled_from(items).flatmap(cased)
    spaced = st.tuples(st.sampled_from(["", " "]), item, st.sampled_from(["", "\t"])).map("".join)
    return mostly(st.lists(spaced, min_size=1, max_size=4).map(",".join), st.sampled_from([refused, ","]))


FIELD_SPELLINGS = [*routes.V1.grammar.parameter("fields").choices, DETAILS, DETAILS.upper()]
"""Every field's spellings, ``indicator_details`` more often: it is written only alone."""
SPELLINGS: dict[str, st.SearchStrategy[str]] = {
    "codes": _list(["KEN", "BRA", "USA", "ind", "Fra"], "K3N"),
    "code": _list(["KEN", "BRA", "usa"], "KENYA"),
    "indicators": _list(["GE.EST", "IT.NET.USER.ZS", "se.prm.enrr", "GE"], "GE EST"),
    "fields": _list(FIELD_SPELLINGS, "bogus"),
    "years": mostly(st.sampled_from(["2024", "2023:2025", "2024:2024"]), st.sampled_from(["2025:2023", "20x4"])),
    "limit": mostly(st.sampled_from(["5", "005", "1000"]), st.sampled_from(["1001", "0", "x"])),
    "offset": mostly(st.sampled_from(["0", "000", "7", "0007"]), st.just("x")),
    "weights": mostly(weights(), st.sampled_from(["0,0,0,0,0", "1,1,1,1", "human:1,human:2", "x:1"])),
    # Every field and alias, and a custom value one time in four (v1 writes the published weights
    # beside it; the legacy route has none).
    "sort": st.one_of(*[st.sampled_from(routes.V1.grammar.parameter("sort").choices)] * 3,
                      st.sampled_from(CUSTOM_SORT_NAMES)).flatmap(cased),
    "mrv": mostly(st.sampled_from(["1", "2", "5", "999"]), st.sampled_from(["0", "01", "1000", "x"])),
    # The aliases (readiness/domain/aliases.py): the World Bank's and Our World in Data's spellings.
    "per_page": mostly(st.sampled_from(["5", "005", "1000", "50"]), st.sampled_from(["1001", "0", "x"])),
    "page": mostly(st.sampled_from(["1", "2", "3", "0004", "10000"]), st.sampled_from(["0", "x", "9999999", "-1"])),
    "date": mostly(st.sampled_from(["2024", "2023:2025", "2025:2023"]), st.sampled_from(["2024M01", "20x4"])),
    "time": mostly(st.sampled_from(["2024", "2023..2025", "2025:2023", "earliest..2024", "2024..latest", "latest",
                                    "..", "2024..", "..2025", "LATEST", "Earliest..Latest", "2024:"]).flatmap(cased),
                   st.sampled_from(["earliest", "2024...2025", "latest..2020", "2024-2025"])),
    "country": mostly(st.tuples(st.sampled_from(["", "~"]), st.lists(st.sampled_from(["KEN", "bra", "Usa", "IND"]),
                                                                      min_size=1, max_size=3),
                                st.sampled_from(["~", ";", ",", " ~ "])).map(lambda t: t[0] + t[2].join(t[1])),
                      st.sampled_from(["Kenya", "~", "KEN~Brazil", ";;"])),
}
"""What clients send for the names read by code of their own (edge-keys.js's READ_BY_CODE), for
``sort``, whose custom values are rarer among its spellings than among requests, for ``mrv``, and
for the aliases, each as its convention spells it."""


def spellings(route: Keyed, name: str) -> st.SearchStrategy[str]:
    """A value a client may send for ``name`` on ``route``: any spelling of a closed set in any
    case (its default included), a value of an open set's pattern, or one the API refuses."""
    if name in SPELLINGS:
        return SPELLINGS[name]
    parameter = route.grammar.parameter(name)
    if parameter.choices:
        return mostly(st.sampled_from(parameter.choices).flatmap(cased), st.just("bogus"))
    assert parameter.pattern is not None
    item = st.from_regex(parameter.pattern, fullmatch=True)
    if parameter.many:  # a list kept as it is (history's snapshot ids): repeated, unsorted, spaced
        return mostly(st.lists(st.one_of(item, st.sampled_from(["2024-06", "2025-12"])), min_size=1, max_size=4)
                      .map(", ".join), st.sampled_from(["2024-13", ","]))
    return mostly(item, st.just("2024-13"))


@st.composite
def encoded(draw: st.DrawFn, text: str) -> str:
    """``text`` percent-encoded one of the many ways a client may: a space as `+` or %20, any
    character as it is where that is unambiguous or escaped, hex in either case."""
    out = []
    for character in text:
        if character == " ":
            out.append(draw(st.sampled_from(["+", "%20"])))
            continue
        plain = character.isascii() and (character.isalnum() or character in "-._~,:!*'()/;@$")
        if plain and draw(st.booleans()):
            out.append(character)
        else:
            hexes = "".join(f"%{byte:02X}" for byte in character.encode())
            out.append(hexes if draw(st.booleans()) else hexes.lower())
    return "".join(out)


JUNK = st.text(st.sampled_from("aZ09 _-.,:;!*'()&=+%~/?é\t"), max_size=12)
"""Values a client might send that the API never reads (encoded by ``encoded``)."""
ESCAPES = st.sampled_from(["%zz", "%", "%F", "%FF", "%C3", "%e2%82%ac", "%00", "100%"])
"""Raw escapes, valid or not, UTF-8 or not."""


@st.composite
def spelled(draw: st.DrawFn, route: Keyed) -> str:
    """A query string for ``route`` as clients write them: names in any order, values in any
    spelling and encoding, padded, repeated, cache busters, stray separators, now and then a
    name the route does not take."""
    accepted = route.grammar.accepted  # the aliases too
    names = draw(st.lists(st.sampled_from(accepted), max_size=5, unique=True)) if accepted else []
    items = []
    for name in names:
        value = draw(spellings(route, name))
        padding = draw(st.sampled_from(["", "", " ", "\t "]))
        items.append(draw(encoded(name)) + "=" + draw(encoded(padding + value + padding[::-1])))
        if draw(st.integers(0, 5)) == 0:  # an earlier value, which the later one overrides (or joins)
            items.insert(0, f"{name}=" + draw(st.one_of(spellings(route, name), JUNK).flatmap(encoded)))
    for _ in range(draw(st.integers(0, 2))):  # cache busters, anything after them
        items.append(draw(st.sampled_from(["_", "_x", "%5Fts", "_%FF"])) + "="
                     + draw(st.one_of(JUNK.flatmap(encoded), ESCAPES)))
    if draw(st.integers(0, 15)) == 0:
        items.append(draw(st.sampled_from(["regoin=lac", "other=1", "Code=KEN", "%zz=1", "level"])))
    items = draw(st.permutations(items))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), "")
    return "&".join(items)


# --- the differential test: the edge's key is the API's canonical query ---------------------


@settings(max_examples=400)
@given(st.data())
def test_every_request_is_keyed_by_the_apis_canonical_query(keys: Keys, api: Api, data: st.DataObject) -> None:
    route, path = data.draw(st.sampled_from(TARGETS))
    query = data.draw(spelled(route))
    target = path + data.draw(st.sampled_from(["", "/"])) + (f"?{query}" if query or data.draw(st.booleans()) else "")
    explained = any(known.startswith(QUERY_PREFIX) for known in route.paths)
    expected = api.meaning(route, target) if explained else meant(target)
    assert keys(target) == expected, target
    if expected != target:
        assert keys(expected) == expected  # canonical once, canonical for good


@st.composite
def variants(draw: st.DrawFn, path: str, canonical: str) -> str:
    """Another spelling of the canonical query ``canonical`` at ``path``: names and values
    re-encoded and padded, reordered, cache busters, empty values of names it does not give,
    ``code`` beside ``codes`` (ignored, valid or not), a trailing slash."""
    pairs = [pair.split("=", 1) for pair in canonical.split("&") if pair]
    items = [draw(encoded(name)) + "=" + draw(encoded(draw(st.sampled_from(["", " ", "\t"])) + unquote(value)))
             for name, value in pairs]
    items += draw(st.lists(st.sampled_from(["_=1", "_x=%zz", "%5Fts=%FF", ""]), max_size=2))
    route = next(route for route, known in TARGETS if known == path)
    absent = [name for name in route.grammar.names if name not in {name for name, _ in pairs}]
    items += [f"{name}=" + draw(st.sampled_from(["", "%20", "+%09"])) for name in
              (draw(st.lists(st.sampled_from(absent), max_size=2, unique=True)) if absent else [])]
    if "codes" in dict(pairs) and "code" in route.grammar:
        items.append("code=" + draw(st.sampled_from(["KEN", "x", "%FF"])))
    return path + draw(st.sampled_from(["", "/"])) + "?" + "&".join(draw(st.permutations(items)))


@settings(max_examples=150)
@given(st.data())
def test_every_spelling_of_a_query_has_the_key_of_its_canonical_form(keys: Keys, data: st.DataObject) -> None:
    route, path = data.draw(st.sampled_from(TARGETS))
    try:
        canonical = route.canonical(data.draw(spelled(route)))
    except ReadinessError:
        canonical = ""
    expected = path + (f"?{canonical}" if canonical else "")
    assert keys(expected) == expected
    for _ in range(3):
        variant = data.draw(variants(path, canonical))
        assert keys(variant) == expected, variant


# --- the measured cases: up to 13 keys for one answer, now one ------------------------------

ONE_MEANING = {
    "region: value case and aliases": [
        "/api/v1/readiness?region=Latin%20America%20%26%20Caribbean",
        "/api/v1/readiness?region=LAC", "/api/v1/readiness?region=lac", "/api/v1/readiness?region=SA",
        "/api/v1/readiness?region=South+America", "/api/v1/readiness?region=latin+america+%26+CARIBBEAN",
    ],
    "defaults spelled out": [
        "/api/v1/readiness",
        "/api/v1/readiness?format=json", "/api/v1/readiness?level=global", "/api/v1/readiness?offset=0",
        "/api/v1/readiness?shortnames=false", "/api/v1/readiness?sort=Country+Name&order=asc",
        "/api/v1/readiness?format=JSON&level=Global&offset=000&shortnames=0&sort=country%20name",
    ],
    "defaults of the other routes": [
        "/api/v1/history", "/api/v1/history?shape=wide", "/api/v1/history?shape=WIDE&format=json&offset=0",
    ],
    "the grouping's default": ["/api/v1/aggregates", "/api/v1/aggregates?by=world", "/api/v1/aggregates?by=World"],
    "a route's own default": ["/api/v1/rankings/changes", "/api/v1/rankings/changes?measure=score"],
    "duplicate codes, any case and order": [
        "/api/v1/readiness?codes=BRA,KEN",
        "/api/v1/readiness?codes=KEN,BRA,BRA,KEN", "/api/v1/readiness?code=ken,bra",
        "/api/v1/readiness?codes=KEN&codes=bra", "/api/v1/readiness?codes=+ken,BRA+,,&code=ARG",
        "/api/v1/readiness?codes=BRA,KEN&level=country",
    ],
    "indicators on the global list, which it ignores": [
        "/api/v1/readiness", "/api/v1/readiness?indicators=GE.EST", "/api/v1/readiness?indicators=ge.est,GE.EST",
    ],
    "indicators in country mode": [
        "/api/v1/readiness?codes=KEN&indicators=GE.EST,IT.NET.USER.ZS",
        "/api/v1/readiness?code=KEN&indicators=it.net.user.zs,GE.EST,ge.est",
    ],
    "weights and their scalings": [
        "/api/v1/readiness?weights=1,2,3,4,5",
        "/api/v1/readiness?weights=2,4,6,8,10", "/api/v1/readiness?weights=0.5,1,1.5,2,2.5",
        "/api/v1/readiness?weights=infrastructure:1,human:2,access:3,innovation:4,governance:5",
        "/api/v1/readiness?weights=GOVERNANCE:10,Innovation%20Score:8,school%20access%20and%20gender%20parity:6,"
        "Human%20Capital:4,infra:2",
    ],
    "sort aliases, and the order they imply": [
        "/api/v1/readiness?sort=Composite%20Readiness%20Score&order=desc",
        "/api/v1/readiness?sort=score", "/api/v1/readiness?sort=SCORE&order=DESC",
        "/api/v1/readiness?order=desc&sort=composite+readiness+score",
    ],
    "fields: aliases, order, repeats": [
        "/api/v1/readiness?fields=Region,Composite%20Readiness%20Score",
        "/api/v1/readiness?fields=score,region", "/api/v1/readiness?fields=Region&fields=SCORE,indicator_details",
    ],
    "the snapshot choosers: year, else snapshot, else years": [
        "/api/v1/indicators?codes=KEN&year=2024",
        "/api/v1/indicators?codes=KEN&year=2024&snapshot=2024-06",
        "/api/v1/indicators?years=2023:2025&codes=KEN&snapshot=2024-06&year=2024",
    ],
    "a snapshot over a range": [
        "/api/v1/aggregates?snapshot=2024-06", "/api/v1/aggregates?years=2023:2025&snapshot=2024-06",
    ],
    "a range either way": ["/api/v1/history?years=2023:2025", "/api/v1/history?years=2025:2023"],
    "a custom sort by the published weights": [
        "/api/v1/readiness?sort=Custom%20Score&order=desc&weights=1,1,1,1,1",
        "/api/v1/readiness?sort=custom", "/api/v1/readiness?sort=CUSTOM+score&weights=2,2,2,2,2",
    ],
    "_ on the citation": [
        "/api/v1/citation", "/api/v1/citation?_=1764094800001", "/api/v1/citation?format=bibtex&_=2",
        "/api/v1/citation/?format=BibTeX",
    ],
    "_ on a query route": [
        "/api/v1/query/readiness?region=Latin%20America%20%26%20Caribbean",
        "/api/v1/query/readiness?region=lac&_=1", "/api/v1/query/readiness/?_=2&region=LAC&format=json",
    ],
    "_ on the documents": ["/api/v1/openapi.json", "/api/v1/openapi.json?_=1"],
    "_ on the route index": ["/api/v1", "/api/v1/?_=1", "/api/v1?_=2"],
}
"""Targets of one answer each, the canonical one first: what was measured before (issue 30)."""


@pytest.mark.parametrize("targets", list(ONE_MEANING.values()), ids=list(ONE_MEANING))
def test_one_meaning_is_one_key(keys: Keys, targets: list[str]) -> None:
    assert meant(targets[0]) == targets[0]  # the API's own canonical target
    assert [keys(target) for target in targets] == [targets[0]] * len(targets)


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/readiness?region=atlantis&_=1",
        "/api/v1/readiness?level=country",  # needs codes
        "/api/v1/readiness?level=nation&codes=KEN",
        "/api/readiness?sort=custom",  # the legacy route has no custom values
        "/api/v1/readiness?weights=0,0,0,0,0",
        "/api/v1/readiness?weights=human:1,HUMAN:2",
        "/api/v1/readiness?weights=1,1,1,1",
        "/api/v1/readiness?year=2024&snapshot=2024-13",  # a snapshot chooser left unread is checked
        "/api/v1/indicators?years=20x4&snapshot=2024-06",
        "/api/v1/readiness?limit=0", "/api/v1/readiness?limit=1001", "/api/v1/readiness?offset=-1",
        "/api/v1/readiness?codes=,", "/api/v1/readiness?codes=KEN,K3N", "/api/v1/readiness?fields=bogus",
        "/api/v1/readiness?indicators=GE%20EST",  # refused even where it filters nothing
        "/api/v1/history?fields=indicator_details",  # history has no details
        "/api/v1/readiness?codes=" + ",".join(f"A{a}{b}" for a in "ABCDEFGHIJKLMNOPQ" for b in "ABCDEFGHIJKLMNOPQRS"),
        "/api/v1/citation?format=csv", "/api/v1/citation?snapshot=2024-13",
        "/api/v1/snapshots?format=csv&_=2", "/api/v1/openapi.json?format=csv",
        "/api/v1/readiness?regoin=lac", "/api/v1/readiness?region=%FF&_=2", "/api/v1/readiness?region=100%",
        "/api/v1/query/readiness?region=atlantis&_=1",
    ],
)
def test_what_the_api_refuses_passes_as_it_came(keys: Keys, target: str) -> None:
    assert meant(target) == target
    assert keys(target) == target


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # Read as the API reads a query string: busters, repeats (the last value; a list's joined),
        # trimming, empty values, `+` and escapes of either case.
        ("/api/v1/readiness?_=1&limit=5&limit=7&fcv=&region=Latin+America+%26+Caribbean",
         "/api/v1/readiness?region=Latin%20America%20%26%20Caribbean&limit=7"),
        ("/api/v1/readiness/?code=KEN&codes=BRA,ken&code=%FF", "/api/v1/readiness?codes=BRA,KEN"),
        ("/api/v1/readiness?region=lac&region=", "/api/v1/readiness"),  # the last value wins, even empty
        ("/api/v1/readiness?region=%20%09lac+", "/api/v1/readiness?region=Latin%20America%20%26%20Caribbean"),
        ("/api/v1/readiness?region=%FF&region=lac", "/api/v1/readiness?region=Latin%20America%20%26%20Caribbean"),
        ("/api/v1/readiness?_%FF=1&%5Fx=%zz&_=100%", "/api/v1/readiness"),
        ("/api/readiness?zz=1&b=%FF&c=%zz&sort=score", "/api/readiness?sort=Composite%20Readiness%20Score&order=desc"),
        ("/api/v1/snapshots/2026-11/changes/?format=CSV&_=1", "/api/v1/snapshots/2026-11/changes?format=csv"),
        ("/api/v1/snapshots?_=1", "/api/v1/snapshots"),
        ("/api/v1/history?years=2020:2024&&&", "/api/v1/history?years=2020:2024"),
        ("/api/v1/history?years=2024:2024", "/api/v1/history?years=2024"),
        ("/api/v1/readiness?fields=score&codes=KEN&fields=Region&codes=bra",
         "/api/v1/readiness?codes=BRA,KEN&fields=Region,Composite%20Readiness%20Score"),
        ("/api/v1/readiness?fields=Population,%20total,indicator_details,Country%20Name",
         "/api/v1/readiness?fields=Country%20Name,Population,%20total"),
        ("/api/v1/readiness?fields=INDICATOR_DETAILS", f"/api/v1/readiness?fields={DETAILS}"),
        ("/api/v1/indicators?indicators=GE.EST&indicators=&_=1", "/api/v1/indicators?indicators=GE.EST"),
        ("/api/v1/aggregates?by=REGION&_=1&years=2023:2025", "/api/v1/aggregates?years=2023:2025&by=region"),
        ("/api/v1/rankings/changes?measure=Rank&to=2026-11&from=2025-12",
         "/api/v1/rankings/changes?from=2025-12&to=2026-11&measure=rank"),
        ("/api/v1/readiness?limit=007&offset=0010", "/api/v1/readiness?limit=7&offset=10"),
        ("/api/v1/readiness?fcv=1&shortnames=TRUE", "/api/v1/readiness?fcv=true&shortnames=true"),
        ("/api/v1/readiness?order=desc", "/api/v1/readiness?sort=Country%20Name&order=desc"),
        ("/api/v1/readiness?sort=region", "/api/v1/readiness?sort=Region&order=asc"),
        ("/api/v1/readiness?weights=infra:2,human:1&sort=CUSTOM",
         "/api/v1/readiness?sort=Custom%20Score&order=desc&weights=2,1,0,0,0"),
        ("/api/v1/readiness?year=2024&codes=KEN", "/api/v1/readiness?codes=KEN&year=2024"),
        ("/api/v1/citation?snapshot=2024-06&format=RIS", "/api/v1/citation?format=ris&snapshot=2024-06"),
        # Every other route, and what the API does not route, pass as they came.
        ("/?b=1&a=2", "/?b=1&a=2"),
        ("/explore?region=lac&_=1", "/explore?region=lac&_=1"),
        ("/api/v1/readiness//?_=1", "/api/v1/readiness//?_=1"),
        ("/api/v1/%72eadiness?_=1", "/api/v1/%72eadiness?_=1"),
        ("/api/v1/query/nothing?_=1", "/api/v1/query/nothing?_=1"),
    ],
)
def test_edge_targets(keys: Keys, target: str, expected: str) -> None:
    assert keys(target) == expected
    assert meant(target) == expected


def test_raw_bytes_outside_printable_ascii_are_left_to_the_api(keys: Keys) -> None:
    for raw in (b"region=\xc3\xa9&_=2", b"region=\xe9&_=2"):  # UTF-8 or not, sent unescaped
        with socket.create_connection(("127.0.0.1", keys.port), timeout=5) as client:
            client.sendall(b"GET /api/v1/readiness?" + raw + b" HTTP/1.0\r\nHost: edge\r\n\r\n")
            reply = b""
            while chunk := client.recv(4096):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200 ") and reply.endswith(b"\r\n\r\n/api/v1/readiness?" + raw), reply


def test_only_get_and_head_are_normalized(keys: Keys) -> None:
    assert keys("/api/v1/readiness?_=1&limit=5", "HEAD") == "/api/v1/readiness?limit=5"
    assert keys("/api/v1/readiness?_=1&limit=5", "POST") == "/api/v1/readiness?_=1&limit=5"
    assert keys("/api/v1/readiness?_=1&limit=5", "OPTIONS") == "/api/v1/readiness?_=1&limit=5"


# --- the fast path: canonical targets skip njs ----------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/readiness",
        "/api/v1/readiness?codes=KEN",
        "/api/v1/readiness?codes=BRA,IND,KEN",
        "/api/v1/readiness?codes=BRA,KEN&fields=Composite%20Readiness%20Score",
        "/api/v1/readiness?codes=KEN&indicators=GE.EST,IT.NET.USER.ZS",
        "/api/v1/readiness?region=South%20Asia&sort=Composite%20Readiness%20Score&order=desc",
        "/api/v1/readiness?region=Europe%20%26%20Central%20Asia",
        "/api/v1/readiness?codes=KEN&year=2024",
        "/api/v1/readiness?sort=Country%20Name&order=desc",
        "/api/v1/readiness?fields=Country%20Name,Population,%20total,Global%20Rank",
        "/api/v1/readiness?fields=indicator_details",
        "/api/v1/readiness?income=High%20income&fcv=false&limit=20&offset=40&format=csv",
        "/api/v1/indicators?codes=KEN&years=2022:2025&indicators=GE.EST",
        "/api/v1/indicators?indicators=GE.EST",  # the indicators route filters without codes
        "/api/v1/history?codes=KEN&shape=long",
        "/api/v1/aggregates?year=2024&by=region",
        "/api/v1/rankings/changes?from=2025-12&measure=rank",
        "/api/v1/snapshots",
        "/api/v1/openapi.json",
        "/explore?region=lac",
        "/static/site.css",
    ],
)
def test_canonical_targets_skip_njs(keys: Keys, target: str) -> None:
    # njs costs a hit about as much again as the rest of the edge (docs/PERFORMANCE.md#what-njs-costs-a-hit).
    assert keys(target) == target and keys.fast_path, target
    assert meant(target) == target


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/api/v1/readiness?code=KEN", "/api/v1/readiness?codes=KEN"),
        ("/api/v1/readiness?code=BRA,KEN&indicators=GE.EST", "/api/v1/readiness?codes=BRA,KEN&indicators=GE.EST"),
        ("/api/v1/history?code=KEN&years=2023:2025", "/api/v1/history?codes=KEN&years=2023:2025"),
    ],
)
def test_code_alone_is_rewritten_to_codes_without_njs(keys: Keys, target: str, expected: str) -> None:
    # `?code=KEN` is the most common query there is (a country's page).
    assert keys(target) == expected and keys.fast_path, target
    assert meant(target) == expected


LANE = {
    # bench/edge.py's mix: the regions by score, a country's score, a country in an archive.
    "/api/v1/readiness?region=LAC&sort=score&order=desc":
        "/api/v1/readiness?region=Latin%20America%20%26%20Caribbean&sort=Composite%20Readiness%20Score&order=desc",
    "/api/v1/readiness?code=KEN&fields=score": "/api/v1/readiness?codes=KEN&fields=Composite%20Readiness%20Score",
    "/api/v1/readiness?year=2024&codes=KEN": "/api/v1/readiness?codes=KEN&year=2024",
    # Aliases, case, defaults, an implied order, pairs out of order, a trailing slash.
    "/api/v1/readiness?region=south%20asia": "/api/v1/readiness?region=South%20Asia",
    "/api/v1/readiness?sort=Composite%20Readiness%20Score":
        "/api/v1/readiness?sort=Composite%20Readiness%20Score&order=desc",
    "/api/v1/readiness?order=DESC": "/api/v1/readiness?sort=Country%20Name&order=desc",
    "/api/v1/readiness?order=asc&sort=country%20NAME": "/api/v1/readiness",
    "/api/v1/readiness?format=JSON&offset=0&shortnames=0": "/api/v1/readiness",
    "/api/v1/readiness/?limit=5&income=UMC&fcv=1":
        "/api/v1/readiness?income=Upper%20middle%20income&fcv=true&limit=5",
    "/api/v1/readiness?fields=Population,%20total&codes=BRA,KEN":
        "/api/v1/readiness?codes=BRA,KEN&fields=Population,%20total",
    "/api/v1/readiness?snapshot=2024-06&year=2024&region=EAP":
        "/api/v1/readiness?region=East%20Asia%20%26%20Pacific&year=2024",
    "/api/v1/indicators?indicators=GE.EST&fields=REPORTED_VALUE&code=KEN":
        "/api/v1/indicators?codes=KEN&fields=reported_value&indicators=GE.EST",
    "/api/v1/indicators?snapshot=2024-06&years=2023:2025": "/api/v1/indicators?snapshot=2024-06",
    "/api/v1/history?shape=WIDE&fcv=0&years=2023:2025": "/api/v1/history?fcv=false&years=2023:2025",
    "/api/v1/aggregates?by=Income&year=2024": "/api/v1/aggregates?year=2024&by=income",
    "/api/v1/rankings/changes?measure=Rank&to=2026-11&from=2025-12":
        "/api/v1/rankings/changes?from=2025-12&to=2026-11&measure=rank",
}
"""Targets the lane writes the canonical target of, without njs."""


@pytest.mark.parametrize(("target", "expected"), list(LANE.items()))
def test_aliases_case_and_pairs_out_of_order_skip_njs(keys: Keys, target: str, expected: str) -> None:
    # 20 % of bench/edge.py's mix ran njs for these, 32 to 44 µs a request against 26 for a whole hit
    # without it: docs/PERFORMANCE.md#the-map-writes-aliases-and-pairs-out-of-order-njs-off-the-mix-2026-11-28-1630-utc
    assert meant(target) == expected
    assert keys(target) == expected and keys.fast_path, target


def test_the_lane_keeps_other_methods_as_they_came(keys: Keys) -> None:
    assert keys("/api/v1/readiness?year=2024&codes=KEN", "HEAD") == "/api/v1/readiness?codes=KEN&year=2024"
    assert keys.fast_path
    assert keys("/api/v1/readiness?year=2024&codes=KEN", "POST") == "/api/v1/readiness?year=2024&codes=KEN"


def _lane_encoded(text: str) -> str:
    """``text`` as the lane reads it: a space ``%20``, ``&`` ``%26``."""
    return text.replace(" ", "%20").replace("&", "%26")


@st.composite
def lane_value(draw: st.DrawFn, route: Keyed, name: str) -> tuple[str, bool]:
    """A value of ``name`` (one of the lane's) as clients write them, and whether the lane reads
    it: mostly a spelling it knows, in any case; now and then one it leaves to njs (``+``, lower
    case codes, two fields, a custom sort) or one the API refuses."""
    roll = draw(st.integers(0, 9))
    if name in ("codes", "code"):
        codes = sorted(set(draw(st.lists(st.sampled_from(["BRA", "IND", "KEN", "USA"]), min_size=1, max_size=3))))
        if roll == 0:
            return ",".join(reversed(codes)).lower(), False
        return ",".join(codes), True
    if name == "indicators":
        return ",".join(sorted(set(draw(st.lists(st.sampled_from(["GE.EST", "IT.NET.USER.ZS", "SE.PRM.ENRR"]),
                                                      min_size=1, max_size=3))))), True
    if name == "years":
        years = draw(st.sampled_from(["2024", "2023:2025", "2025:2023", "2024:2024"]))
        return years, years in ("2024", "2023:2025")  # the others the lane leaves to njs
    parameter = route.grammar.parameter(name)
    if roll == 0:
        return draw(st.sampled_from(["bogus", "20x4", "lac%2C"])), False
    if name == "sort":
        spelling = draw(st.sampled_from(sorted(sorts(route))))
        custom = sorts(route)[spelling] in implied_weights(route)
        return _lane_encoded(draw(cased(spelling))), not custom and folded_key(spelling) is not None
    if name == "fields":
        spelling = draw(st.sampled_from(parameter.choices))
        if roll == 1:
            return _lane_encoded(f"{spelling},{draw(st.sampled_from(parameter.choices))}"), False
        return _lane_encoded(draw(cased(spelling))), folded_key(spelling) is not None
    if parameter.choices:
        spelling = draw(st.sampled_from(parameter.choices))
        if roll == 1 and " " in spelling:
            return spelling.replace(" ", "+"), False
        return _lane_encoded(draw(cased(spelling))), folded_key(spelling) is not None
    assert parameter.pattern is not None
    return draw(st.from_regex(parameter.pattern, fullmatch=True).filter(bool)), True


@settings(max_examples=300)
@given(st.data())
def test_the_lane_is_njs_and_the_apis_canonical_query(keys: Keys, api: Api, data: st.DataObject) -> None:
    # The lane's forms, often: aliases and any case, pairs in any order, the snapshot choosers
    # together, defaults; now and then a value it leaves to njs, a repeat, or one refused. Keys
    # checks the edge's answer against njs's; here njs's against the API's, and that the lane
    # takes every target whose values it reads.
    route = data.draw(st.sampled_from([route for route in KEYED.values() if lane_names(route)]))
    names = data.draw(st.lists(st.sampled_from(lane_names(route)), min_size=1, max_size=4, unique=True))
    pairs, read = [], not {"code", "codes"} <= set(names)
    for name in names:
        value, known = data.draw(lane_value(route, name))
        pairs.append(f"{name}={value}")
        read = read and known
    if data.draw(st.integers(0, 9)) == 0:  # a repeat
        pairs.append(data.draw(st.sampled_from(pairs)))
        read = False
    target = f"{route.paths[0]}?{'&'.join(data.draw(st.permutations(pairs)))}"
    assert keys(target) == api.meaning(route, target), target
    if read:
        assert keys.fast_path, target


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/api/v1/history?per_page=10&page=3", "/api/v1/history?limit=10&offset=20"),
        ("/api/v1/indicators?page=2", "/api/v1/indicators?limit=50&offset=50"),  # the World Bank's 50 a page
        ("/api/v1/readiness?page=1&limit=7", "/api/v1/readiness?limit=7"),
        ("/api/v1/history?date=2025:2023", "/api/v1/history?years=2023:2025"),
        ("/api/v1/history?time=2020..latest", "/api/v1/history?years=2020:9999"),
        ("/api/v1/aggregates?time=..2024", "/api/v1/aggregates?years=0000:2024"),
        ("/api/v1/history?time=Latest", "/api/v1/history?mrv=1"),
        ("/api/v1/readiness?country=~usa;KEN", "/api/v1/readiness?codes=KEN,USA"),
        ("/api/v1/rankings/changes?country=KEN~bra", "/api/v1/rankings/changes?codes=BRA,KEN"),
        ("/api/v1/history?snapshot=2025-12,2024-06&snapshot=2024-06&years=2020",
         "/api/v1/history?snapshot=2024-06,2025-12"),
        ("/api/v1/aggregates?mrv=2&year=2025", "/api/v1/aggregates?year=2025"),
        ("/api/v1/indicators?mrv=2&years=2020:2030", "/api/v1/indicators?years=2020:2030&mrv=2"),
        ("/api/v1/indicators?fields=REPORTED_VALUE,country%20name",
         "/api/v1/indicators?fields=Country%20Name,reported_value"),
        ("/api/readiness?per_page=5", "/api/readiness"),  # the legacy route ignores names it does not take
        ("/api/v1/history.csv?country=ken&per_page=5&page=2", "/api/v1/history.csv?codes=KEN&limit=5&offset=5"),
        ("/api/v1/snapshots/2026-11/changes.csv/", "/api/v1/snapshots/2026-11/changes.csv"),
    ],
)
def test_each_convention_is_keyed_as_what_it_stands_for(keys: Keys, target: str, expected: str) -> None:
    assert meant(target) == expected
    assert keys(target) == expected


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/history?per_page=5&limit=5",
        "/api/v1/readiness?page=2&offset=1",
        "/api/v1/history?date=2024&years=2024",
        "/api/v1/readiness?country=KEN&codes=BRA",
        "/api/v1/readiness?country=KEN&code=KEN",
        "/api/v1/history?time=2024&date=2024",
        "/api/v1/history?time=latest&mrv=3",
        "/api/v1/history?page=0",
        "/api/v1/history?time=earliest",
        "/api/v1/readiness?country=Kenya",
        "/api/v1/history.csv?format=csv",  # a download path takes no format
    ],
)
def test_a_convention_the_api_refuses_is_keyed_as_it_came(keys: Keys, target: str) -> None:
    assert meant(target) == target and keys(target) == target


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/readiness?",  # njs drops the empty query
        "/api/v1/readiness/",
        "/api/v1/readiness?codes=KEN&",
        "/api/v1/readiness?code=KEN&codes=BRA",  # njs drops `code`
        "/api/v1/readiness?codes=KEN,BRA",  # not sorted
        "/api/v1/readiness?codes=BRA,BRA",
        "/api/v1/readiness?codes=bra",
        "/api/v1/readiness?fields=Composite%20Readiness%20Score,Region",
        "/api/v1/readiness?fields=Region,indicator_details",
        "/api/v1/readiness?indicators=GE.EST",  # ignored without codes
        "/api/v1/readiness?codes=KEN&indicators=IT.NET.USER.ZS,GE.EST",
        "/api/v1/readiness?region=South+Asia",
        "/api/v1/readiness?level=global",
        "/api/v1/readiness?limit=05",
        "/api/v1/readiness?weights=1,2,3,4,5",  # reduced: njs's
        "/api/v1/readiness?sort=score&weights=1,1,1,1,1",
        # What the lane leaves to njs: `+`, an escape it does not read, a spelling it does not
        # know, a repeat, `code` beside `codes`, a list not canonical, names it does not read.
        "/api/v1/readiness?region=South+Asia&year=2024",
        "/api/v1/readiness?region=lac%2C&year=2024",
        "/api/v1/readiness?region=atlantis&year=2024",
        "/api/v1/readiness?region=lac&region=sa",
        "/api/v1/readiness?year=2024&code=KEN&codes=BRA",
        "/api/v1/readiness?year=2024&codes=ken",
        "/api/v1/readiness?year=2024&codes=KEN,BRA",
        "/api/v1/readiness?fields=score,region",
        "/api/v1/readiness?sort=custom",  # writes the published weights
        "/api/v1/readiness?year=2024&codes=KEN&indicators=GE.EST",  # country mode only
        "/api/v1/readiness?region=lac&level=country&codes=KEN",
        "/api/v1/readiness?region=%20lac",
        "/api/v1/readiness?region=lac&limit=05",
        "/api/v1/aggregates?mrv=2&year=2024",
        "/api/v1/history?snapshot=2024-06&years=2024",  # a list kept as it is
        "/api/v1/readiness?code=KEN&_=1",
        "/api/v1/history?years=2024:2024",
        "/api/v1/history?years=2025:2023",
        "/api/v1/readiness?sort=Custom%20Score&order=desc",  # writes the published weights
        "/api/v1/snapshots?format=csv",
        "/api/readiness?code=KEN",
        "/api/v1/snapshots/2026-11/changes",
        "/api/v1/citation",
        "/api/v1/query/readiness",
        "/api/v1/readiness?code=KEN?codes=BRA",
    ],
)
def test_other_targets_go_through_njs(keys: Keys, target: str) -> None:
    keys(target)  # and njs's answer is the edge's (Keys checks it)
    assert not keys.fast_path, target


CANONICAL_VALUES = {
    "codes": "KEN", "region": "South%20Asia", "income": "Low%20income", "fcv": "true", "year": "2024",
    "years": "2023:2025", "snapshot": "2024-06", "sort": "Region&order=desc", "fields": "Region",
    "shortnames": "true", "indicators": "GE.EST", "limit": "5", "offset": "5", "shape": "long", "by": "region",
    "format": "csv", "from": "2025-12", "to": "2026-11", "measure": "rank",
}
"""A canonical value of each name the fast path checks (``sort``'s with its order)."""


@pytest.mark.parametrize("route", [route for route in KEYED.values() if route.fast], ids=lambda route: route.name)
def test_two_names_in_either_order_one_key_only_the_canonical_order_or_the_lane_skips_njs(
    keys: Keys, route: Keyed
) -> None:
    # Two spellings of one answer must be one key (one cache entry, one request upstream), so
    # the fast-path map may take a target as it came only in the canonical order: a map with
    # `offset` before `limit` took `offset=1&limit=1` as it came and njs made `limit=1&offset=1`
    # of the other order. The other order skips njs only through the lane, which writes the
    # canonical order. Every pair of names adjacent in the canonical order, of every route,
    # from the route table itself, not from the map's text.
    path = route.paths[0]
    names = [name for name in route.order if name in CANONICAL_VALUES]
    for first, second in pairwise(names):
        in_order = f"{path}?{first}={CANONICAL_VALUES[first]}&{second}={CANONICAL_VALUES[second]}"
        swapped = f"{path}?{second}={CANONICAL_VALUES[second]}&{first}={CANONICAL_VALUES[first]}"
        expected = meant(in_order)
        assert keys(in_order) == expected
        skipped = keys.fast_path
        if expected == in_order and meant(swapped) == swapped:  # refused (year and years): as it came
            assert keys(swapped) == swapped
            continue
        assert keys(swapped) == expected, swapped  # one key for one answer
        # Out of order, only the lane skips njs: it writes the canonical order itself.
        assert keys.fast_path == ({first, second} <= set(lane_names(route))), swapped
        njs_only = [name for name in (first, second) if name in route.grammar and route.grammar.parameter(name).many
                    and name not in READ_BY_CODE]  # a list kept as it is (history's snapshot ids): njs sorts it
        if expected == in_order and not njs_only:  # canonical: the map takes it
            assert skipped, f"{in_order} went through njs"


@settings(max_examples=200)
@given(st.lists(st.text("AB", min_size=3, max_size=3), min_size=1, max_size=5))
def test_the_map_takes_a_code_list_only_sorted_and_distinct(keys: Keys, codes: list[str]) -> None:
    # Codes of two letters share prefixes, so the map's check meets every first difference.
    target = f"/api/v1/readiness?codes={','.join(codes)}"
    canonical = sorted(set(codes)) == codes and len(set(codes)) == len(codes)
    assert keys(target) == meant(target)
    assert keys.fast_path == canonical, target


@settings(max_examples=200)
@given(st.lists(st.text("GE._0", min_size=1, max_size=4), min_size=1, max_size=4))
def test_the_map_takes_an_indicator_list_only_sorted_and_distinct(keys: Keys, indicators: list[str]) -> None:
    # Items of any length, sorting by code point as Python sorts them (`.` `0` `E` `G` `_`). The
    # map checks indicators by their first letters (edge_fast_path._LISTS): it takes a list whose
    # first letters increase, and leaves any other to njs, sorted or not.
    target = f"/api/v1/indicators?indicators={','.join(indicators)}"
    firsts = [indicator[0] for indicator in indicators]
    assert keys(target) == meant(target)
    assert keys.fast_path == (all(first.isalpha() for first in firsts) and firsts == sorted(set(firsts))), target
    if keys.fast_path:
        assert meant(target) == target


# --- end to end -----------------------------------------------------------------------------

URL = "/api/v1/readiness?income=Upper%20middle%20income&limit=5"
VARIANTS = (
    URL,
    "/api/v1/readiness?limit=5&income=Upper+middle+income",
    "/api/v1/readiness?income=Upper+middle+income&limit=5&_=1764094800001",
    "/api/v1/readiness?_=1764094800002&limit=5&income=Upper%20middle%20income",
    "/api/v1/readiness?income=Upper%20middle%20income&region=&limit=5",
    "/api/v1/readiness?fcv=&limit=5&income=Upper+middle+income&_ts=x",
    "/api/v1/readiness?limit=50&income=Upper%20middle%20income&limit=5",
    "/api/v1/readiness/?income=Upper%20middle%20income&limit=%35",
    "/api/v1/readiness?%69ncome=Upper%20middle%20income&limit=5&&",
    "/api/v1/readiness?income=%20Upper%20middle%20income%09&limit=5",
    "/api/v1/readiness?income=UMC&limit=5",
    "/api/v1/readiness?income=upper+middle+INCOME&limit=005",
    "/api/v1/readiness?income=umc&limit=5&format=json&offset=0&level=global&indicators=GE.EST",
)
"""Thirteen variants of one URL: a random `_`, shuffled, `%20` or `+`, empty parameters, a repeat,
an alias, any case, defaults and a parameter the global list ignores."""


def get(port: int, target: str) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", target)
        response = connection.getresponse()
        return response.status, response.getheader("X-Edge-Cache", ""), response.read()
    finally:
        connection.close()


def test_thirteen_variants_of_a_url_reach_the_api_once(start: Start, tmp_path: Path) -> None:
    executable = nginx_executable()
    if executable is None:
        unavailable(MISSING)
    assert Query.parse({"income": "Upper middle income", "limit": "5"}).canonical() == URL.partition("?")[2]
    server: Server = launch(start, tmp_path, {"READINESS_BEHIND_PROXY": "true"})
    with Nginx(executable, (f"127.0.0.1:{server.port}",)) as edge:
        replies = [get(edge.port, variant) for variant in VARIANTS]
        assert [status for status, _, _ in replies] == [200] * len(VARIANTS)
        assert [cache for _, cache, _ in replies] == ["MISS"] + ["HIT"] * (len(VARIANTS) - 1)
        assert server.metric("readiness_http_requests_total", route="v1") == 1
        upstream = [line for line in edge.access_log.read_text().splitlines() if "upstream=127.0.0.1" in line]
        assert len(upstream) == 1, upstream
    # Every variant got the API's own answer to the canonical URL.
    status, _, body = get(server.port, URL)
    assert status == 200 and {reply for _, _, reply in replies} == {body}


def test_a_download_through_the_edge_is_the_apis_file(start: Start, tmp_path: Path) -> None:
    executable = nginx_executable()
    if executable is None:
        unavailable(MISSING)
    server: Server = launch(start, tmp_path, {"READINESS_BEHIND_PROXY": "true"})
    with Nginx(executable, (f"127.0.0.1:{server.port}",)) as edge:
        spelled = [get(edge.port, "/api/v1/history.csv?country=KEN~BRA&time=2025..latest"),
                   get(edge.port, "/api/v1/history.csv?codes=BRA,KEN&years=2025:9999")]
        assert [(status, cache) for status, cache, _ in spelled] == [(200, "MISS"), (200, "HIT")]
        assert server.metric("readiness_http_requests_total", route="history") == 1
    status, _, body = get(server.port, "/api/v1/history?codes=BRA,KEN&years=2025:9999&format=csv")
    assert status == 200 and {reply for _, _, reply in spelled} == {body}

