"""server.py as a process: flags, environment, the embedded default, clean stop on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Iterator

import orjson
import pytest

from config import Settings
from server import parse_args

ROOT = Path(__file__).resolve().parent.parent

Start = Callable[..., "subprocess.Popen[bytes]"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wait_until_up(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited early with status {process.returncode}")
        try:
            if get(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("server did not come up within 20 s")


@pytest.fixture
def start() -> Iterator[Start]:
    """Start ``server.py`` with arguments and environment; stopped at the end of the test."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "server.py"), *args],
            cwd=ROOT, env={**os.environ, "READINESS_SHUTDOWN_DELAY_SECONDS": "0", **(env or {})},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.communicate()


def test_parse_args_flags_override_settings() -> None:
    settings = parse_args(["--port", "9001", "--data-dir", "/srv", "--host", "0.0.0.0"], Settings(port=1))
    assert (settings.port, settings.data_dir, settings.host) == (9001, Path("/srv"), "0.0.0.0")
    assert parse_args([], Settings(port=1234)).port == 1234


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


def test_server_bad_setting_exits_2_naming_variable(start: Start) -> None:
    process = start(env={"READINESS_PORT": "eighty"})
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2
    assert b"READINESS_PORT='eighty'" in stderr
