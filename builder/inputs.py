"""Read and validate the builder's two raw CSV tables into immutable values.

``countries.csv``: one row per economy, columns COUNTRY_COLUMNS. ``indicators.csv``: the
long table, one row per economy, indicator and year, columns INDICATOR_COLUMNS. Every
problem of both files is collected and reported at once (file, line, what is wrong), so a
data engineer fixes a bad extract in one pass; nothing is built from a table with a problem.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from builder.method import INCOME_GROUPS, INDICATOR_BY_CODE
from loaders import REGION_SHORT

COUNTRIES_FILE = "countries.csv"
INDICATORS_FILE = "indicators.csv"
COUNTRY_COLUMNS: tuple[str, ...] = (
    "iso3", "name", "region", "income_group", "population", "fcv_status", "fcv_type",
)
INDICATOR_COLUMNS: tuple[str, ...] = ("iso3", "indicator", "year", "value", "source")

_ISO3 = re.compile(r"^[A-Z]{3}$")
_INTEGER = re.compile(r"^-?[0-9]+$")
_DECIMAL = re.compile(r"^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")
_YEARS = range(1960, 2101)
_BOOLEANS = {"true": True, "false": False}


@dataclass(frozen=True, slots=True)
class Economy:
    """One row of the countries table. ``income`` is None for an unclassified economy."""

    code: str
    name: str
    region: str
    income: str | None
    population: int
    """The table's population: used only when SP.POP.TOTL has no value in the window."""
    fcv_status: bool
    fcv_type: str | None


@dataclass(frozen=True, slots=True)
class Observation:
    """One value of one series: its year, value (int when written as one) and source."""

    year: int
    value: float | int
    source: str


@dataclass(frozen=True, slots=True)
class RawData:
    """Both tables: economies in code order, and each (economy, indicator) series by year."""

    economies: tuple[Economy, ...]
    series: Mapping[tuple[str, str], tuple[Observation, ...]]

    def observations(self, code: str, indicator: str) -> tuple[Observation, ...]:
        """The series of one economy and indicator, oldest first (empty if none)."""
        return self.series.get((code, indicator), ())


class InputError(ValueError):
    """The raw tables have problems; ``problems`` lists each as "file:line: message"."""

    def __init__(self, problems: list[str]) -> None:
        shown = "\n".join(problems[:20])
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{len(problems)} problem(s) in the raw tables:\n{shown}{more}")
        self.problems = problems


def read_raw(directory: Path) -> RawData:
    """Read ``countries.csv`` and ``indicators.csv`` from ``directory``.

    Raises InputError listing every problem: a missing file or column, a malformed or
    duplicate code, an unknown region, income group or indicator, an inconsistent FCV
    type, a bad year or a non-finite value, a negative value where the method takes a
    logarithm or a rate, a duplicate (economy, indicator, year), an unknown economy.
    """
    problems: list[str] = []
    economies = _read_countries(directory / COUNTRIES_FILE, problems)
    known = {economy.code for economy in economies}
    series = _read_indicators(directory / INDICATORS_FILE, known, problems)
    if problems:
        raise InputError(problems)
    return RawData(tuple(sorted(economies, key=lambda e: e.code)), series)


def _rows(
    path: Path, columns: tuple[str, ...], problems: list[str]
) -> Iterator[tuple[str, dict[str, str]]]:
    """Yield ("file:line", row) for each data row; a header problem yields nothing."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [column for column in columns if column not in (reader.fieldnames or ())]
            if missing:
                problems.append(f"{path.name}:1: missing column(s) {', '.join(missing)}")
                return
            for row in reader:
                yield f"{path.name}:{reader.line_num}", {c: (row[c] or "").strip() for c in columns}
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        problems.append(f"{path.name}: cannot read: {error}")


def _read_countries(path: Path, problems: list[str]) -> list[Economy]:
    economies: dict[str, Economy] = {}
    for where, row in _rows(path, COUNTRY_COLUMNS, problems):
        before = len(problems)
        code, name, region, income = row["iso3"], row["name"], row["region"], row["income_group"]
        fcv_type = row["fcv_type"] or None
        if not _ISO3.match(code):
            problems.append(f"{where}: iso3 {code!r} is not three capital letters")
        elif code in economies:
            problems.append(f"{where}: {code} appears twice")
        if not name:
            problems.append(f"{where}: {code} has no name")
        if region not in REGION_SHORT:
            problems.append(f"{where}: {code} region {region!r} is not one of "
                            f"{', '.join(REGION_SHORT)}")
        if income and income not in INCOME_GROUPS:
            problems.append(f"{where}: {code} income_group {income!r} is not one of "
                            f"{', '.join(INCOME_GROUPS)} (or empty)")
        population = _positive_int(row["population"])
        if population is None:
            problems.append(f"{where}: {code} population {row['population']!r} "
                            "is not a positive integer")
        fcv_status = _BOOLEANS.get(row["fcv_status"].lower())
        if fcv_status is None:
            problems.append(f"{where}: {code} fcv_status {row['fcv_status']!r} "
                            "is not true or false")
        elif fcv_type and not fcv_status:
            problems.append(f"{where}: {code} has fcv_type {fcv_type!r} but fcv_status false")
        if len(problems) == before and population is not None and fcv_status is not None:
            economies[code] = Economy(code, name, region, income or None, population, fcv_status, fcv_type)
    return list(economies.values())


def _read_indicators(
    path: Path, known: set[str], problems: list[str]
) -> dict[tuple[str, str], tuple[Observation, ...]]:
    series: dict[tuple[str, str], dict[int, Observation]] = {}
    for where, row in _rows(path, INDICATOR_COLUMNS, problems):
        code, indicator, text = row["iso3"], row["indicator"], row["value"]
        if not text:
            continue  # an empty cell is a gap, as in the World Bank's own CSV exports
        method = INDICATOR_BY_CODE.get(indicator)
        year = int(row["year"]) if _INTEGER.match(row["year"]) else None
        value = _number(text)
        before = len(problems)
        if code not in known:
            problems.append(f"{where}: iso3 {code!r} is not in {COUNTRIES_FILE}")
        if method is None:
            problems.append(f"{where}: indicator {indicator!r} is not part of the method")
        if year is None or year not in _YEARS:
            problems.append(f"{where}: year {row['year']!r} is not a year between 1960 and 2100")
        if value is None:
            problems.append(f"{where}: value {text!r} is not a finite number")
        elif value < 0 and method is not None and (method.log1p or method.per_million):
            problems.append(f"{where}: {indicator} value {text} is negative")
        if not row["source"]:
            problems.append(f"{where}: no source")
        if len(problems) > before or year is None or value is None:
            continue
        by_year = series.setdefault((code, indicator), {})
        if year in by_year:
            problems.append(f"{where}: {code} {indicator} {year} appears twice")
        by_year[year] = Observation(year, value, row["source"])
    return {key: tuple(by_year[y] for y in sorted(by_year)) for key, by_year in series.items()}


def _positive_int(text: str) -> int | None:
    return int(text) if _INTEGER.match(text) and int(text) > 0 else None


def _number(text: str) -> float | int | None:
    """Parse a value; integers stay ints (populations, US$), so they are written back as such."""
    if _INTEGER.match(text):
        return int(text)
    if not _DECIMAL.match(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None
