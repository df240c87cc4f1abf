"""``schemathesis run`` against the OpenAPI document of the real app over the sample
(docs/DECISIONS.md#the-openapi-document-and-the-route-index): a module of its own, as the suite's
longest test, so that a worker runs it beside the other modules rather than after
tests/test_openapi.py's (docs/TESTING.md#running-in-parallel)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from config import Settings
from readiness.app import make_app
from readiness.http.openapi import DOCUMENT_PATH
from tests.conftest import ROOT, summarized_sample
from tests.openapi_server import serving
from tests.test_openapi import PATHS

SCHEMATHESIS_EXAMPLES = 40
"""Fuzzing examples per operation: with the coverage phase, about 60 s on an idle machine (67
operations), and five times that or more beside six test workers on two cores."""


def test_openapi_schemathesis_run_finds_nothing(tmp_path: Path) -> None:
    """``schemathesis run --checks all`` with its coverage and fuzzing phases, against the served
    document of the real app over the sample: no failure. Deterministic (schemathesis'
    deterministic mode: no random seed, no example database). ``positive_data_acceptance`` runs as
    schemathesis ships it: the document states every rule between values
    (docs/DECISIONS.md#the-openapi-document-and-the-route-index). ``negative_data_rejection`` runs
    through ``tests/schemathesis_hooks.py``, which excuses a malformed ``code`` that ``codes``
    leaves unread."""
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", "--checks", "all",
        "--exclude-checks", "negative_data_rejection", "--phases", "coverage,fuzzing",
        "--generation-deterministic",
        "--max-examples", str(SCHEMATHESIS_EXAMPLES), "--workers", "1", "--request-timeout", "10",
        "--no-color", "--suppress-health-check", "too_slow",
    ]
    environment = {**os.environ, "SCHEMATHESIS_HOOKS": "tests.schemathesis_hooks", "PYTHONPATH": str(ROOT)}
    # No compute budget: fuzzing asks for hundreds of distinct indicator tables in a few seconds,
    # and a 503 under load is not what this checks (tests/test_work.py does). No bound on an
    # answer's size: the sample's indicator table over every year is over the default, a 400 that
    # depends on the data and the setting, not on the query's form (tests/test_data_routes.py checks it).
    settings = Settings(compute_bytes_per_second=0, max_answer_bytes=1 << 30)
    with serving(make_app(settings, summarized_sample())) as url:
        # Run from an empty directory: no stray schemathesis.toml changes the run.
        run = subprocess.run([*command, f"{url}{DOCUMENT_PATH}"], cwd=tmp_path, env=environment,
                             capture_output=True, text=True, timeout=900, check=False)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-6000:]
    selected = re.search(r"Selected: ([0-9]+)/([0-9]+)", report)
    tested = re.search(r"Tested: ([0-9]+)", report)
    assert selected is not None and tested is not None, report[-3000:]
    assert int(tested.group(1)) == int(selected.group(1)) == int(selected.group(2)) >= len(PATHS), report[-3000:]
