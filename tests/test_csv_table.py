"""to_csv (readiness/domain/csv_table.py) as a plain function, and the CSV answers as a researcher reads
them: pandas.read_csv and pandas.read_json over a real server on the bundled sample."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson
import pandas
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from config import Settings
from loaders import COUNTRY_FIELDS, Country, JsonValue, Snapshot, SnapshotStore
from readiness.app import make_app
from readiness.domain.csv_table import Provenance, to_csv
from tests.openapi_server import serving

BOM = b"\xef\xbb\xbf"


def read_back(document: bytes) -> list[list[str]]:
    """What Python's csv module (RFC 4180 dialect) reads from a document, BOM stripped."""
    assert document.startswith(BOM)
    return list(csv.reader(io.StringIO(document[len(BOM):].decode("utf-8"), newline="")))


def test_to_csv_bom_header_crlf_and_plain_cells() -> None:
    document = to_csv(["Country Name", "Country Code", "Global Rank"], [
        {"Country Name": "Kenya", "Country Code": "KEN", "Global Rank": 123},
        {"Country Name": "Brazil", "Country Code": "BRA", "Global Rank": 45},
    ])
    assert document == BOM + b"Country Name,Country Code,Global Rank\r\nKenya,KEN,123\r\nBrazil,BRA,45\r\n"


def test_to_csv_quotes_only_text_with_a_comma_quote_or_line_break() -> None:
    document = to_csv(["Population, total", "name", "note"], [
        {"Population, total": 1, "name": "Korea, Rep.", "note": 'the "index"'},
        {"Population, total": 2, "name": "Line\r\nbreak", "note": "plain"},
    ])
    assert document == BOM + (
        b'"Population, total",name,note\r\n'
        b'1,"Korea, Rep.","the ""index"""\r\n'
        b'2,"Line\r\nbreak",plain\r\n'
    )
    assert read_back(document)[1:] == [["1", "Korea, Rep.", 'the "index"'], ["2", "Line\r\nbreak", "plain"]]


def test_to_csv_accented_names_are_utf8() -> None:
    names = ["Côte d'Ivoire", "Curaçao", "São Tomé and Príncipe", "Türkiye", "Åland, Islands"]
    document = to_csv(["Country Name"], [{"Country Name": name} for name in names])
    assert document == BOM + ("Country Name\r\n" + "\r\n".join(
        f'"{name}"' if "," in name else name for name in names) + "\r\n").encode("utf-8")
    assert [row[0] for row in read_back(document)[1:]] == names


def test_to_csv_null_and_absent_are_empty_booleans_are_true_false() -> None:
    document = to_csv(["a", "b", "c", "d"], [{"a": None, "b": True, "c": False}])
    assert document == BOM + b"a,b,c,d\r\n,true,false,\r\n"


def test_to_csv_text_with_a_comma_and_a_quote_keeps_its_quotes() -> None:
    """A value with both a separator and a quote is quoted with its quotes doubled."""
    document = to_csv(["note", "n"], [{"note": 'Say "hi", friend', "n": 1}])
    assert document == BOM + b'note,n\r\n"Say ""hi"", friend",1\r\n'
    assert read_back(document)[1] == ['Say "hi", friend', "1"]
    alone = to_csv(["note"], [{"note": '"a,b"'}, {"note": 'x"\r\n,y'}])
    assert alone == BOM + b'note\r\n"""a,b"""\r\n"x""\r\n,y"\r\n'


def test_to_csv_a_lone_empty_cell_is_not_a_blank_line() -> None:
    document = to_csv(["a"], [{"a": None}, {"a": ""}, {"a": "x, y"}])
    assert document == BOM + b'a\r\n""\r\n""\r\n"x, y"\r\n'
    assert read_back(document) == [["a"], [""], [""], ["x, y"]]


def test_to_csv_no_rows_still_has_the_header() -> None:
    assert to_csv(["Country Name", "Population, total"], []) == BOM + b'Country Name,"Population, total"\r\n'


@pytest.mark.parametrize(
    "number", [0, -3, 44030278, 26.53, 0.1 + 0.2, 1e-05, 0.0001, -0.0, 0.0, 1e16, 1.2345678901234568e16, 2**53 + 1]
)
def test_to_csv_numbers_are_byte_identical_to_the_json(number: float) -> None:
    json_text = orjson.dumps(number)
    assert to_csv(["n", "t"], [{"n": number, "t": "x"}]) == BOM + b"n,t\r\n" + json_text + b",x\r\n"


def test_to_csv_nested_values_are_their_json_text() -> None:
    document = to_csv(["a", "b"], [{"a": [1, "x,y"], "b": {"k": None}}])
    assert read_back(document)[1] == ['[1,"x,y"]', '{"k":null}']


def test_to_csv_text_with_nul_or_control_characters_survives() -> None:
    values = ["a\x00b", "tab\there", "bell\x07", "back\\slash, comma", "\u2028sep", "brackets [1] {2}"]
    document = to_csv(["v", "w"], [{"v": value, "w": 1} for value in values])
    assert [row[0] for row in read_back(document)[1:]] == values


separated_and_quoted = st.tuples(
    st.text(max_size=4), st.sampled_from([",", "\r", "\n", "\r\n"]), st.text(max_size=4),
    st.sampled_from(['"', '""']), st.text(max_size=4),
).flatmap(st.permutations).map("".join)
"""Text holding a separator (comma, CR or LF) and a quote together, in any order."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

formulas = st.tuples(st.sampled_from(FORMULA_STARTS), st.one_of(st.text(max_size=6), separated_and_quoted)).map(
    "".join
)
"""Text a spreadsheet would run as a formula, some with a separator and a quote too."""

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12), separated_and_quoted, formulas,
    st.integers(-(2**63), -1), st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False),
    st.sampled_from(["Korea, Rep.", 'say "hi"', "", ",", '"', "\r\n", "Côte d'Ivoire", "\x00",
                     'Say "hi", friend', '=HYPERLINK("x")', "-1.5", "@SUM(A1)", "+1", "\tx", "\r\n=1", "a=b"]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=5, unique=True).flatmap(
        lambda columns: st.tuples(
            st.just(columns),
            st.lists(st.fixed_dictionaries({}, optional=dict.fromkeys(columns, json_scalars)), max_size=6),
        )
    )
)
def test_to_csv_reads_back_as_the_cells_json_would_write(table: tuple[list[str], list[dict[str, Any]]]) -> None:
    """Quotes, separators and formulas together: the csv module reads back every cell, a text cell
    (header included) starting with a formula character with a ``'`` in front, numbers (negative
    ones too) exactly as JSON writes them."""
    columns, rows = table
    expected = [[_text(name) for name in columns]] + [[_text(row.get(name)) for name in columns] for row in rows]
    assert read_back(to_csv(columns, rows)) == expected


def _text(value: JsonValue) -> str:
    if isinstance(value, str):
        return "'" + value if value.startswith(FORMULA_STARTS) else value
    return "" if value is None else orjson.dumps(value).decode()


@pytest.mark.parametrize(
    ("text", "cell"),
    [('=HYPERLINK("x")', b'"\'=HYPERLINK(""x"")"'), ("-1.5", b"'-1.5"), ("@SUM(A1)", b"'@SUM(A1)"),
     ("+1", b"'+1"), ("\tx", b"'\tx"), ("\rx", b"\"'\rx\""), ("=1,2", b"\"'=1,2\""), ("a=b", b"a=b"),
     ("", b""), ("'=x", b"'=x")],
)
def test_to_csv_text_that_looks_like_a_formula_gets_a_quote_mark_in_front(text: str, cell: bytes) -> None:
    """OWASP's CSV injection advice, in both paths (a plain row and one the csv module writes)."""
    for other in ("x", 'say "hi"'):
        document = to_csv(["t", "o"], [{"t": text, "o": other}])
        line = document.split(b"\r\n")[1]
        assert line.startswith(cell + b","), (text, other, line)
        assert read_back(document)[1][0] == (text if cell in (b"a=b", b"", b"'=x") else "'" + text)


def test_to_csv_negative_numbers_are_numbers_not_formulas() -> None:
    """A JSON number is never escaped (a negative governance estimate stays -1.5); the same text is."""
    document = to_csv(["n", "t", "i"], [{"n": -1.5, "t": "-1.5", "i": -3}, {"n": -0.0, "t": "+1", "i": 0}])
    assert document == BOM + b"n,t,i\r\n-1.5,'-1.5,-3\r\n-0.0,'+1,0\r\n"
    assert read_back(document)[1:] == [["-1.5", "'-1.5", "-3"], ["-0.0", "'+1", "0"]]


# --- pandas over a real server, on the bundled sample -------------------------------------


ACCENTED = {"CIV": "Côte d'Ivoire", "CUW": "Curaçao", "STP": "São Tomé and Príncipe"}
"""The sample spells these names in ASCII, as the World Bank's API does; the server under test
serves them with their accents, as a publisher's data may."""


@pytest.fixture(scope="module")
def sample_server(sample_current: Snapshot) -> Iterator[str]:
    """The real app on a socket, over the sample's current snapshot with ACCENTED names."""
    countries = dict(sample_current.countries)
    for code, name in ACCENTED.items():
        country = countries[code]
        countries[code] = Country(code, {**country.record, "Country Name": name}, country.details)
    store = SnapshotStore(Settings().data_dir)
    store.current = replace(sample_current, countries=countries)
    with serving(make_app(Settings(), store)) as url:
        yield url


@pytest.mark.parametrize(
    "query", ["", "?sort=score&order=desc", "?region=SSA&fields=Country%20Name,score,Population,%20total",
              "?shortnames=true&income=LIC", "?codes=CIV,CUW,STP,KEN", "?year=2024&fcv=true&limit=7"],
)
def test_pandas_read_csv_equals_read_json_on_the_sample(sample_server: str, query: str) -> None:
    separator = "&" if query else "?"
    from_csv = pandas.read_csv(f"{sample_server}/api/v1/readiness{query}{separator}format=csv")
    envelope = orjson.loads(_get(f"{sample_server}/api/v1/readiness{query}"))
    rows = envelope["data"] if isinstance(envelope["data"], list) else [envelope["data"]]
    # precise_float: pandas' default JSON float parser is off by an ulp now and then (4.56 is
    # read as 4.5600000000000005); read_csv's default parser is exact.
    from_json = pandas.read_json(
        io.StringIO(orjson.dumps(rows).decode()), orient="records", dtype=False, precise_float=True
    )
    from_json = from_json.drop(columns=["indicator_details"], errors="ignore")
    # Each row also says its snapshot and the sample's notice, last (docs/API.md#csv).
    snapshot = envelope["snapshot"] if envelope["snapshot"] != "current" else "2026-11"
    assert list(from_csv.columns[-2:]) == ["snapshot_id", "notice"]
    assert set(from_csv.pop("snapshot_id")) == ({snapshot} if envelope["count"] else set())
    assert set(from_csv.pop("notice")) == ({envelope["notice"]} if envelope["count"] else set())
    assert list(from_csv.columns) == list(from_json.columns)
    assert len(from_csv) == len(from_json) == envelope["count"]
    for name in from_csv.columns:
        cells = from_csv[name].tolist()
        for got, want in zip(cells, from_json[name].tolist(), strict=True):
            assert _same(got, want), (name, got, want)
        for got, want in zip(cells, [row.get(name) for row in rows], strict=True):  # the answer's own values
            assert _same(got, want), (name, got, want)


def test_pandas_read_csv_keeps_accented_names_intact(sample_server: str) -> None:
    frame = pandas.read_csv(f"{sample_server}/api/v1/readiness?format=csv")
    names = set(frame["Country Name"])
    assert set(ACCENTED.values()) <= names
    # The BOM is not in the first name; the provenance columns come last.
    assert list(frame.columns) == [*(field.name for field in COUNTRY_FIELDS), "snapshot_id", "notice"]
    assert len(frame) == 217
    assert frame["Population, total"].dtype.kind == "i" or frame["Population, total"].isna().any()


def test_pandas_read_json_of_the_same_url_without_format(sample_server: str) -> None:
    frame = pandas.read_json(f"{sample_server}/api/v1/readiness?codes=CIV,CUW,STP", orient="columns", typ="series")
    assert frame["count"] == 3
    assert [row["Country Name"] for row in frame["data"]] == ["Côte d'Ivoire", "Curaçao", "São Tomé and Príncipe"]


def test_csv_bytes_are_utf8_with_a_bom_for_spreadsheets(sample_server: str) -> None:
    document = _get(f"{sample_server}/api/v1/readiness?codes=CIV,CUW&format=csv&fields=Country%20Name")
    notice = orjson.loads(_get(f"{sample_server}/api/v1/snapshots"))["notice"]
    assert document == BOM + (f"Country Name,snapshot_id,notice\r\nCôte d'Ivoire,2026-11,{notice}\r\n"
                              f"Curaçao,2026-11,{notice}\r\n").encode()


def _get(url: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (our own test server)
        return bytes(response.read())


def _same(got: Any, want: Any) -> bool:
    """A CSV cell as pandas reads it equals the JSON value: nulls are NaN, numbers equal."""
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got is None or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, bool):
        return bool(got) is want
    if isinstance(want, (int, float)):
        return float(got) == float(want)
    return bool(got == want)


def test_to_csv_provenance_ends_every_row_with_its_snapshot_and_notice() -> None:
    rows = [{"a": 1, "snapshot": "2025-12"}, {"a": 2, "snapshot": "2026-11"}, {"a": 3, "snapshot": "2025-12"}]
    over_two = Provenance(notices={"2025-12": "SYNTHETIC, not real"})
    assert read_back(to_csv(["a"], rows, over_two)) == [
        ["a", "snapshot_id", "notice"],
        ["1", "2025-12", "SYNTHETIC, not real"], ["2", "2026-11", ""], ["3", "2025-12", "SYNTHETIC, not real"],
    ]
    one = to_csv(["a"], rows[:1], Provenance.of("2026-11", None))
    assert one == BOM + b"a,snapshot_id\r\n1,2026-11\r\n"


@pytest.mark.parametrize("notice", ['say "synthetic"', "=1+1", "line\nbreak", "back\\slash"])
def test_to_csv_provenance_notice_is_written_as_any_text_cell(notice: str) -> None:
    """The notice goes through the same rules as every cell: quoted, escaped, defused."""
    document = to_csv(["a", "b"], [{"a": 1, "b": "x"}], Provenance.of("2026-11", notice))
    expected = notice if not notice.startswith("=") else "'" + notice
    assert read_back(document) == [["a", "b", "snapshot_id", "notice"], ["1", "x", "2026-11", expected]]
