"""The edge's fast path: the template's map to ``$edge_target`` (k8s/base/edge.conf.template),
which takes a target as it came, without running njs, when it is already the canonical target
edge-keys.js would make of it (docs/PERFORMANCE.md#what-njs-costs-a-hit).

One regular expression per data route with a fixed path: its names in canonical order, each
at most once, each value one the canonical query writes or one the API refuses (then the raw
target is the key either way, and the API answers it 400). So a value's expression is the
closed set's canonical spellings, a code list upper-case and strictly sorted, fields in their
order, a number without a leading zero, ``years`` unless both ends are one year, any plain value
for a value written as it is. Beside it, the same with ``code=`` in front is rewritten to
``codes=`` (``?code=KEN`` is the most common query there is). What a regular expression cannot
check (weights reduced, ``level``, a repeated name) is left to njs. Written by
``make edge-routes`` (readiness/edge_routes.py); tests/test_edge_keys.py checks in nginx that
the map's answer is always njs's. Not on the request path.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from readiness.domain.parameters import CODE_PATTERN, INDICATOR_PATTERN, MAX_CODES
from readiness.edge_vocabulary import (
    READ_BY_CODE,
    Keyed,
    choices,
    default_order,
    default_sort,
    fields_in_order,
    implied_weights,
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
                              _groups(route, rest, country=True), f") \\z (?<!&) {defines}",
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
    ``weights`` (reduced: njs's), ``order`` with ``sort``."""
    silent = {parameter.name for parameter in route.grammar.parameters if parameter.choices
              and parameter.name not in READ_BY_CODE and not any(choices(route, parameter.name).values())}
    return set(route.grammar.names) - {"code", "weights", "order"} - silent


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
    """Each name's optional pair, in order; ``country``: the codes are given (the rewritten entry).
    A snapshot chooser's pair only where no chooser came before it (``CHOOSERS``)."""
    groups = []
    choosers: list[str] = []
    for name in names:
        value = _value(route, name)
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


def _value(route: Keyed, name: str) -> str:
    """What the canonical query writes for ``name``, or a value the API refuses."""
    if name in _LISTS:
        return f"(?&edge_{name})"
    if name == "fields":
        return _fields(route)
    if name == "sort":
        return _sort(route)
    if name == "years":  # a year, or a range from the earlier year to the later
        return f"(?: {_YEAR}(?={END}) | (?= {_less('0123456789', ':')} ) {_YEAR}:{_YEAR} )"
    if name in ("limit", "offset"):  # no leading zero, and offset 0 is the default
        return f"(?!0){PLAIN}"
    if name in READ_BY_CODE:
        raise ValueError(f"{route.name}: no fast path for {name}")
    parameter = route.grammar.parameter(name)
    if parameter.choices:
        written = sorted({value for value in choices(route, name).values() if value}, key=lambda v: (-len(v), v))
        return "(?: " + " | ".join(_literal(value) for value in written) + " )"
    return PLAIN  # written as it is once valid


def _sort(route: Keyed) -> str:
    """``sort`` and ``order`` together: a field, then an order, never the default pair, nor a
    custom value (without weights it writes the published ones: njs's)."""
    fields = sorted(set(sorts(route).values()) - set(implied_weights(route)), key=lambda v: (-len(v), v))
    tokens = "|".join(_literal(token) for token in orders(route))
    default = f"{_literal(default_sort(route))}&order={_literal(default_order(route))}{END}"
    return f"sort=(?!{default})(?: " + " | ".join(_literal(field) for field in fields) + f" )&order=(?:{tokens})"


def _fields(route: Keyed) -> str:
    """Fields in their order, each once, or ``indicator_details`` alone. A name not followed by
    its comma, or a comma at the end, makes a value the API refuses: taken as it came is right."""
    listed = fields_in_order(route)
    details = [field for field in listed if field == "indicator_details"]
    ordered = " ".join(f"(?:{_literal(field)},?)?" for field in listed if field not in details)
    return "(?: " + "".join(f"{_literal(field)} | " for field in details) + f"(?=[^&,]) {ordered} (?<!,) )"


def _defines(route: Keyed) -> str:
    """The lists' subroutines (``(?&edge_codes)``), for those ``route`` takes."""
    lists = [name for name in _LISTS if name in route.grammar]
    if not lists:
        return ""
    items = " ".join(f"(?<edge_{name}_item> {_sorted_item(*_LISTS[name])} )" for name in lists)
    return f"(?(DEFINE) {items} " + " ".join(
        f"(?<edge_{name}> (?&edge_{name}_item) (?:,(?&edge_{name}_item))* )" for name in lists) + " )"


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
