"""The edge (docs/OPERATIONS.md#the-edge): real nginx, rendered from the shipped template
(k8s/base/edge.conf.template), in front of two real server.py processes sharing one real
redis-server, all on 127.0.0.1.

Short, bounded versions of what bench/edge.py measures at length: answers through the edge are
the API's own (bytes, headers, encodings as the client weighs them, 304, CORS), errors are never
stored, the operations routes are unreachable, concurrent misses collapse into one, a limited
client gets 429 with the envelope, so does a client over its miss budget (the gate), every error
the edge makes itself is the JSON envelope, one client busting the cache neither reaches the API
beyond its budget nor costs another client its hits, large answers are never stored, 300 clients
that never read hold a bounded amount of memory, both API processes dead leave cached keys
answering and the rest failing fast, and a publish reaches the edge within the documented bound.

nginx comes from Debian's package: ``make test`` installs it when missing (as root); without it
these tests skip, saying how to install it, and fail under READINESS_NO_SKIPS.
"""

from __future__ import annotations

import gzip
import http.client
import json
import math
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from readiness.edge_config import EdgeConfigError, EdgeSettings, edge_config, render
from readiness.http.representation import prefers_gzip
from tests.conftest import ROOT, SAMPLE, add_snapshot, copy_tree, flip, unavailable
from tests.edge_nginx import Nginx, nginx_executable
from tests.processes import (
    SERVER_ENV,
    RedisServer,
    free_port,
    free_ports,
    redis_server_executable,
    until,
    wait_until_up,
)

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
LARGE_ANSWER_BYTES = 150_000
"""The edge never stores an answer this large ($edge_large in the template)."""
MiB = 1024 * 1024
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


def request(
    port: int, path: str, headers: Mapping[str, str] | None = None, timeout: float = 30, source: str = "127.0.0.1"
) -> Reply:
    """One GET on a new connection from ``source`` (any 127/8 address: another client to the
    edge); raw bytes (never decompressed), headers by their sent case. The timeout guards
    against a hang, no latency bound: a first archive read or an API process computing under
    the suite's other workers takes seconds (a test bounding latency says so itself)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
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
        self.ports = free_ports(2)
        self.log_dir = log_dir
        self.env = dict(env)
        self.processes: list[subprocess.Popen[bytes]] = []
        self._markers = 0

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
                    env={**os.environ, **SERVER_ENV, "READINESS_PORT": str(port),
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

    def requests_from(self, client: str) -> int:
        """How many requests from ``client`` both processes have logged (each writes its access
        lines once a second: ``logs_caught_up`` first)."""
        count = 0
        for port in self.ports:
            for line in (self.log_dir / f"server-{port}.log").read_text(errors="replace").splitlines():
                if '"readiness.access"' in line and json.loads(line).get("remote") == client:
                    count += 1
        return count

    def logs_caught_up(self) -> None:
        """Return once each process has written the access line of every request it answered
        before this call: a marker request straight to each (from MARKER, so no client's count
        changes), then poll until both markers are logged. Each process writes its lines in
        the order it answered, once a second (or later, on a busy machine)."""
        self._markers += 1
        query = f"caught-up={self._markers}"
        for port in self.ports:
            assert request(port, f"/healthz?{query}", source=MARKER).status == 200

        def logged(port: int) -> bool:
            text = (self.log_dir / f"server-{port}.log").read_text(errors="replace")
            return f'"query":"{query}"' in text

        until(lambda: all(logged(port) for port in self.ports), 20, "both API processes logged the marker")


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
    """The edge's access-log lines for ``path`` that its cache did not answer: each went through
    the gate (127.0.0.1) to an API process."""
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
    for name in ("EDGE_RATE", "EDGE_BURST", "EDGE_CONNECTIONS", "EDGE_CACHE_MAX_SIZE", "EDGE_CACHE_KEYS_ZONE",
                 "EDGE_MISS_RATE", "EDGE_MISS_BURST", "EDGE_TOTAL_MISS_RATE", "EDGE_TOTAL_MISS_BURST",
                 "EDGE_GATE_LISTEN", "EDGE_STATUS_LISTEN"):
        assert env[name] == rendered[name], name
    # The upstream is the Deployment's own variable (it names the namespace: tests/test_k8s.py).
    assert set(env) - {"NGINX_ENVSUBST_FILTER"} == set(rendered) - {"EDGE_UPSTREAM_SERVERS"}
    edge_config(defaults)  # every placeholder has a value, and every value a placeholder


def test_edge_cache_volume_holds_the_cap_and_what_misses_write_before_nginx_trims() -> None:
    # nginx's cache manager trims the cache to max_size, but looks every 10 s at most while
    # the cache is under it: what misses write in between comes on top. The gate lets through
    # at most EDGE_TOTAL_MISS_BURST + 10 s x EDGE_TOTAL_MISS_RATE of them, each under 150 kB
    # (larger answers are never stored), and the directories hold the entries' names.
    base = ROOT / "k8s" / "base"
    env = dict(line.split("=", 1) for line in (base / "edge.env").read_text().splitlines()
               if line and not line.startswith("#"))
    deployment = yaml.safe_load((base / "edge-deployment.yaml").read_text())
    volumes = {volume["name"]: volume for volume in deployment["spec"]["template"]["spec"]["volumes"]}
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    (mount,) = [mount for mount in container["volumeMounts"] if env["EDGE_CACHE_DIR"].startswith(mount["mountPath"])]
    size_limit = volumes[mount["name"]]["emptyDir"]["sizeLimit"]
    assert size_limit.endswith("Mi") and env["EDGE_CACHE_MAX_SIZE"].endswith("m")
    max_size = int(env["EDGE_CACHE_MAX_SIZE"].removesuffix("m")) * MiB  # nginx's m is MiB
    misses = int(env["EDGE_TOTAL_MISS_BURST"]) + 10 * int(env["EDGE_TOTAL_MISS_RATE"].removesuffix("r/s"))
    # The 256 directories (levels=2) hold every entry's name: 8,000 keys per MB of the keys
    # zone (nginx's figure), 64 bytes each at most on ext4, and 4 KiB at least each.
    entries = 8000 * int(env["EDGE_CACHE_KEYS_ZONE"].removesuffix("m"))
    directories = 256 * 4096 + entries * 64
    template = (base / "edge.conf.template").read_text()
    assert "levels=2 " in template and "use_temp_path=off" in template
    assert '"~^(1[5-9][0-9]{4}|[2-9][0-9]{5}|[0-9]{7,})$" 1;' in template  # 150,000 bytes and up
    assert int(size_limit.removesuffix("Mi")) * MiB >= max_size + misses * LARGE_ANSWER_BYTES + directories


SLOW_READER_BOUND = 32 * MiB
"""What the connections of one client that never read may pin, edge and API together (issue 30;
measured end to end by ``bench/edge.py --phase slow-readers``)."""
NGINX_AND_API_SHARE = 12 * MiB
"""Of that, what is left for nginx's state per request (the request, njs, headers: about
110 KiB a request measured) and the API processes; the edge pod's buffers get the rest."""


def _kib(size: str) -> int:
    return int(size.removesuffix("k")) * 1024


def test_edge_buffers_bound_what_a_client_that_never_reads_pins() -> None:
    # Each of a client's EDGE_CONNECTIONS connections that never reads fills, in the edge pod:
    # the edge's send buffer to it, the edge's proxy buffers, the edge's receive buffer from
    # the gate, the gate's send buffer to the edge, the gate's one buffer, and the gate's
    # receive buffer from the API (docs/OPERATIONS.md#slow-readers). The kernel doubles sndbuf.
    base = ROOT / "k8s" / "base"
    settings = EdgeSettings("8080", ("api:80",), Path("/var/cache/nginx/readiness"))
    config = edge_config(settings)
    edge_server, gate_server = config.split("\nserver {")[1:3]
    edge_send = _kib(re.search(r"listen 8080 sndbuf=(\d+k);", edge_server)[1]) * 2
    gate_send = _kib(re.search(r"listen 127.0.0.1:8081 sndbuf=(\d+k);", gate_server)[1]) * 2
    size = re.search(r"proxy_buffer_size (\d+k);", edge_server)[1]
    count, each = re.search(r"proxy_buffers (\d+) (\d+k);", edge_server).groups()
    edge_buffers = _kib(size) + int(count) * _kib(each)
    assert "proxy_buffering off;" in gate_server
    gate_buffer = _kib(re.search(r"proxy_buffer_size (\d+k);", gate_server)[1])
    deployment = yaml.safe_load((base / "edge-deployment.yaml").read_text())
    pod = deployment["spec"]["template"]["spec"]
    sysctls = {entry["name"]: entry["value"] for entry in pod["securityContext"]["sysctls"]}
    receive = int(sysctls["net.ipv4.tcp_rmem"].split()[2])  # the most one may grow to
    per_connection = edge_send + edge_buffers + receive + gate_send + gate_buffer + receive
    assert per_connection * settings.connections <= SLOW_READER_BOUND - NGINX_AND_API_SHARE, per_connection


def test_edge_kubernetes_main_config_and_template_pass_nginx_t(nginx: str, tmp_path: Path) -> None:
    # As the image runs them: the main configuration with `-g 'daemon off;'`, and the template
    # rendered from edge.env into conf.d (the upstream and the cache moved to this machine).
    base = ROOT / "k8s" / "base"
    env = dict(line.split("=", 1) for line in (base / "edge.env").read_text().splitlines()
               if line and not line.startswith("#"))
    env = {name: value for name, value in env.items() if name.startswith("EDGE_")}
    env |= {"EDGE_UPSTREAM_SERVERS": "server 127.0.0.1:9;", "EDGE_CACHE_DIR": str(tmp_path / "cache"),
            "EDGE_JS_PATH": str(base)}
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    (conf_d / "default.conf").write_text(render((base / "edge.conf.template").read_text(), env))
    main = (base / "edge-nginx.conf").read_text()
    assert "include /etc/nginx/conf.d/*.conf;" in main and "daemon " not in main
    # /tmp/ first: tmp_path itself is under /tmp, and the include must keep pointing at conf_d.
    (tmp_path / "nginx.conf").write_text(main.replace("/tmp/", f"{tmp_path}/")
                                         .replace("/etc/nginx/conf.d/", f"{conf_d}/"))
    checked = subprocess.run([nginx, "-T", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                              "-e", "stderr", "-g", "daemon off;"], capture_output=True, text=True, timeout=30,
                             check=False)
    assert checked.returncode == 0, checked.stderr
    assert "proxy_cache_path " in checked.stdout and "js_import edge_keys" in checked.stdout  # the template was read


# --- correctness through the edge -----------------------------------------------------------


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
def test_edge_answers_are_the_apis_bytes_and_headers(edge: Nginx, apis: Apis, encoding: str) -> None:
    headers = {"Accept-Encoding": encoding}
    for path in PATHS:
        direct = request(apis.ports[0], path, headers)
        assert direct.status == 200, (path, direct.body)
        first, second = request(edge.port, path, headers), request(edge.port, path, headers)
        # Answers of 150 kB or more (the OpenAPI document without gzip) are never stored.
        large = len(direct.body) >= LARGE_ANSWER_BYTES
        assert (first.cache, second.cache) == (("MISS", "MISS") if large else ("MISS", "HIT")), path
        for through in (first, second):
            assert through.status == 200 and through.body == direct.body, path
            for name in REPRESENTATION_HEADERS:
                assert through.headers.get(name) == direct.headers.get(name), (path, name)
    global_answer = request(edge.port, "/api/v1/readiness", headers)
    assert global_answer.headers.get("Content-Encoding") == (None if encoding == "identity" else "gzip")


def test_edge_answers_a_range_of_a_parquet_file_from_its_cache(edge: Nginx, apis: Apis) -> None:
    """DuckDB and fsspec read Parquet by ranges (docs/API.md#downloads): through the edge too,
    which keeps the whole file (nginx asks the API for it without the Range) and cuts the part."""
    path = "/api/v1/snapshots/2026-11/indicators.parquet"
    whole = request(apis.ports[0], path).body
    for cache in ("MISS", "HIT"):
        part = request(edge.port, path, {"Range": "bytes=-8"})
        assert (part.status, part.cache, part.body) == (206, cache, whole[-8:])
        assert part.headers["Content-Range"] == f"bytes {len(whole) - 8}-{len(whole) - 1}/{len(whole)}"


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


WEIGHED = {
    # identity weighed above gzip: identity (RFC 9110, as the API decides).
    "identity, gzip;q=0.1": "identity",
    "gzip;q=0.1, identity": "identity",
    "gzip;q=0.25, identity;q=0.3": "identity",
    "gzip;q=0.999, identity;q=1": "identity",
    "gzip;q=0.5, *": "identity",
    "GZIP;Q=0.2, Identity;Q=0.9": "identity",
    # gzip weighed at least as much: gzip.
    "gzip;q=0.3, identity;q=0.25": "gzip",
    "gzip, identity;q=0.5": "gzip",
    "identity;q=0.5, gzip;q=0.5": "gzip",
    "gzip;q=1, identity;q=0.999": "gzip",
    "gzip, identity": "gzip",
    "gzip;q=0.2, *;q=0.1": "gzip",
    "*;q=0.5, gzip": "gzip",
    "br, gzip;q=0.8, identity;q=0.3, *;q=0": "gzip",
    "gzip;q=0.5, identity;q=0": "gzip",
}
"""Accept-Encoding values that weigh gzip against identity, and what the edge must send."""


def test_edge_gives_identity_to_a_client_that_weighs_it_above_gzip(edge: Nginx) -> None:
    def encoding(offer: str) -> str:
        reply = request(edge.port, KEN, {"Accept-Encoding": offer})
        assert reply.status == 200, offer
        return reply.headers.get("Content-Encoding", "identity")

    for offer, expected in WEIGHED.items():
        assert encoding(offer) == expected == ("gzip" if prefers_gzip(offer) else "identity"), offer
    # Any list of codings and weights: never gzip where the API would not send it, and the
    # API's choice unless `*` is named or identity's weight is not valid (the cases where the
    # edge is stricter: identity).
    chooser = random.Random(20)
    weights = ["", ";q=0", ";q=0.0", ";q=0.1", ";q=0.25", ";q=0.3", ";q=0.5", ";q=0.999", ";q=1", ";Q=0.7", ";q=abc"]
    for _ in range(150):
        codings = chooser.sample(["gzip", "identity", "*", "br", "deflate"], chooser.randint(1, 4))
        offer = ", ".join(coding + chooser.choice(weights) for coding in codings)
        sent = encoding(offer)
        assert sent == "identity" or prefers_gzip(offer), offer
        if "*" not in codings and "identity;q=abc" not in offer:
            assert sent == ("gzip" if prefers_gzip(offer) else "identity"), offer


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


def test_edge_never_gives_a_page_in_one_language_to_a_reader_of_another(edge: Nginx) -> None:
    # A page whose language the request's headers chose varies on them (docs/PAGES.md#languages):
    # the edge stores no such answer, so each reader gets the API's page in their own language.
    chinese = [request(edge.port, "/explore", {"Accept-Language": "zh-CN,zh;q=0.9"}) for _ in range(2)]
    english = request(edge.port, "/explore", {"Accept-Language": "en-US"})
    kept = request(edge.port, "/explore", {"Accept-Language": "en-US", "Cookie": "lang=zh"})
    assert all(b'<html lang="zh-Hans"' in reply.body for reply in (*chinese, kept))
    assert b'<html lang="en"' in english.body
    assert {reply.cache for reply in (*chinese, english, kept)} == {"MISS"}
    # ?lang= names the language in the URL: the edge keeps that page under it, for every reader.
    first, again = (request(edge.port, "/explore?lang=zh", {"Accept-Language": "en-US"}) for _ in range(2))
    assert (first.cache, again.cache) == ("MISS", "HIT")
    assert b'<html lang="zh-Hans"' in again.body and again.headers["Vary"] == "Accept-Encoding"


def raw_request(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` as it is (no HTTP library would send it malformed) and read one answer:
    status, headers (title case), body."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(data)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(65536)
            assert chunk, received
            received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {name.title(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        while len(body) < int(headers.get("Content-Length", 0)):
            chunk = connection.recv(65536)
            assert chunk, body
            body += chunk
    return int(status_line.split()[1]), headers, body


EDGE_ERRORS = {
    "bad request line": (b"GARBAGE\r\n\r\n", 400),
    "extra token": (b"GET /api/v1/readiness HTTP/1.1 extra\r\nHost: a\r\n\r\n", 400),
    "no Host": (b"GET /api/v1/readiness HTTP/1.1\r\n\r\n", 400),
    "path above the root": (b"GET /../etc HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    "header over 8 KiB": (b"GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n", 400),
    "TRACE": (b"TRACE / HTTP/1.1\r\nHost: a\r\n\r\n", 405),
    "body over 64 KiB": (b"POST /api/v1/readiness HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n", 413),
    "URL beyond large_client_header_buffers": (
        b"GET /api/v1/readiness?code=KEN&_=" + b"a" * 9000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414),
    "unknown transfer coding": (b"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: rot13\r\n\r\n", 501),
    "HTTP/2 on a plain port": (b"GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
    "the edge's own error pages": (b"GET /.edge/400 HTTP/1.1\r\nHost: a\r\n\r\n", 404),
}
"""Requests nginx refuses itself, before any upstream, and the status each gets."""


@pytest.mark.parametrize("case", sorted(EDGE_ERRORS))
def test_edge_answers_its_own_errors_with_the_json_envelope(edge: Nginx, case: str) -> None:
    data, expected = EDGE_ERRORS[case]
    status, headers, body = raw_request(edge.port, data)
    assert status == expected, (case, body)
    assert headers["Content-Type"] == "application/json; charset=utf-8", case
    envelope = json.loads(body)
    assert set(envelope) == {"apiVersion", "error"} and envelope["apiVersion"] == "1", case
    assert envelope["error"] and headers["Cache-Control"] == "no-store", case
    assert headers["Access-Control-Allow-Origin"] == "*", case
    if status == 405:
        assert headers["Allow"] == "GET, HEAD, OPTIONS"
    # nginx logs a request just after answering it; none reached the gate.
    until(lambda: bool(edge.access_log.read_text()), 5, "the request is logged")
    assert "upstream=-" in edge.access_log.read_text().splitlines()[-1]


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


def test_edge_keys_an_ipv6_client_by_its_64_for_the_rate_and_the_miss_budget(nginx: str, apis: Apis) -> None:
    # docs/DECISIONS.md#fair-shares: a host's addresses in one /64 are one client.
    with Nginx(nginx, apis.upstreams, rate="1r/m", burst=3, miss_rate="1r/m", miss_burst=1,
               real_ip_from=("127.0.0.1",)) as limited:
        def reply(client: str, path: str = KEN) -> Reply:
            return request(limited.port, path, {"X-Forwarded-For": client})

        rotating = [reply(f"2001:db8:1:2::{n:x}", f"/api/v1/readiness?code={code}")
                    for n, code in enumerate(("BRA", "USA", "FRA", "DEU", "JPN"), start=1)]
        # Two misses pass (the burst of 1 and the one a bucket holds), the next is refused at
        # the gate, and the rate's burst of 3 (and 1) is spent with the fifth: all one client.
        assert [r.status for r in rotating] == [200, 200, 429, 429, 429]
        assert "uncached" in json.loads(rotating[2].body)["error"]
        assert "Too many requests" in json.loads(rotating[4].body)["error"]
        # The next /64, and an IPv4 client, each have budgets of their own.
        assert reply("2001:db8:1:3::1", "/api/v1/readiness?code=IND").status == 200
        assert reply("2001:db8:1:3:ffff::9", "/api/v1/readiness?code=CHN").status == 200
        assert reply("198.51.100.7", "/api/v1/readiness?code=MEX").status == 200


def test_edge_client_blocks_are_configurable(nginx: str, apis: Apis) -> None:
    # EDGE_IPV4_PREFIX=24: an IPv4 /24 is one client (edge-clients.js masks it); the
    # IPv4-mapped form of its addresses too.
    with Nginx(nginx, apis.upstreams, rate="1r/m", burst=1, ipv4_prefix=24, real_ip_from=("127.0.0.1",)) as limited:
        def status(client: str) -> int:
            return request(limited.port, KEN, {"X-Forwarded-For": client}).status

        assert [status("198.51.100.1"), status("198.51.100.200"), status("::ffff:198.51.100.7")] == [200, 200, 429]
        assert status("198.51.101.1") == 200


def test_edge_a_client_beyond_its_miss_budget_takes_nothing_from_the_ceiling(nginx: str, apis: Apis) -> None:
    with Nginx(nginx, apis.upstreams, miss_rate="1r/m", miss_burst=1, total_miss_rate="1r/m",
               total_miss_burst=3, real_ip_from=("127.0.0.1",)) as limited:
        def status(client: str, code: str) -> int:
            return request(limited.port, f"/api/v1/readiness?code={code}", {"X-Forwarded-For": client}).status

        codes = sorted(("BRA", "USA", "FRA", "DEU", "JPN", "IND", "CHN", "MEX", "ARG", "EGY", "NGA", "ZAF"))
        flood = [status("203.0.113.9", code) for code in codes]
        assert flood[:2] == [200, 200] and set(flood[2:]) == {429}  # its budget: 2 of 12
        # Ten refusals later the ceiling (3 and the one its bucket holds) still has room for
        # two more clients' misses: the refused ones were never counted in it.
        assert status("198.51.100.7", "KEN") == 200
        assert status("198.51.100.8", "GBR") == 200
        assert status("198.51.100.9", "ITA") == 429  # and then it is spent


def test_edge_holds_each_client_to_its_miss_budget_and_all_to_the_ceiling(nginx: str, apis: Apis) -> None:
    with Nginx(nginx, apis.upstreams, miss_rate="1r/m", miss_burst=2, total_miss_rate="1r/m",
               total_miss_burst=4) as limited:
        def get(path: str, source: str = "127.0.0.1", headers: Mapping[str, str] | None = None) -> Reply:
            return request(limited.port, path, headers, source=source)

        # Three misses pass (the budget's burst of 2 and the one a bucket holds), the fourth
        # is refused at the gate.
        replies = [get(f"/api/v1/readiness?code={code}") for code in ("KEN", "BRA", "USA", "FRA")]
        assert [(reply.status, reply.cache) for reply in replies] == [(200, "MISS")] * 3 + [(429, "MISS")]
        refused = replies[-1]
        assert json.loads(refused.body) == {"apiVersion": "1",
                                            "error": "Too many uncached requests. Retry in Retry-After seconds."}
        assert refused.headers["Content-Type"] == "application/json; charset=utf-8"
        assert refused.headers["Retry-After"] == "1" and refused.headers["Cache-Control"] == "no-store"
        assert refused.headers["Access-Control-Allow-Origin"] == "*"
        # Hits cost no budget: the cached answers keep coming.
        assert {(get(KEN).status, get(KEN).cache) for _ in range(20)} == {(200, "HIT")}
        # An X-Edge-Client header of the client's own is not believed (the edge sets it).
        assert get("/api/v1/readiness?code=DEU", headers={"X-Edge-Client": "198.51.100.7"}).status == 429
        # Another client has a budget of its own, until all clients together reach the ceiling
        # (4 in this edge's bucket, and 1 more).
        assert get("/api/v1/readiness?code=DEU", source="127.0.0.2").status == 200
        assert get("/api/v1/readiness?code=JPN", source="127.0.0.2").status == 200
        assert get("/api/v1/readiness?code=IND", source="127.0.0.2").status == 429
        assert get(KEN, source="127.0.0.2").cache == "HIT"


def test_edge_default_limits_let_a_script_fetch_all_217_countries_fast(edge: Nginx) -> None:
    # One client, 8 requests in flight, every country on three routes (651 misses), then all
    # of it again (651 hits), with no pause: the documented bursts (the miss budget's and the
    # one for all requests) cover it, so a script never meets a 429.
    routes = ("/api/v1/readiness?code={}", "/api/v1/history?code={}", "/api/v1/indicators?code={}")
    paths = [route.format(code) for code in CODES for route in routes]
    with ThreadPoolExecutor(8) as pool:
        first = list(pool.map(lambda path: request(edge.port, path, {"Accept-Encoding": "gzip"}), paths))
        second = list(pool.map(lambda path: request(edge.port, path, {"Accept-Encoding": "gzip"}), paths))
    assert len(CODES) == 217
    # No limit of the edge's refused anything. (An API process computing as much as it admits
    # may shed a miss with its own 503 on a busy machine: not stored, it is a miss again.)
    for reply in first:
        shed = reply.status == 503 and reply.headers["Retry-After"] == "1"
        assert (reply.status, reply.cache) == (200, "MISS") or shed, reply
    for before, reply in zip(first, second, strict=True):
        assert reply.status in (200, 503) and reply.cache == ("HIT" if before.status == 200 else "MISS")
    assert sum(reply.status == 200 for reply in first) >= 0.9 * len(paths)


# --- abuse ----------------------------------------------------------------------------------


ATTACKER, INNOCENT = "127.0.0.1", "127.0.0.2"
"""Two clients as the edge sees them (both loopback addresses)."""
MARKER = "127.0.0.3"
"""The address of ``Apis.logs_caught_up``'s requests: neither client's."""


def attack_paths(kind: str, chooser: random.Random) -> str:
    """A request that busts the cache: distinct valid queries (small answers), distinct large
    answers without gzip (the indicator table for 150 economies: 1.6 MB), or a random `_`
    (which the edge's normalization drops: the whole table, 2.4 MB, again and again)."""
    if kind == "codes":
        return f"/api/v1/readiness?codes={','.join(chooser.sample(CODES, 3))}&fields=score"
    if kind == "limit":
        return f"/api/v1/indicators?code={chooser.choice(CODES)}&limit={chooser.randint(1, 23)}"
    if kind == "large":
        return f"/api/v1/indicators?codes={','.join(chooser.sample(CODES, 150))}"
    return f"/api/v1/indicators?_={chooser.random()}"


def test_edge_holds_a_client_busting_the_cache_to_its_miss_budget(edge: Nginx, apis: Apis) -> None:
    # The shipped numbers: one client busts the cache as fast as it can (distinct small
    # misses, distinct large answers without gzip, a random `_`) until the gate has refused it
    # a while; another asks for popular answers meanwhile.
    settings = edge.settings
    popular = [f"/api/v1/readiness?code={code}" for code in CODES[:30]]
    for path in popular:
        request(edge.port, path, {"Accept-Encoding": "gzip"}, source=INNOCENT)
    apis.logs_caught_up()  # the earlier tests' requests from ATTACKER's address, all counted
    before = apis.requests_from(ATTACKER)
    done = threading.Event()
    outcomes: dict[tuple[str, int, str], int] = {}
    innocent: list[Reply] = []
    refused: list[str] = []  # one entry per refusal of the gate's
    admitted_after: list[str] = []  # one entry per miss the gate let through after its first refusal

    def attack(kind: str, seed: int) -> None:
        chooser = random.Random(seed)
        while not done.is_set():
            after_a_refusal = bool(refused)
            reply = request(edge.port, attack_paths(kind, chooser), timeout=30)
            key = (kind, reply.status, reply.cache)
            outcomes[key] = outcomes.get(key, 0) + 1
            if reply.status == 429 and reply.cache == "MISS":  # the gate's refusal
                refused.append(kind)
            elif reply.cache == "MISS" and after_a_refusal:
                admitted_after.append(kind)

    def ask() -> None:
        began = time.monotonic()
        for number in range(10_000):
            # 50 requests a second, until the attack ends.
            if done.wait(max(0.0, began + number / 50 - time.monotonic())):
                break
            innocent.append(request(edge.port, popular[number % 30], {"Accept-Encoding": "gzip"}, source=INNOCENT))

    began = time.monotonic()
    threads = [threading.Thread(target=attack, args=(kind, seed))
               for seed, kind in enumerate(["codes", "codes", "limit", "large", "bust"])]
    threads.append(threading.Thread(target=ask))
    for thread in threads:
        thread.start()
    try:
        # Until the gate, having refused the attacker, has let a second's worth of misses
        # through at the budget's rate (the budget's rate is held, not only its burst), and
        # the other client has asked 50 times meanwhile.
        per_second = int(settings.miss_rate.removesuffix("r/s"))
        until(lambda: len(admitted_after) >= per_second and len(innocent) >= 50, 60,
              "the gate refused the attacker, then let a second's worth of its misses through,"
              " and the other client asked 50 times")
    finally:
        done.set()
        for thread in threads:
            thread.join(60)
    seconds = time.monotonic() - began
    assert refused, outcomes
    apis.logs_caught_up()
    reached = apis.requests_from(ATTACKER) - before
    # Requests that reached the API: at most the budget's burst and its rate over the attack
    # (and the one request a bucket holds; and one for rounding).
    budget = settings.miss_burst + 2 + int(settings.miss_rate.removesuffix("r/s")) * seconds
    assert 0 < reached <= budget, (reached, budget, seconds, outcomes)
    # The other client: every answer a hit.
    assert len(innocent) >= 50 and {reply.status for reply in innocent} == {200}
    hits = sum(reply.cache == "HIT" for reply in innocent)
    assert hits / len(innocent) >= 0.99, (hits, len(innocent))
    # The cache folder: under its cap, no answer of 150 kB or more in it, and no more than
    # what the misses let through could write.
    files = edge.cache_files()
    assert sum(files) <= 768 * MiB and settings.cache_max_size == "768m"
    assert all(size < LARGE_ANSWER_BYTES + 4096 for size in files), max(files)
    assert sum(files) <= reached * (LARGE_ANSWER_BYTES + 4096)


def peek_statuses(clients: list[socket.socket]) -> list[str]:
    """The status of the answer each (non-blocking) client has been sent, left unread:
    ``"429"``, ``"200"``, ... or ``"none yet"``."""
    statuses = []
    for client in clients:
        try:
            statuses.append(client.recv(12, socket.MSG_PEEK)[9:12].decode() or "none yet")
        except BlockingIOError:
            statuses.append("none yet")
    return statuses


def test_edge_memory_for_300_clients_that_never_read_stays_bounded(edge: Nginx) -> None:
    # 300 connections from one address, each asking for a distinct answer of 1.6 MB (never
    # stored, so each goes through the gate) and never reading, with a small receive buffer
    # so that what is sent stays on the edge's side. The edge's send buffers are fixed, so a
    # request stays open while its answer waits and limit_conn counts it: 64 go on, the others
    # get 429.
    resident = edge.resident_bytes()
    chooser = random.Random(4)
    clients = []
    try:
        for _ in range(300):
            client = socket.socket()
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.connect(("127.0.0.1", edge.port))
            path = f"/api/v1/indicators?codes={','.join(chooser.sample(CODES, 150))}"
            client.sendall(f"GET {path} HTTP/1.1\r\nHost: edge\r\n\r\n".encode())
            clients.append(client)
        for client in clients:
            client.setblocking(False)
        # Every request as far as it gets: each has its answer's status line (429, or the
        # head of an answer the edge is sending), so the edge holds all it will hold.
        until(lambda: "none yet" not in peek_statuses(clients), 60, "every client has an answer's status line")
        held = edge.queued_bytes() + max(0, edge.resident_bytes() - resident)
        statuses = peek_statuses(clients)
    finally:
        for client in clients:
            client.close()
    assert held <= 64 * MiB, held
    assert statuses.count("429") >= 300 - edge.settings.connections, statuses


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
            past_the_windows = math.floor(time.time()) + 3  # stored in this second or before
            assert all(reply.status == 200 for reply in cached.values())
            # Past max-age and stale-while-revalidate, the edge revalidates in the foreground:
            # its If-None-Match passes the gate, and the API's 304 renews the entry. nginx
            # counts whole seconds: an entry stored in second s is fresh through s + 1 and
            # served stale while revalidating through s + 2, so from s + 3 on it is revalidated
            # in the foreground. No request may touch it before: one inside the window would
            # renew it in the background.
            until(lambda: time.time() >= past_the_windows, 10, "nginx's clock is past max-age and the window")
            assert request(edge.port, KEN, {"Accept-Encoding": "gzip"}).cache == "REVALIDATED"
            cached = {path: request(edge.port, path, {"Accept-Encoding": "gzip"}) for path in PATHS[:4]}
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
            assert uncached.headers["Content-Type"] == "application/json; charset=utf-8"
            assert json.loads(uncached.body)["apiVersion"] == "1"
            assert uncached.headers["Cache-Control"] == "no-store"

            pair.start()  # the same ports, as pods come back behind a Service
            until(lambda: request(edge.port, "/api/v1/readiness?code=FRA").status == 200, 15,
                  "the edge reaches the API again with no manual step")
            refreshed = ("HIT", "REVALIDATED", "EXPIRED")
            until(lambda: request(edge.port, KEN, {"Accept-Encoding": "gzip"}).cache in refreshed, 15,
                  "the stale entry is refreshed from the API")
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
