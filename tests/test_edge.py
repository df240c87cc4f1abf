"""The edge (docs/OPERATIONS.md, "The edge"): real nginx, rendered from the shipped template
(k8s/base/edge.conf.template), in front of two real server.py processes sharing one real
redis-server, all on 127.0.0.1.

Short, bounded versions of what bench/edge.py measures at length: answers through the edge are
the API's own (bytes, headers, encodings, 304, CORS), errors are never stored, the operations
routes are unreachable, concurrent misses collapse into one, a limited client gets 429 with the
envelope, both API processes dead leave cached keys answering and the rest failing fast, and a
publish reaches the edge within the documented bound.

nginx comes from Debian's package: ``make test`` installs it when missing (as root); without it
these tests skip, saying how to install it, and fail under READINESS_NO_SKIPS.
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from readiness.edge_config import EdgeConfigError, EdgeSettings, edge_config, render
from readiness.http.representation import prefers_gzip
from tests.conftest import ROOT, SAMPLE, add_snapshot, copy_tree, flip, unavailable
from tests.edge_nginx import Nginx, nginx_executable
from tests.processes import RedisServer, free_port, redis_server_executable, until, wait_until_up

KEN = "/api/v1/readiness?code=KEN"
PATHS = (
    KEN,
    "/api/v1/readiness",
    "/api/v1/readiness?region=LAC&sort=score&order=desc",
    "/api/v1/readiness?codes=KEN,BRA,USA&fields=score",
    "/api/v1/readiness?year=2024&codes=ARG,BRA",
    "/api/readiness?code=BRA",
    "/api/v1/openapi.json",
)
"""Current, global, filtered, archived, legacy and document answers: small and large bodies."""
CODES = sorted(path.stem for path in (SAMPLE / "snapshots" / "2026-11" / "countries").glob("*.json"))
REPRESENTATION_HEADERS = (
    "Content-Type", "Content-Encoding", "Etag", "Cache-Control", "Vary", "Last-Modified",
    "Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "X-Content-Type-Options",
    "Deprecation", "Link", "Content-Disposition", "X-Readiness-Snapshot", "X-Total-Count",
)


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def cache(self) -> str:
        return self.headers.get("X-Edge-Cache", "")


def request(port: int, path: str, headers: Mapping[str, str] | None = None, timeout: float = 5) -> Reply:
    """One GET on a new connection; raw bytes (never decompressed), headers by their sent case."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers=dict(headers or {}))
        response = connection.getresponse()
        return Reply(response.status, {name.title(): value for name, value in response.getheaders()}, response.read())
    finally:
        connection.close()


# --- the processes --------------------------------------------------------------------------


class Apis:
    """Two server.py processes on fixed free ports, sharing one Redis; killable and restartable
    on the same ports, as pods behind a Service come back."""

    def __init__(self, log_dir: Path, env: Mapping[str, str]) -> None:
        self.ports = (free_port(), free_port())
        self.log_dir = log_dir
        self.env = dict(env)
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def upstreams(self) -> tuple[str, ...]:
        return tuple(f"127.0.0.1:{port}" for port in self.ports)

    def start(self) -> None:
        """Start both (in parallel: each reads the sample) and wait until both answer."""
        self.processes = []
        for port in self.ports:
            with (self.log_dir / f"server-{port}.log").open("ab") as log:
                self.processes.append(subprocess.Popen(
                    [sys.executable, str(ROOT / "server.py")], cwd=ROOT, stdout=log, stderr=log,
                    env={**os.environ, "READINESS_SHUTDOWN_DELAY_SECONDS": "0", "READINESS_PORT": str(port),
                         "READINESS_ADMIN_PORT": str(free_port()), "READINESS_BEHIND_PROXY": "true", **self.env},
                ))
        for port, process in zip(self.ports, self.processes, strict=True):
            wait_until_up(port, process)

    def kill(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
        self.processes = []


@pytest.fixture(scope="module")
def nginx() -> str:
    executable = nginx_executable()
    if executable is None:
        unavailable("nginx is not installed (Debian: apt-get install nginx;"
                    " `make test` installs it as root)")
    return executable


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(redis_server_executable(), free_port(), tmp_path_factory.mktemp("redis") / "redis.log")
    server.start()
    try:
        yield server.url
    finally:
        server.kill()


@pytest.fixture(scope="module")
def apis(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Apis]:
    """Two API processes on the bundled sample, shared by the tests that do not stop them."""
    pair = Apis(tmp_path_factory.mktemp("apis"), {"READINESS_REDIS_URL": redis_url})
    pair.start()
    try:
        yield pair
    finally:
        pair.kill()


@pytest.fixture
def edge(nginx: str, apis: Apis) -> Iterator[Nginx]:
    """A fresh edge (empty cache) in front of the shared API processes."""
    with Nginx(nginx, apis.upstreams) as running:
        yield running


def upstream_lines(edge: Nginx, path: str) -> list[str]:
    """The edge's access-log lines for ``path`` that reached an API process."""
    return [line for line in edge.access_log.read_text().splitlines()
            if f'"GET {path} HTTP/1.1"' in line and "upstream=127.0.0.1" in line]


# --- the configuration ----------------------------------------------------------------------


def test_edge_template_renders_every_placeholder_and_nginx_accepts_it(nginx: str) -> None:
    with Nginx(nginx, ("127.0.0.1:9",)) as running:
        checked = running.check()
        assert checked.returncode == 0, checked.stderr
        assert not re.search(r"\$\{EDGE_[A-Z_]+\}", (running.prefix / "edge.conf").read_text())


def test_edge_render_refuses_a_missing_or_an_unknown_placeholder() -> None:
    with pytest.raises(EdgeConfigError, match="no value for EDGE_RATE"):
        render("rate=${EDGE_RATE};", {})
    with pytest.raises(EdgeConfigError, match="no placeholder EDGE_RAET"):
        render("rate=${EDGE_RATE};", {"EDGE_RATE": "1r/s", "EDGE_RAET": "2r/s"})
    assert render("a $host ${EDGE_X} $EDGE_X", {"EDGE_X": "1"}) == "a $host 1 $EDGE_X"


def test_edge_defaults_are_the_kubernetes_environment() -> None:
    env = dict(line.split("=", 1) for line in (ROOT / "k8s" / "base" / "edge.env").read_text().splitlines()
               if line and not line.startswith("#"))
    defaults = EdgeSettings("8080", ("api:80",), Path("/var/cache/nginx/readiness"), "/dev/stdout readiness_edge")
    rendered = defaults.variables()
    for name in ("EDGE_RATE", "EDGE_BURST", "EDGE_CONNECTIONS", "EDGE_CACHE_MAX_SIZE", "EDGE_CACHE_KEYS_ZONE"):
        assert env[name] == rendered[name], name
    assert set(env) - {"NGINX_ENVSUBST_FILTER"} == set(rendered)
    edge_config(defaults)  # every placeholder has a value, and every value a placeholder


def test_edge_kubernetes_main_config_and_template_pass_nginx_t(nginx: str, tmp_path: Path) -> None:
    # As the image runs them: the main configuration with `-g 'daemon off;'`, and the template
    # rendered from edge.env into conf.d (the upstream and the cache moved to this machine).
    base = ROOT / "k8s" / "base"
    env = dict(line.split("=", 1) for line in (base / "edge.env").read_text().splitlines()
               if line and not line.startswith("#"))
    env = {name: value for name, value in env.items() if name.startswith("EDGE_")}
    env |= {"EDGE_UPSTREAM_SERVERS": "server 127.0.0.1:9;", "EDGE_CACHE_DIR": str(tmp_path / "cache")}
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    (conf_d / "default.conf").write_text(render((base / "edge.conf.template").read_text(), env))
    main = (base / "edge-nginx.conf").read_text()
    assert "include /etc/nginx/conf.d/*.conf;" in main and "daemon " not in main
    (tmp_path / "nginx.conf").write_text(main.replace("/etc/nginx/conf.d/", f"{conf_d}/")
                                         .replace("/tmp/", f"{tmp_path}/"))
    checked = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                              "-e", "stderr", "-g", "daemon off;"], capture_output=True, text=True, timeout=30,
                             check=False)
    assert checked.returncode == 0, checked.stderr


# --- correctness through the edge -----------------------------------------------------------


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
def test_edge_answers_are_the_apis_bytes_and_headers(edge: Nginx, apis: Apis, encoding: str) -> None:
    headers = {"Accept-Encoding": encoding}
    for path in PATHS:
        direct = request(apis.ports[0], path, headers)
        assert direct.status == 200, (path, direct.body)
        first, second = request(edge.port, path, headers), request(edge.port, path, headers)
        assert (first.cache, second.cache) == ("MISS", "HIT"), path
        for through in (first, second):
            assert through.status == 200 and through.body == direct.body, path
            for name in REPRESENTATION_HEADERS:
                assert through.headers.get(name) == direct.headers.get(name), (path, name)
    global_answer = request(edge.port, "/api/v1/readiness", headers)
    assert global_answer.headers.get("Content-Encoding") == (None if encoding == "identity" else "gzip")


def test_edge_gives_gzip_only_to_clients_that_accept_it(edge: Nginx, apis: Apis) -> None:
    identity = request(apis.ports[0], "/api/v1/readiness", {"Accept-Encoding": "identity"}).body
    offers = ["gzip", "identity", "gzip;q=0", "*", "br", "gzip, deflate, br, zstd", "GZIP;Q=0.5", "gzip;q=0.000",
              "x-gzip", "*;q=1, gzip;q=0", "gzip;level=1;q=0", "gzip;q=abc", "gzip;q=-1", "", "deflate, gzip;q=0.001"]
    for offer in offers * 2:  # the second round is served from the cache
        reply = request(edge.port, "/api/v1/readiness", {"Accept-Encoding": offer} if offer else {})
        assert reply.status == 200
        if reply.headers.get("Content-Encoding") == "gzip":
            assert prefers_gzip(offer), offer
            assert reply.headers["Etag"].endswith('-gz"') and gzip.decompress(reply.body) == identity, offer
        else:
            assert "Content-Encoding" not in reply.headers and reply.body == identity, offer
            assert not reply.headers["Etag"].endswith('-gz"'), offer
    assert request(edge.port, "/api/v1/readiness", {"Accept-Encoding": "gzip"}).headers["Content-Encoding"] == "gzip"


def test_edge_answers_304_to_a_matching_etag_for_either_encoding(edge: Nginx) -> None:
    for encoding in ("gzip", "identity"):
        full = request(edge.port, "/api/v1/readiness", {"Accept-Encoding": encoding})
        etag = full.headers["Etag"]
        revalidated = request(edge.port, "/api/v1/readiness", {"Accept-Encoding": encoding, "If-None-Match": etag})
        assert (revalidated.status, revalidated.body, revalidated.cache) == (304, b"", "HIT"), encoding
        assert revalidated.headers["Etag"] == etag
        assert revalidated.headers["Access-Control-Allow-Origin"] == "*"
        other = request(edge.port, "/api/v1/readiness", {"Accept-Encoding": encoding, "If-None-Match": '"other"'})
        assert other.status == 200 and other.body == full.body


def test_edge_never_stores_errors(edge: Nginx, apis: Apis) -> None:
    for path in ("/api/v1/readiness?order=up", "/api/v1/readiness?year=2022", "/api/v1/nothing-here"):
        direct = request(apis.ports[0], path)
        replies = [request(edge.port, path) for _ in range(3)]
        for reply in replies:
            assert (reply.status, reply.body) == (direct.status, direct.body), path
            assert reply.headers["Cache-Control"] == "no-store" and reply.cache == "MISS", path
            assert reply.headers["Access-Control-Allow-Origin"] == "*"
        # nginx logs a request just after answering it; every one went to the API.
        until(lambda path=path: len(upstream_lines(edge, path)) >= 3, 5, f"the requests for {path} are logged")
        assert len(upstream_lines(edge, path)) == 3, path


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "//healthz", "/HEALTHZ", "/readyz/",
                                  "/healthz?verbose=1", "/./metrics", "/api/../healthz", "/%68ealthz"])
def test_edge_hides_the_operations_routes(edge: Nginx, path: str) -> None:
    reply = request(edge.port, path)
    assert reply.status == 404, (path, reply.body)
    assert json.loads(reply.body) == {"apiVersion": "1", "error": "Not found."}
    assert reply.headers["Cache-Control"] == "no-store"
    # nginx logs a request just after answering it.
    until(lambda: bool(edge.access_log.read_text()), 5, "the request is logged")
    assert "upstream=-" in edge.access_log.read_text().splitlines()[-1]


def test_edge_sends_one_request_upstream_for_concurrent_misses(edge: Nginx) -> None:
    path = "/api/v1/readiness?region=SSA&sort=score"
    with ThreadPoolExecutor(16) as pool:
        replies = list(pool.map(lambda _: request(edge.port, path), range(16)))
    assert {reply.status for reply in replies} == {200}
    assert len({reply.body for reply in replies}) == 1
    until(lambda: len(edge.access_log.read_text().splitlines()) >= 16, 5, "the requests are logged")
    assert len(upstream_lines(edge, path)) == 1


# --- limits ---------------------------------------------------------------------------------


def test_edge_answers_a_client_over_its_rate_429_with_the_envelope(nginx: str, apis: Apis) -> None:
    with Nginx(nginx, apis.upstreams, rate="1r/m", burst=5) as limited:
        replies = [request(limited.port, KEN) for _ in range(12)]
    statuses = [reply.status for reply in replies]
    assert statuses[:6] == [200] * 6 and set(statuses[6:]) == {429}, statuses
    refused = replies[-1]
    assert json.loads(refused.body)["apiVersion"] == "1" and "Too many requests" in json.loads(refused.body)["error"]
    assert refused.headers["Content-Type"] == "application/json; charset=utf-8"
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.headers["Cache-Control"] == "no-store"
    assert refused.headers["Access-Control-Allow-Origin"] == "*"


def test_edge_limits_each_client_behind_a_trusted_proxy_by_its_forwarded_address(nginx: str, apis: Apis) -> None:
    with Nginx(nginx, apis.upstreams, rate="1r/m", burst=2, real_ip_from=("127.0.0.1",)) as limited:
        def status(client: str) -> int:
            return request(limited.port, KEN, {"X-Forwarded-For": f"203.0.113.9, {client}"}).status

        assert [status("198.51.100.1") for _ in range(4)] == [200, 200, 200, 429]
        # Another client behind the same proxy has its own budget; the address a client put
        # in front of the list is not believed (the proxy appended the real one).
        assert [status("198.51.100.2") for _ in range(3)] == [200, 200, 200]


def test_edge_default_limits_let_a_script_fetch_all_217_countries_fast(edge: Nginx) -> None:
    # One client, 8 requests in flight, every country twice (no pause): the documented burst
    # covers it, so a script never meets a 429.
    paths = [f"/api/v1/readiness?code={code}" for code in CODES] * 2
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda path: request(edge.port, path).status, paths))
    assert len(CODES) == 217 and statuses == [200] * len(paths)


# --- failure and recovery -------------------------------------------------------------------


def test_edge_serves_cached_keys_while_every_api_process_is_down_and_resumes_after(
    nginx: str, redis_url: str, tmp_path: Path
) -> None:
    # max-age=1 and stale-while-revalidate=1: the entries are expired, and past the window
    # in which nginx answers stale while it revalidates, while the processes are down, so
    # what answers is the stale copy that stale-if-error allows (with stale-if-error=0 this
    # test fails), not a fresh entry.
    pair = Apis(tmp_path, {"READINESS_REDIS_URL": redis_url, "READINESS_MAX_AGE_SECONDS": "1",
                           "READINESS_STALE_WHILE_REVALIDATE_SECONDS": "1"})
    pair.start()
    try:
        with Nginx(nginx, pair.upstreams) as edge:
            cached = {path: request(edge.port, path, {"Accept-Encoding": "gzip"}) for path in PATHS[:4]}
            assert all(reply.status == 200 for reply in cached.values())
            fetched = time.monotonic()
            pair.kill()
            until(lambda: request(edge.port, KEN, {"Accept-Encoding": "gzip"}).cache == "STALE", 10,
                  "the expired entry is served stale while the API is down")
            # Past max-age and stale-while-revalidate (1 + 1 s) since the entries were fetched.
            until(lambda: time.monotonic() - fetched > 3, 10, "the revalidation window is over")
            for path, before in cached.items():
                reply = request(edge.port, path, {"Accept-Encoding": "gzip"})
                assert (reply.status, reply.body, reply.cache) == (200, before.body, "STALE"), path
            began = time.monotonic()
            uncached = request(edge.port, "/api/v1/readiness?code=FRA", timeout=10)
            assert time.monotonic() - began < 5, "an uncached key must fail fast, not hang"
            assert uncached.status == 503 and uncached.headers["Retry-After"] == "5"
            assert json.loads(uncached.body)["apiVersion"] == "1"
            assert uncached.headers["Cache-Control"] == "no-store"

            pair.start()  # the same ports, as pods come back behind a Service
            until(lambda: request(edge.port, "/api/v1/readiness?code=FRA").status == 200, 15,
                  "the edge reaches the API again with no manual step")
            until(lambda: request(edge.port, KEN, {"Accept-Encoding": "gzip"}).cache in ("HIT", "REVALIDATED", "EXPIRED"),
                  15, "the stale entry is refreshed from the API")
    finally:
        pair.kill()


def test_service_cache_control_states_the_stale_windows_the_edge_uses(edge: Nginx) -> None:
    reply = request(edge.port, KEN)
    assert reply.headers["Cache-Control"] == "public, max-age=300, stale-while-revalidate=30, stale-if-error=86400"


# --- a monthly refresh ----------------------------------------------------------------------


def test_edge_serves_a_published_snapshot_within_max_age_and_the_revalidation(
    nginx: str, redis_url: str, tmp_path: Path
) -> None:
    max_age = 2
    data = copy_tree(SAMPLE, tmp_path / "data")
    pair = Apis(tmp_path, {"READINESS_REDIS_URL": redis_url, "READINESS_MAX_AGE_SECONDS": str(max_age),
                           "READINESS_DATA_DIR": str(data), "READINESS_SNAPSHOT_POLL_SECONDS": "1",
                           "READINESS_REDIS_SIGNING_KEY": "edge-refresh-test"})
    pair.start()
    path = "/api/v1/readiness?code=KEN&fields=score"
    try:
        with Nginx(nginx, pair.upstreams) as edge:
            old = json.loads(request(edge.port, path).body)["data"]["Composite Readiness Score"]
            assert old != 99.5
            add_snapshot(data, "2026-12", kenya_score=99.5)
            flip(data, "2026-12")
            until(lambda: all(json.loads(request(port, path).body)["data"]["Composite Readiness Score"] == 99.5
                              for port in pair.ports), 20, "both API processes serve the new snapshot")
            published = time.monotonic()
            seen: list[object] = []

            def poll() -> bool:
                score = json.loads(request(edge.port, path).body)["data"]["Composite Readiness Score"]
                seen.append(score)
                return score == 99.5

            waited = until(poll, 20, "the edge serves the new snapshot")
            # The bound (docs/OPERATIONS.md): max-age after the edge last fetched (which was
            # before the publish), plus one background revalidation.
            assert time.monotonic() - published < max_age + 2, waited
            assert set(seen) <= {old, 99.5}
            assert json.loads(request(edge.port, path).body)["data"]["Composite Readiness Score"] == 99.5
    finally:
        pair.kill()
