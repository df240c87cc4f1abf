"""The official client as a user gets it: the wheel of clients/python built, installed into a
fresh virtualenv beside its dependencies (the versions of the service's lock), and used there
(tests/client_package_script.py) against a real ``server.py`` on the bundled (synthetic)
sample, and against a scripted server that is busy once (503, ``Retry-After: 1``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.client_fake import Reply, scripted
from tests.conftest import ROOT
from tests.processes import Server, get, serving_sample

CLIENT = ROOT / "clients" / "python"
PROJECT = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client's wheel, built from a copy of clients/python (no build files in the checkout)
    by the locked setuptools already installed (no index reached)."""
    base = tmp_path_factory.mktemp("client-wheel")
    shutil.copytree(CLIENT, base / "source", ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    built = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
                  "--no-build-isolation", "--wheel-dir", str(base / "dist"), str(base / "source")], base)
    assert built.returncode == 0, built.stderr
    (found,) = (base / "dist").glob("readiness_client-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed by pip. Its dependencies are the locked ones
    of the tests' own environment, reached through a ``.pth`` file rather than installed again
    (half a minute of downloads and unpacking for the same files); ``pip check`` then says
    whether they satisfy what the wheel requires."""
    base = tmp_path_factory.mktemp("client-venv")
    created = _run([sys.executable, "-m", "venv", str(base / "venv")], base)
    assert created.returncode == 0, created.stderr
    python = str(base / "venv" / "bin" / "python")
    found = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], base)
    assert found.returncode == 0, found.stderr
    locked = {sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")}
    (Path(found.stdout.strip()) / "locked-dependencies.pth").write_text("\n".join(sorted(locked)) + "\n")
    step = _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                 "--no-index", str(wheel)], base)
    assert step.returncode == 0, step.stderr
    return base / "venv"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving_sample(tmp_path_factory.mktemp("client-package-server")) as running:
        yield running


@pytest.fixture(scope="module")
def report(venv: Path, server: Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the script printed, run by the virtualenv's python from a folder outside the checkout."""
    base = tmp_path_factory.mktemp("client-run")
    script = shutil.copy(ROOT / "tests" / "client_package_script.py", base / "script.py")
    with scripted() as fake:
        busy = Reply.json({"apiVersion": "1", "error": "Busy: try again."}, 503, Retry_After="1")
        fine = Reply.json({"apiVersion": "1", "level": "global", "snapshot": "current", "count": 1,
                           "data": [{"Country Code": "KEN"}]}, X_Readiness_Snapshot="2026-11", X_Total_Count="1")
        fake.script("/api/v1/readiness?limit=1000", busy, fine)
        run = _run([str(venv / "bin" / "python"), str(script), server.url(""), fake.url, str(base / "cache")], base)
        assert run.returncode == 0, run.stderr
        assert [request.path for request in fake.requests] == ["/api/v1/readiness?limit=1000"] * 2
    parsed: dict[str, Any] = json.loads(run.stdout)
    return parsed


def answer(server: Server, path: str) -> dict[str, Any]:
    status, body = get(server.url(path))
    assert status == 200, body
    parsed: dict[str, Any] = json.loads(body)
    return parsed


def rows(data: list[dict[str, Any]] | dict[str, Any], columns: list[str]) -> list[dict[str, Any]]:
    return [{name: row.get(name) for name in columns} for row in (data if isinstance(data, list) else [data])]


# --- the package ----------------------------------------------------------------------------


def test_the_wheel_holds_the_package_its_types_and_its_dependencies(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(name).decode() for name in names if name.endswith(".dist-info/METADATA"))
    modules = {"__init__.py", "cache.py", "client.py", "transport.py", "py.typed"}
    assert {f"readiness_client/{name}" for name in modules} <= names
    assert not any(name.startswith(("tests/", "readiness/")) for name in names)
    assert sorted(re.findall(r"^Requires-Dist: (.+)$", metadata, re.MULTILINE)) == sorted(PROJECT["dependencies"])


def test_the_installed_package_is_the_wheels_and_says_its_version(venv: Path, report: dict[str, Any]) -> None:
    assert Path(report["module"]).is_relative_to(venv)
    assert report["project_importable"] == []
    assert report["typed"] is True
    assert report["version"] == report["distribution"] == PROJECT["version"]
    checked = _run([str(venv / "bin" / "python"), "-m", "pip", "check"], venv)
    assert checked.returncode == 0, checked.stdout


# --- used against the service ---------------------------------------------------------------


def test_each_route_gives_the_services_rows(server: Server, report: dict[str, Any]) -> None:
    for key, path in (("readiness", "/api/v1/readiness?region=lac"),
                      ("history", "/api/v1/history?codes=KEN,BRA&shape=long"),
                      ("aggregates", "/api/v1/aggregates?by=region"),
                      ("pinned", "/api/v1/readiness?snapshot=2024-06&codes=KEN")):
        got = report[key]
        expected = answer(server, path)
        assert got["rows"] == rows(expected["data"], list(got["rows"][0])), key
        assert got["notice"] == expected["notice"]
    assert report["readiness"]["dtypes"]["Global Rank"] == "Int64"  # a microstate's null rank
    assert report["history"]["dtypes"]["value"] == "float64"
    assert report["pinned"]["snapshot"] == "2024-06"
    assert report["pinned_current"] == "2026-11"


def test_paging_is_followed_and_a_second_call_is_served_from_disk(report: dict[str, Any]) -> None:
    first, again = report["history"], report["history_again"]
    assert (len(first["rows"]), first["total"], first["pages"], first["revalidated"]) == (64, 64, 2, 0)
    assert (again["rows"], again["pages"], again["revalidated"]) == (first["rows"], 2, 2)


def test_a_busy_answer_is_asked_again_after_its_retry_after(report: dict[str, Any]) -> None:
    assert report["retried"]["table"]["rows"] == [{"Country Code": "KEN"}]
    assert report["retried"]["waited"] >= 1.0


def test_the_notice_is_a_user_warning_of_its_own_class(server: Server, report: dict[str, Any]) -> None:
    notice = answer(server, "/api/v1/readiness?region=lac")["notice"]
    assert report["warnings"] == [{"category": "NoticeWarning", "message": notice, "user_warning": True,
                                   "notice_warning": True}]


@pytest.mark.parametrize("format_", ["bibtex", "ris", "csl", "text"])
def test_citation_is_the_file_the_service_serves(server: Server, report: dict[str, Any], format_: str) -> None:
    status, body = get(server.url(f"/api/v1/citation?format={format_}"))
    assert status == 200
    assert report["citations"][format_] == body.decode()
