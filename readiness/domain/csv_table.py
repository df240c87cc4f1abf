"""CSV bodies (docs/API.md#csv): one function every route's ``format=csv`` answer goes through.

RFC 4180: comma-separated, CRLF line ends, a field quoted (with ``""`` for a quote) when it
holds a comma, a quote, CR or LF. UTF-8 with a byte-order mark, so that spreadsheets read
"Côte d'Ivoire" as UTF-8 (pandas and Python's ``utf-8-sig`` strip it). A header row always,
also with no rows. Cells: numbers exactly as the JSON answer writes them (orjson), ``true`` and
``false`` for booleans, an empty cell for null or an absent key, text as it is, except that text
beginning with ``=``, ``+``, ``-``, ``@``, a tab or CR gets a ``'`` in front (OWASP's CSV
injection advice: a spreadsheet would run it as a formula). A number is never text: -1.5 stays -1.5.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import orjson

from loaders import JsonValue
from readiness.domain.columns import NOTICE_COLUMN, SNAPSHOT_ID_COLUMN

BOM = "\ufeff"
"""UTF-8's byte-order mark, first in every CSV body (docs/DECISIONS.md#csv)."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A text cell beginning with one of these gets a ``'`` in front (docs/DECISIONS.md#csv)."""

BOM_BYTES = BOM.encode()
CRLF = b"\r\n"

_EMPTY = orjson.Fragment(b"")
"""What orjson writes for a null cell: nothing."""
_MARK = b"\x00"
"""Stands for a quote CSV needs (around text with a comma) until JSON's own quotes are gone:
orjson escapes a NUL in text, so a raw one is always ours."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a CSV's rows come from, written into every row (docs/API.md#csv): a last column
    ``snapshot_id`` and, when any of its snapshots has a notice, ``notice`` after it, so that a
    file read without its name or headers (``pandas.read_csv(url)``) still says which snapshot it
    holds and, for the bundled sample, that it is synthetic.

    ``snapshot``: the id of every row (a table of one snapshot); otherwise ``key`` names the row's
    own key holding its id (``snapshot`` on tables over several). ``notices``: each snapshot's
    notice, by id (snapshots without one absent)."""

    snapshot: str | None = None
    key: str = "snapshot"
    notices: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, snapshot_id: str, notice: str | None) -> Provenance:
        """The provenance of a table of one snapshot, ``snapshot_id``, whose notice is ``notice``."""
        return cls(snapshot_id, notices={snapshot_id: notice} if notice is not None else {})

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns it adds, after the table's own."""
        return (SNAPSHOT_ID_COLUMN, NOTICE_COLUMN) if self.notices else (SNAPSHOT_ID_COLUMN,)

    def values(self, row: Mapping[str, JsonValue]) -> list[JsonValue]:
        """The cells it adds to ``row``: its snapshot id, then that snapshot's notice (an empty
        cell for a snapshot without one) when the table has the column."""
        snapshot = self.snapshot if self.snapshot is not None else row.get(self.key)
        if not self.notices:
            return [snapshot]
        return [snapshot, self.notices.get(snapshot) if isinstance(snapshot, str) else None]


def to_csv(
    columns: Sequence[str], rows: Sequence[Mapping[str, JsonValue]], provenance: Provenance | None = None
) -> bytes:
    """The CSV document of ``rows``, one line per row, one column per name in ``columns``, then
    ``provenance``'s columns (every v1 route's CSV; the legacy route's keeps its columns).

    A row's value for a column it lacks is an empty cell. Nested values (objects, arrays)
    are written as their JSON text; no route's columns hold one.

    Each row is written by orjson as a JSON array, which is already a CSV line when no text
    holds a quote, backslash or control character: numbers, true and false are JSON's own text
    (so byte-identical to the JSON answer), null is written as nothing, and JSON's quotes are
    dropped except around text with a comma. Rows with anything else go through the csv
    module; ``_needs_csv_module`` alone decides, from JSON's escapes. Much faster than the csv
    module alone (docs/PERFORMANCE.md#csv-bodies), which would make the global CSV answer cost
    far more than its JSON twin (bench/query_engine.py's target: under 1.3 times as much).
    """
    added = provenance.columns if provenance is not None else ()
    tails: dict[JsonValue, list[JsonValue | orjson.Fragment]] = {}
    table: list[Sequence[JsonValue | orjson.Fragment]] = [[_text(name) for name in (*columns, *added)]]
    table += [
        [_EMPTY if value is None
         else _text(value) if isinstance(value, str) and ("," in value or value.startswith(FORMULA_STARTS))
         else value
         for value in map(row.get, columns)] + _tail(row, provenance, tails)
        for row in rows
    ]
    lines = [orjson.dumps(cells)[1:-1] for cells in table]
    document = CRLF.join(lines)
    if len(columns) + len(added) > 1 and not _needs_csv_module(document):
        return BOM_BYTES + _unquoted(document) + CRLF  # the usual case: one pass over the whole
    originals: list[Sequence[JsonValue]] = [
        (*columns, *added), *(_cells(row, columns, provenance) for row in rows)
    ]
    return BOM_BYTES + b"".join(_line(cells, line) + CRLF for cells, line in zip(originals, lines, strict=True))


def _tail(
    row: Mapping[str, JsonValue], provenance: Provenance | None,
    tails: dict[JsonValue, list[JsonValue | orjson.Fragment]],
) -> list[JsonValue | orjson.Fragment]:
    """``provenance``'s cells of ``row`` as one piece of JSON text, made once per snapshot and
    shared by its rows (``tails``): the notice is long, and every row repeats it."""
    if provenance is None:
        return []
    snapshot = provenance.snapshot if provenance.snapshot is not None else row.get(provenance.key)
    tail = tails.get(snapshot)
    if tail is None:
        cells = [_EMPTY if value is None else _text(value) if isinstance(value, str) else value
                 for value in provenance.values(row)]
        tail = tails[snapshot] = [orjson.Fragment(orjson.dumps(cells)[1:-1])]
    return tail


def _cells(row: Mapping[str, JsonValue], columns: Sequence[str], provenance: Provenance | None) -> list[JsonValue]:
    """The values of one row's cells: its own for ``columns``, then ``provenance``'s."""
    cells = list(map(row.get, columns))
    if provenance is not None:
        cells += provenance.values(row)
    return cells


def _defused(text: str) -> str:
    """The one formula rule, for both paths: text beginning with a ``FORMULA_STARTS`` character
    with a ``'`` in front, so that a spreadsheet shows it instead of running it; other text as it is."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _text(value: str) -> str | orjson.Fragment:
    """Text as orjson should write it (``_defused`` first): as itself when it has no comma; with a
    comma, as its JSON text (escapes and all) between two marks that become CSV's quotes instead
    of JSON's. Either way a quote, backslash or control character in it is a JSON escape, which
    ``_needs_csv_module`` sees."""
    value = _defused(value)
    if "," not in value:
        return value
    return orjson.Fragment(_MARK + orjson.dumps(value)[1:-1] + _MARK)


def _needs_csv_module(json_text: bytes) -> bool:
    """The one guard of the fast path: whether JSON text holds an escape (orjson escapes every
    quote, backslash and control character in text, CR and LF included, also in text with a
    comma) or a nested value. The csv module must then write it: dropping JSON's quotes would
    drop text's own."""
    return b"\\" in json_text or b"[" in json_text or b"{" in json_text


def _unquoted(plain: bytes) -> bytes:
    """CSV text of JSON text without escapes or nested values: JSON's quotes dropped, the
    marks around text with a comma made quotes."""
    return plain.replace(b'"', b"").replace(_MARK, b'"')


def _line(cells: Sequence[JsonValue], json_line: bytes) -> bytes:
    """One CSV line, without its line end, of ``cells`` whose JSON text is ``json_line``."""
    if not _needs_csv_module(json_line):
        return _unquoted(json_line) or b'""'  # a lone empty cell: not a blank line
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow([_cell(cell) for cell in cells])
    return out.getvalue()[:-2].encode("utf-8")


def _cell(value: JsonValue) -> str:
    """A cell's text for the csv module: text ``_defused``, null as nothing, the rest as JSON."""
    if isinstance(value, str):
        return _defused(value)
    return "" if value is None else orjson.dumps(value).decode()
