"""Citing a snapshot: the domain's formats (readiness/domain/citation.py), parsed back as a
reference manager would read them, and ``/api/v1/citation`` and the catalogue's ``citation``
over HTTP (docs/API.md#get-apiv1citation-the-citation-as-a-file)."""

from __future__ import annotations

import io
import re
import time
import urllib.error
import urllib.request
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.web import Application

from builder import Release, build_snapshot
from config import Settings
from loaders import Snapshot, SnapshotStore
from readiness.app import make_app
from readiness.domain.citation import (
    Citation,
    CitationFormat,
    CitationRequest,
    Retrieval,
    access_date,
    bibtex_escaped,
    citation_file_path,
    rendered,
    request_base,
    to_bibtex,
    to_csl,
    to_ris,
    until_next_day,
)
from readiness.domain.errors import InvalidParameter, UnknownParameter
from readiness.http.logs import AccessLog
from tests.builder_world import STANDARD, world
from tests.conftest import assert_error_envelope, body, flip, gen_test
from tests.openapi_server import serving

REAL = Citation("2025-12", "2025-12-05", "Example Institute", "CC-BY-4.0", False)
SYNTHETIC = Citation("2026-11", "2026-11-05", "Readiness Index Data Service (synthetic sample)", None, True)
UNNAMED = Citation("2024-12", "2024-12-05", None, None, False)
"""An older manifest: no publisher, no licence."""
AWKWARD = Citation("2025-12", "2025-12-05", "R&D {Lab} 100% #1 a_b ^c ~d \\e $f", "CC-BY-4.0\nor later", False)
"""Every BibTeX special character, and a line break a RIS value must not carry."""
RETRIEVED = Retrieval("https://readiness.example.org", date(2026, 11, 28))
"""A download retrieved from the public address on 2026-11-28."""


# --- a small BibTeX reader, enough for one entry -----------------------------------------------


def braced(text: str, start: int) -> tuple[str, int]:
    """The content of the balanced braces opening at ``text[start]``, and the index after them;
    ``\\{`` and ``\\}`` are escaped characters, not braces."""
    assert text[start] == "{", text[start:]
    depth, index = 0, start
    while True:
        character = text[index]
        if character == "\\":
            index += 2
            continue
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:index], index + 1
        index += 1


def parse_bibtex(text: str) -> tuple[str, str, dict[str, str]]:
    """Entry type, key and fields (values without their outer braces) of one BibTeX entry."""
    head = re.match(r"@(\w+)\{", text)
    assert head is not None, text
    content, end = braced(text, head.end(0) - 1)
    assert text[end:] == "\n", repr(text[end:])
    key, _, rest = content.partition(",")
    fields: dict[str, str] = {}
    index = 0
    while rest[index:].strip():
        match = re.compile(r"\s*(\w+) = ").match(rest, index)
        assert match is not None, rest[index:]
        name, index = match.group(1), match.end(0)
        if rest[index] == "{":
            value, index = braced(rest, index)
        else:  # a macro, such as a month
            macro = re.compile(r"\w+").match(rest, index)
            assert macro is not None, rest[index:]
            value, index = macro.group(0), macro.end(0)
        assert name not in fields, name
        fields[name] = value
        index += rest[index:index + 1] == ","
    return head.group(1), key, fields


def unescaped(value: str) -> str:
    """A field value as LaTeX prints it, for the escapes ``bibtex_escaped`` writes."""
    for escape, character in (("\\textbackslash{}", "\\"), ("\\^{}", "^"), ("\\~{}", "~")):
        value = value.replace(escape, character)
    return re.sub(r"\\([{}&%$#_])", r"\1", value)


def parse_ris(text: str) -> list[tuple[str, str]]:
    """The (tag, value) lines of one RIS record; every line ``XX  - value`` ending in CRLF."""
    assert text.endswith("\r\n")
    lines = text[:-2].split("\r\n")
    parsed = []
    for line in lines:
        match = re.fullmatch(r"([A-Z][A-Z0-9])  - (.*)", line)
        assert match is not None, repr(line)
        parsed.append((match.group(1), match.group(2)))
    return parsed


# --- the citation ------------------------------------------------------------------------------


def test_citation_of_snapshot_takes_the_manifests_words() -> None:
    snapshot = Snapshot("2025-12", "2025-12-05", {}, publisher="Example Institute", license="CC-BY-4.0")
    assert Citation.of(snapshot) == REAL
    assert REAL.document() == {
        "publisher": "Example Institute", "title": "Readiness Index, snapshot 2025-12", "snapshot": "2025-12",
        "published": "2025-12-05", "url": "/api/v1/readiness?snapshot=2025-12", "license": "CC-BY-4.0",
        "text": "Example Institute (2025). Readiness Index, snapshot 2025-12 [Data set]. Published 2025-12-05. "
                "Licence: CC-BY-4.0. /api/v1/readiness?snapshot=2025-12.",
    }


def test_citation_text_of_synthetic_snapshot_says_not_to_cite_it() -> None:
    assert SYNTHETIC.text.endswith("Do not cite this snapshot: its data is synthetic, not the published index.")
    assert "No licence stated." in SYNTHETIC.text
    assert "Do not cite" not in REAL.text and "Do not cite" not in REAL.note


def test_citation_text_without_publisher_starts_with_the_title() -> None:
    assert UNNAMED.text == (
        "Readiness Index, snapshot 2024-12 [Data set]. Published 2024-12-05. No licence stated. "
        "/api/v1/readiness?snapshot=2024-12."
    )
    assert UNNAMED.document()["publisher"] is None and UNNAMED.document()["license"] is None


# --- BibTeX ------------------------------------------------------------------------------------


def test_bibtex_is_one_misc_entry_a_parser_reads() -> None:
    kind, key, fields = parse_bibtex(to_bibtex(REAL, RETRIEVED))
    assert (kind, key) == ("misc", "readiness_2025_12")
    assert fields == {
        "author": "{Example Institute}",  # doubly braced: a corporate author, never split into names
        "publisher": "Example Institute",
        "title": "{Readiness Index, snapshot 2025-12}",
        "year": "2025",
        "month": "dec",
        "date": "2025-12-05",
        "version": "2025-12",
        "howpublished": "Data set",
        "url": "https://readiness.example.org/api/v1/readiness?snapshot=2025-12",
        "urldate": "2026-11-28",
        "note": "Licence: CC-BY-4.0.",
    }


def test_bibtex_escapes_every_special_character() -> None:
    assert bibtex_escaped("a & b") == "a \\& b"
    assert bibtex_escaped("{x}") == "\\{x\\}"
    assert bibtex_escaped("\\") == "\\textbackslash{}"
    _, _, fields = parse_bibtex(to_bibtex(AWKWARD, RETRIEVED))
    assert unescaped(fields["publisher"]) == AWKWARD.publisher
    assert unescaped(fields["author"][1:-1]) == AWKWARD.publisher
    unbalanced = re.sub(r"\\[{}]", "", fields["publisher"])
    assert unbalanced.count("{") == unbalanced.count("}")  # only \textbackslash{}, \^{} and \~{} remain


SPECIAL = r"World_Bank & Co. 100% #1 $5 {a} ~b ^c \d"
"""A name with every BibTeX special character, each written exactly as ``SPECIAL_ESCAPED`` says."""
SPECIAL_ESCAPED = r"World\_Bank \& Co. 100\% \#1 \$5 \{a\} \~{}b \^{}c \textbackslash{}d"


def test_bibtex_entry_has_the_exact_escape_of_each_special_character() -> None:
    # Exact text, not a round trip: an unescaped "_" or "#" reads back as itself, but stops LaTeX.
    entry = to_bibtex(Citation("2025-12", "2025-12-05", SPECIAL, SPECIAL, False), RETRIEVED).splitlines()
    assert f"  author = {{{{{SPECIAL_ESCAPED}}}}}," in entry
    assert f"  publisher = {{{SPECIAL_ESCAPED}}}," in entry
    assert f"  note = {{Licence: {SPECIAL_ESCAPED}.}}" in entry


def test_bibtex_title_is_escaped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # The title is TITLE and a validated snapshot id, no special character today; a data set
    # renamed with one must still give a valid entry.
    monkeypatch.setattr("readiness.domain.citation.TITLE", SPECIAL)
    entry = to_bibtex(REAL, RETRIEVED).splitlines()
    assert f"  title = {{{{{SPECIAL_ESCAPED}, snapshot 2025-12}}}}," in entry


def test_bibtex_without_publisher_has_no_author_and_synthetic_note_says_not_to_cite() -> None:
    _, _, fields = parse_bibtex(to_bibtex(UNNAMED, RETRIEVED))
    assert "author" not in fields and "publisher" not in fields and fields["note"] == "No licence stated."
    _, _, synthetic = parse_bibtex(to_bibtex(SYNTHETIC, RETRIEVED))
    assert "Do not cite this snapshot" in synthetic["note"] and synthetic["month"] == "nov"


# --- RIS ---------------------------------------------------------------------------------------


def test_ris_is_one_data_record_line_by_line() -> None:
    assert parse_ris(to_ris(REAL, RETRIEVED)) == [
        ("TY", "DATA"), ("AU", "Example Institute"), ("TI", "Readiness Index, snapshot 2025-12"), ("PY", "2025"),
        ("DA", "2025/12/05"), ("PB", "Example Institute"), ("ET", "2025-12"),
        ("UR", "https://readiness.example.org/api/v1/readiness?snapshot=2025-12"), ("Y2", "2026/11/28"),
        ("N1", "Licence: CC-BY-4.0."), ("ER", ""),
    ]


def test_ris_values_stay_on_one_line_and_unnamed_has_no_author() -> None:
    lines = dict(parse_ris(to_ris(AWKWARD, RETRIEVED)))
    assert lines["N1"] == "Licence: CC-BY-4.0 or later."
    tags = [tag for tag, _ in parse_ris(to_ris(UNNAMED, RETRIEVED))]
    assert tags[0] == "TY" and tags[-1] == "ER" and "AU" not in tags and "PB" not in tags


# --- CSL-JSON ----------------------------------------------------------------------------------


def test_csl_is_an_array_of_one_dataset_item() -> None:
    items = orjson.loads(to_csl(REAL, RETRIEVED))
    assert isinstance(items, list) and len(items) == 1
    item = items[0]
    assert {"id", "type", "title", "issued", "URL"} <= set(item)
    assert item["type"] == "dataset" and item["id"] == "readiness_2025_12"
    assert item["title"] == "Readiness Index, snapshot 2025-12"
    assert item["author"] == [{"literal": "Example Institute"}] and item["publisher"] == "Example Institute"
    assert item["issued"] == {"date-parts": [[2025, 12, 5]]}
    assert item["license"] == "CC-BY-4.0" and item["version"] == "2025-12"
    assert item["URL"] == "https://readiness.example.org/api/v1/readiness?snapshot=2025-12"
    assert item["accessed"] == {"date-parts": [[2026, 11, 28]]}


def test_csl_without_publisher_or_licence_leaves_them_out() -> None:
    item = orjson.loads(to_csl(UNNAMED, RETRIEVED))[0]
    assert "author" not in item and "publisher" not in item and "license" not in item


@pytest.mark.parametrize("chosen", list(CitationFormat))
def test_rendered_is_utf8_of_the_format(chosen: CitationFormat) -> None:
    citation = Citation("2025-12", "2025-12-05", "Côte d'Ivoire Institute", None, False)
    assert "Côte d'Ivoire Institute" in rendered(citation, chosen, RETRIEVED).decode("utf-8")


def test_retrieved_text_is_the_catalogues_with_the_absolute_url_and_the_access_date() -> None:
    assert REAL.retrieved_text(RETRIEVED) == (
        "Example Institute (2025). Readiness Index, snapshot 2025-12 [Data set]. Published 2025-12-05. "
        "Licence: CC-BY-4.0. https://readiness.example.org/api/v1/readiness?snapshot=2025-12. Accessed 2026-11-28."
    )
    assert SYNTHETIC.retrieved_text(RETRIEVED).endswith("Accessed 2026-11-28. Do not cite this snapshot: its data "
                                                        "is synthetic, not the published index.")
    relative = Retrieval("", date(2026, 11, 28))  # an unusable Host: the URL stays relative, as before
    assert to_ris(REAL, relative).count("UR  - /api/v1/readiness?snapshot=2025-12\r\n") == 1


@pytest.mark.parametrize(("scheme", "host", "base"), [
    ("https", "Readiness.Example.org", "https://readiness.example.org"),
    ("http", "127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("https", "[2001:db8::1]:8443", "https://[2001:db8::1]:8443"),
    ("https", "evil.org/x?", ""),
    ("https", "a{b}", ""),
    ("https", "a b", ""),
    ("https", "bücher.example", ""),
    ("https", "-bad.example", ""),
    ("https", "", ""),
    ("gopher", "readiness.example.org", ""),
])
def test_request_base_takes_a_plain_host_only(scheme: str, host: str, base: str) -> None:
    assert request_base(scheme, host) == base


@pytest.mark.parametrize(("now", "day", "left"), [
    (datetime(2026, 11, 28, 0, 0, tzinfo=UTC).timestamp(), date(2026, 11, 28), 86400),
    (datetime(2026, 11, 28, 23, 59, 59, tzinfo=UTC).timestamp(), date(2026, 11, 28), 1),
    (datetime(2026, 11, 28, 23, 59, 59, 900000, tzinfo=UTC).timestamp(), date(2026, 11, 28), 1),
    (datetime(2026, 12, 31, 12, 0, tzinfo=UTC).timestamp(), date(2026, 12, 31), 43200),
])
def test_access_date_is_the_utc_day_and_kept_until_its_midnight(now: float, day: date, left: int) -> None:
    assert access_date(now) == day and until_next_day(now) == left
    assert access_date(now + until_next_day(now)) == day.fromordinal(day.toordinal() + 1)


# --- the request -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", CitationRequest(CitationFormat.BIBTEX, None)),
        ("format=RIS", CitationRequest(CitationFormat.RIS, None)),
        ("format=%20csl%20&snapshot=2024-06", CitationRequest(CitationFormat.CSL, "2024-06")),
        ("format=&snapshot=", CitationRequest(CitationFormat.BIBTEX, None)),
        ("format=ris&format=bibtex&_=123", CitationRequest(CitationFormat.BIBTEX, None)),
    ],
)
def test_request_parse_defaults_any_case_last_value_and_cache_busters(raw: str, expected: CitationRequest) -> None:
    assert CitationRequest.parse(raw) == expected


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [("", ""), ("format=BibTeX&_=1", ""), ("format=RIS", "format=ris"),
     ("snapshot=2024-06&format=csl", "format=csl&snapshot=2024-06"), ("snapshot=2024-06", "snapshot=2024-06")],
)
def test_request_canonical_leaves_the_default_out_and_parses_back(raw: str, canonical: str) -> None:
    # What the edge keys a citation by (k8s/base/edge-keys.js): one query string per file.
    request = CitationRequest.parse(raw)
    assert request.canonical() == canonical and CitationRequest.parse(canonical) == request


@pytest.mark.parametrize(("raw", "name"), [("format=endnote", "format"), ("snapshot=2026-13", "snapshot"),
                                           ("snapshot=latest", "snapshot")])
def test_request_parse_bad_value_names_the_parameter(raw: str, name: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        CitationRequest.parse(raw)
    assert raised.value.name == name
    if name == "format":
        assert "use bibtex, ris, csl, text" in str(raised.value)


def test_request_parse_unknown_name_suggests_the_nearest() -> None:
    with pytest.raises(UnknownParameter, match="Did you mean 'format'"):
        CitationRequest.parse("fromat=ris")


# --- over HTTP ---------------------------------------------------------------------------------


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Tiny snapshots: 2024-12 from an older builder (no publisher, no licence), 2025-12 and
    the current 2026-11 naming their publisher and licence, as a real release would."""
    root = tmp_path / "data"
    for release in (Release.parse("2024-12"),
                    Release.parse("2025-12", "2025-12-05", publisher="Example Institute", license="CC-BY-4.0"),
                    Release.parse("2026-11", "2026-11-05", publisher="Example Institute", license="CC-BY-4.0")):
        build_snapshot(world(STANDARD, year=release.year), release, root / "snapshots")
    flip(root, "2026-11")
    return root


@pytest.fixture
def app(data: Path) -> Application:
    store = SnapshotStore(data)
    store.load_current()
    return make_app(Settings(), store, access=AccessLog(io.BytesIO()))


@pytest.fixture
def get(http_client: AsyncHTTPClient, base_url: str) -> Any:
    async def get(path: str, **kwargs: Any) -> HTTPResponse:
        return await http_client.fetch(base_url + path, raise_error=False, **kwargs)

    return get


@gen_test
async def test_citation_route_default_is_the_current_snapshots_bibtex(get: Any) -> None:
    response = await get("/api/v1/citation")
    assert response.code == 200, response.body
    assert response.headers["Content-Type"] == "application/x-bibtex; charset=utf-8"
    assert response.headers["Content-Disposition"] == 'attachment; filename="readiness-2026-11.bib"'
    assert response.headers["X-Readiness-Snapshot"] == "2026-11"
    assert response.headers["Last-Modified"] == "Thu, 05 Nov 2026 00:00:00 GMT"
    assert response.headers["Cache-Control"].startswith("public, max-age=300")
    kind, key, fields = parse_bibtex(response.body.decode())
    assert (kind, key, fields["author"], fields["note"]) == ("misc", "readiness_2026_11", "{Example Institute}",
                                                            "Licence: CC-BY-4.0.")


@gen_test
@pytest.mark.parametrize(("name", "media", "extension"), [
    ("ris", "application/x-research-info-systems; charset=utf-8", "ris"),
    ("CSL", "application/vnd.citationstyles.csl+json", "json"),
    ("Text", "text/plain; charset=utf-8", "txt"),
])
async def test_citation_route_each_format_with_its_type_and_file(get: Any, name: str, media: str,
                                                                 extension: str) -> None:
    response = await get(f"/api/v1/citation?format={name}&snapshot=2025-12")
    assert response.code == 200, response.body
    assert response.headers["Content-Type"] == media
    assert response.headers["Content-Disposition"] == f'attachment; filename="readiness-2025-12.{extension}"'
    # A pinned snapshot: the archive policy, kept no later than the next midnight UTC (the access date).
    assert re.fullmatch(r"public, max-age=[0-9]+, stale-while-revalidate=30, stale-if-error=86400",
                        response.headers["Cache-Control"])
    if extension == "ris":
        assert ("PY", "2025") in parse_ris(response.body.decode())
    elif extension == "txt":  # the catalogue's text of that snapshot, as the pages show it
        text = response.body.decode()
        assert text.endswith(".\n") and text.count("\n") == 1
        assert "Readiness Index, snapshot 2025-12 [Data set]. Published 2025-12-05." in text
    else:
        assert orjson.loads(response.body)[0]["issued"] == {"date-parts": [[2025, 12, 5]]}


@gen_test
async def test_citation_route_older_manifest_without_publisher(get: Any) -> None:
    response = await get("/api/v1/citation?format=ris&snapshot=2024-12")
    assert response.code == 200, response.body
    lines = parse_ris(response.body.decode())
    assert ("N1", "No licence stated.") in lines and "AU" not in dict(lines)


@gen_test
async def test_citation_route_bad_format_is_400_naming_format_and_the_accepted_values(get: Any) -> None:
    assert_error_envelope(await get("/api/v1/citation?format=endnote"), 400,
                          "format='endnote' is not valid; use bibtex, ris, csl, text.")
    assert_error_envelope(await get("/api/v1/citation?fromat=ris"), 400, "Did you mean 'format'?",
                          "Accepted parameters: format, snapshot.")


@gen_test
async def test_citation_route_snapshot_malformed_400_not_listed_404(get: Any) -> None:
    assert_error_envelope(await get("/api/v1/citation?snapshot=2026-13"), 400, "snapshot='2026-13'")
    assert_error_envelope(await get("/api/v1/citation?snapshot=2021-12"), 404, "No snapshot '2021-12'")


@gen_test
async def test_citation_route_304_and_head_carry_no_body(get: Any) -> None:
    first = await get("/api/v1/citation?format=ris")
    again = await get("/api/v1/citation?format=ris", headers={"If-None-Match": first.headers["Etag"]})
    assert again.code == 304 and again.body == b""
    assert "Content-Disposition" not in again.headers and "Content-Type" not in again.headers
    head = await get("/api/v1/citation?format=ris", method="HEAD")
    assert head.code == 200 and head.body == b""
    assert head.headers["Content-Disposition"] == first.headers["Content-Disposition"]
    assert head.headers["Content-Length"] == str(len(first.body))


@gen_test
async def test_catalogue_citation_object_is_the_downloads_words(get: Any, base_url: str) -> None:
    cited = body(await get("/api/v1/snapshots"))["citation"]
    assert cited == {
        "publisher": "Example Institute", "title": "Readiness Index, snapshot 2026-11", "snapshot": "2026-11",
        "published": "2026-11-05", "url": "/api/v1/readiness?snapshot=2026-11", "license": "CC-BY-4.0",
        "text": "Example Institute (2026). Readiness Index, snapshot 2026-11 [Data set]. Published 2026-11-05. "
                "Licence: CC-BY-4.0. /api/v1/readiness?snapshot=2026-11.",
    }
    csl = orjson.loads((await get("/api/v1/citation?format=csl")).body)[0]
    assert (csl["title"], csl["license"]) == (cited["title"], cited["license"])
    assert csl["URL"] == base_url + str(cited["url"])  # absolute, from the request's own host
    # The citation's URL answers with the snapshot it names.
    data = await get(str(cited["url"]))
    assert data.code == 200 and data.headers["X-Readiness-Snapshot"] == "2026-11"


def _today_window() -> tuple[date, float]:
    """Today's UTC date and the time, read before a request (a request across midnight may see either day)."""
    now = time.time()
    return access_date(now), now


@gen_test
async def test_citation_downloads_resolve_from_the_requests_own_host_with_todays_access_date(
    get: Any, base_url: str
) -> None:
    before, started = _today_window()
    bibtex = await get("/api/v1/citation?snapshot=2025-12")
    ris = await get("/api/v1/citation?format=ris&snapshot=2025-12")
    csl = await get("/api/v1/citation?format=csl&snapshot=2025-12")
    text = await get("/api/v1/citation?format=text&snapshot=2025-12")
    after = access_date(time.time())
    days = {before.isoformat(), after.isoformat()}
    url = f"{base_url}/api/v1/readiness?snapshot=2025-12"
    _, _, fields = parse_bibtex(bibtex.body.decode())
    assert fields["url"] == url and fields["urldate"] in days
    lines = dict(parse_ris(ris.body.decode()))
    assert lines["UR"] == url and lines["Y2"].replace("/", "-") in days
    item = orjson.loads(csl.body)[0]
    assert item["URL"] == url and "-".join(f"{part:02d}" for part in item["accessed"]["date-parts"][0]) in days
    assert f" {url}. Accessed " in text.body.decode()
    # The URL resolves: the data it names.
    resolved = await get(url[len(base_url):])
    assert resolved.code == 200 and resolved.headers["X-Readiness-Snapshot"] == "2025-12"
    # Kept no later than the next midnight UTC, when the access date changes.
    max_age = int(re.search(r"max-age=([0-9]+)", bibtex.headers["Cache-Control"])[1])  # type: ignore[index]
    assert 0 < max_age <= min(86400, until_next_day(started))


@gen_test
async def test_citation_host_header_is_used_only_when_it_is_a_plain_host(get: Any, base_url: str) -> None:
    other = orjson.loads((await get("/api/v1/citation?format=csl", headers={"Host": "Mirror.Example:8443"})).body)
    assert other[0]["URL"] == "http://mirror.example:8443/api/v1/readiness?snapshot=2026-11"
    odd = await get("/api/v1/citation?format=ris", headers={"Host": "odd_host~(x)&y=1"})  # RFC 3986, not a name
    assert odd.code == 200, (odd.code, odd.body)
    assert dict(parse_ris(odd.body.decode()))["UR"] == "/api/v1/readiness?snapshot=2026-11"  # relative, as before
    # No tier keeps a citation: the next request's own host, not the one asked before.
    plain = orjson.loads((await get("/api/v1/citation?format=csl")).body)
    assert plain[0]["URL"].startswith(base_url + "/")


def test_citation_public_url_wins_over_any_host(data: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    app = make_app(Settings(public_url="https://readiness.example.org"), store,
                   access=AccessLog(io.BytesIO()))
    with serving(app) as url:
        request = urllib.request.Request(url + "/api/v1/citation?format=csl", headers={"Host": "evil.example"})
        with urllib.request.urlopen(request, timeout=10) as response:
            item = orjson.loads(response.read())[0]
    assert item["URL"] == "https://readiness.example.org/api/v1/readiness?snapshot=2026-11"


def test_citation_route_without_snapshot_loaded_is_503(tmp_path: Path) -> None:
    with serving(make_app(Settings(), SnapshotStore(tmp_path / "empty"))) as url:
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(url + "/api/v1/citation", timeout=10)
    with raised.value as error:
        assert error.code == 503 and b"snapshot" in error.read()


def test_citation_at_midnight_utc_gets_the_new_access_date_and_etag(data: Path) -> None:
    """A controlled clock: a second before midnight UTC the download is kept 1 s; after it, its
    bytes, ETag and urldate are the new day's, and the old ETag no longer revalidates."""
    store = SnapshotStore(data)
    store.load_current()
    now = [datetime(2026, 11, 28, 23, 59, 59, tzinfo=UTC).timestamp()]
    app = make_app(Settings(public_url="https://readiness.example.org"), store,
                   access=AccessLog(io.BytesIO()), clock=lambda: now[0])

    def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, dict(error.headers), error.read()

    with serving(app) as url:
        status, headers, late = fetch(url + "/api/v1/citation?snapshot=2025-12")
        assert status == 200 and parse_bibtex(late.decode())[2]["urldate"] == "2026-11-28"
        assert headers["Cache-Control"].startswith("public, max-age=1, ")
        now[0] += 2
        status, renewed, early = fetch(url + "/api/v1/citation?snapshot=2025-12", **{"If-None-Match": headers["Etag"]})
        assert status == 200 and parse_bibtex(early.decode())[2]["urldate"] == "2026-11-29"
        assert renewed["Etag"] != headers["Etag"] and renewed["Cache-Control"].startswith("public, max-age=86399, ")
        status, _, _ = fetch(url + "/api/v1/citation?snapshot=2025-12", **{"If-None-Match": renewed["Etag"]})
        assert status == 304


@pytest.mark.parametrize("chosen", list(CitationFormat))
def test_citation_download_path_is_the_citations_bytes_absolute_dated_and_kept_until_midnight(
    data: Path, chosen: CitationFormat
) -> None:
    """``/api/v1/citation.bib`` (and each format's path) is ``/api/v1/citation?format=`` as a file:
    the same absolute URL and access date, the same ETag, no tier keeping it for another host,
    kept until midnight UTC at most."""
    store = SnapshotStore(data)
    store.load_current()
    now = [datetime(2026, 11, 28, 23, 59, 59, tzinfo=UTC).timestamp()]
    app = make_app(Settings(), store, access=AccessLog(io.BytesIO()), clock=lambda: now[0])

    def fetch(url: str, host: str) -> tuple[dict[str, str], bytes]:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Host": host}), timeout=10) as response:
            return dict(response.headers), response.read()

    with serving(app) as url:
        headers, download = fetch(f"{url}{citation_file_path(chosen)}?snapshot=2025-12", "one.example")
        plain_headers, plain = fetch(f"{url}/api/v1/citation?format={chosen.value}&snapshot=2025-12", "one.example")
        _, other = fetch(f"{url}{citation_file_path(chosen)}?snapshot=2025-12", "two.example")
    assert download == plain and headers["Etag"] == plain_headers["Etag"]
    assert headers["Content-Type"] == "application/octet-stream"
    assert headers["Content-Disposition"] == plain_headers["Content-Disposition"]
    assert "http://one.example/api/v1/readiness?snapshot=2025-12" in download.decode()
    accessed = {CitationFormat.BIBTEX: "urldate = {2026-11-28}", CitationFormat.RIS: "Y2  - 2026/11/28",
                CitationFormat.CSL: '"accessed":{"date-parts":[[2026,11,28]]}',
                CitationFormat.TEXT: "Accessed 2026-11-28"}
    assert "".join(accessed[chosen].split()) in "".join(download.decode().split())  # whitespace aside
    assert "http://two.example/api/v1/readiness?snapshot=2025-12" in other.decode()  # no tier kept the first
    assert headers["Cache-Control"].startswith("public, max-age=1, ")
