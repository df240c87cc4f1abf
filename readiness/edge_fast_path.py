"""The edge's fast path: the template's map to ``$edge_target`` (k8s/base/edge.conf.template),
which takes a target as it came, without running njs, when it is already the canonical target
edge-keys.js would make of it (docs/PERFORMANCE.md#what-njs-costs-a-hit).

One regular expression per data route with a fixed path: its names in canonical order, each
at most once, each value one the canonical query writes or one the API refuses (then the raw
target is the key either way, and the API answers it 400). So a value's expression is the
closed set's canonical spellings, a code list upper-case and strictly sorted, fields in their
order, a number without a leading zero, ``years`` unless both ends are one year, any plain value
for a value written as it is. Beside it, the same with ``code=`` in front is rewritten to
``codes=`` (``?code=KEN`` is the most common query there is), its values valid, not merely
canonical. Last, each route's lane (``lane_entry``, ``lane_maps``): pairs in any order, values
by any spelling in any case, written canonical by maps of exact strings from each pair's named
capture (docs/OPERATIONS.md#one-key-per-answer). What neither can check (weights reduced,
``level``, a repeated name, an escape) is left to njs. Written by
``make edge-routes`` (readiness/edge_routes.py); tests/test_edge_keys.py checks in nginx that
the map's answer is always njs's. Not on the request path.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from readiness.domain.errors import ReadinessError
from readiness.domain.parameters import CODE_PATTERN, INDICATOR_PATTERN, MAX_CODES
from readiness.edge_vocabulary import (
    READ_BY_CODE,
    Keyed,
    canonical_pairs,
    choices,
    default_order,
    default_sort,
    fields,
    fields_in_order,
    implied_weights,
    kept_pattern,
    keyed,
    needs_codes,
    orders,
    sorts,
)

PLAIN = "[-.,:0-9A-Za-z]+"
"""A plain value: characters the canonical encoding writes as they are, no escape."""
END = "(?:&|\\z)"
"""After a pair: the next one, or the end."""
MAX_TOKEN = 4000
"""nginx reads one configuration token into a buffer of 4,096 bytes (NGX_CONF_BUFFER)."""
_WIDTH = 110
"""How long a generated line may get before it is wrapped (the template's own width)."""
_COUNTRY = "edge_country"
"""The named group of the codes' pair, on which a country-mode-only parameter's depends."""
CHOOSERS = ("year", "years", "snapshot")
"""The names that choose the snapshots (Query.parse's ``_chosen``): given together, one is kept
and the others dropped, so a canonical target holds one at most."""
_YEAR = "[0-9]{4}"
"""One year of ``years`` (YEARS_PATTERN's)."""
_LISTS = {"codes": (CODE_PATTERN, True), "indicators": (INDICATOR_PATTERN, False)}
"""The code lists the map checks: each item's pattern, and whether it checks them whole or by
their first letter only. A whole check of the indicators' 38 characters would not fit in one
entry beside the rest (MAX_TOKEN): their lists are taken as they came when their first letters
increase, and go to njs when two items share one (correct either way, faster the first)."""
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")


def map_entries(route: Keyed) -> list[str]:
    """The map's entries for ``route``: its canonical targets taken as they came, and, where it
    takes ``code``, the same with ``code=`` first rewritten to ``codes=``."""
    if not route.grammar.names:
        return [f'    "{route.paths[0]}" $request_uri;']
    path = route.paths[0]
    names = [name for name in route.order if name in _written(route)]
    defines = _defines(route)
    entries = []
    if "code" in route.grammar and "codes" in names:  # first: `?code=KEN`, the most common target there is
        rest = names[names.index("codes") + 1:]
        bound = f"(?=[^&]{{0,{MAX_CODES * (_item(_LISTS['codes'][0])[2] + 1) - 1}}}{END})"
        entries.append(_entry(f"^{path} \\?code= (?<edge_args> {bound} (?&edge_codes) {END}",
                              _groups(route, rest, country=True),
                              f") \\z (?<!&) {_defines(route, comma='fields' in rest)}",
                              f"{path}?codes=$edge_args"))
    entries.append(_entry(f"^{path} (?: \\?(?=[a-z])", _groups(route, names, country=False),
                          f")? \\z (?<!&) {defines}", "$request_uri"))
    for entry in entries:
        if len(entry) > MAX_TOKEN:
            raise ValueError(f"{path}: a map entry of {len(entry)} bytes, more than nginx reads")
    return [line for entry in entries for line in entry.split("\n")]


def _written(route: Keyed) -> set[str]:
    """The names a canonical target of ``route`` may hold, as the map checks them: not ``code``
    (written ``codes``) nor a closed set none of whose spellings is written (``level``), not
    ``weights`` (reduced: njs's), ``order`` with ``sort``; not ``mrv``, which stays beside
    ``years`` but not ``year`` or ``snapshot`` (njs's), nor a list of values kept as they are
    (history's ``snapshot``: njs sorts it). Aliases are never written."""
    silent = {parameter.name for parameter in route.grammar.parameters if parameter.choices
              and parameter.name not in READ_BY_CODE and not any(choices(route, parameter.name).values())}
    listed = {parameter.name for parameter in route.grammar.parameters
              if parameter.many and parameter.name not in READ_BY_CODE}
    return set(route.grammar.names) - {"code", "weights", "order", "mrv"} - silent - listed


def _entry(head: str, groups: list[str], tail: str, value: str) -> str:
    """One map entry: an extended regular expression (spaces and line ends are not read, so the
    parts below put one between alternatives), wrapped at _WIDTH at its spaces."""
    lines = [f'    "~(?x) {head}']
    line = "       "
    for atom in " ".join([*groups, tail]).split():
        if len(line) + 1 + len(atom) > _WIDTH and line.strip():
            lines.append(line)
            line = "       "
        line += " " + atom
    return "\n".join([*lines, f'{line}" {value};'])


def _groups(route: Keyed, names: Sequence[str], *, country: bool) -> list[str]:
    """Each name's optional pair, in order; ``country``: the codes are given (the rewritten entry,
    whose values must be valid: ``_value``'s ``strict``). A snapshot chooser's pair only where
    no chooser came before it (``CHOOSERS``)."""
    groups = []
    choosers: list[str] = []
    for name in names:
        value = _value(route, name, strict=country)
        if name == "codes":
            group = f"(?<{_COUNTRY}>codes={value}{END})?"
        elif route.grammar.parameter(name).country_mode_only and not country:
            group = f"(?(<{_COUNTRY}>)(?:{name}={value}{END})?)"
        elif name == "sort":
            group = f"(?:{value}{END})?"
        elif name in CHOOSERS:
            group = f"(?<edge_{name}>{name}={value}{END})?"
            for earlier in reversed(choosers):
                group = f"(?(<edge_{earlier}>)|{group})"
            choosers.append(name)
        else:
            group = f"(?:{name}={value}{END})?"
        groups.append(group)
    return groups


def _value(route: Keyed, name: str, *, strict: bool = False) -> str:
    """What the canonical query writes for ``name``, or a value the API refuses; ``strict``: not
    one it refuses, for an entry that rewrites the target (``?code=``), where a refused value
    would make njs keep the target as it came."""
    if name in _LISTS:
        return f"(?&edge_{name})"
    if name == "fields":
        return _fields(route, strict=strict)
    if name == "sort":
        return _sort(route)
    if name == "years":  # a year, or a range from the earlier year to the later
        return f"(?: {_YEAR}(?={END}) | (?= {_less('0123456789', ':')} ) {_YEAR}:{_YEAR} )"
    if name in ("limit", "offset"):  # no leading zero, and offset 0 is the default
        return f"(?!0)(?=[^&]){_inner(route, name)}(?={END})" if strict else f"(?!0){PLAIN}"
    if name in READ_BY_CODE:
        raise ValueError(f"{route.name}: no fast path for {name}")
    parameter = route.grammar.parameter(name)
    if parameter.choices:
        written = sorted({value for value in choices(route, name).values() if value}, key=lambda v: (-len(v), v))
        return "(?: " + " | ".join(_literal(value) for value in written) + " )"
    return f"(?=[^&]){_inner(route, name)}(?={END})" if strict else PLAIN  # written as it is once valid


def _sort(route: Keyed) -> str:
    """``sort`` and ``order`` together: a field, then an order, never the default pair, nor a
    custom value (without weights it writes the published ones: njs's)."""
    fields = sorted(set(sorts(route).values()) - set(implied_weights(route)), key=lambda v: (-len(v), v))
    tokens = "|".join(_literal(token) for token in orders(route))
    default = f"{_literal(default_sort(route))}&order={_literal(default_order(route))}{END}"
    return f"sort=(?!{default})(?: " + " | ".join(_literal(field) for field in fields) + f" )&order=(?:{tokens})"


def _fields(route: Keyed, *, strict: bool = False) -> str:
    """Fields in their order, each once, or ``indicator_details`` alone. A name not followed by
    its comma, or a comma at the end, makes a value the API refuses: taken as it came is right,
    unless ``strict`` (then each name is followed by a comma and another, or the value's end)."""
    listed = fields_in_order(route)
    details = [field for field in listed if field == "indicator_details"]
    if strict:  # each name, then a comma and another, or the value's end (``_defines``' edge_comma)
        ordered = " ".join(f"(?:{_literal(field)}(?&edge_comma))?" for field in listed if field not in details)
        return "(?: " + "".join(f"{_literal(field)}(?={END}) | " for field in details) + f"(?=[^&,]) {ordered} )"
    ordered = " ".join(f"(?:{_literal(field)},?)?" for field in listed if field not in details)
    return "(?: " + "".join(f"{_literal(field)} | " for field in details) + f"(?=[^&,]) {ordered} (?<!,) )"


def _defines(route: Keyed, *, comma: bool = False) -> str:
    """The lists' subroutines (``(?&edge_codes)``), for those ``route`` takes."""
    return _defines_of([name for name in _LISTS if name in route.grammar], comma=comma)


def _item(pattern: str) -> tuple[str, int, int]:
    """A canonical item of a list whose items match ``pattern``: upper-cased, so its characters
    (sorted) and its shortest and longest length, found by trying the pattern."""
    valid = [character for character in map(chr, range(33, 127))
             if any(re.fullmatch(pattern, character * length) for length in range(1, 65))]
    characters = "".join(sorted({character.upper() for character in valid}))
    lengths = [length for length in range(1, 65) if re.fullmatch(pattern, valid[0] * length)]
    if not set(characters) <= _UNRESERVED or lengths != list(range(lengths[0], lengths[-1] + 1)):
        raise ValueError(f"{pattern!r}: not a list item the map can check")
    return characters, lengths[0], lengths[-1]


def _sorted_item(pattern: str, whole: bool) -> str:
    """One item of a list strictly increasing (as Python sorts: by code point), so upper-cased,
    sorted and deduplicated: unless it is the last, a look ahead checks that the next one is
    greater. ``whole``: it compares the two whole (``_less``); else it compares their first
    characters, letters, and takes only lists whose first letters increase."""
    characters, shortest, longest = _item(pattern)
    every = _class(characters)
    if not whole:
        letters = "".join(character for character in characters if character.isalpha())
        greater = [f"{letter}{every}*,{_class(letters[position + 1:])}"
                   for position, letter in enumerate(letters[:-1])]
        return (f"(?= {every}*{END} | " + " | ".join(greater) + " )"
                f" {_class(letters)}{every}{{{shortest - 1},{longest - 1}}}")
    return f"(?= {every}*{END} | {_less(characters, ',')} ) {every}{{{shortest},{longest}}}"


def _less(characters: str, separator: str) -> str:
    """At the start of an item of ``characters``: it is less than the one after ``separator``.
    It finds the first character where the two differ (or where the next one goes on) and
    checks that the next one's is greater."""
    every = _class(characters)
    greater = [f"{_literal(character)}{every}*{separator}\\g{{-1}}{_class(characters[position + 1:])}"
               for position, character in enumerate(characters[:-1])]
    return f"({every}*) (?: " + " | ".join([*greater, f"{separator}\\g{{-1}}{every}"]) + " )"


def _class(characters: str) -> str:
    """A character class of ``characters`` (sorted), runs of three or more as ranges."""
    runs: list[str] = []
    start = 0
    while start < len(characters):
        end = start
        while end + 1 < len(characters) and ord(characters[end + 1]) == ord(characters[end]) + 1:
            end += 1
        run = characters[start:end + 1]
        runs.append(f"{run[0]}-{run[-1]}" if len(run) >= 3 else run.replace("-", "\\-"))
        start = end + 1
    return "[" + "".join(runs) + "]"


def _literal(text: str) -> str:
    """``text`` matched literally: letters, digits and ``%,:-_`` as they are, anything else escaped."""
    return "".join(character if character.isalnum() or character in "%,:-_" else "\\" + character
                   for character in text)


# --- the second lane: aliases, another case, pairs out of order -----------------------------

LANE_VALUE = "[-.,:0-9A-Za-z_]+(?:(?:%2[06])+[-.,:0-9A-Za-z_]+)*"
"""A value the lane reads: characters written as they are, and a space or ``&`` inside as
``%20`` and ``%26`` (no ``+``, no other escape, nothing to trim): njs's ``readPlain``."""
PRECEDENCE = ("year", "snapshot", "years")
"""The snapshot choosers in the order the parser keeps one (``Query.parse``'s ``_chosen``):
the first given wins, the others are checked and dropped."""
UNKNOWN = "!"
"""A piece no spelling gave: the lane's target then goes to njs."""
LANE_MAP = "$edge_lane_"
"""How each route's last map, the lane's target, is named (tests/test_edge_keys.py copies them)."""


@dataclass(frozen=True)
class Piece:
    """One piece of a lane's canonical target: the ``names`` it reads off the request (``code``
    with ``codes``, ``order`` with ``sort``), each value's expression, and the nginx maps, in
    order, from the named captures of those values to ``variable``: ``&name=value`` as the
    canonical query writes it, ``""`` when it writes nothing, or UNKNOWN."""

    names: tuple[str, ...]
    values: tuple[str, ...]
    captures: tuple[str, ...]
    variable: str
    maps: tuple[str, ...]


def lane_names(route: Keyed, among: Sequence[Keyed] | None = None) -> tuple[str, ...]:
    """The names the lane of ``route`` (one of ``among``, by default every keyed route) reads, in
    canonical order: a target whose names are all these, each once, each value one it knows,
    skips njs in any order and spelling."""
    return tuple(name for piece in _pieces(route, among or keyed()) for name in piece.names)


def lane_entry(route: Keyed, among: Sequence[Keyed]) -> list[str]:
    """The map's entry taking ``route``'s lane (``route`` one of ``among``): its pairs in any
    order, each name once, each value captured for the maps (``lane_maps``) that write its
    canonical target."""
    pieces = _pieces(route, among)
    if not pieces:
        return []
    names = [name for piece in pieces for name in piece.names]
    alternatives: list[str] = []
    for piece in pieces:
        for name, value, capture in zip(piece.names, piece.values, piece.captures, strict=True):
            alone = "|".join(_literal(other) for other in piece.names if _exclusive(name, other))
            alternatives += ["|"] if alternatives else []
            alternatives.append(f"{name}=(?<{capture}>{value})(?!.*&(?:{alone})=)")
    lists = [name for name in _LISTS if name in names]
    entry = _entry(f"^{route.paths[0]} /? \\?(?=[a-z]) (?: (?:", alternatives,
                   f") {END} )++ (?<!&) \\z {_defines_of(lists)}", f"{LANE_MAP}{_tag(route)}")
    if len(entry) > MAX_TOKEN:
        raise ValueError(f"{route.paths[0]}: a lane entry of {len(entry)} bytes, more than nginx reads")
    return entry.split("\n")


def lane_maps(routes: Sequence[Keyed]) -> list[str]:
    """The maps writing each lane's canonical target from its captures: each piece's (once,
    where routes share them), then each route's target, ``$edge_uri`` (njs) when a piece is
    UNKNOWN, and for a method other than GET and HEAD, which njs leaves as they came."""
    lines: list[str] = []
    written: dict[str, str] = {}
    for route in routes:
        pieces = _pieces(route, routes)
        if not pieces:
            continue
        for piece in pieces:
            for block in piece.maps:
                variable = block.split("\n")[0].split()[-2]
                if variable in written:  # shared with an earlier route, which must read it alike
                    if written[variable] != block:
                        raise ValueError(f"{route.name}: {variable} is two maps")
                    continue
                written[variable] = block
                lines.extend(block.split("\n"))
        path = route.paths[0]
        joined = "".join(piece.variable for piece in pieces)
        lines += [f'map "$request_method{joined}" {LANE_MAP}{_tag(route)} {{',
                  "    default $edge_uri;", f"    GET {path};", f"    HEAD {path};",
                  f'    "~^(?:GET|HEAD)&(?<edge_lane_query>[^{UNKNOWN}]*)\\z" {path}?$edge_lane_query;', "}"]
    return lines


def _tag(route: Keyed) -> str:
    return re.sub("[^a-z0-9]", "_", route.name)


def _exclusive(name: str, other: str) -> bool:
    """Whether ``other`` given after ``name`` sends the target to njs: a repeat, or ``code``
    beside ``codes`` (``codes`` wins, ``code`` is not read)."""
    return other == name or {name, other} == {"code", "codes"}


def _pieces(route: Keyed, among: Sequence[Keyed]) -> list[Piece]:
    """The lane's pieces for ``route``, in canonical order: every name whose values a regular
    expression checks and a map writes, except those a rule ties to another name njs decides
    (``weights``, ``mrv``, ``level``, a country-mode-only name, a list kept as it is)."""
    if not route.grammar.names or not route.fast:
        return []
    grammar = route.grammar
    pieces = []
    for name in route.order:
        if name not in grammar.names or name in ("code", "order", "weights", "mrv"):
            continue
        parameter = grammar.parameter(name)
        if parameter.country_mode_only or (parameter.many and name not in ("codes", "fields", "indicators")):
            continue
        if name == "codes":
            pieces.append(_codes(route))
        elif name == "indicators":
            pieces.append(_kept(route, name, "(?&edge_indicators)"))
        elif name == "sort":
            if "order" in grammar.names:
                pieces.append(_sort_piece(route, among))
        elif name == "fields":
            pieces.append(_table(route, name, _table_of(route, name, _field_spellings(route)), among))
        elif name == "years":
            pieces.append(_kept(route, name, _value(route, name)))
        elif parameter.choices:
            if needs_codes(route, name):
                continue
            table = _table_of(route, name, parameter.choices)
            if any(table.values()):
                pieces.append(_table(route, name, table, among))
        elif parameter.pattern is not None:
            pieces.append(_kept(route, name, f"(?=[^&]){_inner(route, name)}(?={END})"))
    return _chosen(route, pieces)


def _codes(route: Keyed) -> Piece:
    """``codes``, or ``code`` alone: a list upper-case, strictly sorted, at most MAX_CODES,
    written as it is under ``codes``."""
    bound = f"(?=[^&]{{0,{MAX_CODES * (_item(_LISTS['codes'][0])[2] + 1) - 1}}}{END})"
    names = ("codes", "code") if "code" in route.grammar.names else ("codes",)
    captures = tuple(f"edge_a_{name}" for name in names)
    source = "".join(f"${capture}" for capture in captures)
    block = _map(source, "$edge_p_codes", ['"" "";', f'default "&codes={source}";'])
    return Piece(names, (f"{bound}(?&edge_codes)",) * len(names), captures, "$edge_p_codes", (block,))


def _kept(route: Keyed, name: str, value: str) -> Piece:
    """A value written as it is once ``value`` (the parser's pattern) matches it; its default
    (``offset=0``) not at all."""
    default = route.grammar.parameter(name).default
    dropped = [default] if default and name not in canonical_pairs(route, {name: default}) else []
    capture, variable = f"edge_a_{name}", f"$edge_p_{name}"
    block = _map(f"${capture}", variable, ['"" "";', *(f'"{value}" "";' for value in dropped),
                                          f'default "&{name}=${capture}";'])
    return Piece((name,), (value,), (capture,), variable, (block,))


def _table(route: Keyed, name: str, table: dict[str, str], among: Sequence[Keyed]) -> Piece:
    """A closed set's (or one field's) spellings, any case (nginx looks a map's strings up
    ASCII case-insensitively), to what the canonical query writes."""
    entries = [f'default "{UNKNOWN}";', '"" "";']
    entries += [f'"{key}" "{f"&{name}={text}" if text else ""}";' for key, text in table.items()]
    suffix = _suffix(route, name, table, among)
    capture, variable = f"edge_a_{name}{suffix}", f"$edge_p_{name}{suffix}"
    return Piece((name,), (LANE_VALUE,), (capture,), variable, (_map(f"${capture}", variable, entries),))


def _sort_piece(route: Keyed, among: Sequence[Keyed]) -> Piece:
    """``sort`` and ``order`` together, as the parser writes them: the default pair dropped, an
    order implied where none is given (numbers descend). Not a custom sort: without weights
    the parser writes the published ones (njs's)."""
    sorts_of, orders_of = _sorts_and_orders(route)
    fields = sorted(set(sorts_of.values()) - {""})
    tokens = {field: f"f{position}" for position, field in enumerate(fields)}
    suffix = _suffix(route, "sort", _name_table(route, "sort"), among)
    capture_sort, capture_order = f"edge_a_sort{suffix}", f"edge_a_order{suffix}"
    field_of, order_of, variable = f"$edge_s_sort{suffix}", f"$edge_s_order{suffix}", f"$edge_p_sort{suffix}"
    pairs = [f'default "{UNKNOWN}";']
    for field in ["", *fields]:
        for order in ["", *sorted(set(orders_of.values()))]:
            given = {**({"sort": unquote(field)} if field else {}), **({"order": order} if order else {})}
            written = _written_alike(route, given)
            if written is None or set(written) - {"sort", "order"}:
                continue  # a custom sort: it writes weights
            text = f"&sort={written['sort']}&order={written['order']}" if "sort" in written else ""
            pairs.append(f'"{tokens.get(field, "")}:{order}" "{text}";')
    blocks = (
        _map(f"${capture_sort}", field_of, [f'default "{UNKNOWN}";', '"" "";',
                                           *(f'"{key}" "{tokens[field]}";' for key, field in sorts_of.items()
                                             if field in tokens)]),
        _map(f"${capture_order}", order_of, [f'default "{UNKNOWN}";', '"" "";',
                                            *(f'"{key}" "{order}";' for key, order in orders_of.items())]),
        _map(f"{field_of}:{order_of}", variable, pairs),
    )
    return Piece(("sort", "order"), (LANE_VALUE, LANE_VALUE), (capture_sort, capture_order), variable, blocks)


def _sorts_and_orders(route: Keyed) -> tuple[dict[str, str], dict[str, str]]:
    """Each spelling of ``sort`` the lane can read to the field it sorts by, and of ``order`` to
    the order it writes (edge_vocabulary's tables)."""
    return ({key: field for spelling, field in sorts(route).items() if (key := folded_key(spelling))},
            {key: order for spelling, order in orders(route).items() if (key := folded_key(spelling))})


def _chosen(route: Keyed, pieces: list[Piece]) -> list[Piece]:
    """The snapshot choosers' pieces, each written only when none that wins over it is given."""
    present = [name for name in PRECEDENCE if any(piece.names == (name,) for piece in pieces)]
    chosen = []
    for piece in pieces:
        name = piece.names[0]
        earlier = present[:present.index(name)] if name in present else []
        if earlier:
            before = [next(p for p in pieces if p.names == (other,)).captures[0] for other in earlier]
            variable = f"$edge_q_{name}_unless_{'_'.join(earlier)}"
            block = _map("".join(f"${capture}" for capture in before), variable,
                         [f'"" {piece.variable};', 'default "";'])
            piece = Piece(piece.names, piece.values, piece.captures, variable, (*piece.maps, block))
        chosen.append(piece)
    return chosen


def _table_of(route: Keyed, name: str, spellings: Sequence[str]) -> dict[str, str]:
    """Each spelling of ``name`` the lane can read (``LANE_VALUE``, encoded as it comes) to what
    the canonical query writes for it alone (``""``: nothing), asked of the parser, with and
    without codes alike. A spelling the parser refuses, or reads apart, is left out: njs's."""
    table: dict[str, str] = {}
    for spelling in spellings:
        key = folded_key(spelling)
        written = _written_alike(route, {name: spelling})
        if key is None or written is None or set(written) - {name}:
            continue
        table[key] = written.get(name, "")
    return table


def folded_key(spelling: str) -> str | None:
    """``spelling`` lower-cased as a target would bring it to the lane (a space ``%20``, ``&``
    ``%26``); None when the lane cannot read it."""
    key = spelling.lower().replace(" ", "%20").replace("&", "%26")
    return key if spelling.isascii() and re.fullmatch(LANE_VALUE, key) else None


def _written_alike(route: Keyed, given: dict[str, str]) -> dict[str, str] | None:
    """The parser's canonical pairs of ``given``, the same beside codes (then without them);
    None when it refuses them, or writes them otherwise in country mode."""
    try:
        written = canonical_pairs(route, given)
        if "codes" in route.grammar.names:
            beside = canonical_pairs(route, {**given, "codes": "KEN"})
            if {key: value for key, value in beside.items() if key != "codes"} != written:
                return None
    except ReadinessError:
        return None
    return written


def _field_spellings(route: Keyed) -> list[str]:
    """Every spelling of one field ``fields`` names on ``route`` (``indicator_details`` too)."""
    return [*route.grammar.parameter("fields").choices, *(field for field in fields_in_order(route)
                                                         if field not in fields(route).values())]


def _inner(route: Keyed, name: str) -> str:
    """``name``'s declared pattern without its anchors, once it is one the lane may use: one
    matching only characters written as they are (``kept_pattern``'s check)."""
    pattern = route.grammar.parameter(name).pattern
    assert pattern is not None
    if not (pattern.startswith("^") and pattern.endswith("$")) or " " in pattern or "#" in pattern:
        raise ValueError(f"{route.name}: {name}'s pattern {pattern!r} is not one the lane reads")
    kept_pattern(route, name)
    return f"(?:{pattern[1:-1]})"


def _suffix(route: Keyed, name: str, table: dict[str, str], among: Sequence[Keyed]) -> str:
    """Routes that read ``name`` alike share its maps (and captures); a route reading it
    otherwise has its own, named after it. Alike: as the first fast route of ``among`` taking
    ``name``, in the route table's order (so the generated text is stable)."""
    first = next(other for other in among if other.fast and name in other.grammar.names)
    return "" if first.name == route.name or _name_table(first, name) == table else f"_{_tag(route)}"


def _name_table(route: Keyed, name: str) -> dict[str, str]:
    """What the lane reads of ``name`` on ``route``: each spelling to what it writes (``sort``'s
    with ``order``'s, those under ``order `` keys)."""
    if name == "sort":
        sorts_of, orders_of = _sorts_and_orders(route)
        return {**sorts_of, **{f"order {key}": value for key, value in orders_of.items()}}
    if name == "fields":
        return _table_of(route, name, _field_spellings(route))
    return _table_of(route, name, route.grammar.parameter(name).choices)


def _map(source: str, variable: str, entries: Sequence[str]) -> str:
    return "\n".join([f'map "{source}" {variable} {{', *(f"    {entry}" for entry in entries), "}"])


def _defines_of(lists: Sequence[str], *, comma: bool = False) -> str:
    """The subroutines of ``lists`` (``(?&edge_codes)``), and with ``comma`` that of a field's end
    in a strict ``fields`` (a comma and more, or the value's end)."""
    if not lists and not comma:
        return ""
    items = " ".join(f"(?<edge_{name}_item> {_sorted_item(*_LISTS[name])} )" for name in lists)
    ends = f" (?<edge_comma> ,(?!{END}) | (?={END}) )" if comma else ""
    return f"(?(DEFINE) {items}{ends} " + " ".join(
        f"(?<edge_{name}> (?&edge_{name}_item) (?:,(?&edge_{name}_item))* )" for name in lists) + " )"
