"""Settings: one frozen object read once from ``READINESS_*`` environment variables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

BUNDLED_DATA = Path(__file__).resolve().parent.parent / "data" / "sample"
"""The synthetic sample shipped with the code: the embedded default's data."""

PREFIX = "READINESS_"


class SettingsError(ValueError):
    """A setting has a value the service cannot use; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything configurable, with the embedded defaults (DESIGN §5).

    Each field is read from ``READINESS_<FIELD NAME IN CAPITALS>``; ``docs/CONFIGURATION.md``
    describes them all.
    """

    data_dir: Path = BUNDLED_DATA
    host: str = "127.0.0.1"
    port: int = 8080
    redis_url: str | None = None
    cache_bytes: int = 64 * 1024 * 1024
    archive_slots: int = 4
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Read ``READINESS_*`` over the defaults. Raises SettingsError naming the variable."""
        default = cls()
        return cls(
            data_dir=Path(_text(env, "data_dir") or default.data_dir),
            host=_text(env, "host") or default.host,
            port=_number(env, "port", default.port, 1, 65535),
            redis_url=_text(env, "redis_url") or default.redis_url,
            cache_bytes=_number(env, "cache_bytes", default.cache_bytes, 0, 2**40),
            archive_slots=_number(env, "archive_slots", default.archive_slots, 0, 1000),
            log_level=_log_level(env, default.log_level),
        )


def _text(env: Mapping[str, str], name: str) -> str | None:
    return env.get(PREFIX + name.upper(), "").strip() or None


def _number(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = _text(env, name)
    if raw is None:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise SettingsError(
            f"{PREFIX}{name.upper()}={raw!r} is not valid; use a whole number from {low} to {high}"
        )
    return int(raw)


def _log_level(env: Mapping[str, str], default: str) -> str:
    raw = (_text(env, "log_level") or default).upper()
    if raw not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise SettingsError(
            f"{PREFIX}LOG_LEVEL={raw!r} is not valid; use DEBUG, INFO, WARNING or ERROR"
        )
    return raw
