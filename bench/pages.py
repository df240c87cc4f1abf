"""Benchmark: the first render of each page in Chromium, against the site's plainest page.

Each page of tests/site_pages.py (the table the page tests use) is loaded cold, in a fresh
browser context (nothing cached), from a real server.py over a private copy of the bundled
sample, with Debian's Chromium driven by Playwright, 1280×800. Two times per load, from the
start of the navigation: first contentful paint (the browser's own ``paint`` entry) and
*ready*, the first frame after the page's readiness selectors hold (the explorer's table has
every row, the map its paths, compare its chart), measured in the page by a MutationObserver
the script installs before any of the page's own scripts run.

The baseline, measured in the same run and interleaved with the pages, is the not-found page
(``/explore/ZZZ``): the same server, base template and stylesheet, no script and no data.
Machines are noisy, so compare the ratios (page median / baseline median) across runs and
machines rather than the absolute milliseconds, which are printed too. Before the rounds each
page is loaded once, untimed: the server renders a page once per snapshot.

Run from the repository root (see bench/README.md):

    .venv/bin/python bench/pages.py [--rounds N | --quick] [--only REGEX] [--json]

No target: it reports. Exit status 0 when every page was ready in every round, 1 when one
was not (status, or its selectors never held within the timeout), 2 when the benchmark cannot
run (no Chromium, the server does not start).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:  # imported by tests/test_bench_pages.py rather than run
    sys.path.insert(0, str(BENCH))

from support import (  # noqa: E402 (first: it puts the repository root on sys.path)
    BenchError,
    Process,
    answering,
    fetch,
    free_port,
    make_data_dir,
    report_exit,
    server_argv,
    server_env,
    table,
)

from tests.site_pages import PAGES, SitePage, ready_argument  # noqa: E402

BASELINE = SitePage("/explore/ZZZ", (("main h1", 1),))
"""The not-found page: the site's chrome (base template, site.css), no script, no data."""

ROUNDS = 5
QUICK_ROUNDS = 2
VIEWPORT = {"width": 1280, "height": 800}
TIMEOUT_MS = 30_000
"""How long one load may take to be ready before it counts as a failure."""

TIMING = """(wants => {
  const ready = () => wants.every(([selector, least]) => document.querySelectorAll(selector).length >= least);
  let seen = false;
  const check = () => {
    if (seen || !ready()) return;
    seen = true;
    observer.disconnect();
    requestAnimationFrame(() => { window.__benchReady = performance.now(); });
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, attributes: true });
  document.addEventListener("DOMContentLoaded", check);
})(WANTS);"""
"""Installed before the page's scripts: records ``window.__benchReady`` (ms since the navigation
started) in the first animation frame after the readiness selectors (WANTS) first hold."""

MEASURED = """() => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return window.__benchReady === undefined || !paint ? null : [paint.startTime, window.__benchReady];
}"""
"""[first contentful paint, ready] in ms once both happened, else null."""


def timing_script(site_page: SitePage) -> str:
    """The init script that times ``site_page``'s readiness."""
    return TIMING.replace("WANTS", json.dumps(ready_argument(site_page)))


def selected(pages: Sequence[SitePage], only: str | None) -> list[SitePage]:
    """The pages whose path matches ``only`` (a regular expression, searched), or all."""
    if only is None:
        return list(pages)
    pattern = re.compile(only)
    chosen = [site_page for site_page in pages if pattern.search(site_page.path)]
    if not chosen:
        raise BenchError(f"--only {only!r} matches no page of {[site_page.path for site_page in pages]}")
    return chosen


def summary(fcp: Sequence[float], ready: Sequence[float], baseline: dict[str, Any] | None) -> dict[str, Any]:
    """Medians and extremes of one page's loads, and their ratios to ``baseline``'s medians."""
    result: dict[str, Any] = {
        "loads": len(fcp),
        "fcp_ms": [round(value, 1) for value in fcp],
        "ready_ms": [round(value, 1) for value in ready],
        "fcp_median_ms": round(statistics.median(fcp), 1) if fcp else None,
        "ready_median_ms": round(statistics.median(ready), 1) if ready else None,
    }
    if baseline is not None and fcp and baseline["fcp_median_ms"]:
        result["fcp_ratio"] = round(result["fcp_median_ms"] / baseline["fcp_median_ms"], 2)
        result["ready_ratio"] = round(result["ready_median_ms"] / baseline["ready_median_ms"], 2)
    return result


class Site:
    """server.py over a private copy of the sample, and Chromium, for one run."""

    def __init__(self, workdir: Path) -> None:
        data_dir, _, self.data = make_data_dir(workdir / "data")
        self.port, admin_port = free_port(), free_port()
        process = Process("server.py", server_argv(self.port, data_dir), server_env(admin_port),
                          workdir / "server.log", admin_port)
        self.process, _ = answering(process, self.port)
        status, _, _ = fetch(self.port, "/api/v1/snapshots", timeout=60)  # every snapshot's summary read
        if status != 200:
            self.process.stop()
            raise BenchError(f"/api/v1/snapshots answered {status}")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def load_once(browser: Any, site: Site, site_page: SitePage) -> tuple[float, float] | str:
    """Load ``site_page`` cold in a fresh context: (first contentful paint, ready) in ms, or
    what went wrong."""
    from playwright.sync_api import Error

    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    try:
        context.add_init_script(timing_script(site_page))
        page = context.new_page()
        response = page.goto(site.url(site_page.path))
        wanted = 404 if site_page is BASELINE else 200
        if response is None or response.status != wanted:
            return f"status {response.status if response else 'none'}"
        try:
            handle = page.wait_for_function(MEASURED, timeout=TIMEOUT_MS)
        except Error:
            return f"not ready within {TIMEOUT_MS / 1000:g} s"
        fcp, ready = handle.json_value()
        return float(fcp), max(float(fcp), float(ready))
    finally:
        context.close()


def run(rounds: int, only: str | None) -> dict[str, Any]:
    """Warm up, then ``rounds`` rounds of every selected page and the baseline, interleaved."""
    from playwright.sync_api import sync_playwright

    from tests.browser import find_chromium, missing_chromium

    chromium = find_chromium()
    if chromium is None:
        raise BenchError(missing_chromium())
    chosen = selected(PAGES, only)
    everything = [BASELINE, *chosen]
    times: dict[str, tuple[list[float], list[float]]] = {p.path: ([], []) for p in everything}
    failures: dict[str, list[str]] = {p.path: [] for p in everything}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as name, sync_playwright() as playwright:
        site = Site(Path(name))
        try:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True)
            for site_page in everything:  # the server renders each page once; not timed
                load_once(browser, site, site_page)
            for number in range(rounds):
                turn = number % len(everything)  # each round starts one page later
                for site_page in everything[turn:] + everything[:turn]:
                    outcome = load_once(browser, site, site_page)
                    if isinstance(outcome, str):
                        failures[site_page.path].append(outcome)
                    else:
                        times[site_page.path][0].append(outcome[0])
                        times[site_page.path][1].append(outcome[1])
            version = browser.version
            browser.close()
        finally:
            site.process.stop()
    baseline = summary(*times[BASELINE.path], None)
    pages = {p.path: {**summary(*times[p.path], baseline), "failures": failures[p.path]} for p in chosen}
    return {
        "rounds": rounds,
        "baseline": {"path": BASELINE.path, **baseline, "failures": failures[BASELINE.path]},
        "pages": pages,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "chromium": version,
                    "load_average": [round(value, 2) for value in (*load_before, *os.getloadavg())]},
        "data": site.data,
        "passed": not any(failures.values()),
    }


def show(report: dict[str, Any]) -> None:
    """The report as a table: medians in ms, ratios against the baseline's medians."""
    machine = report["machine"]
    print(f"First render in Chromium {machine['chromium']}, {report['rounds']} rounds, cold cache, 1280x800; "
          f"{machine['cpus']} CPUs, load average {machine['load_average'][0]} before, "
          f"{machine['load_average'][3]} after")
    base = report["baseline"]

    def cells(path: str, entry: dict[str, Any]) -> tuple[str, ...]:
        return (path, str(entry["loads"]), str(entry["fcp_median_ms"]), str(max(entry["fcp_ms"], default="-")),
                str(entry["ready_median_ms"]), str(max(entry["ready_ms"], default="-")),
                f"{entry['fcp_ratio']}x" if "fcp_ratio" in entry else "-",
                f"{entry['ready_ratio']}x" if "ready_ratio" in entry else "-")

    rows = [cells(f"{base['path']} (baseline)", base)]
    rows += [cells(path, entry) for path, entry in report["pages"].items()]
    header = ("page", "loads", "FCP ms", "max", "ready ms", "max", "FCP ratio", "ready ratio")
    for line in table(header, rows):
        print(line)
    for path, entry in [(base["path"], base), *report["pages"].items()]:
        for failure in sorted(set(entry["failures"])):
            print(f"FAIL  {path}: {failure} ({entry['failures'].count(failure)} of {report['rounds']} loads)")
    print("PASS: every page was ready in every round" if report["passed"] else "FAIL: see above")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"timed loads of each page ({ROUNDS})")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ROUNDS} rounds (smoke run)")
    parser.add_argument("--only", metavar="REGEX", help="only the pages whose path matches (the baseline always)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    rounds = QUICK_ROUNDS if args.quick else args.rounds
    if rounds < 1:
        parser.error("--rounds must be at least 1")
    return report_exit(lambda: run(rounds, args.only), args.json, show, "cannot run")


if __name__ == "__main__":
    sys.exit(main())
