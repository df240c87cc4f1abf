"""The edge's nginx configuration outside Kubernetes: the one template Kubernetes uses
(k8s/base/edge.conf.template), its ``${EDGE_*}`` placeholders replaced as the nginx image's
entrypoint replaces them, and a main configuration to run it with (docs/OPERATIONS.md#the-edge).

    python -m readiness.edge_config --upstream 10.0.0.5:8080 --upstream 10.0.0.6:8080 > edge.conf

prints the http-level configuration for an nginx.conf's ``http {}`` block to include; that
nginx.conf loads nginx's js module in its main context (``load_module``, ``JS_MODULE``), and
``--js-path`` names the directory holding edge-keys.js (default: k8s/base here). The
tests and ``make bench-edge`` run nginx from ``main_config``, unprivileged, under a prefix
directory of their own.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent.parent / "k8s" / "base" / "edge.conf.template"
"""The template, shared with the Kubernetes manifests (a ConfigMap made from this file)."""

SCRIPTS = TEMPLATE.parent
"""Where the template's njs module (edge-keys.js) is, here (EDGE_JS_PATH); Kubernetes mounts it
from a ConfigMap. The main configuration must load nginx's js module (``main_config``)."""

JS_MODULE = Path("/usr/lib/nginx/modules/ngx_http_js_module.so")
"""nginx's js module (njs) where Debian's libnginx-mod-http-js and the nginx image put it (the
image's /etc/nginx/modules is a link to this directory)."""

_PLACEHOLDER = re.compile(r"\$\{(EDGE_[A-Z0-9_]+)\}")


DEFAULT_RATE = "100r/s"
DEFAULT_BURST = 1500
DEFAULT_CONNECTIONS = 64
DEFAULT_MISS_RATE = "10r/s"
DEFAULT_MISS_BURST = 700
DEFAULT_TOTAL_MISS_RATE = "200r/s"
DEFAULT_TOTAL_MISS_BURST = 1000
DEFAULT_GATE_LISTEN = "127.0.0.1:8081"
DEFAULT_STATUS_LISTEN = "8082"


class EdgeConfigError(ValueError):
    """A template placeholder has no value, or a value names one that the template lacks."""


@dataclass(frozen=True, slots=True)
class EdgeSettings:
    """The numbers and places the template leaves open. The defaults are the Kubernetes ones
    (k8s/base/edge.env), except the addresses and paths, which depend on where nginx runs.

    ``rate``/``burst``/``connections`` are per client address, and so are ``miss_rate``/
    ``miss_burst``, the miss budget: requests the edge's cache does not answer;
    ``total_miss_rate``/``total_miss_burst`` hold all clients' together
    (docs/OPERATIONS.md#limits-at-the-edge says why these numbers).
    """

    listen: str
    upstreams: tuple[str, ...]
    cache_dir: Path
    access_log: str = "off"
    rate: str = DEFAULT_RATE
    burst: int = DEFAULT_BURST
    connections: int = DEFAULT_CONNECTIONS
    cache_max_size: str = "768m"
    cache_keys_zone: str = "32m"
    miss_rate: str = DEFAULT_MISS_RATE
    miss_burst: int = DEFAULT_MISS_BURST
    total_miss_rate: str = DEFAULT_TOTAL_MISS_RATE
    total_miss_burst: int = DEFAULT_TOTAL_MISS_BURST
    gate_listen: str = DEFAULT_GATE_LISTEN
    """The miss gate's loopback address (the template's second server block)."""
    status_listen: str = DEFAULT_STATUS_LISTEN
    """Where nginx answers its probe (/readyz, /healthz) itself, without the public limits (the
    template's third server block)."""
    real_ip_from: tuple[str, ...] = ()
    """Addresses or CIDRs of proxies in front (ingress controller, CDN) whose
    X-Forwarded-For is believed; none: the peer's address is the client's."""
    js_path: Path = SCRIPTS
    """The directory holding edge-keys.js (docs/OPERATIONS.md#one-key-per-answer) and
    edge-clients.js."""
    ipv4_prefix: int = 32
    ipv6_prefix: int = 64
    """How many leading bits of an address name its client (docs/DECISIONS.md#fair-shares)."""

    def variables(self) -> dict[str, str]:
        """The ``EDGE_*`` environment the nginx image's entrypoint would see."""
        if not self.upstreams:
            raise EdgeConfigError("at least one upstream (host:port of an API process) is needed")
        servers = " ".join(f"server {address} max_fails=1 fail_timeout=2s;" for address in self.upstreams)
        return {
            "EDGE_LISTEN": self.listen,
            "EDGE_UPSTREAM_SERVERS": servers,
            "EDGE_CACHE_DIR": str(self.cache_dir),
            "EDGE_CACHE_KEYS_ZONE": self.cache_keys_zone,
            "EDGE_CACHE_MAX_SIZE": self.cache_max_size,
            "EDGE_ACCESS_LOG": self.access_log,
            "EDGE_RATE": self.rate,
            "EDGE_BURST": str(self.burst),
            "EDGE_CONNECTIONS": str(self.connections),
            "EDGE_MISS_RATE": self.miss_rate,
            "EDGE_MISS_BURST": str(self.miss_burst),
            "EDGE_TOTAL_MISS_RATE": self.total_miss_rate,
            "EDGE_TOTAL_MISS_BURST": str(self.total_miss_burst),
            "EDGE_GATE_LISTEN": self.gate_listen,
            "EDGE_STATUS_LISTEN": self.status_listen,
            "EDGE_REAL_IP_FROM": " ".join(f"set_real_ip_from {source};" for source in self.real_ip_from),
            "EDGE_JS_PATH": str(self.js_path),
            "EDGE_IPV4_PREFIX": str(self.ipv4_prefix),
            "EDGE_IPV6_PREFIX": str(self.ipv6_prefix),
        }


def render(template: str, variables: Mapping[str, str]) -> str:
    """Replace every ``${EDGE_*}`` placeholder with its value.

    Raises EdgeConfigError naming a placeholder without a value, or a value for a name the
    template does not use (a misspelt setting would otherwise be ignored silently).
    """
    used = set(_PLACEHOLDER.findall(template))
    missing = sorted(used - set(variables))
    if missing:
        raise EdgeConfigError(f"no value for {', '.join(missing)}")
    unused = sorted(set(variables) - used)
    if unused:
        raise EdgeConfigError(f"the template has no placeholder {', '.join(unused)}")
    return _PLACEHOLDER.sub(lambda match: variables[match.group(1)], template)


def edge_config(settings: EdgeSettings, template: str | None = None) -> str:
    """The http-level configuration for ``settings`` (TEMPLATE unless ``template`` is given)."""
    return render(TEMPLATE.read_text() if template is None else template, settings.variables())


def main_config(prefix: Path, include: Path, workers: int = 1, extra_http: str = "",
                js_module: Path = JS_MODULE) -> str:
    """A main nginx configuration that runs unprivileged under ``prefix``, loads ``js_module``
    (njs, which the template needs) and includes ``include`` (an ``edge_config`` output) in its
    http block, as the nginx image's nginx.conf includes conf.d. PCRE's JIT is on, as in
    k8s/base/edge-nginx.conf: the template's fast-path map runs its expressions on every request.

    Errors go to standard error; the pid file and every temporary path are under ``prefix``,
    so nothing outside it is written. Start it with ``nginx -p PREFIX -c FILE -e stderr``.
    """
    temp = {name: prefix / name for name in ("client_temp", "proxy_temp", "fastcgi_temp", "uwsgi_temp", "scgi_temp")}
    return "\n".join([
        f"load_module {js_module};",
        f"worker_processes {workers};",
        "pcre_jit on;",
        "daemon off;",
        "error_log stderr warn;",
        f"pid {prefix / 'nginx.pid'};",
        "events { worker_connections 4096; }",
        "http {",
        "    default_type application/octet-stream;",
        f"    client_body_temp_path {temp['client_temp']};",
        f"    proxy_temp_path {temp['proxy_temp']};",
        f"    fastcgi_temp_path {temp['fastcgi_temp']};",
        f"    uwsgi_temp_path {temp['uwsgi_temp']};",
        f"    scgi_temp_path {temp['scgi_temp']};",
        f"    include {include};",
        extra_http,
        "}",
        "",
    ])


def main(argv: Sequence[str] | None = None) -> int:
    """Print the edge's http-level configuration for the given upstreams."""
    parser = argparse.ArgumentParser(description="Render the edge's nginx configuration (docs/OPERATIONS.md).")
    parser.add_argument("--upstream", action="append", required=True, help="host:port of an API process (repeat)")
    parser.add_argument("--listen", default="8080", help="nginx listen argument (default 8080)")
    parser.add_argument("--cache-dir", type=Path, default=Path("/var/cache/nginx/readiness"))
    parser.add_argument("--access-log", default="/dev/stdout readiness_edge")
    parser.add_argument("--rate", default=DEFAULT_RATE, help=f"requests per client address (default {DEFAULT_RATE})")
    parser.add_argument("--burst", type=int, default=DEFAULT_BURST)
    parser.add_argument("--connections", type=int, default=DEFAULT_CONNECTIONS)
    parser.add_argument("--miss-rate", default=DEFAULT_MISS_RATE,
                        help=f"requests per client address the cache does not answer (default {DEFAULT_MISS_RATE})")
    parser.add_argument("--miss-burst", type=int, default=DEFAULT_MISS_BURST)
    parser.add_argument("--total-miss-rate", default=DEFAULT_TOTAL_MISS_RATE,
                        help=f"the same for all clients together (default {DEFAULT_TOTAL_MISS_RATE})")
    parser.add_argument("--total-miss-burst", type=int, default=DEFAULT_TOTAL_MISS_BURST)
    parser.add_argument("--gate-listen", default=DEFAULT_GATE_LISTEN,
                        help=f"loopback address of the miss gate (default {DEFAULT_GATE_LISTEN})")
    parser.add_argument("--status-listen", default=DEFAULT_STATUS_LISTEN,
                        help=f"where nginx answers its probe, /readyz and /healthz (default {DEFAULT_STATUS_LISTEN})")
    parser.add_argument("--real-ip-from", action="append", default=[],
                        help="address or CIDR of a proxy in front whose X-Forwarded-For is believed (repeat)")
    parser.add_argument("--ipv4-prefix", type=int, default=32, choices=range(8, 33), metavar="8-32",
                        help="leading bits of an IPv4 address that name its client (default 32)")
    parser.add_argument("--ipv6-prefix", type=int, default=64, choices=range(16, 129), metavar="16-128",
                        help="leading bits of an IPv6 address that name its client (default 64)")
    parser.add_argument("--js-path", type=Path, default=SCRIPTS,
                        help=f"directory holding edge-keys.js (default {SCRIPTS}); load ngx_http_js_module")
    args = parser.parse_args(argv)
    settings = EdgeSettings(
        listen=args.listen, upstreams=tuple(args.upstream), cache_dir=args.cache_dir,
        access_log=args.access_log, rate=args.rate, burst=args.burst, connections=args.connections,
        real_ip_from=tuple(args.real_ip_from), js_path=args.js_path, miss_rate=args.miss_rate,
        miss_burst=args.miss_burst, total_miss_rate=args.total_miss_rate,
        total_miss_burst=args.total_miss_burst, gate_listen=args.gate_listen, status_listen=args.status_listen,
        ipv4_prefix=args.ipv4_prefix, ipv6_prefix=args.ipv6_prefix,
    )
    sys.stdout.write(edge_config(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
