"""Write the builder's raw tables (docs/METHOD.md#inputs) with their provenance, atomically.

``fetch`` and ``import-wdi`` both end here: ``countries.csv``, ``indicators.csv`` and
``provenance.json`` (where the values came from, when, and each indicator's
``lastupdated``) are written into a hidden staging directory beside ``out`` and only then
renamed to ``out``, so a failed run leaves the previous tables as they were. The FCV list,
which no World Bank API serves, is read here too (``read_fcv``).
"""

from __future__ import annotations

import csv
import json
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from builder.inputs import COUNTRIES_FILE, COUNTRY_COLUMNS, INDICATOR_COLUMNS, INDICATORS_FILE, Economy, Observation
from loaders import JsonValue

PROVENANCE_FILE = "provenance.json"
LENDING_COLUMN = "lending_type"
"""An extra column of countries.csv (the builder ignores it): the World Bank lending category."""


class FcvError(ValueError):
    """The FCV list cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class RawTables:
    """Everything the raw tables hold: economies (with lending type), each series, provenance."""

    economies: tuple[Economy, ...]
    lending: Mapping[str, str]
    series: Mapping[tuple[str, str], tuple[Observation, ...]]
    provenance: Mapping[str, JsonValue]


def read_fcv(path: Path) -> dict[str, str]:
    """The FCV list: ISO3 code to FCV type, from a CSV with columns ``iso3`` and ``fcv_type``.

    A previous raw ``countries.csv`` qualifies as is: rows whose ``fcv_status`` is false (or
    whose ``fcv_type`` is empty) are not on the list. Raises FcvError naming the problem.
    """
    listed: dict[str, str] = {}
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if not {"iso3", "fcv_type"} <= set(reader.fieldnames or ()):
                raise FcvError(f"{path}:1: needs the columns iso3 and fcv_type")
            for row in reader:
                code = (row["iso3"] or "").strip()
                kind = (row["fcv_type"] or "").strip()
                status = (row.get("fcv_status") or "true").strip().lower()
                if len(code) != 3 or not code.isalpha() or not code.isupper():
                    raise FcvError(f"{path}:{reader.line_num}: iso3 {code!r} is not an ISO3 code")
                if kind and status == "true":
                    listed[code] = kind
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise FcvError(f"{path}: cannot read: {error}") from None
    return listed


def write_tables(tables: RawTables, out: Path) -> Path:
    """Write the three files to ``out`` (replacing what was there only once all are written)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".tmp-{out.name}-", dir=out.parent))
    try:
        _write_countries(tables, staging / COUNTRIES_FILE)
        _write_indicators(tables, staging / INDICATORS_FILE)
        text = json.dumps(tables.provenance, indent=2, ensure_ascii=False, sort_keys=True)
        (staging / PROVENANCE_FILE).write_text(text + "\n", encoding="utf-8")
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".old-{out.name}-", dir=out.parent))
            out.rename(retired / out.name)
            staging.rename(out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _write_countries(tables: RawTables, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow((*COUNTRY_COLUMNS, LENDING_COLUMN))
        for e in sorted(tables.economies, key=lambda economy: economy.code):
            writer.writerow((e.code, e.name, e.region, e.income or "", e.population,
                             "true" if e.fcv_status else "false", e.fcv_type or "",
                             tables.lending.get(e.code, "")))


def _write_indicators(tables: RawTables, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(INDICATOR_COLUMNS)
        for (code, indicator), observations in sorted(tables.series.items()):
            for observation in observations:
                writer.writerow((code, indicator, observation.year, _number(observation.value),
                                 observation.source))


def _number(value: float | int) -> str:
    """Integers as integers (the builder keeps them so), floats in their shortest exact form."""
    return str(value) if isinstance(value, int) else repr(float(value))
