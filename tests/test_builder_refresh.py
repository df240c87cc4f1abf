"""builder.refresh and ``python -m builder refresh``: from the (recorded) World Bank API to a
published, warm, current snapshot with its change report, or a refusal that changes nothing."""

from __future__ import annotations

import dataclasses
import datetime
import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from loaders import read_current_id, read_snapshot

from builder import Release
from builder.__main__ import main
from builder.changes import CHANGES_FILE
from builder.publish import HookFailed
from builder.refresh import Plan, RefreshRefused, refresh
from builder.worldbank import SourceSettings

from tests.worldbank_fake import FakeWorldBank, serve

ROOT = Path(__file__).resolve().parent.parent
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


def test_refresh_forced_publishes_despite_the_checks(api: FakeWorldBank, tmp_path: Path) -> None:
    refresh(plan(api, tmp_path, "2026-10"), NOW)
    api.edit = lambda name, raw: raw.replace(*SSA_AS_AGGREGATE) if name == "country-p1.json" else raw
    done = refresh(plan(api, tmp_path, "2026-11", force=True), NOW)
    assert len(done.overridden) == 1 and read_current_id(tmp_path / "data") == "2026-11"
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
               "--hook", 'echo "warming $READINESS_SNAPSHOT_ID"', *extra]
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
    assert "error: refused to publish 2026-11:" in refused.stderr
    assert "--force publishes it anyway" in refused.stderr
    assert "warming" not in refused.stdout
    assert read_current_id(tmp_path / "data") == "2026-10"

    forced = run_refresh(api, tmp_path, "--snapshot", "2026-11", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "warning: published despite: 3 economies" in forced.stdout
    assert "CURRENT: 2026-10 -> 2026-11" in forced.stdout


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
