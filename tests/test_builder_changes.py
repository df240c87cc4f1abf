"""builder.changes and builder.sanity on the tiny world, and the report a publish writes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from builder import Economy, Release, build_snapshot, publish
from builder.changes import CHANGES_FILE, ChangeReport, compare
from builder.sanity import Limits, problems
from loaders import COMPOSITE, Snapshot, read_snapshot
from loaders.validate import main as validate_main
from tests.builder_world import NEXT_MONTH, STANDARD, economy, world


def snapshot(parent: Path, snapshot_id: str, positions: Mapping[Economy, float],
             missing: tuple[tuple[str, str], ...] = ()) -> Snapshot:
    release = Release.parse(snapshot_id, None, "SYNTHETIC: test data")
    built = build_snapshot(world(positions, year=release.year, missing=missing), release, parent)
    loaded, _ = read_snapshot(built.directory)
    assert loaded is not None
    return loaded


def document_of(report: ChangeReport) -> Any:
    """The report as a reader of changes.json sees it."""
    return json.loads(report.encode())


def test_compare_with_nothing_is_a_first_snapshot(tmp_path: Path) -> None:
    report = compare(None, snapshot(tmp_path, "2026-10", STANDARD))
    assert document_of(report)["previous"] is None
    assert document_of(report)["summary"] == "2026-10 is the first snapshot: nothing to compare with."
    assert [e["code"] for e in document_of(report)["economies"]["added"]] == [
        "AAA", "BBB", "CCC", "DDD", "MMM"]


def test_compare_same_content_reports_no_change(tmp_path: Path) -> None:
    report = compare(snapshot(tmp_path, "2026-10", STANDARD), snapshot(tmp_path, "2026-11", STANDARD))
    document = document_of(report)
    assert document["indicators"] == [] and document["imputations"] == {"appeared": [], "disappeared": []}
    assert all(score["moved"] == 0 for score in document["scores"].values())
    assert document["summary"] == (
        "2026-11 against 2026-10: 0 economies added, 0 removed; composite score moved for 0 of 5; "
        "0 reported values changed in 0 indicators; 0 imputations appeared, 0 disappeared.")


def test_compare_lists_added_removed_movers_and_changed_values(tmp_path: Path) -> None:
    before = snapshot(tmp_path, "2026-10", STANDARD)
    # BBB improves from 0.5 to 0.75; EEE arrives; MMM (the microstate) is gone.
    positions = {e: p for e, p in STANDARD.items() if e.code != "MMM"}
    positions[economy("BBB")] = 0.75
    positions[economy("EEE")] = 0.1
    after = snapshot(tmp_path, "2026-11", positions)
    report = compare(before, after)
    document = document_of(report)
    assert report.added == ("EEE",) and report.removed == ("MMM",)
    assert document["economies"] == {
        "compared": 4,
        "added": [{"code": "EEE", "name": "Economy EEE"}],
        "removed": [{"code": "MMM", "name": "Economy MMM"}],
    }
    infrastructure = document["scores"]["Infrastructure Score"]
    assert infrastructure["largest"][0] == {
        "code": "BBB", "name": "Economy BBB", "previous": 50, "current": 75, "change": 25, "direction": "up"}
    ranks = document["ranks"]
    assert ranks["compared"] == 4
    changed = {item["indicator_code"]: item["economies"] for item in document["indicators"]}
    assert changed["EG.ELC.ACCS.ZS"] == ["BBB"] and "SP.POP.TOTL" not in changed
    assert "1 economies added, 1 removed" in str(document["summary"])
    assert "(largest: Economy BBB +" in str(document["summary"])


def test_compare_orders_movers_by_size_so_a_large_fall_comes_first(tmp_path: Path) -> None:
    """The largest movers are ordered by absolute change: a fall of 70 before a rise of 42."""
    before = snapshot(tmp_path, "2026-10", STANDARD)
    # CCC falls from 1.0 to 0.1; BBB rises from 0.5 to 0.6, which lifts DDD's score too.
    after = snapshot(tmp_path, "2026-11", {**STANDARD, economy("BBB"): 0.6, economy("CCC"): 0.1})
    report = compare(before, after)
    document = document_of(report)
    composite = [(m["code"], m["change"]) for m in document["scores"][COMPOSITE]["largest"]]
    assert composite == [("CCC", -70), ("BBB", 42), ("DDD", 14), ("MMM", -0.42)]
    infrastructure = document["scores"]["Infrastructure Score"]["largest"]
    assert [m["code"] for m in infrastructure] == ["CCC", "BBB", "DDD"]
    assert infrastructure[0]["change"] < 0
    ranks = [(m["code"], m["change"], m["direction"]) for m in document["ranks"]["largest"]]
    # A positive rank change is a worse rank (a larger number): the direction says so in words.
    assert ranks == [("CCC", 2, "worse"), ("BBB", -1, "better"), ("DDD", -1, "better")]
    assert [m["direction"] for m in infrastructure] == ["down", "up", "up"]
    assert report.movements[COMPOSITE].top == ("Economy CCC", -70.0)
    assert "(largest: Economy CCC -70.00)" in str(document["summary"])


def test_compare_imputations_that_appear_and_disappear(tmp_path: Path) -> None:
    before = snapshot(tmp_path, "2026-10", STANDARD, missing=(("AAA", "SE.TER.ENRR"),))
    after = snapshot(tmp_path, "2026-11", STANDARD, missing=(("BBB", "SE.SEC.ENRR"),))
    imputations = document_of(compare(before, after))["imputations"]
    assert imputations == {
        "appeared": [{"code": "BBB", "indicator_code": "SE.SEC.ENRR",
                      "data_source": "Imputed: global median"}],
        "disappeared": [{"code": "AAA", "indicator_code": "SE.TER.ENRR",
                         "data_source": "Test source"}],
    }


def test_sanity_refuses_a_reshuffled_world_naming_what_moved(tmp_path: Path) -> None:
    before = snapshot(tmp_path, "2026-10", NEXT_MONTH)
    # The positions trade places: the ranking turns over and the typical composite moves far.
    swapped = dict(zip(NEXT_MONTH, (0.5, 1.0, 0.0, 0.75, 0.25, 0.25), strict=True))
    after = snapshot(tmp_path, "2026-11", swapped)
    report = compare(before, after)
    ranking, typical = problems(after, before, report, Limits())
    assert ranking.startswith("the composite's ranking reshuffled: rank correlation ")
    assert "with 2026-10 over 6 economies (below 0.9); largest moves: Economy " in ranking
    assert typical.startswith("the typical economy's composite moved ")
    assert "points (median; more than 2): 6 of 6 moved; largest moves: " in typical
    assert problems(after, before, report, Limits(rank_correlation=-1, median_move=100)) == []


def test_sanity_accepts_a_normal_month_and_a_first_one(tmp_path: Path) -> None:
    before = snapshot(tmp_path, "2026-10", STANDARD)
    after = snapshot(tmp_path, "2026-11", STANDARD)
    assert problems(after, before, compare(before, after), Limits()) == []
    assert problems(after, None, compare(None, after), Limits()) == []


def test_sanity_economy_drop_margin(tmp_path: Path) -> None:
    before = snapshot(tmp_path, "2026-10", STANDARD)
    after = snapshot(tmp_path, "2026-11", {e: p for e, p in STANDARD.items() if e.code != "AAA"})
    report = compare(before, after)
    assert problems(after, before, report, Limits(economy_drop=0.25)) == [], "1 of 5 is 20%"
    (found,) = problems(after, before, report, Limits(economy_drop=0.1))
    assert found.startswith("4 economies, 1 fewer than 2026-10's 5 (more than 10%; removed: AAA)")


# --- the report a publish writes --------------------------------------------------------------

def build(parent: Path, snapshot_id: str, positions: Mapping[Economy, float]) -> Path:
    release = Release.parse(snapshot_id, None, "SYNTHETIC: test data")
    return build_snapshot(world(positions, year=release.year), release, parent).directory


def test_publish_writes_the_report_against_current(tmp_path: Path) -> None:
    data = tmp_path / "data"
    publish(build(tmp_path / "a", "2026-10", STANDARD), data)
    publish(build(tmp_path / "b", "2026-11", {**STANDARD, economy("EEE"): 0.75}), data)
    report = json.loads((data / "snapshots" / "2026-11" / CHANGES_FILE).read_text())
    assert (report["format"], report["snapshot"], report["previous"]) == (1, "2026-11", "2026-10")
    assert report["economies"]["added"] == [{"code": "EEE", "name": "Economy EEE"}]
    snapshot_, found = read_snapshot(data / "snapshots" / "2026-11")
    assert snapshot_ is not None and found == []
    assert validate_main([str(data / "snapshots" / "2026-11")]) == 0, "an unlisted file is allowed"


def test_publish_again_and_rollback_keep_each_report(tmp_path: Path) -> None:
    data = tmp_path / "data"
    publish(build(tmp_path / "a", "2026-10", STANDARD), data)
    source = build(tmp_path / "b", "2026-11", STANDARD)
    publish(source, data)
    path = data / "snapshots" / "2026-11" / CHANGES_FILE
    first = path.read_bytes()
    assert not publish(source, data).changed, "the report is not content: still the same snapshot"
    publish(data / "snapshots" / "2026-10", data)  # roll back
    assert path.read_bytes() == first
    assert json.loads((data / "snapshots" / "2026-10" / CHANGES_FILE).read_text())["previous"] is None
