"""builder.refresh and ``python -m builder refresh``: from the (recorded) World Bank API to a
published, warm, current snapshot with its change report, or a refusal that changes nothing."""

from __future__ import annotations

import dataclasses
import datetime
import errno
import importlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builder import Release
from builder.__main__ import main
from builder.changes import CHANGES_FILE
from builder.datadir import list_snapshots
from builder.method import POPULATION
from builder.publish import (
    Conflict,
    HookFailed,
    Placement,
    Rollback,
    RolledBack,
    SnapshotConflict,
    StepFailed,
    publish,
)
from builder.refresh import Accepted, Plan, RefreshRefused, inherited_provenance, publication_date, refresh
from builder.sanity import CHECKS
from builder.worldbank import SourceSettings
from loaders import Forced, read_current_id, read_snapshot
from loaders.validate import main as validate_main
from tests.worldbank_fake import FakeWorldBank, World, from_raw, serve

ROOT = Path(__file__).resolve().parent.parent
refresh_module = importlib.import_module("builder.refresh")
NOW = datetime.datetime(2026, 11, 5, 6, 0, tzinfo=datetime.UTC)
SSA_AS_AGGREGATE = (b'"region": {"id": "SSF", "iso2code": "ZG", "value": "Sub-Saharan Africa "}',
                    b'"region": {"id": "NA", "iso2code": "NA", "value": "Aggregates"}')
"""An edit of the economy list that turns Ethiopia, Kenya and Uganda into aggregates."""


@pytest.fixture
def api() -> Iterator[FakeWorldBank]:
    yield from serve()


def plan(api: FakeWorldBank, tmp_path: Path, snapshot_id: str, **changes: Any) -> Plan:
    source = SourceSettings(api.base_url, timeout=5, retries=2, backoff=0, per_page=10)
    base = Plan(Release.parse(snapshot_id), source, tmp_path / "work", tmp_path / "data",
                {"ETH": "Conflict"})
    return dataclasses.replace(base, **changes)


def test_refresh_publishes_the_recorded_month_with_a_first_report(
    api: FakeWorldBank, tmp_path: Path
) -> None:
    done = refresh(plan(api, tmp_path, "2026-10"), NOW)
    data = tmp_path / "data"
    assert read_current_id(data) == "2026-10"
    snapshot, problems = read_snapshot(data / "snapshots" / "2026-10")
    assert snapshot is not None and problems == [], "changes.json does not upset the reader"
    assert sorted(snapshot.countries) == ["DEU", "ETH", "KEN", "TUV", "UGA", "VEN"]
    assert snapshot.countries["DEU"].record["Global Rank"] == 1
    assert snapshot.countries["TUV"].record["Global Rank"] is None, "a microstate"
    report = json.loads((data / "snapshots" / "2026-10" / CHANGES_FILE).read_text())
    assert report["previous"] is None and "first snapshot" in report["summary"]
    assert done.raw == tmp_path / "work" / "raw" / "2026-10"
    assert (done.raw / "provenance.json").is_file()
    assert not list((tmp_path / "work" / "build").iterdir()), "the build is cleaned up"


def test_refresh_reports_changes_against_current_before_the_flip(
    api: FakeWorldBank, tmp_path: Path
) -> None:
    refresh(plan(api, tmp_path, "2026-10"), NOW)
    # Next month the source revised Kenya's 2024 electricity access.
    api.edit = lambda name, raw: raw.replace(
        b'"countryiso3code": "KEN", "date": "2024", "value": 50.0', b'"countryiso3code": "KEN", '
        b'"date": "2024", "value": 62.0') if name.startswith("EG.ELC.ACCS.ZS") else raw
    seen: list[tuple[str | None, bool]] = []

    def hook(data_dir: Path, snapshot_id: str) -> None:
        seen.append((read_current_id(data_dir),
                     (data_dir / "snapshots" / snapshot_id / CHANGES_FILE).is_file()))

    done = refresh(plan(api, tmp_path, "2026-11", hook=hook), NOW)
    data = tmp_path / "data"
    assert seen == [("2026-10", True)], "the report is in place while CURRENT is still the old id"
    assert read_current_id(data) == "2026-11"
    report = json.loads((data / "snapshots" / "2026-11" / CHANGES_FILE).read_text())
    assert report["previous"] == "2026-10"
    assert report["indicators"] == [{
        "indicator_code": "EG.ELC.ACCS.ZS",
        "indicator_name": "Access to electricity (% of population)",
        "changed": 1, "economies": ["KEN"]}]
    movers = report["scores"]["Infrastructure Score"]["largest"]
    assert [m["code"] for m in movers][:1] == ["KEN"] and movers[0]["change"] > 0
    assert report["summary"].startswith("2026-11 against 2026-10: 0 economies added, 0 removed;")
    assert json.loads(done.report.encode()) == report


def test_refresh_refuses_a_month_that_lost_economies(api: FakeWorldBank, tmp_path: Path) -> None:
    refresh(plan(api, tmp_path, "2026-10"), NOW)
    api.edit = lambda name, raw: raw.replace(*SSA_AS_AGGREGATE) if name == "country-p1.json" else raw
    with pytest.raises(RefreshRefused, match=r"3 economies, 3 fewer than 2026-10's 6 .*ETH, KEN, UGA"):
        refresh(plan(api, tmp_path, "2026-11"), NOW)
    assert read_current_id(tmp_path / "data") == "2026-10"
    assert not (tmp_path / "data" / "snapshots" / "2026-11").exists()


def test_refresh_accepting_the_check_that_refused_publishes(api: FakeWorldBank, tmp_path: Path) -> None:
    refresh(plan(api, tmp_path, "2026-10"), NOW)
    api.edit = lambda name, raw: raw.replace(*SSA_AS_AGGREGATE) if name == "country-p1.json" else raw
    others = frozenset(CHECKS) - {"economy-drop"}
    with pytest.raises(RefreshRefused, match=r"^refused to publish 2026-11:\n  \[economy-drop\] 3 economies"):
        refresh(plan(api, tmp_path, "2026-11", accepted=Accepted(others, "every other check")), NOW)
    done = refresh(plan(api, tmp_path, "2026-11", accepted=Accepted(frozenset({"economy-drop"}), "SSA regrouped")),
                   NOW)
    assert [finding.check for finding in done.overridden] == ["economy-drop"]
    assert read_current_id(tmp_path / "data") == "2026-11"
    report = json.loads((tmp_path / "data" / "snapshots" / "2026-11" / CHANGES_FILE).read_text())
    assert [e["code"] for e in report["economies"]["removed"]] == ["ETH", "KEN", "UGA"]


def test_refresh_refuses_a_dimension_without_values(api: FakeWorldBank, tmp_path: Path) -> None:
    wgi = ("GE.EST", "RQ.EST", "CC.EST", "VA.EST")

    def no_governance(name: str, raw: bytes) -> bytes:
        if not name.startswith(wgi):
            return raw
        page = json.loads(raw)
        for row in page[1]:
            row["value"] = None
        return json.dumps(page).encode()

    api.edit = no_governance
    with pytest.raises(RefreshRefused, match="no economy has a Governance Score"):
        refresh(plan(api, tmp_path, "2026-10"), NOW)
    assert read_current_id(tmp_path / "data") is None


def test_refresh_failed_hook_leaves_current(api: FakeWorldBank, tmp_path: Path) -> None:
    refresh(plan(api, tmp_path, "2026-10"), NOW)

    def failing(data_dir: Path, snapshot_id: str) -> None:
        raise HookFailed("warm-up failed")

    with pytest.raises(HookFailed):
        refresh(plan(api, tmp_path, "2026-11", hook=failing), NOW)
    assert read_current_id(tmp_path / "data") == "2026-10"
    assert not (tmp_path / "data" / "snapshots" / "2026-11").exists()


def run_refresh(api: FakeWorldBank, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``python -m builder refresh`` as the CronJob runs it, against the fake API."""
    fcv = tmp_path / "fcv.csv"
    fcv.write_text("iso3,fcv_type\nETH,Conflict\n")
    command = [sys.executable, "-m", "builder", "refresh", "--data-dir", str(tmp_path / "data"),
               "--work", str(tmp_path / "work"), "--fcv", str(fcv), "--source-url", api.base_url,
               "--per-page", "10", "--backoff", "0", "--retries", "2",
               "--warm", 'echo "warming $READINESS_SNAPSHOT_ID"', *extra]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)


def test_refresh_command_retries_then_refuses_and_is_forced(
    api: FakeWorldBank, tmp_path: Path
) -> None:
    api.faults["/v2/country/all/indicator/SP.POP.TOTL"] += [503, 504]
    first = run_refresh(api, tmp_path, "--snapshot", "2026-10")
    assert first.returncode == 0, first.stderr
    assert api.seen("/v2/country/all/indicator/SP.POP.TOTL") == 4, "two 5xx retried, two pages"
    assert "warming 2026-10" in first.stdout
    assert "changes: 2026-10 is the first snapshot" in first.stdout
    assert "CURRENT: (none) -> 2026-10" in first.stdout

    api.edit = lambda name, raw: raw.replace(*SSA_AS_AGGREGATE) if name == "country-p1.json" else raw
    refused = run_refresh(api, tmp_path, "--snapshot", "2026-11")
    assert refused.returncode == 1
    assert "error: refused to publish 2026-11:\n  [economy-drop] 3 economies, 3 fewer than " in refused.stderr
    assert ("(check the source; if what moved is real, accept the check on purpose: --accept economy-drop "
            "--reason TEXT; --force accepts every check)") in refused.stderr
    assert "warming" not in refused.stdout
    assert read_current_id(tmp_path / "data") == "2026-10"

    unexplained = run_refresh(api, tmp_path, "--snapshot", "2026-11", "--force")
    assert unexplained.returncode == 2 and "--accept and --force need --reason TEXT" in unexplained.stderr
    forced = run_refresh(api, tmp_path, "--snapshot", "2026-11", "--force", "--reason", "SSA regrouped upstream")
    assert forced.returncode == 0, forced.stderr
    assert "warning: published despite [economy-drop] 3 economies" in forced.stdout
    assert "CURRENT: 2026-10 -> 2026-11" in forced.stdout
    assert manifest(tmp_path)["forced"]["checks"].keys() == {"economy-drop"}, "--force records each check that refused"


def test_refresh_command_source_down_exits_1(api: FakeWorldBank, tmp_path: Path) -> None:
    api.faults["/v2/country"] += [503] * 3
    result = run_refresh(api, tmp_path, "--snapshot", "2026-10")
    assert result.returncode == 1
    assert "error: country page 1: HTTP 503" in result.stderr
    assert read_current_id(tmp_path / "data") is None


def test_refresh_default_month_is_this_month(api: FakeWorldBank, tmp_path: Path) -> None:
    today = datetime.date.today()
    result = run_refresh(api, tmp_path)
    assert result.returncode == 0, result.stderr
    assert read_current_id(tmp_path / "data") == today.strftime("%Y-%m")
    manifest = json.loads((tmp_path / "data" / "snapshots" / today.strftime("%Y-%m")
                           / "manifest.json").read_text())
    assert manifest["published"] == today.isoformat() and manifest["synthetic"] is False


def test_cli_refresh_needs_the_fcv_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["refresh", "--data-dir", str(tmp_path), "--work", str(tmp_path)])
    assert exited.value.code == 2 and "--fcv" in capsys.readouterr().err


# --- issue 23: a re-run, two days of one month, the checks on a whole world, the log ------------

KENYA_REVISED = (b'"countryiso3code": "KEN", "date": "2024", "value": 50.0',
                 b'"countryiso3code": "KEN", "date": "2024", "value": 62.0')
"""An edit of the electricity series: the source revised Kenya's 2024 value."""


def revised(name: str, raw: bytes) -> bytes:
    return raw.replace(*KENYA_REVISED) if name.startswith("EG.ELC.ACCS.ZS") else raw


def on(day: int, hour: int = 6) -> Any:
    """A clock stopped at ``day`` November 2026 (UTC)."""
    return lambda: datetime.datetime(2026, 11, day, hour, 0, tzinfo=datetime.UTC)


def cli(api: FakeWorldBank, tmp_path: Path, *extra: str) -> list[str]:
    """The refresh's arguments as the CronJob gives them, with a warm-up that logs each run."""
    fcv = tmp_path / "fcv.csv"
    fcv.write_text("iso3,fcv_type\nETH,Conflict\n")
    hook = f'echo "$READINESS_SNAPSHOT_ID" >> {tmp_path / "warmed.log"}'
    return ["refresh", "--snapshot", "2026-11", "--data-dir", str(tmp_path / "data"),
            "--work", str(tmp_path / "work"), "--fcv", str(fcv), "--source-url", api.base_url,
            "--backoff", "0", "--warm", hook, *extra]


def manifest(tmp_path: Path, snapshot_id: str = "2026-11") -> Any:
    return json.loads((tmp_path / "data" / "snapshots" / snapshot_id / "manifest.json").read_text())


def test_refresh_rerun_on_a_later_day_of_the_month_changes_nothing(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(cli(api, tmp_path), clock=on(5)) == 0
    assert manifest(tmp_path)["published"] == "2026-11-05"
    published = (tmp_path / "data" / "snapshots" / "2026-11" / "manifest.json").read_bytes()
    capsys.readouterr()

    # The CronJob's retry the next day, or an operator checking: the same source.
    assert main(cli(api, tmp_path), clock=on(6)) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "2026-11 is already published with the same content and current: nothing changed"
    assert (tmp_path / "data" / "snapshots" / "2026-11" / "manifest.json").read_bytes() == published
    assert (tmp_path / "warmed.log").read_text() == "2026-11\n", "no second warm-up"
    provenance = json.loads((tmp_path / "work" / "raw" / "2026-11" / "provenance.json").read_text())
    assert provenance["fetched"] == "2026-11-06T06:00:00Z", "the raw tables are the latest fetch's"
    assert publication_date(tmp_path / "data", "2026-11", datetime.date(2026, 11, 20)) == "2026-11-05"
    assert publication_date(tmp_path / "data", "2026-12", datetime.date(2026, 12, 3)) == "2026-12-03"
    assert publication_date(tmp_path / "data", "2026-12", datetime.date(2026, 11, 20)) == "2026-12-01"


def test_refresh_names_publisher_and_licence_and_later_months_inherit_them(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert inherited_provenance(data, "2026-11") == (None, None)  # nothing published yet
    assert main(cli(api, tmp_path, "--publisher", "Example Institute", "--license", "CC-BY-4.0"), clock=on(5)) == 0
    assert (manifest(tmp_path)["publisher"], manifest(tmp_path)["license"]) == ("Example Institute", "CC-BY-4.0")
    # The next month's refresh, told nothing, carries them forward from the current snapshot,
    # and a re-run of this month keeps its own (the same bytes: nothing to publish).
    assert inherited_provenance(data, "2026-12") == ("Example Institute", "CC-BY-4.0")
    assert main(cli(api, tmp_path), clock=on(6)) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("nothing changed")


def test_refresh_never_inherits_the_synthetic_samples_publisher(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A data directory that started from the bundled sample (the dev overlay's seed): CURRENT
    # names its synthetic 2026-11, whose publisher is "... (synthetic sample)".
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "sample", data)
    assert inherited_provenance(data, "2026-12") == (None, None)
    assert inherited_provenance(data, "2026-11") == (None, None), "its own manifest is the sample's too"
    # The first real month (forced: six economies against the sample's 217) names none.
    assert main(cli(api, tmp_path, "--snapshot", "2026-12", "--force", "--reason", "the first real month"),
                clock=on(5)) == 0
    written = manifest(tmp_path, "2026-12")
    assert "publisher" not in written and "license" not in written and written["synthetic"] is False


def test_refresh_other_content_under_a_published_month_is_a_conflict_unless_replaced(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(cli(api, tmp_path), clock=on(5)) == 0
    api.edit = revised  # the source changed within the month
    capsys.readouterr()
    assert main(cli(api, tmp_path), clock=on(7)) == 1
    err = capsys.readouterr().err
    assert "error: refused: " in err and "is already published with different content (2026-11 against " \
        "2026-11: 0 economies added, 0 removed; " in err
    assert "1 reported values changed in 1 indicators" in err and err.rstrip().endswith("(use --replace to swap it)")
    assert (tmp_path / "warmed.log").read_text() == "2026-11\n" and read_current_id(tmp_path / "data") == "2026-11"

    assert main(cli(api, tmp_path, "--replace"), clock=on(7)) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("replaced 2026-11 in ")
    assert manifest(tmp_path)["published"] == "2026-11-05", "the month keeps its publication date"
    assert (tmp_path / "warmed.log").read_text() == "2026-11\n2026-11\n"
    snapshot, _ = read_snapshot(tmp_path / "data" / "snapshots" / "2026-11")
    assert snapshot is not None
    (electricity,) = [e for e in snapshot.countries["KEN"].details if e["indicator_code"] == "EG.ELC.ACCS.ZS"]
    assert electricity["reported_value"] == 62.0


def test_refresh_rerun_after_a_rollback_refuses_before_fetching_unless_undone(
    api: FakeWorldBank, tmp_path: Path
) -> None:
    refresh(plan(api, tmp_path, "2026-10"), NOW)
    refresh(plan(api, tmp_path, "2026-11"), NOW)
    rollback = publish(tmp_path / "data" / "snapshots" / "2026-10", tmp_path / "data")
    assert rollback.rolled_back == ("2026-11",) and read_current_id(tmp_path / "data") == "2026-10"
    asked = len(api.requests)
    with pytest.raises(RolledBack, match=r"^refused: 2026-11 was rolled back on \d{4}-\d\d-\d\dT[\d:]+Z "
                                         r"\(CURRENT 2026-11 -> 2026-10, recorded in publish-log.jsonl\); "):
        refresh(plan(api, tmp_path, "2026-11"), NOW)
    assert len(api.requests) == asked, "said before acting: nothing fetched"
    assert read_current_id(tmp_path / "data") == "2026-10", "the rollback stands"
    # On purpose: the month is current again, and a re-run after that is an ordinary one.
    done = refresh(plan(api, tmp_path, "2026-11", rollback=Rollback.UNDO), NOW)
    assert done.already and done.outcome.placement is Placement.SAME and done.outcome.previous == "2026-10"
    assert read_current_id(tmp_path / "data") == "2026-11"
    again = refresh(plan(api, tmp_path, "2026-11"), NOW)
    assert again.already and not again.outcome.changed


def test_refresh_command_after_a_rollback_says_so_and_keeps_it(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(cli(api, tmp_path, "--snapshot", "2026-10"), clock=on(5)) == 0
    assert main(cli(api, tmp_path), clock=on(5)) == 0
    capsys.readouterr()
    # The runbook's rollback: publish the previous month's copy again.
    assert main(["publish", str(data / "snapshots" / "2026-10"), "--data-dir", str(data)], clock=on(7)) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "rolled back: 2026-11 out of service; publishing or refreshing it again is refused until run "
        "with --undo-rollback")
    journal = [json.loads(line) for line in (data / "publish-log.jsonl").read_text().splitlines()]
    assert journal[-1] == {"at": "2026-11-07T06:00:00Z", "snapshot": "2026-10", "previous": "2026-11",
                           "placement": "same", "rolled_back": ["2026-11"]}
    assert [entry["snapshot"] for entry in journal] == ["2026-10", "2026-11", "2026-10"]

    # The CronJob's retry, or an operator checking, the next day: refused, nothing done.
    assert main(cli(api, tmp_path), clock=on(8)) == 1
    err = capsys.readouterr().err
    assert "error: refused: 2026-11 was rolled back on 2026-11-07T06:00:00Z (CURRENT 2026-11 -> 2026-10" in err
    assert "fetch:" not in err and "--undo-rollback" in err
    assert read_current_id(data) == "2026-10"
    assert (tmp_path / "warmed.log").read_text() == "2026-10\n2026-11\n", "no warm-up either"
    assert main(["list", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "  2026-11  published 2026-11-05  6 economies valid  rolled back on 2026-11-07T06:00:00Z to 2026-10")

    assert main(cli(api, tmp_path, "--undo-rollback"), clock=on(9)) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("; CURRENT: 2026-10 -> 2026-11")
    assert read_current_id(data) == "2026-11"
    assert main(["list", "--data-dir", str(data)]) == 0
    assert "rolled back" not in capsys.readouterr().out


def test_refresh_command_log_says_each_step_and_series_as_it_goes(api: FakeWorldBank, tmp_path: Path) -> None:
    api.faults["/v2/country/all/indicator/SP.POP.TOTL"] += [503]
    result = run_refresh(api, tmp_path, "--snapshot", "2026-10")
    assert result.returncode == 0, result.stderr
    log = result.stderr.splitlines()
    assert "\r" not in result.stderr, "not a terminal: no bar, only lines"
    assert [line for line in log if not re.match(r"\d\d:\d\d:\d\d \w+: ", line)] == [
        "warning: left out (no population in the window): GIB"]
    series = [line[9:] for line in log if re.match(r"\d\d:\d\d:\d\d fetch: [A-Z.0-9a-z]+: \d+ rows", line)]
    assert len(series) == 24, "the economy list and 23 series, one line each"
    assert any(re.fullmatch(r"fetch: SP.POP.TOTL: 18 rows, 2 pages, \d+\.\d\d s, 1 retry \(\d+/24\)", line)
               for line in series), series
    steps = [line[9:].split(":")[0] for line in log if re.search(r": done in \d+\.\d s", line)]
    assert steps == ["fetch", "build", "check", "copy", "warm", "flip"], log
    assert re.search(r"^\d\d:\d\d:\d\d build: done in \d+\.\d s: 6 economies \(1 microstates, 5 ranked\)",
                     result.stderr, re.MULTILINE)
    assert result.stdout.index("warming 2026-10") < result.stdout.index("published 2026-10")


def test_refresh_unit_change_refused_then_accepted_and_recorded_in_the_manifest(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refresh(plan(api, tmp_path, "2026-10"), NOW)
    # Tertiary enrolment now comes as a share per mille, not per cent: every value tenfold.
    api.world = api.world.values(lambda code, iso3, year, value: value * 10
                                 if code == "SE.TER.ENRR" and isinstance(value, float) else value)
    with pytest.raises(RefreshRefused) as refused:
        refresh(plan(api, tmp_path, "2026-11"), NOW)
    (finding,) = refused.value.findings
    reason = finding.text
    assert finding.check == "scale-change"
    assert reason.startswith("SE.TER.ENRR (School enrollment, tertiary (% gross)) changed scale: its median "
                             "reported value is ")
    assert "(x10; more than x3 either way): a unit change upstream?" in reason
    assert not (tmp_path / "data" / "snapshots" / "2026-11").exists()

    why = "UIS now reports tertiary enrolment per mille; confirmed with the source"
    done = refresh(plan(api, tmp_path, "2026-11", accepted=Accepted(frozenset({"scale-change"}), why)), NOW)
    assert done.overridden == (finding,) and read_current_id(tmp_path / "data") == "2026-11"
    assert manifest(tmp_path)["forced"] == {"reason": why, "checks": {"scale-change": [reason]}}, (
        "the manifest says which checks were accepted, what they found, and why")
    assert list(manifest(tmp_path))[-3:] == ["forced", "countries", "checksums"]
    snapshot, problems = read_snapshot(tmp_path / "data" / "snapshots" / "2026-11")
    assert snapshot is not None and problems == [], "servers load a forced manifest"
    assert snapshot.forced == Forced(("scale-change",), why, (reason,))
    assert validate_main([str(tmp_path / "data" / "snapshots" / "2026-11")]) == 0
    assert [entry.forced for entry in list_snapshots(tmp_path / "data")] == [None, snapshot.forced]
    capsys.readouterr()
    assert main(["list", "--data-dir", str(tmp_path / "data")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "* 2026-11  published 2026-11-01  6 economies valid  forced past scale-change  (current)")

    again = refresh(plan(api, tmp_path, "2026-11"), NOW)
    assert again.already and not again.outcome.changed, "a re-run of a forced month is the same month"
    assert manifest(tmp_path)["forced"]["reason"] == why


# --- a whole world: a source redrawn, and a real next month --------------------------------------

ROOT_RAW = ROOT / "data" / "raw"


def redrawn(world: World, source: str, seed: int = 23) -> World:
    """Every value of ``source``'s series (not population) drawn again: each economy gets the
    values of another economy of the same series, as a broken extract would serve them."""
    economies = sorted(str(row["id"]) for row in world.countries if row["region"] != {
        "id": "NA", "iso2code": "NA", "value": "Aggregates"})
    rng = random.Random(seed)
    donors: dict[str, dict[str, str]] = {}
    for code in world.series:
        shuffled = economies[:]
        rng.shuffle(shuffled)
        donors[code] = dict(zip(economies, shuffled, strict=True))
    values = {(code, str(row["countryiso3code"]), str(row["date"])): row["value"]
              for code, rows in world.series.items() for row in rows}

    def draw(code: str, iso3: str, year: int, value: object) -> object:
        if world.meta[code]["sourceid"] != source or code == POPULATION or iso3 not in donors[code]:
            return value
        return values[(code, donors[code][iso3], str(year))]

    return world.values(draw)


def next_month(world: World, seed: int = 11) -> World:
    """A real month later: the source revised one value in twenty by up to 3 %, and one gap in
    ten of the last two years got its value (the year before's, give or take 3 %)."""
    rng = random.Random(seed)
    values = {(code, str(row["countryiso3code"]), int(str(row["date"]))): row["value"]
              for code, rows in world.series.items() for row in rows}

    def month(code: str, iso3: str, year: int, value: object) -> object:
        draw = rng.random()
        if isinstance(value, (int, float)) and code != POPULATION and draw < 0.05:
            return round(value * (1 + rng.uniform(-0.03, 0.03)), 4)
        before = values.get((code, iso3, year - 1))
        if value is None and year >= 2025 and draw < 0.1 and isinstance(before, (int, float)):
            return round(before * (1 + rng.uniform(-0.03, 0.03)), 4)
        return value

    return world.values(month)


@pytest.fixture(scope="module")
def whole_world() -> World:
    """The sample's 217 economies (data/raw, synthetic values) as the API would serve them."""
    return from_raw(ROOT_RAW)


def whole_plan(api: FakeWorldBank, tmp_path: Path, snapshot_id: str, **changes: Any) -> Plan:
    fcv = {"AFG": "Conflict", "SSD": "Conflict"}
    base = Plan(Release.parse(snapshot_id), SourceSettings(api.base_url, timeout=10, retries=1, backoff=0),
                tmp_path / "work", tmp_path / "data", fcv)
    return dataclasses.replace(base, **changes)


def test_refresh_refuses_a_redrawn_source_and_publishes_the_next_real_month(
    api: FakeWorldBank, whole_world: World, tmp_path: Path
) -> None:
    api.world = whole_world
    first = refresh(whole_plan(api, tmp_path, "2026-10"), NOW)
    assert len(first.fetched.tables.economies) == 217

    api.world = redrawn(whole_world, source="2")  # every WDI value redrawn
    with pytest.raises(RefreshRefused) as refused:
        refresh(whole_plan(api, tmp_path, "2026-11"), NOW)
    ranking, typical = (finding.text for finding in refused.value.findings)
    assert [finding.check for finding in refused.value.findings] == ["rank-shift", "median-move"]
    rho = float(re.findall(r"rank correlation (-?\d\.\d+)", ranking)[0])
    assert rho < 0.9 and "with 2026-10 over 217 economies (below 0.9); largest moves: " in ranking
    median = float(re.findall(r"moved (\d+\.\d+) points \(median", typical)[0])
    assert median > 5 and re.search(r": 21\d of 217 moved; largest moves: [^,]+ [-+]\d+\.\d\d, ", typical)
    assert read_current_id(tmp_path / "data") == "2026-10"
    assert not (tmp_path / "data" / "snapshots" / "2026-11").exists()

    api.world = next_month(whole_world)  # the same source, a month on
    done = refresh(whole_plan(api, tmp_path, "2026-11"), NOW)
    assert done.checked is not None and done.checked.findings == []
    assert done.checked.rank_correlation is not None and done.checked.rank_correlation > 0.99
    assert done.checked.median_move is not None and done.checked.median_move < 0.5
    assert done.checked.scale_change is not None and done.checked.scale_change[1] < 1.2
    assert read_current_id(tmp_path / "data") == "2026-11"
    assert done.report is not None and "composite score moved for" in str(done.report.document["summary"])


def generated_raw(out: Path, last_year: int) -> Path:
    """data/make_raw.py's generator run up to ``last_year`` into ``out``: the sample's source a
    data year later, every value of the years before unchanged."""
    sys.path.insert(0, str(ROOT / "data"))
    try:
        make_raw = importlib.import_module("make_raw")
        years = make_raw.YEARS
        make_raw.YEARS = range(years[0], last_year + 1)
        try:
            make_raw.write_tables(out)
        finally:
            make_raw.YEARS = years
    finally:
        sys.path.remove(str(ROOT / "data"))
    return out


def test_refresh_publishes_a_january_whose_new_data_year_entered_the_window(
    api: FakeWorldBank, whole_world: World, tmp_path: Path
) -> None:
    # The same source, a data year on (data/make_raw.py's generator run to 2027): a routine
    # January, as the calibration's pairs (bench/sanity_pairs.py) measure it.
    api.world = whole_world
    refresh(whole_plan(api, tmp_path, "2026-12"), NOW)
    api.world = from_raw(generated_raw(tmp_path / "raw-2027", 2027), years=range(2015, 2028))
    done = refresh(whole_plan(api, tmp_path, "2027-01"), NOW)
    assert done.checked is not None and done.checked.findings == [], done.checked.summary()
    assert done.checked.rank_correlation is not None and done.checked.rank_correlation > 0.99
    assert read_current_id(tmp_path / "data") == "2027-01"
    assert done.report is not None and "reported values changed" in str(done.report.document["summary"])


def test_refresh_help_names_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["refresh", "--help"])
    shown = re.sub(r"-\s+", "-", " ".join(capsys.readouterr().out.split()))  # argparse wraps at hyphens
    documented = (ROOT / "docs" / "PUBLISHING.md").read_text()
    for name in CHECKS:
        assert f"{name}:" in shown and f"`{name}`" in documented, name


def test_refresh_with_replace_checks_against_what_it_replaces(api: FakeWorldBank, tmp_path: Path) -> None:
    refresh(plan(api, tmp_path, "2026-11"), NOW)
    api.edit = revised
    with pytest.raises(SnapshotConflict, match="already published with different content"):
        refresh(plan(api, tmp_path, "2026-11"), NOW)
    done = refresh(plan(api, tmp_path, "2026-11", conflict=Conflict.REPLACE), NOW)
    assert done.outcome.placement is Placement.REPLACED and done.checked is not None
    assert done.report is not None and done.report.previous == "2026-11"


def test_refresh_on_a_full_disk_names_the_step(
    api: FakeWorldBank, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_: object) -> Path:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(refresh_module, "write_tables", full)
    with pytest.raises(StepFailed, match=r"^2026-10: the fetch step failed on .*/work/raw/2026-10: No space left on "
                                         r"device \(ENOSPC\); nothing was published$"):
        refresh(plan(api, tmp_path, "2026-10"), NOW)
    assert read_current_id(tmp_path / "data") is None
