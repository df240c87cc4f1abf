"""Settings.from_env: READINESS_* over defaults, bad values named."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from config import Settings, SettingsError, port_number
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
        # Digits of other scripts: str.isdigit() accepts them, int() reads some ("６４" as 64)
        # and crashes on others ("²").
        ("READINESS_PORT", "²"),
        ("READINESS_PORT", "８０８０"),
        ("READINESS_CACHE_BYTES", "６４"),
        ("READINESS_PORT", "1" * 5000),  # int() refuses over 4300 digits with a ValueError
        ("READINESS_LOG_LEVEL", "ınfo"),  # dotless i: "ınfo".upper() == "INFO"
        ("READINESS_REDIS_URL", "http://x"),
        ("READINESS_REDIS_URL", "redis://redis:port/0"),
        ("READINESS_REDIS_URL", "redis://redis:6379/zero"),
        ("READINESS_REDIS_URL", "redis://redis:6379/６"),
        ("READINESS_REDIS_URL", "redis://[::1"),
        ("READINESS_HOST", "exa mple"),
        ("READINESS_HOST", "host:8080"),
        ("READINESS_DATA_DIR", "/srv/\0data"),
        ("READINESS_ADMIN_PORT", "8080"),  # the public port's default
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
    readers = {"data_dir", "host", "behind_proxy", "redis_url", "log_level", "redis_signing_key", *_BOUNDS}
    assert readers == {field.name for field in fields(Settings)}


def test_settings_signing_key_read_and_kept_out_of_repr() -> None:
    settings = Settings.from_env({"READINESS_REDIS_SIGNING_KEY": " s3cret "})
    assert settings.redis_signing_key == "s3cret"
    assert "s3cret" not in repr(settings)
    assert Settings.from_env({}).redis_signing_key is None


VARIABLES = sorted(f"READINESS_{field.name.upper()}" for field in fields(Settings))


@given(variable=st.sampled_from(VARIABLES), raw=st.text(st.characters(codec=None, exclude_categories=())))
@example(variable="READINESS_PORT", raw="²")
@example(variable="READINESS_REDIS_URL", raw="http://x")
@example(variable="READINESS_REDIS_URL", raw="redis://＃x")
@example(variable="READINESS_REDIS_URL", raw="redis://h\udcff/0")  # undecodable environment bytes
@example(variable="READINESS_REDIS_SIGNING_KEY", raw="key\udcff")
def test_settings_any_value_is_read_or_refused_by_name(variable: str, raw: str) -> None:
    # The one way a value may fail: SettingsError naming its variable (server.py: exit 2).
    try:
        settings = Settings.from_env({variable: raw})
    except SettingsError as error:
        message = str(error)
    else:
        assert isinstance(settings, Settings)
        return
    assert variable in message


@given(name=st.sampled_from(sorted(_BOUNDS)), raw=st.text(st.characters(categories=["Nd", "No", "Zs"]), min_size=1))
def test_settings_numbers_are_ascii_digits_in_range(name: str, raw: str) -> None:
    low, high = _BOUNDS[name]
    variable = f"READINESS_{name.upper()}"
    text = raw.strip()
    valid = text.isascii() and text.isdigit() and low <= int(text) <= high
    # The two ports must differ: the one read here may not be the other's default.
    if name == "admin_port" and valid and int(text) == Settings().port:
        valid = False
    if name == "port" and valid and int(text) == Settings().admin_port:
        valid = False
    if not text:
        assert Settings.from_env({variable: raw}) == Settings()
    elif valid:
        assert getattr(Settings.from_env({variable: raw}), name) == int(text)
    else:
        with pytest.raises(SettingsError, match=variable):
            Settings.from_env({variable: raw})


@pytest.mark.parametrize(
    "url",
    ["redis://redis:6379/0", "redis://redis", "rediss://:secret@cache.example.org:6380/2",
     "unix:///run/redis.sock?db=1", "redis://[::1]:6379/0"],
)
def test_settings_redis_urls_redis_py_reads_are_kept(url: str) -> None:
    assert Settings.from_env({"READINESS_REDIS_URL": url}).redis_url == url


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "127.0.0.1", "localhost", "api-1.internal"])
def test_settings_hosts_addresses_and_names_are_kept(host: str) -> None:
    assert Settings.from_env({"READINESS_HOST": host}).host == host


def test_settings_admin_port_must_differ_from_the_port_whichever_sets_it() -> None:
    with pytest.raises(SettingsError, match="READINESS_ADMIN_PORT"):
        Settings(port=9000, admin_port=9000)
    with pytest.raises(SettingsError, match="READINESS_ADMIN_PORT") as refused:
        Settings.from_env({"READINESS_PORT": "8081"})
    # Either setting, by variable or by flag, may be the one to change: all four are named.
    for name in ("READINESS_PORT", "--port", "--admin-port"):
        assert name in str(refused.value)


@pytest.mark.parametrize("raw", ["²", "８０８０", "0", "65536", " 80", "eighty", ""])
def test_port_number_flag_refuses_what_the_environment_refuses(raw: str) -> None:
    with pytest.raises(SettingsError):
        port_number(raw)
    assert port_number("65535") == 65535
