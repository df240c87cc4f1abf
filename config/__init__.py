"""Settings read from ``READINESS_*`` environment variables over defaults."""

from config.redact import redact
from config.settings import Settings, SettingsError, port_number

__all__ = ["Settings", "SettingsError", "port_number", "redact"]
