"""builder.inputs: the raw CSV tables, read strictly, every problem reported at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.inputs import Economy, InputError, Observation, read_raw

COUNTRIES = (
    "iso3,name,region,income_group,population,fcv_status,fcv_type\n"
    "KEN,Kenya,Sub-Saharan Africa,Lower middle income,55101000,false,\n"
    'VEN,"Venezuela, RB",Latin America & Caribbean,,28838000,true,Institutional and Social Fragility\n'
)
INDICATORS = (
    "iso3,indicator,year,value,source\n"
    "KEN,GE.EST,2024,-0.37,WGI\n"
    "KEN,GE.EST,2021,-0.41,WGI\n"
    "KEN,SP.POP.TOTL,2024,55101000,WDI\n"
    "VEN,GE.EST,2023,,WGI\n"
)


def raw_dir(tmp_path: Path, countries: str = COUNTRIES, indicators: str = INDICATORS) -> Path:
    (tmp_path / "countries.csv").write_text(countries, encoding="utf-8")
    (tmp_path / "indicators.csv").write_text(indicators, encoding="utf-8")
    return tmp_path


def problems(tmp_path: Path, countries: str = COUNTRIES, indicators: str = INDICATORS) -> list[str]:
    with pytest.raises(InputError) as raised:
        read_raw(raw_dir(tmp_path, countries, indicators))
    return raised.value.problems


def test_read_raw_economies_in_code_order(tmp_path: Path) -> None:
    raw = read_raw(raw_dir(tmp_path))
    assert raw.economies == (
        Economy("KEN", "Kenya", "Sub-Saharan Africa", "Lower middle income", 55_101_000, False, None),
        Economy("VEN", "Venezuela, RB", "Latin America & Caribbean", None, 28_838_000, True,
                "Institutional and Social Fragility"),
    )


def test_read_raw_series_sorted_by_year_integers_stay_integers(tmp_path: Path) -> None:
    raw = read_raw(raw_dir(tmp_path))
    assert raw.observations("KEN", "GE.EST") == (Observation(2021, -0.41, "WGI"), Observation(2024, -0.37, "WGI"))
    population = raw.observations("KEN", "SP.POP.TOTL")[0].value
    assert population == 55_101_000 and isinstance(population, int)


def test_read_raw_empty_value_is_a_gap(tmp_path: Path) -> None:
    assert read_raw(raw_dir(tmp_path)).observations("VEN", "GE.EST") == ()


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ("ke1,Kenya,Sub-Saharan Africa,Low income,5,false,", "iso3 'ke1' is not three capital letters"),
        ("KEN,Kenya again,Sub-Saharan Africa,Low income,5,false,", "KEN appears twice"),
        ("ZZZ,,Sub-Saharan Africa,Low income,5,false,", "ZZZ has no name"),
        ("ZZZ,Z,Africa,Low income,5,false,", "region 'Africa' is not one of"),
        ("ZZZ,Z,Sub-Saharan Africa,Rich,5,false,", "income_group 'Rich' is not one of"),
        ("ZZZ,Z,Sub-Saharan Africa,Low income,0,false,", "population '0' is not a positive integer"),
        ("ZZZ,Z,Sub-Saharan Africa,Low income,5.5,false,", "population '5.5' is not a positive integer"),
        ("ZZZ,Z,Sub-Saharan Africa,Low income,5,maybe,", "fcv_status 'maybe' is not true or false"),
        ("ZZZ,Z,Sub-Saharan Africa,Low income,5,false,Conflict", "fcv_type 'Conflict' but fcv_status false"),
    ],
)
def test_read_raw_bad_country_row_is_reported(tmp_path: Path, row: str, fragment: str) -> None:
    found = problems(tmp_path, countries=COUNTRIES + row + "\n")
    assert len(found) == 1 and fragment in found[0] and found[0].startswith("countries.csv:4:")


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ("XXX,GE.EST,2024,1,WGI", "iso3 'XXX' is not in countries.csv"),
        ("KEN,NY.GDP.MKTP.CD,2024,1,WDI", "indicator 'NY.GDP.MKTP.CD' is not part of the method"),
        ("KEN,GE.EST,24,1,WGI", "year '24' is not a year"),
        ("KEN,GE.EST,twenty,1,WGI", "year 'twenty' is not a year"),
        ("KEN,GE.EST,2023,nan,WGI", "value 'nan' is not a finite number"),
        ("KEN,GE.EST,2023,1e999,WGI", "value '1e999' is not a finite number"),
        ("KEN,GE.EST,2023,1_000,WGI", "value '1_000' is not a finite number"),
        ("KEN,IT.NET.SECR.P6,2023,-1,WDI", "IT.NET.SECR.P6 value -1 is negative"),
        ("KEN,GE.EST,2023,1,", "no source"),
        ("KEN,GE.EST,2024,1,WGI", "KEN GE.EST 2024 appears twice"),
    ],
)
def test_read_raw_bad_indicator_row_is_reported(tmp_path: Path, row: str, fragment: str) -> None:
    found = problems(tmp_path, indicators=INDICATORS + row + "\n")
    assert len(found) == 1 and fragment in found[0] and found[0].startswith("indicators.csv:6:")


def test_read_raw_negative_governance_estimate_is_fine(tmp_path: Path) -> None:
    raw = read_raw(raw_dir(tmp_path, indicators=INDICATORS + "KEN,CC.EST,2024,-2.1,WGI\n"))
    assert raw.observations("KEN", "CC.EST")[0].value == -2.1


def test_read_raw_missing_column_is_reported(tmp_path: Path) -> None:
    found = problems(tmp_path, indicators="iso3,indicator,year,value\nKEN,GE.EST,2024,1\n")
    assert found == ["indicators.csv:1: missing column(s) source"]


def test_read_raw_missing_file_is_reported(tmp_path: Path) -> None:
    (raw_dir(tmp_path) / "indicators.csv").unlink()
    with pytest.raises(InputError) as raised:
        read_raw(tmp_path)
    assert len(raised.value.problems) == 1
    assert raised.value.problems[0].startswith("indicators.csv: cannot read")


def test_read_raw_reports_every_problem_at_once(tmp_path: Path) -> None:
    found = problems(tmp_path, indicators=INDICATORS + "XXX,GE.EST,2024,1,WGI\nKEN,GE.EST,1800,1,WGI\n")
    assert len(found) == 2
    with pytest.raises(InputError, match="2 problem"):
        read_raw(tmp_path)
