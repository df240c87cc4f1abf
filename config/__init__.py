"""Settings read from ``READINESS_*`` environment variables over defaults."""

from config.redact import redact
from config.redis_address import RedisAddress, Topology
from config.settings import Settings, SettingsError, port_number

__all__ = ["RedisAddress", "Settings", "SettingsError", "Topology", "port_number", "redact"]
