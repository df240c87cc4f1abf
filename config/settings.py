"""Settings: one frozen object read once from ``READINESS_*`` environment variables."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from config.redact import redact
from config.redis_address import RedisAddress

BUNDLED_DATA = Path(__file__).resolve().parent.parent / "data" / "sample"
"""The synthetic sample shipped with the code: the embedded default's data."""

PREFIX = "READINESS_"

DEFAULT_SIGNING_KEY = "readiness-default-signing-key"
"""The key when READINESS_REDIS_SIGNING_KEY is unset: public, so it detects accidents (a value
under the wrong key, from another version, damaged), not a deliberate writer (docs/DECISIONS.md).
With READINESS_REQUIRE_SIGNING_KEY set, neither it nor no key at all is accepted."""


PRIVATE_NETWORKS = ("127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
"""Loopback and the private ranges (RFC 1918, RFC 4193): the default trusted proxies."""


class SettingsError(ValueError):
    """A setting has a value the service cannot use; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything configurable, with the embedded defaults (docs/OPERATIONS.md).

    Each field is read from ``READINESS_<FIELD NAME IN CAPITALS>``; ``docs/CONFIGURATION.md``
    describes them all.
    """

    data_dir: Path = BUNDLED_DATA
    host: str = "127.0.0.1"
    port: int = 8080
    admin_port: int = 8081
    max_connections: int = 10_000
    behind_proxy: bool = False
    # Behind a proxy, the peers whose X-Real-IP / X-Forwarded-For name the client
    # (readiness/http/clients.py): by default loopback and the private ranges a cluster's pods
    # and a host's proxy use; a public address cannot send from them.
    trusted_proxies: tuple[str, ...] = PRIVATE_NETWORKS
    # A client is an address block (docs/DECISIONS.md#fair-shares): IPv4 by /32, IPv6 by /64.
    client_ipv4_prefix: int = 32
    client_ipv6_prefix: int = 64
    # The most bytes of an answer each connection queues in the kernel unsent
    # (TCP_NOTSENT_LOWAT), 0: no bound (the send buffer autotunes to megabytes for a client
    # that does not read). Unlike a fixed SO_SNDBUF it leaves what is in flight alone, so a
    # client that reads gets large answers at full rate (docs/OPERATIONS.md#slow-readers).
    unsent_bytes: int = 32 * 1024
    redis_url: str | None = None
    # The site's public address (https://readiness.example.org): the pages' share meta
    # (og:image, og:url) is absolute and starts with it; unset, with each request's own origin.
    public_url: str | None = None
    cache_bytes: int = 64 * 1024 * 1024
    archive_slots: int = 8
    log_level: str = "INFO"
    max_age_seconds: int = 300
    archive_max_age_seconds: int = 86400
    stale_while_revalidate_seconds: int = 30
    stale_if_error_seconds: int = 86400
    redis_ttl_seconds: int = 86400
    archive_redis_ttl_seconds: int = 7 * 86400
    redis_timeout_ms: int = 100
    breaker_failures: int = 3
    breaker_pause_seconds: int = 5
    snapshot_poll_seconds: int = 2
    read_timeout_seconds: int = 30
    max_skipped_percent: int = 10
    shutdown_delay_seconds: int = 5
    drain_seconds: int = 20
    warm_top_n: int = 200
    # The compute pool (readiness/work.py, docs/CONFIGURATION.md): 0 threads computes every
    # miss on the event loop, without a bound.
    compute_threads: int = 1
    compute_inline_bytes: int = 32 * 1024
    compute_queue_bytes: int = 16 * 1024 * 1024
    # The compute budget (readiness/budget.py, docs/CACHING.md#the-compute-budget): estimated
    # bytes of misses computed per second, inline and in threads alike, shared fairly between
    # clients (0: no budget). Beyond it a miss waits its client's turn, up to
    # compute_max_wait_ms, with at most compute_queue_per_client of a client's waiting; one
    # miss may overdraw it by compute_overdraft_ms of the rate. On by default, the embedded
    # server included: a notebook reading forty CSVs in a row waits a little between them, it
    # is not refused. A refused large miss's 503 waits compute_shed_pause_ms first.
    compute_bytes_per_second: int = 8 * 1024 * 1024
    compute_overdraft_ms: int = 250
    compute_max_wait_ms: int = 2000
    compute_queue_per_client: int = 16
    compute_shed_pause_ms: int = 1000
    # The largest answer computed (estimated bytes, readiness.domain.pricing): a larger one is
    # refused (400) with how to page or narrow it. At most the budget's second of work.
    max_answer_bytes: int = 8 * 1024 * 1024
    # How long a thread may hold the GIL while the event loop waits for it (sys.setswitchinterval).
    switch_interval_us: int = 1000
    # Redis admission (docs/CACHING.md): a computed answer is written to Redis once asked for
    # again within this many seconds; 0 writes every computed answer at once.
    redis_admit_window_seconds: int = 600
    # Redis integrity, size cap and re-warm (docs/CACHING.md):
    redis_signing_key: str | None = field(default=None, repr=False)
    # Production sets it (k8s/overlays/prod): a secret key, or the process does not start.
    require_signing_key: bool = False
    redis_max_answer_bytes: int = 128 * 1024
    rewarm_check_seconds: int = 30

    def __post_init__(self) -> None:
        """Checks between fields, which also hold when flags override the environment."""
        if self.port == self.admin_port:
            # Either side may have set it, by variable or by flag: name all four.
            raise SettingsError(
                f"{PREFIX}ADMIN_PORT (--admin-port) {self.admin_port} is the public port "
                f"({PREFIX}PORT, --port) too; give the two listeners different ports"
            )
        if self.require_signing_key and self.redis_signing_key in (None, DEFAULT_SIGNING_KEY):
            state = "unset" if self.redis_signing_key is None else "the public default key"
            raise SettingsError(
                f"{PREFIX}REDIS_SIGNING_KEY is {state}, and {PREFIX}REQUIRE_SIGNING_KEY is true; "
                "set a secret key (docs/OPERATIONS.md#the-redis-signing-key)"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Read ``READINESS_*`` over the defaults. Raises SettingsError naming the variable."""
        default = cls()
        return cls(
            data_dir=_path(env, "data_dir", default.data_dir),
            host=_host(env, default.host),
            behind_proxy=_flag(env, "behind_proxy", default.behind_proxy),
            trusted_proxies=_networks(env, "trusted_proxies", default.trusted_proxies),
            redis_url=_redis_url(env),
            public_url=_public_url(env),
            log_level=_log_level(env, default.log_level),
            redis_signing_key=_signing_key(env) or default.redis_signing_key,
            require_signing_key=_flag(env, "require_signing_key", default.require_signing_key),
            **{
                name: _number(env, name, getattr(default, name), low, high)
                for name, (low, high) in _BOUNDS.items()
            },
        )


_DAY = 86400
_BOUNDS: dict[str, tuple[int, int]] = {
    "port": (1, 65535),
    "admin_port": (1, 65535),
    "max_connections": (1, 1_000_000),
    "cache_bytes": (0, 2**40),
    "archive_slots": (0, 1000),
    "max_age_seconds": (0, 365 * _DAY),
    "archive_max_age_seconds": (0, 365 * _DAY),
    "stale_while_revalidate_seconds": (0, 365 * _DAY),
    "stale_if_error_seconds": (0, 365 * _DAY),
    "redis_ttl_seconds": (1, 365 * _DAY),
    "archive_redis_ttl_seconds": (1, 365 * _DAY),
    "redis_timeout_ms": (1, 10_000),
    "breaker_failures": (1, 1000),
    "breaker_pause_seconds": (1, 3600),
    "snapshot_poll_seconds": (0, 3600),
    "read_timeout_seconds": (1, 3600),
    "max_skipped_percent": (0, 100),
    "shutdown_delay_seconds": (0, 300),
    "drain_seconds": (0, 600),
    "warm_top_n": (0, 2_000),
    "compute_threads": (0, 4),
    "compute_inline_bytes": (0, 2**40),
    "compute_queue_bytes": (0, 2**40),
    "compute_bytes_per_second": (0, 2**40),
    "compute_overdraft_ms": (0, 10_000),
    "compute_max_wait_ms": (0, 60_000),
    "compute_queue_per_client": (1, 10_000),
    "max_answer_bytes": (1024, 2**40),
    "client_ipv4_prefix": (8, 32),
    "client_ipv6_prefix": (16, 128),
    "unsent_bytes": (0, 64 * 1024 * 1024),
    "compute_shed_pause_ms": (0, 10_000),
    "switch_interval_us": (100, 100_000),
    "redis_admit_window_seconds": (0, 365 * _DAY),
    "redis_max_answer_bytes": (0, 2**30),
    "rewarm_check_seconds": (0, 3600),
}
"""Inclusive range of each whole-number setting."""

_DIGITS = re.compile(r"[0-9]{1,15}")
"""A whole number as the settings accept it: ASCII digits only. ``str.isdigit`` and ``int``
also take other scripts' digits ("６４", "²"), and ``int`` refuses over 4300 digits."""

_HOST_NAME = re.compile(
    r"(?=.{1,253}$)"  # 253 characters at most
    r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"  # a label: 1 to 63, no hyphen at either end
    r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"  # more labels, after dots
)


def _text(env: Mapping[str, str], name: str) -> str | None:
    return env.get(PREFIX + name.upper(), "").strip() or None


def _number(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = _text(env, name)
    if raw is None:
        return default
    if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
        raise SettingsError(
            f"{PREFIX}{name.upper()}={raw!r} is not valid; use a whole number from {low} to {high}"
        )
    return int(raw)


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = _text(env, name)
    if raw is None:
        return default
    if not raw.isascii() or raw.lower() not in ("true", "false", "1", "0"):
        raise SettingsError(f"{PREFIX}{name.upper()}={raw!r} is not valid; use true, false, 1 or 0")
    return raw.lower() in ("true", "1")


def _log_level(env: Mapping[str, str], default: str) -> str:
    raw = _text(env, "log_level") or default
    # ASCII first: "ınfo".upper() is "INFO".
    if not raw.isascii() or raw.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise SettingsError(
            f"{PREFIX}LOG_LEVEL={raw!r} is not valid; use DEBUG, INFO, WARNING or ERROR"
        )
    return raw.upper()


def _path(env: Mapping[str, str], name: str, default: Path) -> Path:
    raw = _text(env, name)
    if raw is None:
        return default
    if "\0" in raw:
        raise SettingsError(f"{PREFIX}{name.upper()}={raw!r} is not valid; use a directory path")
    return Path(raw)


def _host(env: Mapping[str, str], default: str) -> str:
    raw = _text(env, "host")
    if raw is None:
        return default
    try:
        ipaddress.ip_address(raw)
    except ValueError:
        if not _HOST_NAME.fullmatch(raw):
            raise SettingsError(
                f"{PREFIX}HOST={raw!r} is not valid; use an IP address such as 0.0.0.0 or a host name"
            ) from None
    return raw


_PUBLIC_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")


def _public_url(env: Mapping[str, str]) -> str | None:
    raw = _text(env, "public_url")
    if raw is None:
        return None
    url = raw.rstrip("/")
    if not _PUBLIC_URL.fullmatch(url):
        raise SettingsError(
            f"{PREFIX}PUBLIC_URL={raw!r} is not valid; use the site's origin, http:// or https:// and a host "
            "name with an optional port and no path, such as https://readiness.example.org"
        )
    return url


def _networks(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """Address blocks in CIDR notation (``10.0.0.0/8``, ``fd00::/8``; a bare address is its
    own block), separated by commas or spaces, each as ``ipaddress`` normalizes it."""
    raw = _text(env, name)
    if raw is None:
        return default
    try:
        return tuple(str(ipaddress.ip_network(piece, strict=False)) for piece in re.split(r"[\s,]+", raw) if piece)
    except ValueError:
        raise SettingsError(
            f"{PREFIX}{name.upper()}={raw!r} is not valid; use address blocks such as 10.0.0.0/8, fd00::/8, "
            "separated by commas"
        ) from None


def _redis_url(env: Mapping[str, str]) -> str | None:
    raw = _text(env, "redis_url")
    return None if raw is None else redis_url(raw)


def redis_url(raw: str, name: str = f"{PREFIX}REDIS_URL") -> str:
    """A URL of one Redis server as redis-py reads it (which refuses other schemes), of a
    Sentinel-watched primary or of a Redis Cluster (config/redis_address.py), with any database
    in ASCII digits, which redis-py would otherwise ignore or read as another script's.
    SettingsError names ``name`` (the variable, or a flag) and shows the URL without its
    password."""
    try:
        RedisAddress.parse(raw)
    except ValueError as error:
        raise SettingsError(f"{name}={redact(raw, raw)!r} is not valid; {error}") from None
    return raw


def _signing_key(env: Mapping[str, str]) -> str | None:
    """Any text that encodes as UTF-8 (an environment's undecodable bytes do not)."""
    raw = _text(env, "redis_signing_key")
    try:
        raw is None or raw.encode("utf-8")
    except UnicodeEncodeError:  # the message leaves the secret out
        raise SettingsError(f"{PREFIX}REDIS_SIGNING_KEY is not valid text; use UTF-8") from None
    return raw


def port_number(raw: str) -> int:
    """A TCP port given as a command-line flag, by the rule the environment's ports follow."""
    low, high = _BOUNDS["port"]
    if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
        raise SettingsError(f"{raw!r} is not valid; use a whole number from {low} to {high}")
    return int(raw)
