"""One key per answer at the edge (docs/OPERATIONS.md#one-key-per-answer): the njs rules of
k8s/base/edge-keys.js, run in real nginx with the shipped template, checked against the API's
own parser (``parse_query_string``) and canonical form (``Query.canonical()``).

An extra server block answers ``$edge_target`` (the target the edge keys and sends upstream)
for any request, so the rules are checked without an API behind them; the last test puts the
edge in front of one real server.py and counts what reaches it.

nginx and its js module come from Debian's packages: ``make test`` installs them when missing
(as root); without them these tests skip, saying how to install them, and fail under
READINESS_NO_SKIPS.
"""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from urllib.parse import quote, unquote, unquote_plus, urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders import COUNTRY_FIELDS, REGION_SHORT
from readiness.domain import routes
from readiness.domain.errors import ReadinessError
from readiness.domain.query import Query, parse_query_string
from readiness.domain.route import Route
from readiness.domain.vocabulary import FIELD_ALIASES
from readiness.edge_config import TEMPLATE
from tests.conftest import unavailable
from tests.edge_nginx import MISSING, Nginx, nginx_executable
from tests.processes import Server, Start, free_port, launch

PATHS = {route: route.path.replace("{id}", "2026-11") for route in routes.ROUTES}
"""A path of every data route of the route table (a change report's: the current snapshot's)."""


class Keys:
    """The edge's ``$edge_target`` for request targets, over one kept-alive connection; each
    checked against what njs makes of the target, whether the map's fast path took it or not."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.fast_path = False
        """Whether the last target was taken as it came without running njs."""

    def __call__(self, target: str, method: str = "GET") -> str:
        for attempt in (1, 2):
            try:
                self.connection.request(method, target)
                response = self.connection.getresponse()
                body = response.read().decode()
                assert response.status == 200, (target, response.status, body)
                edge_target = body if method != "HEAD" else response.getheader("X-Edge-Uri", "")
                # The template's map takes a target as it came only where njs would keep it.
                assert edge_target == response.getheader("X-Edge-Njs"), target
                self.fast_path = response.getheader("X-Edge-Fast-Path") != "njs"
                return edge_target
            except (http.client.HTTPException, ConnectionError):
                self.connection.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def fast_path_map() -> str:
    """The template's map to ``$edge_target`` as ``$edge_fast_path``, whose default is "njs":
    which targets the edge takes as they came without running njs."""
    template = TEMPLATE.read_text()
    start = template.index("map $request_uri $edge_target {")
    block = template[start:template.index("\n}\n", start) + 3]
    assert block.count("default $edge_uri;") == 1
    return block.replace("$edge_target", "$edge_fast_path").replace("default $edge_uri;", "default njs;")


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
        keyed = Keys(port)
        yield keyed
        keyed.connection.close()


def split(target: str) -> tuple[str, str]:
    path, _, args = target.partition("?")
    return path, args


def outcome(args: str, route: Route) -> tuple[str, object]:
    """What the API makes of a query string: its Query, or its error's type and message."""
    try:
        return "query", parse_query_string(args, route.grammar)
    except ReadinessError as error:
        return type(error).__name__, error.message


# --- canonical queries and their variants ---------------------------------------------------

FIELD_NAMES = [field.name for field in COUNTRY_FIELDS]
RAW_VALUES: dict[str, st.SearchStrategy[str]] = {
    "codes": st.lists(st.sampled_from(["KEN", "BRA", "usa", "Arg", "IND", "FRA"]), min_size=1, max_size=4)
    .map(",".join),
    "region": st.sampled_from(sorted(REGION_SHORT) + ["lac", "MENA"]),
    "income": st.sampled_from(["Low income", "Lower middle income", "Upper middle income", "High income", "umc"]),
    "fcv": st.sampled_from(["true", "false", "1"]),
    "year": st.integers(2019, 2026).map(str),
    "years": st.sampled_from(["2022:2025", "2024", "2020:2020"]),
    "sort": st.sampled_from(FIELD_NAMES + sorted(FIELD_ALIASES)),
    "order": st.sampled_from(["asc", "desc"]),
    "fields": st.lists(st.sampled_from(FIELD_NAMES + ["score", "indicator_details"]), min_size=1, max_size=4)
    .map(",".join),
    "shortnames": st.sampled_from(["true", "false"]),
    "indicators": st.lists(st.sampled_from(["GE.EST", "IT.NET.USER.ZS", "se.prm.enrr"]), min_size=1, max_size=3)
    .map(",".join),
    "limit": st.integers(1, 1000).map(str),
    "format": st.sampled_from(["csv", "json"]),
    "snapshot": st.sampled_from(["2024-06", "2026-11", "2019-12"]),
    "weights": st.sampled_from(["1,1,1,1,1", "2,2,2,2,2", "infrastructure:2,human:1", "INFRA:0.5", "0,0,0,0,1"]),
    "shape": st.sampled_from(["long", "WIDE"]),
    "by": st.sampled_from(["region", "Income", "fcv", "world"]),
}
JUNK = st.text(st.sampled_from("aZ09 _-.,:;!*'()&=+%~/?é\t"), max_size=12)
"""Values a client might send that the API never reads (encoded by ``encoded``)."""
ESCAPES = st.sampled_from(["%zz", "%", "%F", "%FF", "%C3", "%e2%82%ac", "%00"])
"""Raw escapes, valid or not, UTF-8 or not."""


@st.composite
def queries(draw: st.DrawFn) -> tuple[Route, Query]:
    """A route and a valid Query for it, parsed from values a client could send."""
    route = draw(st.sampled_from(list(PATHS)))
    names = draw(st.lists(st.sampled_from([n for n in route.grammar.names if n in RAW_VALUES] or ["-"]), unique=True))
    params = {name: draw(RAW_VALUES[name]) for name in names if name in RAW_VALUES}
    try:
        return route, Query.parse(params, route.grammar)
    except ReadinessError:
        return route, Query.parse({}, route.grammar)


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


@st.composite
def variants(draw: st.DrawFn, route: Route, canonical: str) -> str:
    """A request target that must get the answer of ``canonical`` on ``route``."""
    pairs = [tuple(pair.split("=", 1)) for pair in canonical.split("&") if pair]
    given_names = {name for name, _ in pairs}
    items: list[str] = []
    for name, value in pairs:
        padding = draw(st.sampled_from(["", " ", "\t", "  \t"]))
        items.append(draw(encoded(name)) + "=" + draw(encoded(padding + unquote(value) + padding[::-1])))
    # Cache busters, with anything after them, escapes that are not UTF-8 included.
    for _ in range(draw(st.integers(0, 2))):
        value = draw(st.one_of(JUNK.flatmap(encoded), ESCAPES))
        items.append(draw(st.sampled_from(["_", "_x", "%5Fts", "_%FF"])) + "=" + value)
    # Empty values (or only whitespace) of names the query does not give.
    absent = [name for name in route.grammar.names if name not in given_names]
    for name in draw(st.lists(st.sampled_from(absent), max_size=3, unique=True)) if absent else []:
        items.append(draw(st.sampled_from([f"{name}=", name, f"{name}=%20", f"{name}=+%09"])))
    # `code` beside `codes`: the API ignores it, valid or not.
    if "codes" in given_names:
        items.append("code=" + draw(st.one_of(st.sampled_from(["KEN", "", "x"]), ESCAPES)))
    # On the legacy route, names it ignores.
    if not route.grammar.strict:
        items += draw(st.lists(st.sampled_from(["other=1", "callback=x", "Code=KEN", "%zz=%zz"]), max_size=2))
    items = draw(st.permutations(items))
    # A repeated name: an earlier value, valid or not, that the later one overrides (a list
    # parameter's values are merged instead: test_repeated_list_parameters_are_joined).
    for position, item in enumerate(list(items)):
        name = item.split("=", 1)[0]
        if name in given_names and name not in route.grammar.lists and draw(st.booleans()):
            earlier = draw(st.integers(0, position))
            items.insert(earlier, f"{name}=" + draw(st.one_of(JUNK.flatmap(encoded), ESCAPES)))
            break
    if draw(st.booleans()):  # stray separators
        items.insert(draw(st.integers(0, len(items))), "")
    path = PATHS[route] + draw(st.sampled_from(["", "/"]))
    query = "&".join(items)
    return path + ("?" + query if query or draw(st.booleans()) else "")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_every_variant_of_a_query_has_the_key_of_its_canonical_form(keys: Keys, data: st.DataObject) -> None:
    route, query = data.draw(queries())
    canonical = query.canonical()
    target = keys(f"{PATHS[route]}?{canonical}")
    # The canonical form's own target: its pairs sorted by name, encoded as canonical() encodes.
    expected = "&".join(sorted(pair for pair in canonical.split("&") if pair))
    assert target == PATHS[route] + (f"?{expected}" if expected else "")
    assert parse_query_string(split(target)[1], route.grammar) == query
    for _ in range(4):
        variant = data.draw(variants(route, canonical))
        assert keys(variant) == target, variant


# --- the rules mirror the parser exactly ----------------------------------------------------

TOKENS_NAMES = st.sampled_from(
    ["code", "codes", "region", "level", "fields", "years", "limit", "format", "sort", "_", "_x", "%5Fx",
     "zz", "", "co%64e", "Code", "region+"]
)
TOKENS_VALUES = st.lists(
    st.sampled_from(["KEN", "bra", ",", "+", "%20", "%09", "%2C", "lac", "Latin+America+%26+Caribbean", "global",
                     "country", "2024", "2022:2025", "score", "desc", "csv", "true", "5", "0", "%zz", "%", "%FF",
                     "%e2%82%ac", "=", "%3D", "Population%2C+total"]),
    max_size=4,
).map("".join)


@st.composite
def raw_queries(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(TOKENS_NAMES, st.one_of(st.none(), TOKENS_VALUES)), max_size=6))
    return "&".join(name if value is None else f"{name}={value}" for name, value in pairs)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(PATHS)), raw_queries())
def test_the_normalized_query_gets_what_the_query_sent_gets(keys: Keys, route: Route, raw: str) -> None:
    target = keys(f"{PATHS[route]}?{raw}")
    if target == f"{PATHS[route]}?{raw}":
        return  # sent as it came: the API answers it as it is
    path, args = split(target)
    assert path == PATHS[route]
    assert outcome(args, route) == outcome(raw, route), (raw, args)
    assert keys(target) == target  # normalized once, normalized for good


@pytest.mark.parametrize("route", list(PATHS))
def test_the_names_each_route_takes_are_the_apis(keys: Keys, route: Route) -> None:
    every = sorted({name for route in routes.ROUTES for name in route.grammar.names} | {"other"})
    for name in every:
        target = keys(f"{PATHS[route]}?{name}=1&_=2")
        if name in route.grammar.names:
            assert target == f"{PATHS[route]}?{name}=1", name
        elif route.grammar.strict:  # the API's 400: passed as it came
            assert target == f"{PATHS[route]}?{name}=1&_=2", name
        else:  # ignored by the legacy route
            assert target == PATHS[route], name


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/api/v1/readiness?_=1&limit=5&limit=7&fcv=&region=Latin+America+%26+Caribbean",
         "/api/v1/readiness?limit=7&region=Latin%20America%20%26%20Caribbean"),
        ("/api/v1/readiness/?code=KEN&codes=BRA,ken&code=%FF", "/api/v1/readiness?codes=BRA,ken"),
        ("/api/v1/readiness?region=lac&region=", "/api/v1/readiness"),  # the last value wins, even empty
        ("/api/v1/readiness?region=%20%09lac+", "/api/v1/readiness?region=lac"),  # trimmed as the API trims
        ("/api/v1/readiness?fields=a%2cb%3A&sort='x'(*)!", "/api/v1/readiness?fields=a,b:&sort=%27x%27%28%2A%29%21"),
        ("/api/v1/readiness?region=%zz", "/api/v1/readiness?region=%25zz"),  # a lone % is a %, as in Python
        ("/api/v1/readiness?region=%e2%82%ac", "/api/v1/readiness?region=%E2%82%AC"),
        ("/api/v1/readiness?region=%FF&region=lac", "/api/v1/readiness?region=lac"),
        ("/api/v1/readiness?_%FF=1&%5Fx=%zz", "/api/v1/readiness"),
        ("/api/readiness?zz=1&b=%FF&sort=score", "/api/readiness?sort=score"),
        ("/api/v1/snapshots/2026-11/changes/?format=csv&_=1", "/api/v1/snapshots/2026-11/changes?format=csv"),
        ("/api/v1/snapshots?_=1", "/api/v1/snapshots"),
        ("/api/v1/history?years=2020:2024&&&", "/api/v1/history?years=2020:2024"),
        # Repeated list parameters are joined, as the API merges them (exploded arrays).
        ("/api/v1/readiness?fields=score&codes=KEN&fields=Region&codes=bra",
         "/api/v1/readiness?codes=KEN,bra&fields=score,Region"),
        ("/api/v1/indicators?indicators=GE.EST&indicators=&_=1", "/api/v1/indicators?indicators=GE.EST,"),
        ("/api/v1/readiness?fields=%FF&fields=score", "/api/v1/readiness?fields=%FF&fields=score"),  # the API's 400
        ("/api/v1/aggregates?by=region&_=1&years=2023:2025", "/api/v1/aggregates?by=region&years=2023:2025"),
        # Plain pairs, sorted (njs's short lane), and what that lane leaves to the full rules.
        ("/api/v1/readiness?sort=score&region=South%20Asia&order=desc",
         "/api/v1/readiness?order=desc&region=South%20Asia&sort=score"),
        ("/api/v1/readiness?sort=score&region=Europe%20%26%20Central%20Asia",
         "/api/v1/readiness?region=Europe%20%26%20Central%20Asia&sort=score"),
        ("/api/v1/readiness?codes=KEN&code=BRA", "/api/v1/readiness?codes=KEN"),
        ("/api/v1/readiness?limit=7&fcv=1&limit=5", "/api/v1/readiness?fcv=1&limit=5"),
        ("/api/v1/readiness?fields=b&codes=KEN&fields=a", "/api/v1/readiness?codes=KEN&fields=b,a"),
        ("/api/readiness?sort=score&zz=1", "/api/readiness?sort=score"),
        # As they came: the API refuses them (an unknown name, bytes that are not UTF-8) ...
        ("/api/v1/readiness?zz=1&_=2", "/api/v1/readiness?zz=1&_=2"),
        ("/api/v1/readiness?region=%FF&_=2", "/api/v1/readiness?region=%FF&_=2"),
        ("/api/v1/snapshots?format=csv&_=2", "/api/v1/snapshots?format=csv&_=2"),
        # ... and so is every other route.
        ("/api/v1/openapi.json?_=1", "/api/v1/openapi.json?_=1"),
        ("/?b=1&a=2", "/?b=1&a=2"),
        ("/api/v1/readiness//?_=1", "/api/v1/readiness//?_=1"),
        ("/api/v1/%72eadiness?_=1", "/api/v1/%72eadiness?_=1"),
    ],
)
def test_edge_targets(keys: Keys, target: str, expected: str) -> None:
    assert keys(target) == expected


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/readiness",
        "/api/v1/readiness?code=KEN",
        "/api/v1/readiness?codes=BRA,KEN&fields=score",
        "/api/v1/readiness?code=KEN&indicators=GE.EST,IT.NET.USER.ZS",
        "/api/v1/readiness?order=desc&region=South%20Asia&sort=score",
        "/api/v1/readiness?region=Europe%20%26%20Central%20Asia",
        "/api/v1/readiness?codes=KEN&year=2024",
        "/api/v1/readiness?weights=access:2,learning:1",
        "/api/v1/indicators?codes=KEN&indicators=GE.EST&years=2022:2025",
        "/api/v1/history?code=KEN&shape=wide",
        "/api/v1/aggregates?by=region&year=2024",
        "/api/v1/snapshots",
        "/api/v1/openapi.json",
        "/explore?region=lac",
        "/static/site.css",
    ],
)
def test_canonical_targets_skip_njs(keys: Keys, target: str) -> None:
    # njs costs a hit about as much again as the rest of the edge (docs/PERFORMANCE.md#what-njs-costs-a-hit).
    assert keys(target) == target and keys.fast_path, target


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/readiness?",  # njs drops the empty query
        "/api/v1/readiness/",
        "/api/v1/readiness?code=KEN&",
        "/api/v1/readiness?code=KEN&codes=BRA",  # njs drops `code`
        "/api/v1/readiness?fields=score&codes=KEN",  # not sorted
        "/api/v1/readiness?code=KEN&code=BRA",
        "/api/v1/readiness?region=%20lac",
        "/api/v1/readiness?region=South+Asia",
        "/api/v1/readiness?region=Latin%20America%20%26",  # ends in an escape
        "/api/v1/readiness?region=%26lac",
        "/api/v1/readiness?region=Latin%20America%20%2c%20Caribbean",  # lower-case hex
        "/api/v1/readiness?code=KEN&_=1",
        "/api/v1/readiness?years=2024",  # a name the route does not take: the API's 400
        "/api/v1/history?year=2024",
        "/api/v1/snapshots?format=csv",
        "/api/readiness?code=KEN",
        "/api/v1/snapshots/2026-11/changes",
        "/api/v1/readiness?code=KEN?codes=BRA",
    ],
)
def test_other_targets_go_through_njs(keys: Keys, target: str) -> None:
    keys(target)  # and njs's answer is the edge's (Keys checks it)
    assert not keys.fast_path, target


@pytest.mark.parametrize("route", list(PATHS))
def test_two_names_in_either_order_one_key_only_the_sorted_order_skips_njs(keys: Keys, route: Route) -> None:
    # Two spellings of one answer must be one key (one cache entry, one request upstream), so
    # the fast-path map may take a target as it came only in njs's order, names sorted: a map
    # with `offset` before `limit` took `offset=1&limit=1` as it came and njs made
    # `limit=1&offset=1` of the other order. Every pair of names adjacent once sorted, of every
    # route, from the route table itself: the map, soon generated from one, is not read here.
    path = PATHS[route]
    names = sorted(route.grammar.names)
    alone = {name for name in names if keys(f"{path}?{name}=1") == f"{path}?{name}=1" and keys.fast_path}
    for first, second in pairwise(names):
        in_order, swapped = f"{path}?{first}=1&{second}=1", f"{path}?{second}=1&{first}=1"
        target = keys(in_order)
        in_order_skipped = keys.fast_path
        assert keys(swapped) == target, swapped  # one key for one answer
        assert not keys.fast_path, f"{swapped} skipped njs"
        if target == in_order and {first, second} <= alone:  # canonical, each name alone skipping njs
            assert in_order_skipped, f"{in_order} went through njs"


LONE_PERCENTS = ("100%", "%zz", "%4", "%", "a%%b", "%zz%C3%A9", "%zz%c3%a9", "%C3%A9%4", "50%+off")
"""Values with a `%` not followed by two hex digits: alone, repeated, beside valid escapes (either
case of hex) and a `+`."""


@pytest.mark.parametrize("value", LONE_PERCENTS)
def test_a_lone_percent_is_a_percent_as_the_api_reads_it(keys: Keys, value: str) -> None:
    # Python's unquote (the API's parse_qsl) keeps a `%` not followed by two hex digits as a
    # `%`; njs's decodeURIComponent refuses it, and edge-keys.js escapes it first (decoded).
    # The key is the canonical encoding (Query.canonical()'s) of what the API reads, and the
    # canonical spelling of the same value gets the same key.
    path = PATHS[routes.V1]
    expected = f"{path}?" + urlencode([("region", unquote_plus(value))], quote_via=quote, safe=",:")
    assert keys(f"{path}?region={value}") == expected
    assert keys(expected) == expected
    assert outcome(split(expected)[1], routes.V1) == outcome(f"region={value}", routes.V1)


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
)
"""Ten variants of one URL: a random `_`, shuffled, `%20` or `+`, empty parameters, a repeat."""


def get(port: int, target: str) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", target)
        response = connection.getresponse()
        return response.status, response.getheader("X-Edge-Cache", ""), response.read()
    finally:
        connection.close()


def test_ten_variants_of_a_url_reach_the_api_once(start: Start, tmp_path: Path) -> None:
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
