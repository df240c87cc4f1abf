"""builder.wdi and ``python -m builder import-wdi``: the bulk WDI CSV archive to raw tables.

The archive is written here in the WDI's real layout (the quoted header of WDICSV.csv with one
column per year from 1960, a UTF-8 byte order mark, WDICountry.csv with its many columns and
empty regions for aggregates), small: the tiny world of tests/builder_world.py.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import zipfile
from pathlib import Path

import pytest

from builder.__main__ import main
from builder.inputs import read_raw
from builder.rawtables import write_tables
from builder.wdi import WdiError, import_wdi
from tests.builder_world import STANDARD, world

NOW = datetime.datetime(2026, 11, 5, tzinfo=datetime.UTC)
YEARS = [str(year) for year in range(1960, 2025)]
COUNTRY_HEADER = [
    "Country Code", "Short Name", "Table Name", "Long Name", "2-alpha code", "Currency Unit",
    "Special Notes", "Region", "Income Group", "WB-2 code", "National accounts base year",
    "National accounts reference year", "SNA price valuation", "Lending category", "Other groups",
    "System of National Accounts", "Alternative conversion factor", "PPP survey year",
    "Balance of Payments Manual in use", "External debt Reporting status", "System of trade",
    "Government Accounting concept", "IMF data dissemination standard", "Latest population census",
    "Latest household survey", "Source of most recent Income and expenditure data",
    "Vital registration complete", "Latest agricultural census", "Latest industrial data",
    "Latest trade data",
]
WGI = ("GE.EST", "RQ.EST", "CC.EST", "VA.EST")


def _csv(rows: list[list[str]]) -> bytes:
    text = io.StringIO()
    csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return ("\ufeff" + text.getvalue()).encode()


def write_archive(path: Path, with_governance: bool = True) -> Path:
    """WDI_CSV.zip of the tiny world (values in 2024), plus the aggregate "World"."""
    raw = world(STANDARD)
    countries = [COUNTRY_HEADER]
    for e in raw.economies:
        row = dict.fromkeys(COUNTRY_HEADER, "")
        row.update({"Country Code": e.code, "Short Name": e.name, "Table Name": e.name,
                    "Long Name": e.name, "Region": e.region, "Income Group": e.income or "",
                    "Lending category": "IDA"})
        countries.append([row[column] for column in COUNTRY_HEADER])
    world_row = dict.fromkeys(COUNTRY_HEADER, "")
    world_row.update({"Country Code": "WLD", "Table Name": "World", "Special Notes": "World aggregate."})
    countries.append([world_row[column] for column in COUNTRY_HEADER])
    data = [["Country Name", "Country Code", "Indicator Name", "Indicator Code", *YEARS]]
    for (code, indicator), observations in sorted(raw.series.items()):
        if indicator in WGI and not with_governance:
            continue
        values = {str(o.year): repr(o.value) if isinstance(o.value, float) else str(o.value)
                  for o in observations}
        data.append([f"Economy {code}", code, indicator, indicator, *(values.get(y, "") for y in YEARS)])
    data.append(["World", "WLD", "Population, total", "SP.POP.TOTL", *(["8000000000"] * len(YEARS))])
    data.append(["Economy AAA", "AAA", "GDP (current US$)", "NY.GDP.MKTP.CD", *([""] * len(YEARS))])
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("WDICSV.csv", _csv(data))
        archive.writestr("WDICountry.csv", _csv(countries))
        archive.writestr("WDISeries.csv", _csv([["Series Code", "Topic"]]))
    return path


def test_import_wdi_gives_the_same_tables_as_the_world(tmp_path: Path) -> None:
    imported = import_wdi((write_archive(tmp_path / "WDI_CSV.zip"),), 2026, {"AAA": "Conflict"}, NOW)
    raw = read_raw(write_tables(imported.tables, tmp_path / "raw"))
    expected = world(STANDARD)
    assert [e.code for e in raw.economies] == [e.code for e in expected.economies], "no WLD"
    assert {e.code: (e.region, e.income, e.population) for e in raw.economies} == {
        e.code: (e.region, e.income, e.population) for e in expected.economies}
    assert next(e for e in raw.economies if e.code == "AAA").fcv_type == "Conflict"
    assert {key: [(o.year, o.value) for o in obs] for key, obs in raw.series.items()} == {
        key: [(o.year, o.value) for o in obs] for key, obs in expected.series.items()}
    assert raw.observations("AAA", "GE.EST")[0].source == "World Bank WGI"
    assert raw.observations("AAA", "SP.POP.TOTL")[0].source == "World Bank WDI"
    assert imported.missing == ()
    provenance = json.loads((tmp_path / "raw" / "provenance.json").read_text())
    assert provenance["files"][0]["file"] == "WDI_CSV.zip:WDICSV.csv"
    assert provenance["indicators"]["GE.EST"]["lastupdated"] is None


def test_import_wdi_names_the_series_it_lacks(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    archive = write_archive(tmp_path / "WDI_CSV.zip", with_governance=False)
    fcv = tmp_path / "fcv.csv"
    fcv.write_text("iso3,fcv_type\n")
    status = main(["import-wdi", str(archive), "--out", str(tmp_path / "raw"), "--fcv", str(fcv),
                   "--year", "2026"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "series not in the archive(s), to be imputed or missing: GE.EST, RQ.EST, CC.EST, VA.EST" in captured.err
    assert captured.out.startswith(f"imported {tmp_path / 'raw'}: 5 economies, ")


def test_import_wdi_from_an_extracted_directory(tmp_path: Path) -> None:
    with zipfile.ZipFile(write_archive(tmp_path / "WDI_CSV.zip")) as archive:
        archive.extractall(tmp_path / "extracted")
    imported = import_wdi((tmp_path / "extracted",), 2026, {}, NOW)
    assert len(imported.tables.economies) == 5


def test_import_wdi_refuses_a_file_in_another_layout(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("WDICSV.csv", _csv([["Country", "Series", "2024"]]))
        archive.writestr("WDICountry.csv", _csv([COUNTRY_HEADER]))
    with pytest.raises(WdiError, match="missing column"):
        import_wdi((path,), 2026, {}, NOW)
    fcv = tmp_path / "fcv.csv"
    fcv.write_text("iso3,fcv_type\n")
    assert main(["import-wdi", str(path), "--out", str(tmp_path / "raw"), "--fcv", str(fcv)]) == 1
    assert "error: " in capsys.readouterr().err and not (tmp_path / "raw").exists()


def test_import_wdi_refuses_a_value_that_is_not_a_number(tmp_path: Path) -> None:
    path = tmp_path / "bad.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("WDICSV.csv", _csv([
            ["Country Name", "Country Code", "Indicator Name", "Indicator Code", "2024"],
            ["Economy AAA", "AAA", "Population, total", "SP.POP.TOTL", "n/a"]]))
        archive.writestr("WDICountry.csv", _csv([COUNTRY_HEADER]))
    with pytest.raises(WdiError, match=r"AAA SP.POP.TOTL 2024: 'n/a' is not a number"):
        import_wdi((path,), 2026, {}, NOW)
