"""bench/edge.py's fairness phases: what they read and how they judge it, without running them
(nothing is timed: docs/TESTING.md#the-suite-is-deterministic-on-a-machine-twice-as-slow).
The edge's log lines are parsed as the template writes them, clients are told apart by the
addresses the phases use, queries are priced by the service's own cost functions, and the
fair share is the max-min share of the module docstring."""

from __future__ import annotations

import socket
from pathlib import Path

from readiness.edge_config import TEMPLATE
from tests.bench_scripts import bench_module
from tests.conftest import SAMPLE

edge = bench_module("edge")


def test_the_edge_log_is_read_in_the_templates_format(tmp_path: Path) -> None:
    template = TEMPLATE.read_text()
    assert ("log_format readiness_edge '$remote_addr [$time_iso8601] \"$request\" $status $body_bytes_sent '\n"
            "                          'cache=$upstream_cache_status upstream=$upstream_addr '\n"
            "                          'upstream_status=$upstream_status seconds=$request_time';") in template
    log = tmp_path / "access.log"
    log.write_text(
        '2001:db8:1:2::9 [2026-11-28T10:00:00+00:00] "GET /api/v1/readiness?codes=AGO,KEN HTTP/1.1" 200 512 '
        "cache=MISS upstream=127.0.0.1:8081 upstream_status=200 seconds=0.002\n"
        '203.0.113.10 [2026-11-28T10:00:00+00:00] "GET /api/v1/history?code=KEN HTTP/1.1" 429 98 '
        "cache=MISS upstream=127.0.0.1:8081 upstream_status=429 seconds=0.000\n"
        '127.0.0.1 [2026-11-28T10:00:00+00:00] "GET /api/v1/readiness?code=KEN HTTP/1.1" 200 2048 '
        "cache=HIT upstream=- upstream_status=- seconds=0.000\n"
    )
    assert edge.edge_lines(log, 1) == edge.edge_lines(log, 0)[1:]
    assert edge.edge_lines(log, 0) == [
        ("2001:db8:1:2::9", "/api/v1/readiness?codes=AGO,KEN", 200, "MISS", "127.0.0.1:8081", "200"),
        ("203.0.113.10", "/api/v1/history?code=KEN", 429, "MISS", "127.0.0.1:8081", "429"),
        ("127.0.0.1", "/api/v1/readiness?code=KEN", 200, "HIT", "-", "-"),
    ]


def test_clients_are_told_apart_by_their_addresses() -> None:
    assert edge.client_of(edge.ATTACKER) == "attacker"
    assert edge.client_of("2001:db8:1:2:ffff:1:2:3") == "attacker"  # any address of the rotating /64
    assert edge.client_of("2001:db8:1:3::1") == "other"
    assert edge.client_of(edge.INNOCENT) == "innocent"
    assert edge.client_of("127.0.0.1") == "other"
    assert edge.client_of("None") == "other"


def test_queries_are_priced_as_the_budget_prices_them() -> None:
    pricer = edge.Pricer(SAMPLE)
    page = pricer.price("/api/v1/indicators", "years=2022:2026&shape=long&limit=1000&offset=5000")
    assert 150_000 < page < 300_000  # a page, not the table (docs/CACHING.md#the-compute-budget: 0.23 MB)
    whole = pricer.price("/api/v1/indicators", "years=2022:2026&shape=long")
    assert whole > 8 * 2**20  # the service refuses it with 400 (READINESS_MAX_ANSWER_BYTES)
    assert pricer.price("/api/v1/history", "codes=AGO,KEN&fields=score") < 10_000
    assert pricer.price("/api/v1/readiness", "codes=AGO,KEN&snapshot=2024-06") > 0
    assert pricer.price("/api/v1/readiness", "regoin=LAC") == 0  # a 400 costs nothing
    assert pricer.price("/api/v1/nothing", "") == 0
    assert pricer.long_rows(2022, 2026) > 50_000
    # Two spellings of one query are one key at the API.
    assert (pricer.canonical("/api/v1/readiness", "codes=KEN,AGO")
            == pricer.canonical("/api/v1/readiness", "codes=AGO,KEN"))


def test_the_fair_share_is_max_min() -> None:
    mb = 2**20
    rate, seconds = edge.BUDGET_RATE, 10.0
    spare = edge.BUDGET_BUCKET + edge.BUDGET_OVERDRAFT

    def result(attacker: int, innocent: int) -> dict[str, object]:
        clients = {"attacker": {"priced_bytes": attacker}, "innocent": {"priced_bytes": innocent}}
        return {"attack_seconds": seconds, "api_clients": [clients, clients]}

    # The innocent client asks for little: the attacker may take the rest of the budget.
    small = edge.fair_share(result(int(rate * seconds - mb + spare), mb))
    assert small["passed"] and small["fair_share_mb"][0] == round((rate * seconds - mb + spare) / mb, 1)
    assert not edge.fair_share(result(int(rate * seconds - mb + spare) + 1, mb))["passed"]
    # Both ask for more than half: half each.
    busy = edge.fair_share(result(int(rate * seconds / 2 + spare), int(rate * seconds)))
    assert busy["passed"] and busy["fair_share_mb"][0] == round((rate * seconds / 2 + spare) / mb, 1)
    assert not edge.fair_share(result(int(rate * seconds / 2 + spare) + 1, int(rate * seconds)))["passed"]
    # Archive reads count as the attacker's.
    assert not edge.fair_share(result(0, 0), [int(rate * seconds + spare) + 1, 0])["passed"]


def test_socket_memory_is_counted_by_hop() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            served, _ = listener.accept()
            with served:
                served.sendall(b"x" * 10_000)  # the client never reads
                hops = edge.socket_memory({port: "API"})
    assert set(hops) == {"API out", "from API"}
    assert hops["from API"]["sockets"] == 1 and hops["API out"]["sockets"] == 1
    assert hops["from API"]["queued"] == 10_000
    assert hops["from API"]["memory"] >= 10_000  # the receive queue's buffers, at least its bytes


def test_the_phases_run_with_the_edge_pods_sysctls() -> None:
    # The receive buffers of the edge pod's sockets (nginx sets none upstream) are the pod's
    # sysctl: the slow readers measured on the host's would not be the deployment's.
    sysctls = edge.edge_pod_sysctls()
    assert set(sysctls) == {"net.ipv4.tcp_rmem"}
    low, default, high = (int(value) for value in sysctls["net.ipv4.tcp_rmem"].split())
    assert low <= default <= high <= 64 * 1024
