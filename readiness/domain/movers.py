"""``/api/v1/rankings/changes``: how each economy's composite score and global rank moved between
two listed snapshots (docs/API.md#get-apiv1rankingschanges-rank-and-score-movers).

One row per economy present in both snapshots: its score and rank in each, the change, and
which way it went in words (``loaders.mover_direction``: ``up``/``down``/``same`` for the score,
``better``/``worse``/``same`` for the rank), the largest move first. Computed from the two
snapshots' summaries (their series keep the scores and ranks), so no archive is loaded. Pure:
no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from loaders import COMPOSITE, RANK_MEASURE, JsonValue, Snapshot, Summary, mover_direction
from readiness.domain.answer import Answer
from readiness.domain.compute import page_links, table_body
from readiness.domain.csv_table import Provenance, to_csv
from readiness.domain.envelope import page_fields
from readiness.domain.errors import InvalidParameter, InvalidRequest, SnapshotNotFound
from readiness.domain.meta import SNAPSHOT_ID, AnswerMeta, Format
from readiness.domain.query import Query
from readiness.domain.route import Route
from readiness.domain.select import limited, select, unmatched
from readiness.domain.tables import Record
from readiness.domain.vocabulary import folded

MOVER_ROW_BYTES = 320
"""About how many bytes one mover row serializes to (the sample's 217 economies: 68 KB)."""

MEASURES = ("score", "rank")
"""What ``measure`` orders the movers by: the composite score's change or the global rank's."""

_SNAPSHOT_OF_ROW: dict[str, JsonValue] = {"type": "string", "pattern": "^[0-9]{4}-(?:0[1-9]|1[0-2])$"}
_SCORE: dict[str, JsonValue] = {"type": ["number", "null"], "minimum": 0, "maximum": 100}
_RANK: dict[str, JsonValue] = {"type": ["integer", "null"], "minimum": 1}
COLUMNS: tuple[tuple[str, JsonValue], ...] = (
    ("Country Code", {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO3 code."}),
    ("Country Name", {"type": "string"}),
    ("Region", {"type": ["string", "null"], "description": "The region in the `to` snapshot."}),
    ("Income Level", {"type": ["string", "null"], "description": "The income group in the `to` snapshot."}),
    ("from", {**_SNAPSHOT_OF_ROW, "description": "The earlier snapshot compared (`from`)."}),
    ("to", {**_SNAPSHOT_OF_ROW, "description": "The later snapshot compared (`to`)."}),
    ("score_from", {**_SCORE, "description": f"`{COMPOSITE}` in `from`."}),
    ("score_to", {**_SCORE, "description": f"`{COMPOSITE}` in `to`."}),
    ("score_change", {"type": ["number", "null"], "description": "`score_to` - `score_from`, two decimals."}),
    ("score_direction", {"enum": ["up", "down", "same", None], "description": "Which way the score went."}),
    ("rank_from", {**_RANK, "description": "`Global Rank` in `from` (null: unranked, a microstate)."}),
    ("rank_to", {**_RANK, "description": "`Global Rank` in `to`."}),
    ("rank_change", {"type": ["integer", "null"],
                     "description": "`rank_to` - `rank_from`: positive is a worse rank (a larger number)."}),
    ("rank_direction", {"enum": ["better", "worse", "same", None], "description": "Which way the rank went."}),
)
"""The columns of a mover row, in order, each with its JSON Schema (the OpenAPI document's)."""
COLUMN_NAMES: tuple[str, ...] = tuple(name for name, _ in COLUMNS)


def snapshot_id(name: str) -> Callable[[str], str]:
    """The reader of parameter ``name``, a snapshot id ``YYYY-MM`` (``Parameter.read``)."""

    def read(value: str) -> str:
        if not SNAPSHOT_ID.fullmatch(value) or not 1 <= int(value[5:]) <= 12:
            raise InvalidParameter(
                name, value, "a snapshot id YYYY-MM such as 2024-06 (GET /api/v1/snapshots lists them)"
            )
        return value

    return read


def measure(value: str) -> str:
    """The reader of ``measure``: ``score`` or ``rank``, any case."""
    chosen = folded(value)
    if chosen not in MEASURES:
        raise InvalidParameter("measure", value, " or ".join(MEASURES))
    return chosen


def compared(summaries: Sequence[Summary], current: Snapshot, query: Query) -> tuple[Snapshot, Snapshot]:
    """The series of the two snapshots compared: ``to`` (default: the current snapshot) and
    ``from`` (default: the snapshot listed just before ``to``), among those published so far.

    Raises SnapshotNotFound for an id not listed, InvalidRequest when ``to`` is the first
    snapshot listed and ``from`` is not given."""
    listed = {summary.id: summary.series for summary in summaries if summary.id <= current.id}
    wanted_to = query.option("to") or current.id
    if wanted_to not in listed:
        raise SnapshotNotFound(wanted_to)
    wanted_from = query.option("from")
    if wanted_from is None:
        earlier = [snapshot for snapshot in sorted(listed) if snapshot < wanted_to]
        if not earlier:
            raise InvalidRequest(f"No snapshot is listed before {wanted_to}: name the one to compare with (from=).")
        wanted_from = earlier[-1]
    if wanted_from not in listed:
        raise SnapshotNotFound(wanted_from)
    return listed[wanted_from], listed[wanted_to]


def movers_cost(summaries: Sequence[Summary], current: Snapshot, query: Query) -> int:
    """About how many bytes the answer has (MOVER_ROW_BYTES per economy of ``to``). Raises like
    ``compared``: before any work is admitted."""
    _, later = compared(summaries, current, query)
    return MOVER_ROW_BYTES * len(later.countries)


def mover_rows(earlier: Snapshot, later: Snapshot, query: Query) -> list[Record]:
    """One row per economy in both snapshots that passes the query's filters in ``later``,
    ordered by the size of the change of ``measure`` (largest first; no change known last),
    then by Country Code."""
    by_code = replace(query, sort="Country Code", descending=False)
    rows = [_row(earlier, later, code) for code in (country.code for country in select(later, by_code))
            if code in earlier.countries]
    change = "rank_change" if query.option("measure") == "rank" else "score_change"
    rows.sort(key=lambda row: (row[change] is None, -abs(_number(row[change]))))  # stable: codes stay in order
    return rows


def _row(earlier: Snapshot, later: Snapshot, code: str) -> Record:
    before, after = earlier.countries[code].record, later.countries[code].record
    score_from, score_to = _score(before.get(COMPOSITE)), _score(after.get(COMPOSITE))
    rank_from, rank_to = _rank(before.get(RANK_MEASURE)), _rank(after.get(RANK_MEASURE))
    score_change = None if score_from is None or score_to is None else round(score_to - score_from, 2)
    rank_change = None if rank_from is None or rank_to is None else rank_to - rank_from
    return {
        "Country Code": code,
        "Country Name": after.get("Country Name"),
        "Region": after.get("Region"),
        "Income Level": after.get("Income Level"),
        "from": earlier.id,
        "to": later.id,
        "score_from": score_from,
        "score_to": score_to,
        "score_change": score_change,
        "score_direction": None if score_change is None else mover_direction(COMPOSITE, score_change),
        "rank_from": rank_from,
        "rank_to": rank_to,
        "rank_change": rank_change,
        "rank_direction": None if rank_change is None else mover_direction(RANK_MEASURE, rank_change),
    }


def _score(value: JsonValue) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _rank(value: JsonValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: JsonValue) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def compute_movers(summaries: Sequence[Summary], current: Snapshot, query: Query, route: Route) -> Answer:
    """``/api/v1/rankings/changes``: the mover rows of the two snapshots compared (``compared``),
    ``limit`` of them after ``offset``, ``X-Total-Count`` all of them, ``Link`` the next page while
    rows remain; JSON (``snapshot``: the ``to`` snapshot, ``unmatched``: codes neither has, the
    newer notice of the two) or CSV. Raises like ``compared``."""
    earlier, later = compared(summaries, current, query)
    matched = mover_rows(earlier, later, query)
    rows = limited(matched, query.limit, query.offset)
    meta = AnswerMeta(query.format, later.id, later.published, len(matched), "movers",
                      page_links(query, route, len(rows), len(matched)), earlier.synthetic or later.synthetic)
    notice = later.notice if later.notice is not None else earlier.notice
    if query.format is Format.CSV:  # a row compares two snapshots: it names the later, with the newer notice
        return Answer.of(to_csv(COLUMN_NAMES, rows, Provenance.of(later.id, notice)), meta)
    return Answer.of(table_body(later.id, current.id, rows, notice=notice, unmatched=unmatched([earlier, later], query),
                                paging=page_fields(query, len(matched))), meta)

