"""Your own weights (docs/METHOD.md#your-own-weights): the custom composite and rank as pure
functions on tiny snapshots and over the whole sample, then over HTTP (JSON, CSV, cache keys,
errors) on the real app over the bundled (synthetic) sample."""

from __future__ import annotations

import copy
import io
from typing import Any

import orjson
import pandas
import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from loaders import COMPOSITE, DETAILS, JsonValue, Snapshot, load_snapshot
from readiness.domain import routes
from readiness.domain.compute import compute
from readiness.domain.errors import InvalidParameter
from readiness.domain.query import PUBLISHED_WEIGHTS, Query, parse_query_string
from readiness.domain.select import columns, project, select
from readiness.domain.weights import WEIGHTS_NOTE, custom_score, custom_scores, normalized_weights
from tests.conftest import SAMPLE, assert_error_envelope, body, country, gen_test, snapshot

V1 = "/api/v1/readiness"
SCORES = ("Infrastructure Score", "Human Capital Score", "School Access and Gender Parity Score",
          "Innovation Score", "Governance Score")


def scored(code: str, dimensions: tuple[float | None, ...], rank: int | None = 1) -> Any:
    """A country with these five dimension scores, ranked unless ``rank`` is None (a microstate)."""
    fields: dict[str, JsonValue] = {**dict(zip(SCORES, dimensions, strict=True)), "Global Rank": rank}
    return country(code, code.title(), **fields)


# --- the custom composite ------------------------------------------------------------------------


def test_custom_score_is_the_weighted_mean_of_the_weighted_dimensions() -> None:
    record = scored("AAA", (80.0, 60.0, 40.0, 20.0, 10.0)).record
    assert custom_score(record, (2, 1, 0, 0, 1)) == 57.5  # (160 + 60 + 10) / 4
    assert custom_score(record, (1, 0, 0, 0, 0)) == 80.0
    assert custom_score(record, (1, 1, 1, 0, 0)) == 60.0
    assert custom_score(scored("BBB", (10.01, 10.02, 10.02, 0, 0)).record, (1, 1, 1, 0, 0)) == 10.02  # 10.0166…


def test_custom_score_rounds_an_exact_half_to_even_as_the_builder_does() -> None:
    # (0.25 + 0) / 2 = 0.125 exactly: Python's round (the builder's) gives 0.12, half-up would give 0.13.
    assert custom_score(scored("AAA", (0.25, 0.0, 5.0, 5.0, 5.0)).record, (1, 1, 0, 0, 0)) == 0.12


def test_custom_score_null_only_when_a_weighted_dimension_is_null() -> None:
    record = scored("AAA", (50.0, None, 70.0, 30.0, 10.0)).record
    assert custom_score(record, (1, 1, 0, 0, 0)) is None
    assert custom_score(record, (1, 0, 1, 0, 0)) == 60.0  # the null dimension weighs nothing
    assert custom_score(country("BBB", "Bbb").record, (1, 1, 1, 1, 1)) is None  # no scores at all


def test_custom_scores_ties_share_a_rank_and_the_next_one_is_skipped() -> None:
    countries = [
        scored("AAA", (50.0, 0, 0, 0, 0)),
        scored("BBB", (70.0, 0, 0, 0, 0)),
        scored("CCC", (50.0, 0, 0, 0, 0)),
        scored("DDD", (40.0, 0, 0, 0, 0)),
    ]
    assert custom_scores(countries, (1, 0, 0, 0, 0)) == {
        "AAA": (50.0, 2), "BBB": (70.0, 1), "CCC": (50.0, 2), "DDD": (40.0, 4),
    }


def test_custom_scores_microstates_and_null_scores_are_unranked_and_take_no_place() -> None:
    countries = [
        scored("AAA", (90.0, 0, 0, 0, 0), rank=None),  # a microstate: scored, not ranked
        scored("BBB", (60.0, 0, 0, 0, 0)),
        scored("CCC", (None, 0, 0, 0, 0)),
        scored("DDD", (30.0, 0, 0, 0, 0)),
    ]
    assert custom_scores(countries, (1, 0, 0, 0, 0)) == {
        "AAA": (90.0, None), "BBB": (60.0, 1), "CCC": (None, None), "DDD": (30.0, 2),
    }


# The snapshots by name, each read in its test: read here, all six were read (seconds) by
# every process that collects the suite, each xdist worker included, for one worker's tests.
@pytest.mark.parametrize("snapshot_id", sorted(path.name for path in (SAMPLE / "snapshots").iterdir()))
def test_equal_weights_reproduce_the_published_composite_and_rank_everywhere(snapshot_id: str) -> None:
    """The method check: with equal weights, every economy of every sample snapshot gets exactly
    its published composite and Global Rank (the builder made them)."""
    sample = load_snapshot(SAMPLE / "snapshots" / snapshot_id)
    assert sample.id == snapshot_id
    custom = custom_scores(sample.countries.values(), (1, 1, 1, 1, 1))
    published = {code: (c.record.get(COMPOSITE), c.record.get("Global Rank")) for code, c in sample.countries.items()}
    assert custom == published
    assert sum(rank is not None for _, rank in custom.values()) > 150  # the check compares ranks


def test_normalized_weights_are_shares_with_four_decimals() -> None:
    assert normalized_weights((2, 1, 1, 1, 0)) == {
        "infrastructure": 0.4, "human": 0.2, "access": 0.2, "innovation": 0.2, "governance": 0.0,
    }
    assert normalized_weights((2, 1, 0, 0, 0))["infrastructure"] == 0.6667


# --- sorting, projecting, the answer -------------------------------------------------------------

TINY = snapshot(
    scored("AAA", (50.0, 10.0, 0, 0, 0)),
    scored("BBB", (70.0, 90.0, 0, 0, 0), rank=None),
    scored("CCC", (50.0, 40.0, 0, 0, 0)),
    scored("DDD", (None, 10.0, 0, 0, 0)),
    scored("EEE", (80.0, 99.0, 0, 0, 0)),
)


def test_sort_by_custom_score_descends_nulls_last_ties_by_code() -> None:
    query = Query.parse({"weights": "infrastructure:1", "sort": "custom"})
    assert (query.sort, query.descending) == ("Custom Score", True)
    assert [c.code for c in select(TINY, query)] == ["EEE", "BBB", "AAA", "CCC", "DDD"]
    ascending = Query.parse({"weights": "infrastructure:1", "sort": "custom", "order": "asc"})
    assert [c.code for c in select(TINY, ascending)] == ["AAA", "CCC", "BBB", "EEE", "DDD"]


def test_sort_by_custom_rank_descends_by_default_as_global_rank_does() -> None:
    query = Query.parse({"weights": "infrastructure:1", "sort": "custom rank"})
    assert (query.sort, query.descending) == ("Custom Rank", True)
    assert Query.parse({"sort": "Global Rank"}).descending is True
    assert [c.code for c in select(TINY, query)] == ["AAA", "CCC", "EEE", "BBB", "DDD"]  # 2, 2, 1, then nulls


def test_custom_rank_ranks_the_whole_snapshot_whatever_the_filters_keep() -> None:
    query = Query.parse({"weights": "infrastructure:1", "codes": "AAA,CCC"})
    rows = orjson.loads(compute(TINY, query, routes.V1).body)["data"]
    assert [(row["Country Code"], row["Custom Rank"]) for row in rows] == [("AAA", 2), ("CCC", 2)]


def test_project_adds_the_custom_values_after_the_published_fields_whatever_fields_keeps() -> None:
    query = Query.parse({"weights": "1,1,0,0,0", "code": "AAA", "fields": "Country Code,score"})
    custom = custom_scores(TINY.countries.values(), query.weights or ())
    (row,) = project(select(TINY, query), query, custom)
    assert list(row) == ["Country Code", "Custom Score", "Custom Rank", DETAILS]
    assert (row["Custom Score"], row["Custom Rank"]) == (30.0, 3)
    assert columns(query) == ("Country Code", COMPOSITE, "Custom Score", "Custom Rank")  # AAA lacks a composite


def test_weights_never_change_the_snapshots_records(sample_current: Snapshot) -> None:
    before = {code: copy.deepcopy(c.record) for code, c in sample_current.countries.items()}
    query = Query.parse({"weights": "2,1,1,1,1"})
    compute(sample_current, query, routes.V1)
    custom = custom_scores(sample_current.countries.values(), (2, 1, 1, 1, 1))
    rows = project(select(sample_current, query, custom), query, custom)
    assert all(row is not sample_current.countries[str(row["Country Code"])].record for row in rows)
    assert {code: c.record for code, c in sample_current.countries.items()} == before
    # without weights the loaded records are served as they are: the copy above was needed
    plain = Query()
    first = select(sample_current, plain)[0]
    assert project([first], plain)[0] is first.record


# --- the parser's part ---------------------------------------------------------------------------


@pytest.mark.parametrize("sort", ["custom", "Custom Score", "CUSTOM RANK"])
def test_parse_sort_by_custom_without_weights_reads_the_published_weights(sort: str) -> None:
    assert Query.parse({"sort": sort}) == Query.parse({"sort": sort, "weights": "1,1,1,1,1"})
    assert Query.parse({"sort": sort}).weights == PUBLISHED_WEIGHTS == (1, 1, 1, 1, 1)


def test_parse_legacy_knows_no_custom_sort() -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse({"sort": "custom", "weights": "1,1,1,1,1"}, routes.LEGACY.grammar)
    assert raised.value.name == "sort"


def test_parse_custom_sort_canonical_form_parses_back() -> None:
    query = parse_query_string("weights=infrastructure:2,human:1&sort=custom&limit=3")
    assert query.canonical() == "sort=Custom%20Score&order=desc&limit=3&weights=2,1,0,0,0"
    assert parse_query_string(query.canonical()) == query


# --- over HTTP -------------------------------------------------------------------------------------


@pytest.fixture
def fetch(http_client: AsyncHTTPClient, base_url: str) -> Any:
    """Fetch a path of the app under test without raising on error statuses."""

    async def fetch(path: str, **kwargs: Any) -> HTTPResponse:
        return await http_client.fetch(base_url + path, raise_error=False, **kwargs)

    return fetch


@gen_test
async def test_readiness_weights_add_custom_values_and_echo_the_weights(fetch: Any) -> None:
    response = await fetch(V1 + "?code=KEN&weights=infrastructure:2,human:1,governance:1")
    assert response.code == 200
    envelope = body(response)
    assert list(envelope)[:8] == [
        "apiVersion", "level", "snapshot", "snapshot_id", "current", "count", "weights", "weights_note"
    ]
    assert envelope["weights"] == {"infrastructure": 0.5, "human": 0.25, "access": 0.0, "innovation": 0.0,
                                   "governance": 0.25}
    assert envelope["weights_note"] == WEIGHTS_NOTE
    kenya = envelope["data"]
    assert isinstance(kenya, dict)
    # KEN (synthetic sample, 2026-11): infrastructure 57.02, human capital 38.7, governance 29.1
    assert kenya["Custom Score"] == 45.46  # (2 x 57.02 + 38.7 + 29.1) / 4 = 45.46
    keys = list(kenya)
    assert keys[-3:] == ["Custom Score", "Custom Rank", DETAILS]
    assert kenya[COMPOSITE] == 42.48 and kenya["Global Rank"] == 123  # the published values stay
    assert isinstance(kenya["Custom Rank"], int)


@gen_test
async def test_readiness_sort_custom_ranks_from_one(fetch: Any) -> None:
    response = await fetch(V1 + "?weights=innovation:1&sort=custom&fields=Country%20Code,Microstate&limit=40")
    rows = body(response)["data"]
    assert isinstance(rows, list)
    assert all(list(row) == ["Country Code", "Microstate", "Custom Score", "Custom Rank"] for row in rows)
    scores = [row["Custom Score"] for row in rows]
    assert scores == sorted(scores, reverse=True)
    ranks = [row["Custom Rank"] for row in rows if not row["Microstate"]]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    assert all(row["Custom Rank"] is None for row in rows if row["Microstate"])
    assert response.headers["X-Total-Count"] == "217"


@gen_test
async def test_readiness_csv_with_weights_has_the_custom_columns(fetch: Any) -> None:
    query = "?weights=2,1,0,0,1&sort=custom&fields=Country%20Code,score&limit=20"
    table = pandas.read_csv(io.BytesIO((await fetch(V1 + query + "&format=csv")).body), encoding="utf-8-sig")
    assert list(table.columns) == ["Country Code", COMPOSITE, "Custom Score", "Custom Rank", "snapshot_id", "notice"]
    rows = body(await fetch(V1 + query))["data"]
    assert isinstance(rows, list)
    assert list(table["Country Code"]) == [row["Country Code"] for row in rows]
    assert list(table["Custom Score"]) == [row["Custom Score"] for row in rows]
    ranked = table["Custom Rank"].dropna()
    assert list(ranked) == [row["Custom Rank"] for row in rows if row["Custom Rank"] is not None]
    assert ranked.iloc[0] == 1


@gen_test
async def test_readiness_equal_weightings_are_one_answer_equal_to_the_published_index(fetch: Any) -> None:
    ones = await fetch(V1 + "?weights=1,1,1,1,1")
    twos = await fetch(V1 + "?weights=human:2,infrastructure:2,access:2,governance:2,innovation:2")
    assert ones.code == twos.code == 200
    assert ones.headers["Etag"] == twos.headers["Etag"]
    assert ones.body == twos.body
    rows = body(ones)["data"]
    assert isinstance(rows, list) and len(rows) == 217
    assert all((row["Custom Score"], row["Custom Rank"]) == (row[COMPOSITE], row["Global Rank"]) for row in rows)
    assert body(ones)["weights"] == dict.fromkeys(("infrastructure", "human", "access", "innovation", "governance"),
                                                  0.2)


@gen_test
@pytest.mark.parametrize("weights", ["0,0,0,0,0", "infrastructure:1,infra:2", "1,2,3", "human:-1", "governance"])
async def test_readiness_bad_weights_is_400_naming_weights(fetch: Any, weights: str) -> None:
    assert_error_envelope(await fetch(V1 + "?weights=" + weights), 400, "Invalid request. weights=")


@gen_test
async def test_readiness_sort_custom_without_weights_answers_as_with_the_published_weights(fetch: Any) -> None:
    alone = await fetch(V1 + "?sort=custom&fields=score,Global%20Rank&limit=5")
    weighted = await fetch(V1 + "?sort=custom&fields=score,Global%20Rank&limit=5&weights=1,1,1,1,1")
    assert alone.code == weighted.code == 200
    assert alone.body == weighted.body and alone.headers["ETag"] == weighted.headers["ETag"]
    rows = body(alone)["data"]
    assert [row["Custom Score"] for row in rows] == [row[COMPOSITE] for row in rows]


@gen_test
async def test_legacy_route_ignores_weights(fetch: Any) -> None:
    legacy = await fetch("/api/readiness?code=KEN&weights=1,0,0,0,0")
    assert legacy.code == 200
    assert "Custom Score" not in legacy.body.decode() and "weights" not in body(legacy)
