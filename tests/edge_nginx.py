"""A real nginx (Debian's package) running the edge configuration, unprivileged, under a prefix
directory of its own: for tests/test_edge.py and bench/edge.py.

The configuration is the shipped template (k8s/base/edge.conf.template) rendered by
readiness/edge_config.py, with nginx's js module loaded and the shipped njs rules
(k8s/base/edge-keys.js) copied into the prefix. When the caller is root (CI containers), nginx
runs as ``nobody`` from the start, so no worker ever runs as root and the `user` directive is
never needed.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

from readiness.edge_config import JS_MODULE, SCRIPTS, EdgeSettings, edge_config, main_config
from tests.workers import free_port

DEBIAN_NGINX = Path("/usr/sbin/nginx")
UNPRIVILEGED_USER = "nobody"
KEYS_SCRIPT = SCRIPTS / "edge-keys.js"
SCRIPTS_USED = (KEYS_SCRIPT, SCRIPTS / "edge-clients.js")
"""The njs modules the template imports."""
MISSING = ("nginx or its js module is not installed (Debian: apt-get install nginx libnginx-mod-http-js;"
           " `make test` installs them as root)")
"""Why the edge cannot run here, and how to install what it needs."""


def nginx_executable() -> str | None:
    """nginx on PATH, else Debian's (/usr/sbin is not on every user's PATH); None without one,
    or without its js module (JS_MODULE: Debian's libnginx-mod-http-js), which the edge needs."""
    if not JS_MODULE.is_file():
        return None
    found = shutil.which("nginx")
    if found:
        return found
    return str(DEBIAN_NGINX) if DEBIAN_NGINX.is_file() else None


class Nginx:
    """nginx serving ``settings`` (the edge) and ``extra_http`` (more server blocks), started on
    entry and stopped on exit. Its files live in a fresh directory under the system's temp
    directory (readable by ``nobody``, unlike pytest's tmp_path), removed on exit.
    """

    def __init__(self, executable: str, upstreams: tuple[str, ...], **limits: Any) -> None:
        """``limits``: EdgeSettings fields over the defaults (rate, burst, connections, ...)."""
        self.executable = executable
        self.prefix = Path(tempfile.mkdtemp(prefix="readiness-edge-"))
        self.port = free_port()
        self.cache_dir = self.prefix / "cache"
        self.log = self.prefix / "nginx.log"
        self.access_log = self.prefix / "access.log"
        self.settings = replace(
            EdgeSettings(f"127.0.0.1:{self.port}", upstreams, self.cache_dir, f"{self.access_log} readiness_edge",
                         js_path=self.prefix / "njs", gate_listen=f"127.0.0.1:{free_port()}",
                         status_listen=f"127.0.0.1:{free_port()}"),
            **limits,
        )
        self.extra_http = ""
        self.workers = 1
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def conf(self) -> Path:
        return self.prefix / "nginx.conf"

    def write(self) -> None:
        """Render the configuration into the prefix (start calls it)."""
        include = self.prefix / "edge.conf"
        include.write_text(edge_config(self.settings))
        if self.settings.js_path != KEYS_SCRIPT.parent:  # the prefix's own copy, readable by nobody
            self.settings.js_path.mkdir(exist_ok=True)
            for script in SCRIPTS_USED:
                shutil.copy(script, self.settings.js_path / script.name)
        self.conf.write_text(main_config(self.prefix, include, self.workers, self.extra_http))

    def check(self) -> subprocess.CompletedProcess[str]:
        """``nginx -t`` on the written configuration."""
        self.write()
        self._hand_over()
        return subprocess.run(self._argv("-t"), capture_output=True, text=True, timeout=30, check=False,
                              **self._as_user())  # type: ignore[call-overload]

    def start(self) -> None:
        """Start nginx and return once it accepts connections on ``port``."""
        assert self.process is None, "already running"
        self.write()
        self._hand_over()
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(self._argv(), stdout=output, stderr=subprocess.STDOUT,
                                            **self._as_user())  # type: ignore[call-overload]
        deadline = time.monotonic() + 10
        while not _accepts(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"nginx did not start:\n{self.log.read_text()}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop nginx (SIGTERM: fast shutdown) and wait for it."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=10)
            self.process = None

    def __enter__(self) -> Nginx:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
        shutil.rmtree(self.prefix, ignore_errors=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    # --- what it holds: for the tests and the benchmark of abuse ----------------------------

    def processes(self) -> list[int]:
        """The master's pid and its children's (the worker, the cache manager and loader)."""
        assert self.process is not None, "not running"
        master = self.process.pid
        children = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if parent == master:
                    children.append(int(entry.name))
        return [master, *children]

    def resident_bytes(self) -> int:
        """Resident memory of all its processes."""
        total = 0
        for pid in self.processes():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        return total

    def queued_bytes(self) -> int:
        """Bytes the kernel holds on its TCP sockets: sent and not yet taken by the peer (Send-Q)
        and received and not yet read (Recv-Q), as ``ss -tn`` shows them."""
        inodes = set()
        for pid in self.processes():
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        total = 0
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[9] in inodes:
                    sent, received = fields[4].split(":")
                    total += int(sent, 16) + int(received, 16)
        return total

    def cache_files(self) -> list[int]:
        """The sizes of the files in its cache folder, as the disk holds them (blocks)."""
        sizes = []
        for root, _, names in os.walk(self.cache_dir):
            for name in names:
                try:
                    sizes.append(os.stat(os.path.join(root, name)).st_blocks * 512)
                except FileNotFoundError:  # removed by the cache manager meanwhile
                    pass
        return sizes

    def _argv(self, *extra: str) -> list[str]:
        return [self.executable, "-p", str(self.prefix), "-c", str(self.conf), "-e", "stderr", *extra]

    def _as_user(self) -> dict[str, object]:
        if os.geteuid() != 0:
            return {}
        return {"user": UNPRIVILEGED_USER, "group": pwd.getpwnam(UNPRIVILEGED_USER).pw_gid, "extra_groups": []}

    def _hand_over(self) -> None:
        """As root: give the prefix to the unprivileged user nginx will run as."""
        if os.geteuid() != 0:
            return
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
        self.cache_dir.mkdir(exist_ok=True)
        for path in [self.prefix, *self.prefix.rglob("*")]:
            os.chown(path, entry.pw_uid, entry.pw_gid)


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False
