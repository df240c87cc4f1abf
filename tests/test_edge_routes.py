"""The edge's route knowledge generated from the route table (readiness/edge_routes.py,
``make edge-routes``): the committed files are what the table gives, and a route added to a
table reaches both files without another edit. What the generated lines do in nginx is
tests/test_edge_keys.py's (the map against njs, njs against the API's parser)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from readiness.domain import routes
from readiness.domain.compute import compute_aggregates, history_cost
from readiness.domain.parameters import FORMAT, LIMIT, OFFSET, REGION, Grammar, Parameter
from readiness.domain.route import FromSummaries, Route
from readiness.edge_routes import (
    KEYS_JS,
    TEMPLATE,
    MarkersMissing,
    generated,
    js_block,
    main,
    map_block,
    names_of,
    with_block,
)

MOVERS = Route(
    "movers", "/api/v1/movers",
    Grammar((REGION, Parameter("from", "A snapshot id.", read=str), LIMIT, OFFSET, FORMAT)),
    FromSummaries(compute_aggregates, history_cost),
    operation="Movers", summary="-", description="-", schema="Aggregates",
)
"""A route no table has, to see it reach the edge's files."""


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


def test_names_of_a_route_are_its_grammars_sorted_one_space_around_each() -> None:
    assert names_of(routes.AGGREGATES) == " by fcv format income limit offset region snapshot year years "
    assert names_of(routes.SNAPSHOTS) == " "


def test_a_new_route_reaches_namesof_and_the_fast_path_map() -> None:
    js = "\n".join(js_block((*routes.ROUTES, MOVERS)))
    assert "    case '/api/v1/movers':\n        return ' format from limit offset region ';" in js
    table = "\n".join(map_block((*routes.ROUTES, MOVERS)))
    entry = table[table.index('"~(?x) ^/api/v1/movers'):]
    entry = entry[: entry.index("$request_uri;")]
    names = re.findall(r"\(\?:([a-z?]+)=\(\?&v\)\)\?", entry)
    assert names == ["format", "from", "limit", "offset", "region"]  # sorted, as njs sorts them


def test_lenient_and_templated_routes_never_take_the_fast_path() -> None:
    table = "\n".join(map_block())
    assert f"^{routes.LEGACY.path} " not in table and "/api/v1/snapshots/" not in table
    assert all(f"^{route.path} " in table for route in routes.ROUTES
               if route.grammar.strict and not route.templated and route.grammar.names)


def test_strict_and_lists_come_from_the_grammars() -> None:
    js = "\n".join(js_block())
    assert "    return path !== '/api/readiness';" in js
    assert "    return name === 'codes' || name === 'fields' || name === 'indicators';" in js
    every_strict = [dataclasses.replace(route, grammar=dataclasses.replace(route.grammar, strict=True))
                    for route in routes.ROUTES]
    assert "    return true;" in "\n".join(js_block(every_strict))


def test_code_and_codes_share_one_group_in_the_map() -> None:
    table = "\n".join(map_block())
    v1 = table[table.index("^/api/v1/readiness"):table.index("^/api/v1/indicators")]
    assert "(?:codes?=(?&v))?" in v1 and "(?:code=" not in v1 and "(?:codes=" not in v1


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
