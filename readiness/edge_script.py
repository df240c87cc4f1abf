"""The generated lines of the edge's njs module, k8s/base/edge-keys.js: the routes it keys and the
vocabulary its rules read (docs/OPERATIONS.md#one-key-per-answer), from the route table and the
parser (readiness/edge_vocabulary.py), as njs 0.7 runs them cheapest: switches and string
constants, no object a request would copy. ``make edge-routes`` writes them
(readiness/edge_routes.py). Not on the request path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from loaders import DETAILS, DIMENSIONS
from readiness.domain.aliases import DEFAULT_PER_PAGE, EARLIEST, LATEST
from readiness.domain.parameters import (
    CODE_PATTERN,
    INDICATOR_PATTERN,
    LIMIT_PATTERN,
    MAX_CODES,
    MAX_INDICATORS,
    MAX_LIMIT,
    MAX_SNAPSHOTS,
    OFFSET_PATTERN,
    WEIGHT_PATTERN,
    YEARS_PATTERN,
)
from readiness.domain.query import DIMENSION_NAMES, WEIGHT_SCALE
from readiness.domain.route import Route
from readiness.domain.routes import ROUTES
from readiness.edge_vocabulary import (
    READ_BY_CODE,
    Keyed,
    choices,
    default_order,
    default_sort,
    descending,
    descending_order,
    fields,
    fields_in_order,
    implied_weights,
    kept_pattern,
    keyed,
    most_pieces,
    needs_codes,
    orders,
    shared,
    sorts,
)

_WIDTH = 110
"""How long a generated line may get before it is wrapped (the file's own width)."""
_ARGUMENT = re.compile(r"\{[a-z]+\}")
T = TypeVar("T")


def names_of(route: Keyed) -> str:
    """The names ``route`` takes in its canonical order, one space around each (as ``namesOf``
    returns them). Raises ValueError unless ``order`` comes right after ``sort``: edge-keys.js
    writes them as one pair."""
    names = " " + "".join(f"{name} " for name in route.order)
    if "sort" in route.order and " sort order " not in names:
        raise ValueError(f"{route.name}: order does not follow sort in {names!r}")
    return names


def js_block(routes: Sequence[Route] = ROUTES) -> list[str]:
    """The generated lines of edge-keys.js: the routes keyed and the vocabulary its rules read."""
    keyed_routes = keyed(routes)
    return [
        "// Code and string constants, not tables: njs 0.7 clones the VM for every request, and a global",
        "// object graph such as {route: {name: true}} was copied with it, 5 microseconds a request",
        "// (docs/PERFORMANCE.md#what-njs-costs-a-hit); so was a global string of more than a few characters,",
        "// or a regular expression (a literal made when asked costs a quarter of a microsecond instead).",
        "",
        *_route_of(keyed_routes),
        *_names_of(keyed_routes),
        *_flags(keyed_routes),
        *_aliases(keyed_routes),
        *_choices(keyed_routes),
        *_kept(keyed_routes),
        *_sorts(keyed_routes),
        *_fields(keyed_routes),
        *_numbers(),
    ]


def _route_of(routes: Sequence[Keyed]) -> list[str]:
    """``routeOf``: a path (its trailing slash taken off) to the route's word."""
    lines = [
        "// The route the edge keys `path` as (a trailing slash taken off): a data route's name in the route",
        "// table (its own path, or /api/v1/query/{route} explaining it), `citation` or `document`;",
        "// undefined for any other path.",
        "function routeOf(path) {",
        "    switch (path) {",
    ]
    for route in routes:
        if not route.templated:
            lines += [*(f"    case {_js(path)}:" for path in route.paths), f"        return {_js(route.name)};"]
    lines.append("    }")
    for route in routes:
        if route.templated:
            lines += _templated(route)
    return [*lines, "    return undefined;", "}", ""]


def _templated(route: Keyed) -> list[str]:
    """``routeOf``'s test for a path with one argument (``/api/v1/snapshots/{id}/changes``): the
    path's fixed start and end, and no ``/`` in between."""
    before, after = _ARGUMENT.split(route.paths[0])
    return [
        f"    // {route.paths[0]}",
        f"    if (path.length > {len(before) + len(after)} && path.substring(0, {len(before)}) === {_js(before)}",
        f"            && path.substring(path.length - {len(after)}) === {_js(after)}",
        f"            && path.substring({len(before)}, path.length - {len(after)}).indexOf('/') < 0) {{",
        f"        return {_js(route.name)};",
        "    }",
    ]


def _names_of(routes: Sequence[Keyed]) -> list[str]:
    """``namesOf``: each route's names, in the order its canonical query writes them."""
    return [
        "// The names `route` takes (its grammar), in the order its canonical query writes them (Query.canonical():",
        "// CANONICAL_ORDER, then the route's own), those it never writes last (`code`, `level`); one string,",
        "// a space around each name.",
        *_strings("namesOf", {route.name: names_of(route) for route in routes}, " "),
    ]


def _strings(function: str, texts: Mapping[str, str], separator: str) -> list[str]:
    """``function(route)``, the text of each route (by a switch), undefined for another. A text
    too long for one line is still one literal, its lines continued with a backslash: joined
    with ``+`` in the function, it was joined again on every call (a microsecond for the fields'
    list), and as a global string njs copied it with the VM for every request."""
    lines = [f"function {function}(route) {{", "    switch (route) {"]
    for text, group in _grouped(texts):
        lines += [*(f"    case {_js(name)}:" for name in group), *_continued("        return ", text, separator, ";")]
    return [*lines, "    }", "    return undefined;", "}", ""]


def _flags(routes: Sequence[Keyed]) -> list[str]:
    """``strict``, ``isList`` and ``countryModeOnly``, from the grammars."""
    lenient = [route.name for route in routes if not route.grammar.strict]
    lists = sorted({name for route in routes for name in route.grammar.lists
                    if all(name in other.grammar.lists for other in routes if name in other.grammar)})
    some = sorted({(route.name, name) for route in routes for name in route.grammar.lists if name not in lists})
    country = sorted({(route.name, parameter.name) for route in routes for parameter in route.grammar.parameters
                      if parameter.country_mode_only})
    return [
        "// Every route refuses a name it does not take (a 400), except those whose grammar is",
        "// lenient: they ignore it.",
        "function strict(route) {",
        "    return " + (" && ".join(f"route !== {_js(name)}" for name in lenient) or "true") + ";",
        "}",
        "",
        "// The list parameters of `route`: repeated, their values are joined with commas.",
        "function isList(route, name) {",
        "    return " + (" || ".join([*(f"name === {_js(name)}" for name in lists),
                                      *(f"(route === {_js(route)} && name === {_js(name)})" for route, name in some)])
                        or "false") + ";",
        "}",
        "",
        "// Whether `name` filters only in country mode on `route` (checked wherever given, written only there).",
        "function countryModeOnly(route, name) {",
        "    return " + (" || ".join(f"(route === {_js(route)} && name === {_js(name)})" for route, name in country)
                        or "false") + ";",
        "}",
        "",
    ]


def _aliases(routes: Sequence[Keyed]) -> list[str]:
    """``anyAlias``, ``aliasesOf`` and ``claims``: whether a query holds an alias, each route's
    aliases in the order they resolve, and the names each stands for
    (readiness/domain/aliases.py); their resolvers are edge-keys.js's ``resolve``."""
    aliases = {route.name: route.grammar.aliases for route in routes}
    claimed = {alias.name: " " + "".join(f"{name} " for name in alias.of)
               for declared in aliases.values() for alias in declared}
    names = sorted({alias.name for declared in aliases.values() for alias in declared})
    return [
        "// Whether `values` (read or readPlain) holds any alias of any route: a few property reads, so",
        "// that a query without one costs no loop over its names.",
        "function anyAlias(values) {",
        "    return " + (" || ".join(f"values[{_js(name)}] !== undefined" for name in names) or "false") + ";",
        "}",
        "// The aliases `route` takes, in the order they resolve, a space around each ('' for none).",
        *_strings("aliasesOf", {name: " " + "".join(f"{alias.name} " for alias in declared)
                                for name, declared in aliases.items() if declared}, " "),
        "// The names the alias `name` stands for, a space around each: given beside one of them, or beside",
        "// another alias of one, it is refused.",
        "function claims(name) {",
        *_lookup("name", claimed, "undefined", 1),
        "}",
        f"var DEFAULT_PER_PAGE = {DEFAULT_PER_PAGE};  // the rows of a page `page` reads without `per_page` or `limit`",
        "// What an open end of a `time` range stands for (functions: njs copies global strings with the VM).",
        "function earliest() {",
        f"    return {_js(EARLIEST)};",
        "}",
        "function latest() {",
        f"    return {_js(LATEST)};",
        "}",
        "",
    ]


def _choices(routes: Sequence[Keyed]) -> list[str]:
    """``choice``: every closed set's spellings, by name, and by route where routes differ; and
    ``needsCodes``, the spellings taken only with codes."""
    tables: dict[str, dict[str, dict[str, str]]] = {}
    country: set[tuple[str, str]] = set()
    for route in routes:
        for parameter in route.grammar.parameters:
            if parameter.name not in READ_BY_CODE and parameter.choices:
                tables.setdefault(parameter.name, {})[route.name] = choices(route, parameter.name)
                country |= {(parameter.name, key) for key in needs_codes(route, parameter.name)}
    return [
        "// The canonical value (encoded) of the spelling `key` (ASCII lower-cased) of the closed set `name` on",
        "// `route`: '' for its default, which the canonical query leaves out, null for no spelling of it;",
        "// undefined when `name` is not a closed set there.",
        "function choice(route, name, key) {",
        *_by_name(tables, lambda table, depth: _lookup("key", table, "null", depth)),
        "    return undefined;",
        "}",
        "// Whether the spelling `key` of `name` is taken only with codes (country mode).",
        "function needsCodes(name, key) {",
        "    return " + (" || ".join(f"(name === {_js(name)} && key === {_js(key)})" for name, key in sorted(country))
                        or "false") + ";",
        "}",
        "",
    ]


def _kept(routes: Sequence[Keyed]) -> list[str]:
    """``kept``: the pattern of each value written as it is (``year``, ``snapshot``, ``from``...)."""
    tables: dict[str, dict[str, str]] = {}
    for route in routes:
        for parameter in route.grammar.parameters:
            if parameter.name not in READ_BY_CODE and not parameter.choices:
                tables.setdefault(parameter.name, {})[route.name] = kept_pattern(route, parameter.name)
    return [
        "// The declared pattern of `name` on `route`: a value that matches is written as it is (the",
        "// patterns match nothing the canonical encoding escapes: make edge-routes checks it).",
        "function kept(route, name) {",
        *_by_name(tables, lambda pattern, depth: [f"{'    ' * depth}return {_js_regex(pattern)};"]),
        "    return undefined;",
        "}",
        "",
    ]


def _by_name(tables: Mapping[str, Mapping[str, T]], render: Callable[[T, int], list[str]]) -> list[str]:
    """A switch on ``name`` rendering each name's table of each route: names alike share a case,
    and a name's routes are told apart only where their tables differ (``_by_route``)."""
    bodies = {name: tuple(_by_route(by_route, render)) for name, by_route in sorted(tables.items())}
    lines = ["    switch (name) {"]
    for body, names in sorted(_grouped(bodies), key=lambda group: group[1][0]):
        lines += [*(f"    case {_js(name)}:" for name in names), *body]
    return [*lines, "    }"]


def _by_route(tables: Mapping[str, T], render: Callable[[T, int], list[str]], depth: int = 2) -> list[str]:
    """``render`` of each route's table (at ``depth``), in an ``if`` naming the routes of each but
    the most common one, which comes last, for the others."""
    indent = "    " * depth
    groups = _grouped(tables)
    lines: list[str] = []
    for table, names in groups[1:]:
        condition = " || ".join(f"route === {_js(name)}" for name in names)
        lines += [f"{indent}if ({condition}) {{", *render(table, depth + 1), f"{indent}}}"]
    return lines + render(groups[0][0], depth)


def _sorts(routes: Sequence[Keyed]) -> list[str]:
    """``sortField``, ``defaultSort``, ``orderOf``, ``ASCENDING``, ``DESCENDING``, ``descends`` and
    ``impliedWeights``."""
    sorting = [route for route in routes if "sort" in route.grammar]
    defaults = {default_sort(route) for route in sorting}
    descends = sorted(set().union(*(descending(route) for route in sorting)))
    implied = _one_table([implied_weights(route) for route in sorting], "implied weights")
    ascending = {default_order(route) for route in sorting}
    descending_orders = {descending_order(route) for route in sorting}
    order_table = shared(sorting, "order", orders)
    if len(defaults) != 1 or len(ascending) != 1 or len(descending_orders) != 1:
        raise ValueError(f"the routes' default sorts differ: {sorted(defaults)} {sorted(ascending)}")
    return [
        "// The field (encoded) the spelling `key` (ASCII lower-cased) of `sort` sorts by on `route`; undefined",
        "// for none.",
        "function sortField(route, key) {",
        *_by_route({route.name: sorts(route) for route in sorting},
                   lambda table, depth: _lookup("key", table, "undefined", depth), 1),
        "}",
        "// The field a query without `sort` sorts by (a function: njs copies a global string of more than",
        "// a few characters with the VM for every request).",
        "function defaultSort() {",
        f"    return {_js(defaults.pop())};",
        "}",
        "// The order the spelling `key` (ASCII lower-cased) of `order` writes; undefined for none.",
        "function orderOf(key) {",
        *_lookup("key", order_table, "undefined", 1),
        "}",
        f"var ASCENDING = {_js(ascending.pop())};  // the default sort's own: with it, neither is written",
        f"var DESCENDING = {_js(descending_orders.pop())};  // a sort's without `order`, when it descends",
        "// Whether a sort by `field` descends when no order is given (numbers, ranks, the custom values).",
        "function descends(field) {",
        *_lookup("field", dict.fromkeys(descends, "true"), "false", 1, quoted=False),
        "}",
        "// The weights a sort by `field` writes when none are given (the custom values: the published",
        "// weights); undefined for another field.",
        "function impliedWeights(field) {",
        *_lookup("field", implied, "undefined", 1),
        "}",
        "",
    ]


def _one_table(tables: Sequence[Mapping[str, str]], what: str) -> dict[str, str]:
    """The tables of several routes as one, which must not read a key two ways."""
    joined: dict[str, str] = {}
    for table in tables:
        for key, value in table.items():
            if joined.setdefault(key, value) != value:
                raise ValueError(f"{what}: {key!r} is both {joined[key]!r} and {value!r}")
    return joined


def _fields(routes: Sequence[Keyed]) -> list[str]:
    """``field``, ``fieldsOf``, ``details`` and ``MOST_PIECES``."""
    listing = [route for route in routes if "fields" in route.grammar]
    table = shared(listing, "fields", fields)
    orders = {route.name: "|" + "".join(f"{field}|" for field in fields_in_order(route)) for route in listing}
    lines = [
        "// The field (encoded) one spelling `key` (ASCII lower-cased) of `fields` names; undefined for none.",
        "function field(key) {",
        *_lookup("key", table, "undefined", 1),
        "}",
        "// The fields `fields` may name on `route`, in the order the canonical query lists them, `|` around each.",
        *_strings("fieldsOf", orders, "|"),
    ]
    return [
        *lines,
        "// The field written only alone (a function, as defaultSort).",
        "function details() {",
        f"    return {_js(DETAILS)};",
        "}",
        f"var MOST_PIECES = {max(most_pieces(route) for route in listing)};",
        "",
    ]


def _numbers() -> list[str]:
    """The parser's patterns, bounds and dimensions: what codes, lists, years, limits and weights are."""
    patterns = {"codes": _list(CODE_PATTERN), "indicators": _list(INDICATOR_PATTERN), "years": _whole(YEARS_PATTERN),
                "limit": _whole(LIMIT_PATTERN), "offset": _whole(OFFSET_PATTERN), "weight": _whole(WEIGHT_PATTERN)}
    return [
        "// The parser's pattern (readiness/domain/parameters.py) of a list of codes, of indicators, of `years`,",
        "// `limit`, `offset` and one weight, anchored.",
        "function pattern(name) {",
        *_lookup("name", {name: _js_regex(regex) for name, regex in patterns.items()}, "undefined", 1, quoted=False),
        "}",
        f"var MAX_CODES = {MAX_CODES};",
        f"var MAX_INDICATORS = {MAX_INDICATORS};",
        f"var MAX_LIMIT = {MAX_LIMIT};",
        f"var MAX_SNAPSHOTS = {MAX_SNAPSHOTS};",
        f"var WEIGHT_SCALE = {WEIGHT_SCALE};",
        f"var DIMENSIONS = {len(DIMENSIONS)};",
        "// The position of the dimension `weights=name:weight` calls `key` (ASCII lower-cased); -1 for none.",
        "function dimension(key) {",
        *_lookup("key", {name: str(position) for name, position in DIMENSION_NAMES.items()}, "-1", 1,
                 quoted=False),
        "}",
    ]


def _grouped(values: Mapping[str, T]) -> list[tuple[T, list[str]]]:
    """The distinct values, each with the names that have it: the most common first, then in order."""
    groups: list[tuple[T, list[str]]] = []
    for name, value in values.items():
        for seen, names in groups:
            if seen == value:
                names.append(name)
                break
        else:
            groups.append((value, [name]))
    return sorted(groups, key=lambda group: -len(group[1]))


def _lookup(subject: str, table: Mapping[str, str], otherwise: str, depth: int, *, quoted: bool = True) -> list[str]:
    """A switch on ``subject`` returning ``table``'s value for each key (as a string literal, or
    as code when not ``quoted``), ``otherwise`` for any other."""
    indent = "    " * depth
    lines = [f"{indent}switch ({subject}) {{"]
    for value, keys in _grouped_in_order(table):
        lines += [*(f"{indent}case {_js(key)}:" for key in keys),
                  f"{indent}    return {_js(value) if quoted else value};"]
    return [*lines, f"{indent}}}", f"{indent}return {otherwise};"]


def _grouped_in_order(table: Mapping[str, str]) -> list[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = {}
    for key, value in table.items():
        groups.setdefault(value, []).append(key)
    return list(groups.items())


def _continued(head: str, text: str, separator: str, tail: str) -> list[str]:
    """``<head>'<text>'<tail>``, the literal cut before a ``separator`` and continued on the next
    line (a backslash at the line's end: the next line, from its first column, goes on the
    string) where a line would be too long."""
    first = head + "'"
    lines: list[str] = []
    while len(first) + len(_js(text)) - 1 + len(tail) > _WIDTH:
        cut = text.rindex(separator, 0, _WIDTH - len(first) - 1)
        lines.append(f"{first}{_js(text[:cut])[1:-1]}\\")
        first, text = "", text[cut:]
    return [*lines, f"{first}{_js(text)[1:]}{tail}"]


def _js(text: str) -> str:
    """``text`` as a JavaScript string literal (printable ASCII: every name and spelling is)."""
    if not all(" " <= character <= "~" for character in text):
        raise ValueError(f"{text!r}: not printable ASCII")
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _js_regex(pattern: str) -> str:
    """An anchored Python pattern (``^...$``) as a JavaScript regular expression literal; only
    the syntax both read alike (classes, groups, counts, alternation) is used."""
    if "/" in pattern or not pattern.startswith("^") or not pattern.endswith("$") or "(?P" in pattern:
        raise ValueError(f"{pattern!r}: not a pattern the edge can copy")
    return f"/{pattern}/"


def _whole(pattern: str) -> str:
    """What ``re.fullmatch(pattern)`` matches, as an anchored pattern."""
    return f"^(?:{pattern})$"


def _list(pattern: str) -> str:
    """Items matching ``pattern``, comma-separated, as an anchored pattern."""
    return f"^(?:{pattern})(?:,(?:{pattern}))*$"
