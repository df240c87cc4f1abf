"""bench/pages.py (the first render of each page in Chromium) keeps working: it times the pages
the page tests check (tests/site_pages.py), against its baseline, and a --quick run on two
pages reports both times and ratios for each. Nothing is judged on the times themselves
(docs/TESTING.md#the-suite-is-deterministic-on-a-machine-twice-as-slow)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from tests.browser import skip_module_without_chromium
from tests.conftest import ROOT
from tests.site_pages import PAGE_ROWS, PAGES

skip_module_without_chromium()

_spec = importlib.util.spec_from_file_location("bench_pages", ROOT / "bench" / "pages.py")
assert _spec is not None and _spec.loader is not None
pages = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = pages  # as tests/test_bench_http.py loads its scripts
_spec.loader.exec_module(pages)


def test_the_benchmark_times_the_pages_the_page_tests_check() -> None:
    assert pages.PAGES is PAGES
    assert [p.path for p in pages.selected(PAGES, None)] == [p.path for p in PAGES]
    assert [p.path for p in pages.selected(PAGES, "^/(method|explore)$")] == ["/explore", "/method"]
    assert [p.path for p in pages.selected(PAGES, "embed")] == [p.path for p in PAGES if p.embed]
    with pytest.raises(pages.BenchError, match="matches no page"):
        pages.selected(PAGES, "^/nowhere$")


def test_the_timing_script_waits_for_the_pages_own_selectors() -> None:
    explorer = next(p for p in PAGES if p.path == "/explore")
    script = pages.timing_script(explorer)
    assert f'[["#ranking tbody tr", {PAGE_ROWS}]]' in script and "WANTS" not in script


def test_ratios_are_medians_over_the_baselines_medians() -> None:
    baseline = pages.summary([100.0, 300.0, 200.0], [110.0, 330.0, 220.0], None)
    assert baseline["fcp_median_ms"] == 200.0 and baseline["ready_median_ms"] == 220.0
    assert "fcp_ratio" not in baseline
    page = pages.summary([300.0, 500.0], [600.0, 1000.0], baseline)
    assert page["fcp_median_ms"] == 400.0 and page["fcp_ratio"] == 2.0
    assert page["ready_median_ms"] == 800.0 and page["ready_ratio"] == round(800 / 220, 2)
    assert page["fcp_ms"] == [300.0, 500.0] and page["loads"] == 2


def test_a_quick_run_on_two_pages_reports_each_against_the_baseline() -> None:
    done = subprocess.run(
        [sys.executable, "bench/pages.py", "--quick", "--only", "^/(method|explore)$", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    report = json.loads(done.stdout)
    assert report["rounds"] == pages.QUICK_ROUNDS and report["passed"]
    assert report["baseline"]["path"] == "/explore/ZZZ" and report["baseline"]["loads"] == pages.QUICK_ROUNDS
    assert list(report["pages"]) == ["/explore", "/method"]
    for entry in report["pages"].values():
        assert entry["loads"] == pages.QUICK_ROUNDS and entry["failures"] == []
        assert all(0 < fcp <= ready for fcp, ready in zip(entry["fcp_ms"], entry["ready_ms"], strict=True))
        assert entry["fcp_ratio"] > 0 and entry["ready_ratio"] > 0
