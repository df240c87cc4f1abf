"""Settings.from_env: READINESS_* over defaults, bad values named."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from config import Settings, SettingsError, port_number, redact
from config.settings import _BOUNDS, BUNDLED_DATA, DEFAULT_SIGNING_KEY, PRIVATE_NETWORKS, redis_url


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
        ("READINESS_PUBLIC_URL", "readiness.example.org"),  # no scheme
        ("READINESS_PUBLIC_URL", "ftp://readiness.example.org"),
        ("READINESS_PUBLIC_URL", "https://user@readiness.example.org"),
        ("READINESS_PUBLIC_URL", "https://readiness.example.org/?a=1"),
        ("READINESS_PUBLIC_URL", "https://readiness.example.org/data"),  # an origin: no path
        ("READINESS_PUBLIC_URL", "https://exa mple.org"),
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
    readers = {"data_dir", "host", "behind_proxy", "trusted_proxies", "redis_url", "public_url", "log_level",
               "redis_signing_key", "require_signing_key", *_BOUNDS}
    assert readers == {field.name for field in fields(Settings)}


def test_settings_signing_key_read_and_kept_out_of_repr() -> None:
    settings = Settings.from_env({"READINESS_REDIS_SIGNING_KEY": " s3cret "})
    assert settings.redis_signing_key == "s3cret"
    assert "s3cret" not in repr(settings)
    assert Settings.from_env({}).redis_signing_key is None


@pytest.mark.parametrize("key", [None, DEFAULT_SIGNING_KEY, f" {DEFAULT_SIGNING_KEY} "])
def test_settings_a_required_signing_key_must_be_set_and_secret(key: str | None) -> None:
    # Production's overlay sets READINESS_REQUIRE_SIGNING_KEY (docs/OPERATIONS.md#the-redis-signing-key).
    env = {"READINESS_REQUIRE_SIGNING_KEY": "true", "READINESS_REDIS_URL": "redis://redis:6379/0"}
    if key is not None:
        env["READINESS_REDIS_SIGNING_KEY"] = key
    with pytest.raises(SettingsError, match="READINESS_REDIS_SIGNING_KEY") as raised:
        Settings.from_env(env)
    message = str(raised.value)
    assert "READINESS_REQUIRE_SIGNING_KEY" in message and "\n" not in message
    assert ("unset" if key is None else "public default key") in message
    assert DEFAULT_SIGNING_KEY not in message  # public, but a key all the same
    # Whichever way the settings are made.
    with pytest.raises(SettingsError, match="READINESS_REDIS_SIGNING_KEY"):
        Settings(require_signing_key=True)


def test_settings_a_required_signing_key_that_is_set_is_accepted() -> None:
    settings = Settings.from_env({"READINESS_REQUIRE_SIGNING_KEY": "1", "READINESS_REDIS_SIGNING_KEY": "s3cret"})
    assert settings.require_signing_key and settings.redis_signing_key == "s3cret"
    # Not required (the default, and dev): no key is the public default, as before.
    assert Settings.from_env({"READINESS_REQUIRE_SIGNING_KEY": "false"}).redis_signing_key is None
    assert Settings().require_signing_key is False


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("redis://user:hunter2@redis:port/0", "redis://user:***@redis:port/0"),
        ("redis://:hunter2@redis:6379/zero", "redis://:***@redis:6379/zero"),
        ("rediss://user:hunter2@redis:6379/６", "rediss://user:***@redis:6379/６"),  # beyond ASCII
        ("redis://user:hunter2@[::1/0", "redis://user:***@[::1/0"),
        ("redis://redis:port/0?password=hunter2", "redis://redis:port/0?password=***"),
        ("redis://user:hun%40ter2@redis:port/0", "redis://user:***@redis:port/0"),
        ("http://user:hunter2@redis/0", "http://user:***@redis/0"),
    ],
)
def test_settings_bad_redis_url_message_shows_no_password(raw: str, shown: str) -> None:
    with pytest.raises(SettingsError, match="READINESS_REDIS_URL") as raised:
        Settings.from_env({"READINESS_REDIS_URL": raw})
    message = str(raised.value)
    assert "hunter2" not in message and "hun%40ter2" not in message and "hun@ter2" not in message
    assert f"READINESS_REDIS_URL={shown!r} is not valid" in message
    # The warm-up's --redis-url is checked by the same rule, and named as the flag.
    with pytest.raises(SettingsError, match="--redis-url") as flag:
        redis_url(raw, "--redis-url")
    assert "hunter2" not in str(flag.value)


@pytest.mark.parametrize(
    ("text", "urls", "shown"),
    [
        ("redis://user:hunter2@redis:6379/0", (), "redis://user:***@redis:6379/0"),
        ("redis://:hunter2@redis:6379/0", (), "redis://:***@redis:6379/0"),
        ("redis://redis:6379/0", (), "redis://redis:6379/0"),  # nothing to hide
        ("redis://user@redis:6379/0", (), "redis://user@redis:6379/0"),  # a user name is no secret
        ("unix://user:hunter2@/run/redis.sock?db=0&password=hunter3", (),
         "unix://user:***@/run/redis.sock?db=0&password=***"),
        ("GET https://u:p@ss:w@mirror.example/v2/country: HTTP 500", (),
         "GET https://u:***@mirror.example/v2/country: HTTP 500"),
        ("connect 'redis://a:hunter2@h:1/0' failed; retry 'redis://b:hunter3@h:2/0'", (),
         "connect 'redis://a:***@h:1/0' failed; retry 'redis://b:***@h:2/0'"),
        # A library's message quoting the password without its URL: the URL is given.
        ("nonnumeric port: 'hunter2@mirror'", ("http://u:hunter2@mirror/",), "nonnumeric port: '***@mirror'"),
        ("redis://u:hunter 2@h:1/0", ("redis://u:hunter 2@h:1/0",), "redis://u:***@h:1/0"),  # a space
        ("auth hunter2, hunter%32", ("redis://u:hunter%32@h/0",), "auth ***, ***"),  # as written and decoded
        ("no URL here", (None,), "no URL here"),
    ],
)
def test_redact_replaces_every_password_and_nothing_else(text: str, urls: tuple[str | None, ...], shown: str) -> None:
    assert redact(text, *urls) == shown


@given(user=st.text("abc%", max_size=5),
       password=st.text(st.characters(exclude_characters="/?#@*"), min_size=1))
def test_redact_never_shows_the_password_of_a_redis_url(user: str, password: str) -> None:
    url = f"redis://{user}:{password}@redis:6379/0"
    for text in (url, f"connecting to {url} failed: {password!r}"):
        assert password not in redact(text, url).replace("***", "")
    if password not in f"redis://{user}:@redis:6379/0":  # else that text is replaced too: safe, not pretty
        assert redact(url, url) == f"redis://{user}:***@redis:6379/0"


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


def test_settings_trusted_proxies_read_as_address_blocks() -> None:
    settings = Settings.from_env({"READINESS_TRUSTED_PROXIES": " 10.1.0.0/16, fd00::/8 192.0.2.7"})
    assert settings.trusted_proxies == ("10.1.0.0/16", "fd00::/8", "192.0.2.7/32")
    assert Settings.from_env({}).trusted_proxies == PRIVATE_NETWORKS
    with pytest.raises(SettingsError, match="READINESS_TRUSTED_PROXIES='10.0.0.0/33'"):
        Settings.from_env({"READINESS_TRUSTED_PROXIES": "10.0.0.0/33"})


@pytest.mark.parametrize(("raw", "base"), [
    ("https://readiness.example.org/", "https://readiness.example.org"),
    ("http://readiness.example.org:8080", "http://readiness.example.org:8080"),
])
def test_settings_public_url_is_an_origin_without_a_trailing_slash(raw: str, base: str) -> None:
    assert Settings.from_env({"READINESS_PUBLIC_URL": raw}).public_url == base
    assert Settings.from_env({}).public_url is None
