"""A snapshot's bulk files (docs/API.md#downloads): its tables as CSV and Parquet, their
metadata as a Frictionless Data Package descriptor (``datapackage.json``), and the package, a zip
of the CSVs, the descriptor and a README that carries the snapshot's notice.

Every file is built from one loaded snapshot and its summary (the indicator catalogue), the same
bytes for the same snapshot on every server (zip entries dated by the publication date), so a
strong ETag and byte ranges hold across them. Each column's meaning and unit come from
``readiness/domain/columns.py``; every row ends with its provenance (``snapshot_id``, ``notice``),
as every v1 CSV does. Pure: no I/O (the files are built in memory).
"""

from __future__ import annotations

import datetime
import hashlib
import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from loaders import JsonValue, Snapshot, Summary
from readiness.domain.aggregates import AGGREGATE_COLUMNS
from readiness.domain.answer import Answer
from readiness.domain.citation import Citation
from readiness.domain.columns import (
    NOTICE_COLUMN,
    SNAPSHOT_ID_COLUMN,
    TABLE_COLUMNS,
    Column,
    column,
    schema_column,
)
from readiness.domain.csv_table import Provenance, to_csv
from readiness.domain.meta import AnswerMeta, Format
from readiness.domain.movers import COLUMNS as MOVER_ROW_COLUMNS
from readiness.domain.query import Query
from readiness.domain.route import Route
from readiness.domain.select import ALL_FIELDS
from readiness.domain.shapes import LONG_KEYS
from readiness.domain.tables import (
    HISTORY_FIELDS,
    HISTORY_IDENTITY,
    INDICATOR_COLUMNS,
    MOVER_COLUMNS,
    Record,
    indicator_rows_between,
)
from readiness.domain.vocabulary import CUSTOM_RANK, CUSTOM_SCORE, FIELD_ALIASES

CURRENT = "current"
"""What a bulk file's path may name instead of a snapshot id: the current snapshot."""
DATAPACKAGE = "datapackage.json"
README = "README.txt"
FILES_PATH = "/api/v1/snapshots/{id}"
"""Where a snapshot's files are served: the descriptor's relative paths resolve beside it."""

RECORD_BYTES = 450
"""About how many bytes one economy's row adds to the readiness files (its CSV line)."""
INDICATOR_ROW_BYTES = 330
"""About how many bytes one indicator row adds to the indicator files (its CSV line)."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a snapshot's bulk files: its name (the files' stem), title, description,
    its own columns in order and primary key."""

    name: str
    title: str
    description: str
    columns: tuple[str, ...]
    key: tuple[str, ...]


READINESS = Table(
    "readiness", "Readiness scores by economy",
    "One row per economy: its groups, the composite and dimension scores and ranks (`/api/v1/readiness`).",
    ALL_FIELDS, ("Country Code",),
)
INDICATORS = Table(
    "indicators", "Indicator values",
    "One row per economy and indicator: reported and normalized values, percentiles and source "
    "(`/api/v1/indicators`).",
    INDICATOR_COLUMNS, ("Country Code", "indicator_code"),
)
TABLES: tuple[Table, ...] = (READINESS, INDICATORS)
"""The tables of every snapshot's bulk files, in the package's order."""


def table_rows(snapshot: Snapshot, table: Table) -> list[Record]:
    """The rows of ``table`` in ``snapshot``, by Country Code (then the economy's indicator order)."""
    countries = [snapshot.countries[code] for code in sorted(snapshot.countries)]
    if table is READINESS:
        return [dict(country.record) for country in countries]
    return indicator_rows_between(snapshot.id, countries, None, 0, None)[0]


def file_columns(snapshot: Snapshot, table: Table) -> tuple[str, ...]:
    """The columns of ``table``'s files: its own, then the provenance columns (``notice`` only
    where the snapshot has one)."""
    return (*table.columns, *Provenance.of(snapshot.id, snapshot.notice).columns)


def table_csv(snapshot: Snapshot, table: Table) -> bytes:
    """``table`` of ``snapshot`` as CSV: the bytes ``to_csv`` writes for every route, with provenance."""
    return to_csv(table.columns, table_rows(snapshot, table), Provenance.of(snapshot.id, snapshot.notice))


_ARROW_TYPES = {"string": pa.string(), "integer": pa.int64(), "number": pa.float64(), "boolean": pa.bool_(),
                "date": pa.date32()}


def table_parquet(snapshot: Snapshot, table: Table) -> bytes:
    """``table`` of ``snapshot`` as a Parquet file: typed columns, each with its description and
    unit in the field metadata, the snapshot's id, notice and citation in the file's metadata, and
    the provenance columns in every row, so that the file says what it holds wherever it goes."""
    names = file_columns(snapshot, table)
    described = [column(name) for name in names]
    provenance = {SNAPSHOT_ID_COLUMN: snapshot.id, NOTICE_COLUMN: snapshot.notice}
    rows = table_rows(snapshot, table)
    arrays = [
        pa.array([_cell(row.get(name), described.type) if name not in provenance else provenance[name]
                  for row in rows], type=_ARROW_TYPES[described.type])
        for name, described in zip(names, described, strict=True)
    ]
    schema = pa.schema(
        [pa.field(item.name, _ARROW_TYPES[item.type], metadata=_field_metadata(item)) for item in described],
        metadata=file_metadata(snapshot),
    )
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_arrays(arrays, schema=schema), sink, compression="zstd")
    return sink.getvalue()


def _field_metadata(item: Column) -> dict[str, str]:
    metadata = {"description": item.description}
    if item.unit is not None:
        metadata["unit"] = item.unit
    return metadata


def _cell(value: JsonValue, kind: str) -> object:
    """A JSON value as the Arrow type of its column: dates parsed, integers of number columns as floats."""
    if value is None:
        return None
    if kind == "date" and isinstance(value, str):
        return datetime.date.fromisoformat(value)
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def file_metadata(snapshot: Snapshot) -> dict[str, str]:
    """What a Parquet file of ``snapshot`` says of itself (its key-value metadata)."""
    citation = Citation.of(snapshot)
    metadata = {
        "title": citation.title, "snapshot_id": snapshot.id, "published": snapshot.published,
        "synthetic": "true" if snapshot.synthetic else "false", "citation": citation.text,
        "license": citation.license_text, "metadata": f"{FILES_PATH.format(id=snapshot.id)}/{DATAPACKAGE}",
    }
    if snapshot.notice is not None:
        metadata["notice"] = snapshot.notice
    return metadata


def descriptor(snapshot: Snapshot, summary: Summary, files: Sequence[tuple[Table, bytes]]) -> dict[str, JsonValue]:
    """The Frictionless Data Package descriptor of ``snapshot``'s bulk files (``files``: each
    table with its CSV bytes, whose size and SHA-256 it records): title, snapshot, publication
    date, sources, citation, licence and notice, and each column's type, meaning and unit.

    Data Package v1 (``tabular-data-package``); ``snapshot``, ``published``, ``synthetic``,
    ``notice``, ``citation``, ``indicators`` (the snapshot's indicator catalogue), ``downloads``
    (what every column of every data route's CSV means) and each field's ``unit`` are extra
    properties, which the specification allows."""
    citation = Citation.of(snapshot)
    title = citation.title + (" (synthetic sample: not real index data)" if snapshot.synthetic else "")
    about = (f"The bulk files of the readiness index's snapshot {snapshot.id}, published {snapshot.published}: "
             + ", ".join(f"{table.name}.csv ({table.title.lower()})" for table, _ in files)
             + f"; the same tables as Parquet at {FILES_PATH.format(id=snapshot.id)}/<table>.parquet.")
    package: dict[str, JsonValue] = {
        "profile": "tabular-data-package",
        "name": f"readiness-{snapshot.id}" + ("-synthetic" if snapshot.synthetic else ""),
        "title": title,
        "description": f"{snapshot.notice} {about}" if snapshot.notice is not None else about,
        "version": snapshot.id,
        "created": f"{snapshot.published}T00:00:00Z",
        "snapshot": snapshot.id,
        "published": snapshot.published,
        "synthetic": snapshot.synthetic,
        "notice": snapshot.notice,
        "citation": citation.document(),
        "sources": [{"title": source} for source in _sources(summary)],
        "resources": [_resource(snapshot, table, body) for table, body in files],
        "indicators": list(summary.indicators),
        "downloads": downloads(),
    }
    if snapshot.publisher is not None:
        package["contributors"] = [{"title": snapshot.publisher, "role": "publisher"}]
    if snapshot.license is not None:
        package["licenses"] = [{"name": snapshot.license, "title": citation.license_text}]
    return package


_DOWNLOADS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("/api/v1/readiness", ("readiness",), (*ALL_FIELDS, "RegionShort", *FIELD_ALIASES, CUSTOM_SCORE, CUSTOM_RANK)),
    ("/api/v1/indicators", ("long",), (*INDICATOR_COLUMNS, *LONG_KEYS)),
    ("/api/v1/history", ("history", "long"), (*HISTORY_IDENTITY, *HISTORY_FIELDS, *LONG_KEYS)),
    ("/api/v1/aggregates", ("aggregates",), AGGREGATE_COLUMNS),
    ("/api/v1/snapshots/{id}/changes", ("changes",), MOVER_COLUMNS),
)
"""Each data route's CSV (``format=csv``): the tables whose meanings its columns take first,
and every column it may have (``fields``, ``shortnames``, ``weights`` and ``shape`` choose
among them)."""


def downloads() -> list[JsonValue]:
    """What every column of every data route's CSV means: the route, then each column's type,
    description and unit, provenance last (``datapackage.json``'s ``downloads``)."""
    described: list[JsonValue] = []
    for path, tables, names in _DOWNLOADS:
        fields = [_described(tables, name) for name in (*names, SNAPSHOT_ID_COLUMN, NOTICE_COLUMN)]
        described.append({"path": path, "format": "csv", "fields": [field.descriptor() for field in fields]})
    movers = [schema_column(name, schema) for name, schema in MOVER_ROW_COLUMNS if isinstance(schema, dict)]
    described.append({"path": "/api/v1/rankings/changes", "format": "csv", "fields": [
        field.descriptor() for field in (*movers, column(SNAPSHOT_ID_COLUMN), column(NOTICE_COLUMN))]})
    return described


def _described(tables: Sequence[str], name: str) -> Column:
    """``name`` as the first of ``tables`` that has a meaning of its own for it describes it, else ``column``."""
    return next((TABLE_COLUMNS[table][name] for table in tables if name in TABLE_COLUMNS[table]), None) \
        or column(name)


def _sources(summary: Summary) -> list[str]:
    """The distinct sources the snapshot's indicator catalogue names, in first-seen order."""
    seen: dict[str, None] = {}
    for indicator in summary.indicators:
        sources = indicator.get("sources")
        for source in sources if isinstance(sources, list) else ():
            if isinstance(source, str):
                seen.setdefault(source)
    return list(seen)


def _resource(snapshot: Snapshot, table: Table, body: bytes) -> dict[str, JsonValue]:
    """One CSV of the package as a tabular data resource: path, format, size and hash, dialect, schema."""
    return {
        "profile": "tabular-data-resource",
        "name": table.name,
        "path": f"{table.name}.csv",
        "title": table.title,
        "description": table.description,
        "format": "csv",
        "mediatype": "text/csv",
        "encoding": "utf-8-sig",
        "bytes": len(body),
        "hash": f"sha256:{hashlib.sha256(body).hexdigest()}",
        "dialect": {"delimiter": ",", "lineTerminator": "\r\n", "quoteChar": '"', "doubleQuote": True,
                    "header": True},
        "schema": {"fields": [column(name).descriptor() for name in file_columns(snapshot, table)],
                   "primaryKey": list(table.key), "missingValues": [""]},
    }


def readme(snapshot: Snapshot, files: Sequence[tuple[Table, bytes]]) -> str:
    """The package's README: its notice first, then what it holds and how to cite it."""
    citation = Citation.of(snapshot)
    lines = []
    if snapshot.notice is not None:
        lines += [f"NOTICE: {snapshot.notice}", ""]
    lines += [
        citation.title, "=" * len(citation.title), "",
        f"Snapshot {snapshot.id}, published {snapshot.published}.", "",
        "Files:",
        f"  {DATAPACKAGE}  the Frictionless Data Package descriptor: every column's type, meaning and unit",
        *(f"  {table.name}.csv  {table.title.lower()} ({len(body)} bytes)" for table, body in files),
        "",
        "Every row ends with snapshot_id" + (" and notice." if snapshot.notice is not None else "."),
        "",
        f"Cite: {citation.text}",
        citation.license_text,
        "",
    ]
    return "\r\n".join(lines)


def package_zip(snapshot: Snapshot, summary: Summary) -> bytes:
    """The package of ``snapshot``: README.txt, datapackage.json and each table's CSV, deflated,
    every entry dated by the publication date (the same bytes on every server)."""
    files = [(table, table_csv(snapshot, table)) for table in TABLES]
    entries = [
        (README, readme(snapshot, files).encode("utf-8")),
        (DATAPACKAGE, orjson.dumps(descriptor(snapshot, summary, files), option=orjson.OPT_INDENT_2)),
        *((f"{table.name}.csv", body) for table, body in files),
    ]
    year, month, day = (int(part) for part in snapshot.published.split("-"))
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, body in entries:
            info = zipfile.ZipInfo(name, date_time=(max(year, 1980), month, day, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, body)
    return sink.getvalue()


def _meta(snapshot: Snapshot, file_format: Format, download: str) -> AnswerMeta:
    return AnswerMeta(file_format, snapshot.id, snapshot.published, None, download, None, snapshot.synthetic)


def compute_datapackage(snapshot: Snapshot, summary: Summary, query: Query, route: Route) -> Answer:
    """``/api/v1/snapshots/{id}/datapackage.json``: the descriptor, as JSON (its CSV paths resolve
    to the CSV routes beside it)."""
    files = [(table, table_csv(snapshot, table)) for table in TABLES]
    meta = AnswerMeta(Format.JSON, snapshot.id, snapshot.published, None, None, None, snapshot.synthetic)
    return Answer.of(orjson.dumps(descriptor(snapshot, summary, files)), meta)


def compute_package(snapshot: Snapshot, summary: Summary, query: Query, route: Route) -> Answer:
    """``/api/v1/snapshots/{id}/package.zip``: the package (``package_zip``)."""
    return Answer.of(package_zip(snapshot, summary), _meta(snapshot, Format.ZIP, "package"))


@dataclass(frozen=True, slots=True)
class TableFile:
    """The compute function of one table's file in one format (CSV or Parquet), for its route."""

    table: Table
    format: Format

    def __call__(self, snapshot: Snapshot, summary: Summary, query: Query, route: Route) -> Answer:
        body = table_csv(snapshot, self.table) if self.format is Format.CSV else table_parquet(snapshot, self.table)
        return Answer.of(body, _meta(snapshot, self.format, self.table.name))


def files_cost(snapshot: Snapshot) -> int:
    """What building a snapshot's bulk files costs, in bytes of an answer that takes as long:
    every table's CSV lines (the descriptor hashes them; the package deflates them too)."""
    details = sum(len(country.details) for country in snapshot.countries.values())
    return len(snapshot.countries) * RECORD_BYTES + details * INDICATOR_ROW_BYTES
