"""Import the World Bank's bulk WDI download (the CSV archive) into the builder's raw tables.

The archive (``WDI_CSV.zip``, or the directory it was extracted to) holds a wide data table,
one row per economy and series with one column per year (``Country Name``, ``Country
Code``, ``Indicator Name``, ``Indicator Code``, ``1960`` ... ``2024``), and a country table
(``WDICountry.csv``: ``Country Code``, ``Table Name``, ``Region``, ``Income Group``,
``Lending category`` ...) in which aggregates have no region. Several archives in the same
layout may be given: the WDI no longer carries the governance estimates, so an operator who
mirrors the WGI in this layout passes both. The FCV list comes from the operator, as for the
API (``builder.rawtables.read_fcv``).
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from builder.fetch import GOVERNANCE_SOURCE, SOURCE_NAMES, WDI
from builder.inputs import Economy, Observation
from builder.method import INCOME_GROUPS, INDICATOR_BY_CODE, POPULATION, WINDOW_START
from builder.rawtables import RawTables
from loaders import REGION_SHORT, JsonValue

_DATA_COLUMNS = ("Country Code", "Indicator Code")
_COUNTRY_COLUMNS = ("Country Code", "Table Name", "Region", "Income Group")
_REGION_NAMES: dict[str, str] = {
    **{name: name for name in REGION_SHORT},
    "Middle East, North Africa, Afghanistan & Pakistan": "Middle East & North Africa",
}
"""The country table's region names and the contract's (WDI renamed one region in 2024)."""


class WdiError(ValueError):
    """The archive is not in the WDI CSV layout; the message names the file and what is wrong."""


@dataclass(frozen=True, slots=True)
class Imported:
    """The imported tables, economies left out for lack of a population, series not found."""

    tables: RawTables
    skipped: tuple[str, ...]
    missing: tuple[str, ...]


def import_wdi(
    archives: tuple[Path, ...], last_year: int, fcv: Mapping[str, str], now: datetime.datetime
) -> Imported:
    """Read the method's series for WINDOW_START..``last_year`` from ``archives``.

    Raises WdiError when an archive has no data table, when no archive has a country table,
    or a table lacks a column, or a value is not a number.
    """
    countries: dict[str, tuple[str, str, str | None, str]] | None = None
    series: dict[tuple[str, str], tuple[Observation, ...]] = {}
    files: list[JsonValue] = []
    for archive in archives:
        members = _members(archive)
        data = [name for name in members if _is_data(name)]
        if len(data) != 1:
            raise WdiError(f"{archive}: expected one data table (WDICSV.csv), found {data or 'none'}")
        if countries is None:
            country_files = [name for name in members if name.lower().endswith("country.csv")]
            if country_files:
                countries = _countries(archive, country_files[0], members[country_files[0]])
        raw = members[data[0]]
        files.append({"file": f"{archive.name}:{data[0]}", "sha256": hashlib.sha256(raw).hexdigest()})
        series.update(_series(archive, data[0], raw, last_year))
    if countries is None:
        raise WdiError("no archive holds the country table (WDICountry.csv)")
    populations = {
        code: int(observations[-1].value)
        for (code, indicator), observations in series.items()
        if indicator == POPULATION and code in countries
    }
    kept = tuple(
        Economy(code, name, region, income, populations[code], code in fcv, fcv.get(code))
        for code, (name, region, income, _) in sorted(countries.items())
        if code in populations
    )
    codes = {economy.code for economy in kept}
    found = {indicator for _, indicator in series}
    missing = tuple(code for code in INDICATOR_BY_CODE if code not in found)
    provenance: dict[str, JsonValue] = {
        "source": "World Bank WDI bulk download (CSV)",
        "files": files,
        "fetched": now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "window": [WINDOW_START, last_year],
        "economies": len(kept),
        "skipped_without_population": [*sorted(set(countries) - codes)],
        "indicators": {
            code: {
                "source": SOURCE_NAMES[GOVERNANCE_SOURCE.get(code, WDI)],
                "lastupdated": None,
                "values": sum(len(o) for (c, i), o in series.items() if i == code and c in codes),
            }
            for code in INDICATOR_BY_CODE
        },
        "missing_indicators": [*missing],
    }
    tables = RawTables(
        kept,
        {code: countries[code][3] for code in codes},
        {key: value for key, value in series.items() if key[0] in codes},
        provenance,
    )
    return Imported(tables, tuple(sorted(set(countries) - codes)), missing)


def _members(archive: Path) -> dict[str, bytes]:
    """The CSV files of a zip archive or a directory, by name."""
    try:
        if archive.is_dir():
            return {path.name: path.read_bytes() for path in sorted(archive.glob("*.csv"))}
        with zipfile.ZipFile(archive) as opened:
            return {
                Path(info.filename).name: opened.read(info)
                for info in opened.infolist()
                if info.filename.lower().endswith(".csv")
            }
    except (OSError, zipfile.BadZipFile) as error:
        raise WdiError(f"{archive}: cannot read: {error}") from None


def _is_data(name: str) -> bool:
    """WDICSV.csv (since 2023) or WDIData.csv (before); not the country, series or notes."""
    lower = name.lower()
    return lower.endswith(("csv.csv", "data.csv")) and "country" not in lower and "series" not in lower


def _rows(archive: Path, name: str, raw: bytes, columns: tuple[str, ...]) -> Iterator[dict[str, str]]:
    try:
        reader = csv.DictReader(io.StringIO(raw.decode("utf-8-sig")))
        missing = [column for column in columns if column not in (reader.fieldnames or ())]
        if missing:
            raise WdiError(f"{archive}:{name}: missing column(s) {', '.join(missing)}")
        for row in reader:
            yield {key: (value or "").strip() for key, value in row.items() if key}
    except (UnicodeDecodeError, csv.Error) as error:
        raise WdiError(f"{archive}:{name}: cannot read: {error}") from None


def _countries(
    archive: Path, name: str, raw: bytes
) -> dict[str, tuple[str, str, str | None, str]]:
    """Economies (aggregates, which have no region, left out): name, region, income, lending."""
    countries: dict[str, tuple[str, str, str | None, str]] = {}
    for row in _rows(archive, name, raw, _COUNTRY_COLUMNS):
        region, income = row["Region"], row["Income Group"]
        if not region:
            continue
        if region not in _REGION_NAMES:
            raise WdiError(f"{archive}:{name}: {row['Country Code']} region {region!r} is not one "
                           f"of {', '.join(_REGION_NAMES)}")
        if income and income not in INCOME_GROUPS:
            raise WdiError(f"{archive}:{name}: {row['Country Code']} income group {income!r}")
        countries[row["Country Code"]] = (row["Table Name"], _REGION_NAMES[region], income or None,
                                          row.get("Lending category", ""))
    return countries


def _series(
    archive: Path, name: str, raw: bytes, last_year: int
) -> dict[tuple[str, str], tuple[Observation, ...]]:
    found: dict[tuple[str, str], tuple[Observation, ...]] = {}
    years = [str(year) for year in range(WINDOW_START, last_year + 1)]
    for row in _rows(archive, name, raw, _DATA_COLUMNS):
        indicator = row["Indicator Code"]
        if indicator not in INDICATOR_BY_CODE:
            continue
        source = SOURCE_NAMES[GOVERNANCE_SOURCE.get(indicator, WDI)]
        observations = []
        for year in years:
            text = row.get(year, "")
            if text:
                observations.append(Observation(int(year), _number(archive, name, row, year, text), source))
        if observations:
            found[(row["Country Code"], indicator)] = tuple(observations)
    return found


def _number(archive: Path, name: str, row: Mapping[str, str], year: str, text: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise WdiError(f"{archive}:{name}: {row['Country Code']} {row['Indicator Code']} {year}: "
                       f"{text!r} is not a number") from None
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value
