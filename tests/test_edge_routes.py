"""The edge's route knowledge generated from the route table and the parser
(readiness/edge_routes.py, readiness/edge_vocabulary.py, readiness/edge_fast_path.py,
``make edge-routes``): the committed files are what they give, a route or a spelling added to
the domain reaches both files without another edit, and the generator's assumptions about the
parser hold. What the generated lines do in nginx is tests/test_edge_keys.py's (the map against
njs, njs against the running API's canonical query)."""

from __future__ import annotations

import dataclasses
import io
import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tornado.httputil import HTTPServerRequest, RequestStartLine

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app
from readiness.domain import routes
from readiness.domain.compute import compute_aggregates, history_cost
from readiness.domain.errors import InvalidParameter
from readiness.domain.parameters import FORMAT, LIMIT, OFFSET, REGION, SNAPSHOT_ANY, Grammar, Parameter
from readiness.domain.route import FromSummaries, Route
from readiness.domain.vocabulary import folded
from readiness.edge_fast_path import CHOOSERS
from readiness.edge_routes import (
    KEYS_JS,
    TEMPLATE,
    MarkersMissing,
    generated,
    lanes_block,
    main,
    map_block,
    with_block,
)
from readiness.edge_script import js_block, names_of
from readiness.edge_vocabulary import (
    READ_BY_CODE,
    Keyed,
    canonical_pairs,
    choices,
    kept_pattern,
    keyed,
    needs_codes,
    shared,
)
from readiness.http.handlers import CitationHandler, DocumentHandler, DownloadHandler, QueryMeaningHandler
from readiness.http.logs import AccessLog


def _scale(value: str) -> str:
    return folded(value)


MOVERS = Route(
    "movers", "/api/v1/movers",
    Grammar((REGION, Parameter("from", "A snapshot id.", pattern=SNAPSHOT_ANY, read=str), LIMIT, OFFSET, FORMAT,
             Parameter("scale", "A scale.", choices=("linear", "log"), default="linear", read=_scale))),
    FromSummaries(compute_aggregates, history_cost),
    operation="Movers", summary="-", description="-", schema="Aggregates", explained="movers",
)
"""A route no table has, to see it reach the edge's files."""
KEYED = {route.name: route for route in keyed()}


def test_committed_files_are_what_the_route_table_gives() -> None:
    for path, text in generated().items():
        assert path.read_text() == text, f"{path.name} differs from the route table: run make edge-routes"
    assert main(["--check"]) == 0


def test_check_names_a_stale_file_and_writing_mends_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    js, template = tmp_path / KEYS_JS.name, tmp_path / TEMPLATE.name
    js.write_text(KEYS_JS.read_text().replace("case '/api/v1/history':", "case '/api/v1/histories':"))
    template.write_text(TEMPLATE.read_text())
    monkeypatch.setattr("readiness.edge_routes.KEYS_JS", js)
    monkeypatch.setattr("readiness.edge_routes.TEMPLATE", template)
    assert main(["--check"]) == 1
    assert f"{js}: differs from the route table" in capsys.readouterr().err
    assert main([]) == 0
    assert main(["--check"]) == 0 and js.read_text() == KEYS_JS.read_text()


def test_names_of_a_route_are_in_its_canonical_order_one_space_around_each() -> None:
    # Query.canonical()'s order, a route's own parameters after it, those never written last.
    assert names_of(KEYED["aggregates"]) == (
        " region income fcv year years mrv snapshot limit offset by format per_page page date time ")
    assert names_of(KEYED["v1"]).endswith(" weights format code level country per_page page ")
    assert names_of(KEYED["rankings-changes"]).endswith(" format from to measure code country per_page page ")
    assert names_of(KEYED["citation"]) == " format snapshot "
    assert names_of(KEYED["snapshots"]) == names_of(KEYED["document"]) == " "


def test_a_new_route_reaches_routeof_namesof_the_vocabulary_and_the_fast_path_map() -> None:
    js = "\n".join(js_block((*routes.ROUTES, MOVERS)))
    assert "    case '/api/v1/movers':\n    case '/api/v1/query/movers':\n        return 'movers';" in js
    assert "    case 'movers':\n        return ' region limit offset format from scale ';" in js
    assert "    case 'scale':\n        switch (key) {\n        case 'linear':\n            return '';" in js
    table = "\n".join(map_block((*routes.ROUTES, MOVERS)))
    entry = table[table.index('"~(?x) ^/api/v1/movers'):]
    entry = entry[: entry.index("$request_uri;")]
    names = re.findall(r"\(\?:([a-z]+)=", entry)
    assert names == ["region", "limit", "offset", "format", "from", "scale"]  # the canonical order
    assert "(?:scale=(?: log )(?:&|\\z))?" in entry  # the default is never canonical
    # And its lane: any order, any case, the default dropped.
    assert "^/api/v1/movers /? " in table and table.count(" $edge_lane_movers;") == 1
    lanes = "\n".join(lanes_block((*routes.ROUTES, MOVERS)))
    assert 'map "$edge_a_scale" $edge_p_scale {\n    default "!";\n    "" "";\n    "linear" "";\n' in lanes
    assert ' $edge_lane_movers {\n' in lanes


def test_lenient_and_templated_routes_never_take_the_fast_path() -> None:
    table = "\n".join(map_block())
    assert f"^{routes.LEGACY.path} " not in table and "/api/v1/snapshots/" not in table
    assert all(f"^{route.path} " in table for route in routes.ROUTES
               if route.grammar.strict and not route.templated and route.grammar.names)


def test_strict_and_lists_come_from_the_grammars() -> None:
    js = "\n".join(js_block())
    assert "    return route !== 'legacy';" in js
    # history's `snapshot` is a list; v1's, the indicators' and the aggregates' one id
    assert ("    return name === 'codes' || name === 'fields' || name === 'indicators' || (route === 'history' && "
            "name === 'snapshot') || (route === 'history.csv' && name === 'snapshot');") in js
    every_strict = [dataclasses.replace(route, grammar=dataclasses.replace(route.grammar, strict=True))
                    for route in routes.ROUTES]
    assert "    return true;" in "\n".join(js_block(every_strict))


def test_aliases_and_what_they_stand_for_come_from_the_grammars() -> None:
    js = "\n".join(js_block())
    assert ("    case 'indicators':\n    case 'history':\n    case 'indicators.csv':\n    case 'history.csv':\n"
            "        return ' country per_page page date time ';") in js
    assert ("    case 'v1':\n    case 'rankings-changes':\n    case 'v1.csv':\n    case 'rankings-changes.csv':\n"
            "        return ' country per_page page ';") in js
    assert "    case 'time':\n        return ' years mrv ';" in js
    assert "    case 'country':\n        return ' codes code ';" in js
    assert "var DEFAULT_PER_PAGE = 50;" in js


def test_code_alone_is_rewritten_to_codes_by_the_map() -> None:
    table = "\n".join(map_block())
    v1 = table[table.index("^/api/v1/readiness"):table.index("^/api/v1/indicators")]
    assert "(?<edge_country>codes=(?&edge_codes)(?:&|\\z))?" in v1 and "(?:code=" not in v1
    assert "^/api/v1/readiness \\?code= (?<edge_args>" in v1 and '" /api/v1/readiness?codes=$edge_args;' in v1


def test_a_templated_path_is_matched_by_its_fixed_start_and_end() -> None:
    js = "\n".join(js_block())
    assert "path.substring(0, 18) === '/api/v1/snapshots/'" in js
    assert "path.substring(path.length - 8) === '/changes'" in js


@pytest.mark.parametrize(
    "text", ["no markers", "// END ROUTES\n// BEGIN ROUTES", "// BEGIN ROUTES\n// BEGIN ROUTES\n// END ROUTES"]
)
def test_markers_missing_or_doubled_are_refused(text: str) -> None:
    with pytest.raises(MarkersMissing):
        with_block(text, ["x"], "//")


def test_with_block_keeps_what_is_around_the_markers() -> None:
    text = "before\n  # BEGIN ROUTES: here\nold\n  # END ROUTES\nafter"
    expected = "before\n  # BEGIN ROUTES: here\nnew\nlines\n  # END ROUTES\nafter"
    assert with_block(text, ["new", "lines"], "#") == expected


def test_every_path_the_edge_keys_is_the_apps_route_it_is_keyed_as() -> None:
    # The edge keys a path by the grammar of the handler the application routes it to.
    app = make_app(Settings(), SnapshotStore(Settings().data_dir), access=AccessLog(io.BytesIO()))
    expected = {"citation": CitationHandler, "document": DocumentHandler}
    for route in keyed():
        for path in route.paths:
            found = app.wildcard_router.find_handler(
                HTTPServerRequest(start_line=RequestStartLine("GET", path.replace("{id}", "2026-11"), "HTTP/1.0")))
            handler = getattr(found, "handler_class", None)
            if path.startswith("/api/v1/query/"):
                assert handler is QueryMeaningHandler, path
            elif route.name in expected:
                assert handler is expected[route.name], path
            elif handler is DownloadHandler:  # a download path: the route's answer as a file
                assert found.handler_kwargs["download"].name == route.name, path
            else:
                delegate = getattr(found, "fallback", found)  # a data route's GET: the hit lane first
                assert delegate.handler_kwargs["route"].name == route.name, path


def test_every_name_is_read_by_code_a_closed_set_or_a_value_kept_as_it_is() -> None:
    for route in keyed():
        for parameter in route.grammar.parameters:
            if parameter.name not in READ_BY_CODE and not parameter.choices:
                assert kept_pattern(route, parameter.name)


@settings(max_examples=50)
@given(st.data())
def test_a_value_kept_as_it_is_is_what_the_parser_writes(data: st.DataObject) -> None:
    # edge-keys.js writes a value of a name neither read by code nor a closed set as it came,
    # once it matches the declared pattern: the parser must read every such value to itself.
    kept = [(route, parameter) for route in keyed() for parameter in route.grammar.parameters
            if parameter.name not in READ_BY_CODE and not parameter.choices]
    route, parameter = data.draw(st.sampled_from(kept))
    value = data.draw(st.from_regex(kept_pattern(route, parameter.name), fullmatch=True).filter(bool))
    assert route.canonical(f"{parameter.name}={value}") == f"{parameter.name}={value}"


def test_the_closed_sets_are_read_off_the_parser() -> None:
    v1, citation = KEYED["v1"], KEYED["citation"]
    assert choices(v1, "region")["sa"] == choices(v1, "region")["lac"] == "Latin%20America%20%26%20Caribbean"
    assert choices(v1, "fcv") == {"true": "true", "false": "false", "1": "true", "0": "false"}
    assert choices(v1, "shortnames")["0"] == choices(v1, "format")["json"] == choices(v1, "level")["global"] == ""
    assert choices(citation, "format") == {"bibtex": "", "ris": "ris", "csl": "csl", "text": "text"}
    assert needs_codes(v1, "level") == {"country"} and not needs_codes(v1, "region")


def _shade_route(name: str, spellings: tuple[str, ...], blue: str) -> Keyed:
    """A route whose parser reads ``shade`` red or blue (as ``blue``), declaring ``spellings``."""

    def canonical(raw: str) -> str:
        value = raw.partition("shade=")[2]
        if value not in ("", "red", "blue"):
            raise InvalidParameter("shade", value, "red or blue")
        return value and f"shade={blue if value == 'blue' else value}"

    return Keyed(name, (f"/{name}",), Grammar((Parameter("shade", "-", choices=spellings),)), ("shade",), canonical)


def test_one_table_for_several_routes_is_refused_where_they_read_a_spelling_apart() -> None:
    def table(route: Keyed) -> dict[str, str]:
        return choices(route, "shade")

    both = ("red", "blue")
    assert shared([_shade_route("a", both, "blue"), _shade_route("b", both, "blue")], "shade", table)["blue"] == "blue"
    with pytest.raises(ValueError, match="'blue' is both"):
        shared([_shade_route("a", both, "blue"), _shade_route("b", both, "navy")], "shade", table)
    # b takes blue without declaring it: its table cannot be trusted to be every spelling.
    with pytest.raises(ValueError, match="b takes shade='blue'"):
        shared([_shade_route("a", both, "blue"), _shade_route("b", ("red",), "navy")], "shade", table)


def test_a_map_entry_longer_than_nginx_reads_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # nginx reads one configuration token into 4,096 bytes: a longer entry would not load.
    monkeypatch.setattr("readiness.edge_fast_path.MAX_TOKEN", 1000)
    with pytest.raises(ValueError, match="more than nginx reads"):
        map_block()


def test_the_snapshot_choosers_are_the_parsers() -> None:
    # The fast path takes one of CHOOSERS at most, and edge-keys.js keeps the one the parser keeps:
    # given two, the parser writes one.
    samples = {"year": "2024", "years": "2023:2025", "snapshot": "2024-06"}
    route = KEYED["indicators"]
    assert set(CHOOSERS) <= set(route.grammar.names)
    for first, second in itertools.combinations(CHOOSERS, 2):
        written = canonical_pairs(route, {first: samples[first], second: samples[second]})
        assert len({first, second} & written.keys()) == 1, (first, second)
