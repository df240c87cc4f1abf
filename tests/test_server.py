"""server.py: as a process (flags, environment, the embedded default, clean stop on SIGTERM)
and its HTTP server's limits on bodies and idle connections."""

from __future__ import annotations

import asyncio
import errno
import itertools
import signal
import socket
import subprocess
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson
import pytest
from tornado.web import Application

from config import Settings, SettingsError
from server import MAX_BODY_BYTES, ListenError, bind_listeners, http_server, parse_args
from tests.conftest import ROOT, gen_test
from tests.processes import Start, free_port, free_ports, get, until, wait_until_up


def test_parse_args_flags_override_settings() -> None:
    settings = parse_args(["--port", "9001", "--data-dir", "/srv", "--host", "0.0.0.0"], Settings(port=1))
    assert (settings.port, settings.data_dir, settings.host) == (9001, Path("/srv"), "0.0.0.0")
    assert parse_args([], Settings(port=1234)).port == 1234


def test_parse_args_admin_port_flag_overrides_the_environment() -> None:
    assert parse_args(["--admin-port", "9002"], Settings(admin_port=7000)).admin_port == 9002
    assert parse_args([], Settings(admin_port=7000)).admin_port == 7000
    # The two listeners still need two ports, whichever way each was set.
    with pytest.raises(SettingsError, match="--admin-port"):
        parse_args(["--admin-port", "9001"], Settings(port=9001))


def test_server_flags_serve_data_and_stop_cleanly_on_sigterm(start: Start, tmp_path: Path) -> None:
    port = free_port()
    process = start("--port", str(port), "--data-dir", str(Settings().data_dir))
    wait_until_up(port, process)
    status, body = get(f"http://127.0.0.1:{port}/api/v1/readiness?code=KEN")
    assert status == 200 and orjson.loads(body)["data"]["Country Code"] == "KEN"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    log_lines = [orjson.loads(line) for line in process.stderr.read().splitlines()]
    access = [line for line in log_lines if line["logger"] == "readiness.access"]
    assert any(line["path"] == "/api/v1/readiness" and line["status"] == 200 for line in access)


def test_server_environment_sets_port_and_data(start: Start, tmp_path: Path) -> None:
    port = free_port()
    process = start(env={"READINESS_PORT": str(port), "READINESS_DATA_DIR": str(tmp_path)})
    wait_until_up(port, process)
    # An empty data directory is not fatal: alive, not ready.
    assert get(f"http://127.0.0.1:{port}/readyz")[0] == 503
    assert get(f"http://127.0.0.1:{port}/api/v1/readiness")[0] == 503


@pytest.mark.parametrize(
    ("variable", "value"),
    [("READINESS_PORT", "eighty"), ("READINESS_PORT", "²"), ("READINESS_REDIS_URL", "http://x")],
)
def test_server_bad_setting_exits_2_naming_variable(start: Start, variable: str, value: str) -> None:
    process = start(env={variable: value})
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2
    assert f"{variable}={value!r}".encode() in stderr
    assert b"Traceback" not in stderr


@pytest.mark.parametrize("flag", ["--port", "--admin-port"])
@pytest.mark.parametrize("value", ["²", "70000"])
def test_server_bad_port_flag_exits_2(start: Start, flag: str, value: str) -> None:
    process = start(flag, value)
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2 and b"Traceback" not in stderr, stderr
    assert flag.encode() in stderr


def _one_line(stderr: bytes) -> str:
    """All of standard error, which must be a single line and no traceback."""
    lines = stderr.decode().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], stderr
    return lines[0]


@pytest.mark.parametrize(
    ("flag", "listener", "variable"),
    [("--port", "public", "READINESS_PORT"),
     ("--admin-port", "operations", "READINESS_ADMIN_PORT")],
)
def test_server_port_in_use_exits_2_with_one_line_naming_it(
    start: Start, flag: str, listener: str, variable: str
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # The other listener gets a free port, so that only ``flag``'s can be the trouble.
        ports = {"--port": str(free_port()), "--admin-port": str(free_port()), flag: str(port)}
        process = start(*itertools.chain.from_iterable(ports.items()))
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2, stderr
    line = _one_line(stderr)
    assert f"the {listener} port {port} on 127.0.0.1 is already in use" in line, line
    assert line.endswith(f"choose another with {flag} or {variable}"), line


def test_server_address_not_of_this_machine_exits_2_naming_the_host(start: Start) -> None:
    # 192.0.2.1 (TEST-NET-1, RFC 5737) is no interface's address: bind fails, EADDRNOTAVAIL.
    process = start("--host", "192.0.2.1", "--port", str(free_port()))
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2, stderr
    line = _one_line(stderr)
    assert "public port" in line and "192.0.2.1" in line, line
    assert line.endswith("check --host or READINESS_HOST"), line


@pytest.mark.parametrize("key", [None, "readiness-default-signing-key"], ids=["unset", "public-default"])
def test_server_required_signing_key_missing_or_public_exits_2(start: Start, key: str | None) -> None:
    # The prod overlay sets READINESS_REQUIRE_SIGNING_KEY; the key comes from a Secret.
    env = {"READINESS_REQUIRE_SIGNING_KEY": "true", "READINESS_REDIS_SIGNING_KEY": key or ""}
    process = start("--port", str(free_port()), env=env)
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2, stderr
    line = _one_line(stderr)
    state = "unset" if key is None else "the public default key"
    assert line.startswith(f"server.py: READINESS_REDIS_SIGNING_KEY is {state}, "), line
    assert "READINESS_REQUIRE_SIGNING_KEY is true" in line and "readiness-default-signing-key" not in line


def test_server_bad_redis_url_exits_2_without_its_password(start: Start) -> None:
    process = start(env={"READINESS_REDIS_URL": "redis://reader:hunter2@redis:port/0"})
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2
    line = _one_line(stderr)
    assert "READINESS_REDIS_URL='redis://reader:***@redis:port/0' is not valid" in line and "hunter2" not in line


def test_server_logs_no_password_of_a_redis_it_cannot_reach(start: Start, tmp_path: Path) -> None:
    # Nothing listens on the Redis port: every Redis path fails and logs (the tier's breaker, the
    # snapshot channel, the re-warm check), and no line may show the URL's password.
    port, password = free_port(), "s3cret-hunter2"
    log = tmp_path / "server.log"
    process = start("--port", str(port), log=log, env={
        "READINESS_REDIS_URL": f"redis://reader:{password}@127.0.0.1:{free_port()}/0",
        "READINESS_LOG_LEVEL": "DEBUG", "READINESS_REWARM_CHECK_SECONDS": "1",
        "READINESS_BREAKER_FAILURES": "1", "READINESS_SNAPSHOT_POLL_SECONDS": "0",
    })
    wait_until_up(port, process)
    for code in ("KEN", "ETH", "NGA"):
        assert get(f"http://127.0.0.1:{port}/api/v1/readiness?code={code}")[0] == 200  # computed here
    wanted = ("snapshot channel unavailable", "breaker open", "re-warm check skipped")
    until(lambda: all(text in log.read_text() for text in wanted), 15, f"log lines {wanted}")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=15) == 0
    logged = log.read_text()
    assert "Connect" in logged and password not in logged, logged


def test_bind_listeners_permission_denied_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    # Under root no port is privileged and the suite may run as root: stand in for the kernel.
    def refuse(port: int, address: str | None = None) -> list[socket.socket]:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("server.bind_sockets", refuse)
    with pytest.raises(ListenError) as refused:
        bind_listeners(Settings(port=80))
    assert str(refused.value) == (
        "the public port 80 on 127.0.0.1: permission denied (ports below 1024 need privileges); "
        "choose another with --port or READINESS_PORT"
    )


def test_server_admin_port_flag_moves_the_operations_port(start: Start) -> None:
    port, admin, from_environment = free_ports(3)
    process = start("--port", str(port), "--admin-port", str(admin),
                    env={"READINESS_ADMIN_PORT": str(from_environment)})
    wait_until_up(port, process)
    assert get(f"http://127.0.0.1:{admin}/healthz")[0] == 200
    assert get(f"http://127.0.0.1:{admin}/metrics")[0] == 200  # the operations port's alone
    # The flag wins over the environment: nothing listens on the variable's port.
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", from_environment), timeout=5).close()


@pytest.mark.parametrize(("env", "logged"), [
    ({"READINESS_BEHIND_PROXY": "true"}, "203.0.113.7"),  # loopback is a trusted proxy by default
    ({"READINESS_BEHIND_PROXY": "false"}, "127.0.0.1"),
    # Behind a proxy, but this peer is not it: its header is not believed.
    ({"READINESS_BEHIND_PROXY": "true", "READINESS_TRUSTED_PROXIES": "192.0.2.0/24"}, "127.0.0.1"),
])
def test_server_behind_proxy_logs_forwarded_client(start: Start, env: dict[str, str], logged: str) -> None:
    port = free_port()
    process = start("--port", str(port), env=env)
    wait_until_up(port, process)
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/readiness?code=KEN",
                                     headers={"X-Forwarded-For": "203.0.113.7"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 200
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    access = [orjson.loads(line) for line in process.stderr.read().splitlines() if b"readiness.access" in line]
    assert [line["remote"] for line in access if line["path"] == "/api/v1/readiness"] == [logged]


def test_server_refuses_a_request_body_over_the_limit_before_reading_it(start: Start) -> None:
    port = free_port()
    process = start("--port", str(port))
    wait_until_up(port, process)
    small = b'{"x": 1}'
    for length, body, expected in ((len(small), small, b"405"), (MAX_BODY_BYTES + 1, b"", b"400")):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
            # The large one announces a body it never sends: refused on its Content-Length alone.
            connection.sendall(b"POST /api/v1/readiness HTTP/1.1\r\nHost: x\r\n"
                               + f"Content-Length: {length}\r\n\r\n".encode() + body)
            assert connection.recv(4096).split(b" ")[1] == expected


@gen_test
async def test_http_server_closes_an_idle_keep_alive_connection(app: Application) -> None:
    server = http_server(app, None, idle_seconds=0.3)
    port = free_port()
    server.listen(port, "127.0.0.1")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        await reader.readexactly(len(b'{"status":"ok"}'))
        # Kept alive after the answer, then closed by the server once idle: end of stream.
        assert await asyncio.wait_for(reader.read(1), timeout=3) == b""
    finally:
        writer.close()
        server.stop()


@gen_test
async def test_http_server_closes_a_connection_whose_body_trickles(app: Application) -> None:
    server = http_server(app, None, body_seconds=0.3)
    port = free_port()
    server.listen(port, "127.0.0.1")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nfirst bytes")
        # The rest of the body never comes: the server gives up on it and closes.
        assert await asyncio.wait_for(reader.read(4096), timeout=3) == b""
    finally:
        writer.close()
        server.stop()


def test_server_sigterm_after_an_archive_read_exits_normally(start: Start) -> None:
    # The read ran in a worker thread that is idle (but alive) at exit: not "busy", so the
    # process exits through the interpreter (atexit handlers run), not os._exit.
    port = free_port()
    process = start("--port", str(port), env={"READINESS_SHUTDOWN_DELAY_SECONDS": "1"})
    wait_until_up(port, process)
    # Three archives at once: three worker threads, all idle once answered.
    years = ("2023", "2024", "2025")
    with ThreadPoolExecutor(len(years)) as clients:
        answers = list(clients.map(lambda year: get(f"http://127.0.0.1:{port}/api/v1/readiness?year={year}"), years))
    assert [orjson.loads(body)["snapshot"] for _, body in answers] == ["2023-12", "2024-12", "2025-12"]
    # The catalogue answers once every snapshot's summary is read: the start-up fill is over, so
    # no read of it is running at SIGTERM (on a busy machine one can outlast SETTLE_SECONDS and
    # is then rightly reported busy).
    assert get(f"http://127.0.0.1:{port}/api/v1/snapshots")[0] == 200
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    log = process.stderr.read()
    assert b'"stopped"' in log
    assert b"still busy" not in log, log


_IDLE_WORKERS_SCRIPT = """
import asyncio, atexit, threading
import server
atexit.register(print, "atexit ran", flush=True)

async def main():
    # Four reads at once: four worker threads, all idle (and alive) once they return.
    together = threading.Barrier(4)
    loop = asyncio.get_running_loop()
    await asyncio.gather(*(loop.run_in_executor(None, together.wait) for _ in range(4)))

server._run(main())
print("returned", flush=True)
"""


def test_run_with_only_idle_worker_threads_returns_and_runs_atexit() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _IDLE_WORKERS_SCRIPT], cwd=ROOT, capture_output=True, timeout=30, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [b"returned", b"atexit ran"], result.stderr
    assert b"still busy" not in result.stderr
