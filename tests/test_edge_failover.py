"""The edge fails over (docs/OPERATIONS.md#failover-at-the-edge): real nginx, rendered from the
shipped template (k8s/base/edge.conf.template), in front of two real server.py processes on
127.0.0.1, under a steady stream of requests that all reach the API (max-age=0: nothing is
stored). One process is killed (SIGKILL: a pod lost with its node) or stopped (SIGTERM: a pod
deleted, drained), and no client request fails. The edge answers its probe by itself, with no
API process up.

Kubernetes resolves the API pods through a headless Service (``resolve`` in the upstream,
nginx 1.27.3 and later); Debian's nginx here (1.22) cannot parse that, so these tests give the
edge the two processes' addresses as the static list ``readiness.edge_config`` renders. The
failover itself (max_fails, proxy_next_upstream and its tries) is the same template either way.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import SAMPLE, unavailable
from tests.edge_nginx import MISSING, Nginx, nginx_executable
from tests.processes import Load, Server, Start, fetch, free_port, launch, until

CODES = sorted(path.stem for path in (SAMPLE / "snapshots" / "2026-11" / "countries").glob("*.json"))
PATHS = tuple(f"/api/v1/readiness?code={code}" for code in CODES) + tuple(
    f"/api/v1/readiness?codes={first},{second}&fields=score" for first, second in zip(CODES, CODES[1:], strict=False)
)
"""Small answers, many keys: each request is a whole answer in one write of the API."""
UNLIMITED = {"rate": "100000r/s", "burst": 100000, "miss_rate": "100000r/s", "miss_burst": 100000,
             "total_miss_rate": "100000r/s", "total_miss_burst": 100000}
"""The edge's limits out of the way: the load is one client asking for misses only."""
FAIL_TIMEOUT_SECONDS = 2
"""The template's fail_timeout (readiness/edge_config.py): after it nginx tries a failed
upstream again, with one request."""


@pytest.fixture(scope="module")
def nginx() -> str:
    executable = nginx_executable()
    if executable is None:
        unavailable(MISSING)
    return executable


def _pair(start: Start, log_dir: Path, shutdown_delay: int) -> list[Server]:
    """Two API processes on the bundled sample, answering with max-age=0 (the edge stores
    nothing: every request reaches one of them)."""
    env = {"READINESS_MAX_AGE_SECONDS": "0", "READINESS_BEHIND_PROXY": "true",
           "READINESS_SHUTDOWN_DELAY_SECONDS": str(shutdown_delay)}
    return [launch(start, log_dir, env) for _ in range(2)]


def _answered(server: Server) -> float:
    """The /api/v1 requests a process has answered 200 (its /metrics)."""
    return server.metric("readiness_http_requests_total", route="v1", method="GET", status="200")


def _stop(server: Server, signum: signal.Signals) -> None:
    server.process.send_signal(signum)
    try:
        server.process.wait(timeout=30)  # SIGTERM: the drain (READINESS_DRAIN_SECONDS) bounds it
    except subprocess.TimeoutExpired:
        pytest.fail(f"server.py did not exit within 30 s of {signum.name}")


@pytest.mark.parametrize(("signum", "shutdown_delay"), [
    (signal.SIGKILL, 0),
    # Stopped: at once, or (as in Kubernetes, shorter) answering with Connection: close for a
    # second before the listener closes.
    (signal.SIGTERM, 0),
    (signal.SIGTERM, 1),
], ids=["killed", "stopped", "stopped-after-a-delay"])
def test_edge_loses_no_request_when_an_api_process_dies_under_load(
    nginx: str, start: Start, tmp_path: Path, signum: signal.Signals, shutdown_delay: int
) -> None:
    pair = _pair(start, tmp_path, shutdown_delay)
    doomed, survivor = pair
    with Nginx(nginx, tuple(f"127.0.0.1:{server.port}" for server in pair), **UNLIMITED) as edge:
        with Load([edge.port], PATHS, workers=2, max_requests=20_000, max_seconds=60, timeout=10) as load:
            load.wait_for_count(100)
            until(lambda: all(_answered(server) > 0 for server in pair), 10, "both API processes answer the edge")
            _stop(doomed, signum)
            before = _answered(survivor)
            gone = time.monotonic()  # the doomed process has exited: the survivor answers alone
            # Past the fail_timeout: nginx tries the dead address again, and a request it
            # sends there must still be answered by the other.
            load.wait(lambda samples: any(s.sent > gone + FAIL_TIMEOUT_SECONDS + 0.5 for s in samples), 30,
                      "requests sent well after the exit were answered")
            load.wait_for_count(100, after=gone)
        samples = load.samples
        failed = [(s.status, s.path, s.body[:200]) for s in samples if s.status != 200]
        assert not failed, f"{len(failed)} of {len(samples)} requests failed, e.g. {failed[:3]}"
        # Every one reached an API process (nothing was stored); those sent once the doomed
        # one had exited, the survivor.
        until(lambda: len(edge.access_log.read_text().splitlines()) >= len(samples), 10, "every request is logged")
        lines = edge.access_log.read_text().splitlines()
    assert all(" cache=MISS " in line for line in lines), [line for line in lines if " cache=MISS " not in line][:3]
    assert _answered(survivor) - before >= sum(s.sent > gone for s in samples) >= 100
    assert doomed.process.poll() is not None


def test_edge_probe_is_answered_by_nginx_with_no_api_process_up(nginx: str) -> None:
    with Nginx(nginx, (f"127.0.0.1:{free_port()}",)) as edge:  # nothing listens there
        status_port = int(edge.settings.status_listen.rsplit(":", 1)[1])
        assert fetch(edge.port, "/api/v1/readiness?code=KEN")[0] == 503  # no API indeed
        for path in ("/readyz", "/healthz"):
            status, body = fetch(status_port, path)
            assert (status, json.loads(body)) == (200, {"status": "ok"}), path
        assert fetch(status_port, "/api/v1/readiness")[0] == 404  # only the probe: never a proxy
        # The public port does not answer the probe's routes (the operations routes are hidden).
        assert fetch(edge.port, "/readyz")[0] == 404
