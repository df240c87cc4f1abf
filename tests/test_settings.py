"""Settings.from_env: READINESS_* over defaults, bad values named."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from config import Settings, SettingsError
from config.settings import _BOUNDS, BUNDLED_DATA


def test_settings_no_environment_is_the_embedded_default() -> None:
    settings = Settings.from_env({})
    assert settings == Settings()
    assert settings.data_dir == BUNDLED_DATA and (BUNDLED_DATA / "CURRENT").is_file()
    assert (settings.host, settings.port, settings.redis_url) == ("127.0.0.1", 8080, None)


def test_settings_environment_overrides_every_field() -> None:
    settings = Settings.from_env(
        {
            "READINESS_DATA_DIR": "/srv/data",
            "READINESS_HOST": "0.0.0.0",
            "READINESS_PORT": "9000",
            "READINESS_BEHIND_PROXY": "TRUE",
            "READINESS_REDIS_URL": "redis://redis:6379/0",
            "READINESS_CACHE_BYTES": "1024",
            "READINESS_ARCHIVE_SLOTS": "2",
            "READINESS_LOG_LEVEL": "debug",
            "UNRELATED": "x",
        }
    )
    assert settings == Settings(
        data_dir=Path("/srv/data"), host="0.0.0.0", port=9000, behind_proxy=True, redis_url="redis://redis:6379/0",
        cache_bytes=1024, archive_slots=2, log_level="DEBUG",
    )


def test_settings_empty_variable_keeps_default() -> None:
    assert Settings.from_env({"READINESS_PORT": " ", "READINESS_REDIS_URL": ""}) == Settings()


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("READINESS_PORT", "http"),
        ("READINESS_PORT", "70000"),
        ("READINESS_PORT", "0"),
        ("READINESS_CACHE_BYTES", "-1"),
        ("READINESS_ARCHIVE_SLOTS", "1.5"),
        ("READINESS_LOG_LEVEL", "LOUD"),
        ("READINESS_BEHIND_PROXY", "yes"),
    ],
)
def test_settings_bad_value_names_the_variable(variable: str, value: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        Settings.from_env({variable: value})


@pytest.mark.parametrize(("name", "bounds"), list(_BOUNDS.items()))
def test_settings_every_number_read_and_bounded(name: str, bounds: tuple[int, int]) -> None:
    low, high = bounds
    variable = f"READINESS_{name.upper()}"
    assert getattr(Settings.from_env({variable: str(high)}), name) == high
    assert getattr(Settings.from_env({variable: str(low)}), name) == low
    with pytest.raises(SettingsError, match=variable):
        Settings.from_env({variable: str(high + 1)})


def test_settings_every_field_has_an_environment_reader() -> None:
    readers = {"data_dir", "host", "port", "behind_proxy", "redis_url", "log_level", "redis_signing_key", *_BOUNDS}
    assert readers == {field.name for field in fields(Settings)}


def test_settings_signing_key_read_and_kept_out_of_repr() -> None:
    settings = Settings.from_env({"READINESS_REDIS_SIGNING_KEY": " s3cret "})
    assert settings.redis_signing_key == "s3cret"
    assert "s3cret" not in repr(settings)
    assert Settings.from_env({}).redis_signing_key is None
