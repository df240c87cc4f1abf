"""What the edge must know to key a request by its meaning, read off the service's own parser.

The edge (k8s/base/edge-keys.js, and the fast path of k8s/base/edge.conf.template) rewrites a
query to the canonical query the API would make of it (``Query.canonical()``), so that one
meaning is one cache key and one request upstream (docs/OPERATIONS.md#one-key-per-answer). The
rules that join parameters (``codes`` over ``code``, the sort's default order, which of
``year``, ``snapshot`` and ``years`` is kept...) are code in edge-keys.js, beside the parser's
they mirror; the vocabulary they read is here: which routes are keyed and by which grammar,
each name's place in the canonical query, every spelling of every closed set and what it
canonically is (its default left out), the fields and their order, the sorts and the weights a
custom one implies, the dimensions ``weights`` names. Each table is made by
asking the parser (``canonical_pairs``), never copied from ``readiness/domain/vocabulary.py``,
so the edge cannot say another thing than the API. ``readiness/edge_routes.py`` writes them into
the edge's files (``make edge-routes``). Not on the request path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from loaders import DETAILS
from readiness.domain.citation import CITATION_PATH, CITATION_QUERY, CitationRequest
from readiness.domain.errors import ReadinessError
from readiness.domain.parameters import Grammar
from readiness.domain.query import CANONICAL_ORDER, read_query_string
from readiness.domain.route import Route
from readiness.domain.routes import ROUTES
from readiness.domain.vocabulary import folded
from readiness.http.openapi import QUERY_PREFIX

DOCUMENTS = ("/api/v1/openapi.json", "/api/v1")
"""The fixed documents (``DocumentHandler``: the OpenAPI description, the route index): no
parameter but the ignored ``_`` ones."""

READ_BY_CODE = frozenset({"code", "codes", "sort", "order", "fields", "indicators", "years", "limit", "offset",
                          "weights"})
"""The names edge-keys.js reads with code of its own, mirroring ``Query.parse``: lists, joint rules,
numbers. Every other name is a closed set (``choice``) or a value kept as it is (``kept``)."""

_WRITES_ITSELF = re.compile(r"[\^$()?:|\[\]{}0-9A-Za-z,-]*")
"""A pattern of only these characters (no escape, no `.`, no negated class) matches letters,
digits, `,`, `-` and `:`, which the canonical query writes as they are."""

CONTEXT = {"codes": "KEN", "weights": "2,1,1,1,1"}
"""What a spelling may need beside it to be read alone: ``level=country`` needs codes, a custom
sort weights (without them it writes the published ones, ``implied_weights``)."""


@dataclass(frozen=True, eq=False)
class Keyed:
    """A route the edge keys by meaning: its word in edge-keys.js (``name``, the route table's
    for a data route), its ``paths`` (a data route's own and its ``/api/v1/query/{route}``; or
    one templated path), its ``grammar``, the names it takes in the order its canonical query
    writes them (``order``: those never written last) and ``canonical``, the API's canonical
    query of a query string (raises ReadinessError where the API refuses it)."""

    name: str
    paths: tuple[str, ...]
    grammar: Grammar
    order: tuple[str, ...]
    canonical: Callable[[str], str]
    fast: bool = False
    """Whether the template's map takes its canonical targets without njs (a strict data route
    with a fixed path)."""

    @property
    def templated(self) -> bool:
        """Whether its one path holds an argument (``{id}``)."""
        return "{" in self.paths[0]


def keyed(routes: Sequence[Route] = ROUTES) -> tuple[Keyed, ...]:
    """Every route the edge keys: the data routes (each also as ``/api/v1/query/{route}``
    explains it, whose answer is its canonical query alone), their download paths (``Download``:
    ``/api/v1/readiness.csv``, the format left to the path), the citation and the documents."""
    data = tuple(
        Keyed(route.name, (route.path, *((QUERY_PREFIX + route.explained,) if route.explained else ())),
              route.grammar, _query_order(route.grammar), _canonical_of(route),
              fast=route.grammar.strict and not route.templated)
        for route in routes
    )
    downloads = tuple(
        Keyed(download.name, (download.path,), download.grammar, _query_order(download.grammar), download.canonical)
        for route in routes for download in route.downloads
    )
    citation = Keyed("citation", (CITATION_PATH,), CITATION_QUERY, CITATION_QUERY.names,
                     lambda raw: CitationRequest.parse(raw).canonical())
    documents = Keyed("document", DOCUMENTS, Grammar(), (), _no_parameters)
    return (*data, *downloads, citation, documents)


def _query_order(grammar: Grammar) -> tuple[str, ...]:
    """A data route's names as ``Query.canonical()`` orders them: the shared ones, its own
    (``Parameter.read``) in its grammar's order, then those it never writes (``code``, ``level``,
    the aliases)."""
    written = [name for name in CANONICAL_ORDER if name in grammar]
    written += [parameter.name for parameter in grammar.parameters if parameter.read is not None]
    return (*written, *(name for name in grammar.accepted if name not in written))


def _canonical_of(route: Route) -> Callable[[str], str]:
    return lambda raw: route.parse(raw).canonical()


def _no_parameters(raw: str) -> str:
    """A document's canonical query: always empty; a name not beginning with ``_`` is refused."""
    Grammar().values(read_query_string(raw))
    return ""


def canonical_pairs(route: Keyed, params: Mapping[str, str]) -> dict[str, str]:
    """The canonical query of ``params`` on ``route``, name to value as written (encoded).
    Raises ReadinessError where the API refuses them."""
    written = route.canonical(urlencode(params))
    return dict(pair.split("=", 1) for pair in written.split("&") if pair)


def choices(route: Keyed, name: str) -> dict[str, str]:
    """Each spelling of the closed set ``name`` (ASCII lower-cased, as the parser matches it)
    to what the canonical query writes for it alone, encoded; ``""`` for its default (left out).
    Raises ValueError when a spelling changes another parameter too: a joint rule, for
    READ_BY_CODE."""
    context = _context(route, name)
    around = canonical_pairs(route, context)
    table: dict[str, str] = {}
    for spelling in route.grammar.parameter(name).choices:
        pairs = canonical_pairs(route, {**context, name: spelling})
        added = {other: value for other, value in pairs.items() if around.get(other) != value}
        if set(added) - {name}:
            raise ValueError(f"{route.name}: {name}={spelling} also writes {sorted(added)}")
        _add(table, _key(spelling), added.get(name, ""), f"{route.name} {name}")
    return table


def needs_codes(route: Keyed, name: str) -> frozenset[str]:
    """The spellings of the closed set ``name`` (lower-cased) the parser refuses without codes
    and takes with them: ``level=country``."""
    refused = set()
    for spelling in route.grammar.parameter(name).choices:
        try:
            canonical_pairs(route, {name: spelling})
        except ReadinessError:
            refused.add(_key(spelling))  # choices() reads it with codes, or raises
    return frozenset(refused)


def kept_pattern(route: Keyed, name: str) -> str:
    """The declared pattern of ``name``, a value written as it is when valid (``year``,
    ``snapshot``, a snapshot id of a route's own). Raises ValueError when it has none, or when
    it may match a character the canonical encoding escapes: edge-keys.js writes such a value
    without encoding it."""
    pattern = route.grammar.parameter(name).pattern
    if pattern is None:
        raise ValueError(f"{route.name}: {name} has neither choices nor a pattern")
    if not _WRITES_ITSELF.fullmatch(pattern) or "[^" in pattern:
        raise ValueError(f"{route.name}: {name}'s pattern {pattern!r} may match what the canonical query escapes")
    return pattern


def sorts(route: Keyed) -> dict[str, str]:
    """Each spelling of ``sort`` (lower-cased) to the field it sorts by, encoded."""
    context = _context(route, "sort")
    table: dict[str, str] = {}
    for spelling in route.grammar.parameter("sort").choices:
        field = canonical_pairs(route, {**context, "sort": spelling}).get("sort", default_sort(route))
        _add(table, _key(spelling), field, f"{route.name} sort")
    return table


def default_sort(route: Keyed) -> str:
    """The field a query without ``sort`` sorts by, encoded: the canonical query names it once
    the order is not its default."""
    for spelling in route.grammar.parameter("order").choices:
        pairs = canonical_pairs(route, {"order": spelling})
        if "sort" in pairs:
            return pairs["sort"]
    raise ValueError(f"{route.name}: no order names the default sort")


def orders(route: Keyed) -> dict[str, str]:
    """Each spelling of ``order`` (lower-cased) to what the canonical query writes for it, beside
    a sort that is not the default."""
    other = min(set(sorts(route).values()) - {default_sort(route)} - set(implied_weights(route)))
    table: dict[str, str] = {}
    for spelling in route.grammar.parameter("order").choices:
        written = canonical_pairs(route, {"sort": _decoded(other), "order": spelling})["order"]
        _add(table, _key(spelling), written, f"{route.name} order")
    return table


def default_order(route: Keyed) -> str:
    """The order the default sort takes by default: with it, neither is written."""
    return next(written for key, written in orders(route).items()
                if "sort" not in canonical_pairs(route, {"order": key}))


def descending(route: Keyed) -> frozenset[str]:
    """The fields (encoded) a sort without ``order`` does not sort by in the default sort's
    order: numbers, ranks, the custom values."""
    context, ascending = _context(route, "sort"), default_order(route)
    written = {field: canonical_pairs(route, {**context, "sort": _decoded(field)})
               for field in set(sorts(route).values())}
    return frozenset(field for field, pairs in written.items() if pairs.get("order", ascending) != ascending)


def descending_order(route: Keyed) -> str:
    """What the canonical query writes for the order of a sort that descends by default."""
    field = min(descending(route) - set(implied_weights(route)))
    return canonical_pairs(route, {"sort": _decoded(field)})["order"]


def implied_weights(route: Keyed) -> dict[str, str]:
    """The fields (encoded) a sort by which writes ``weights`` when none are given (the custom
    values, by the published weights), to the weights it writes."""
    implied = {}
    for field in sorted(set(sorts(route).values())):
        written = canonical_pairs(route, {"sort": _decoded(field)})
        if "weights" in written:
            implied[field] = written["weights"]
    return implied


def fields(route: Keyed) -> dict[str, str]:
    """Each spelling of one of ``fields``' names (lower-cased) to the field it names, encoded."""
    table: dict[str, str] = {}
    for spelling in route.grammar.parameter("fields").choices:
        _add(table, _key(spelling), canonical_pairs(route, {"fields": spelling})["fields"], f"{route.name} fields")
    return table


def fields_in_order(route: Keyed) -> tuple[str, ...]:
    """The fields ``fields`` may name on ``route``, encoded, in the order the canonical query
    lists them, then ``indicator_details`` when the route accepts it (alone, it is written)."""
    named = set(fields(route).values())
    details = named & {DETAILS}
    listed = canonical_pairs(route, {"fields": ",".join(_decoded(field) for field in named - details)})["fields"]
    ordered = sorted(named - details, key=lambda field: f",{listed},".index(f",{field},"))
    return (*ordered, *details)


def most_pieces(route: Keyed) -> int:
    """How many comma-separated pieces one field's name spans at most (``Population, total``: 2)."""
    return max(_decoded(field).count(",") for field in fields(route).values()) + 1


def shared(routes: Sequence[Keyed], name: str, table_of: Callable[[Keyed], dict[str, str]]) -> dict[str, str]:
    """One table of ``name``'s spellings for all ``routes`` (edge-keys.js looks fields and sorts
    up once for all): their union, right only if no two routes read a spelling differently and
    each refuses the spellings it lacks (a custom sort on the legacy route). Raises ValueError
    otherwise."""
    tables = {route.name: table_of(route) for route in routes}
    joined: dict[str, str] = {}
    for table in tables.values():
        for key, value in table.items():
            _add(joined, key, value, name)
    for route in routes:
        for key in joined.keys() - tables[route.name].keys():
            try:
                canonical_pairs(route, {**_context(route, name), name: key})
            except ReadinessError:
                continue
            raise ValueError(f"{route.name} takes {name}={key!r}, which its declared choices lack")
    return joined


def _context(route: Keyed, name: str) -> dict[str, str]:
    return {other: value for other, value in CONTEXT.items() if other in route.grammar and other != name}


def _key(spelling: str) -> str:
    """A spelling as the parser matches it (``folded``), which must be ASCII: edge-keys.js
    lower-cases ASCII only, as ``folded`` does."""
    if not spelling.isascii():
        raise ValueError(f"{spelling!r}: the edge matches ASCII spellings only")
    return folded(spelling)


def _add(table: dict[str, str], key: str, value: str, what: str) -> None:
    if table.setdefault(key, value) != value:
        raise ValueError(f"{what}: {key!r} is both {table[key]!r} and {value!r}")


def _decoded(value: str) -> str:
    return read_query_string(f"x={value}")["x"]
