"""Settings read from ``READINESS_*`` environment variables over defaults."""

from config.settings import Settings, SettingsError

__all__ = ["Settings", "SettingsError"]
