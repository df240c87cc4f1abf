"""The project's packaging (pyproject.toml) and lint step, checked for real: ``pip install .``
into a throwaway virtualenv gives every command by name, and `make test` lints first.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SCRIPTS: dict[str, str] = PYPROJECT["project"]["scripts"]
# What a source distribution of the project holds: the packages, server.py and the metadata.
SOURCES = ("pyproject.toml", "README.md", "requirements.txt", "server.py", "config", "loaders",
           "readiness", "builder")


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


def _lock_lines(lock: Path, names: set[str]) -> str:
    """The entries of a lock file for ``names``, hashes and all."""
    entries = re.split(r"\n(?=\S)", lock.read_text())
    return "\n".join(entry for entry in entries if entry.split("==")[0] in names) + "\n"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv (not the shared .venv) into which ``pip install .`` put the project:
    the locked runtime dependencies first, with their hashes, then the project from a copy of
    the sources (so no build files land in the checkout), with nothing fetched but the lock's
    files."""
    base = tmp_path_factory.mktemp("packaging")
    source = base / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    venv = base / "venv"
    created = _run([sys.executable, "-m", "venv", str(venv)], base)
    assert created.returncode == 0, created.stderr
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
           "--disable-pip-version-check"]
    (base / "build.lock").write_text(_lock_lines(ROOT / "requirements-dev.lock", {"setuptools"}))
    for lock in (ROOT / "requirements.lock", base / "build.lock"):
        step = _run([*pip, "--require-hashes", "-r", str(lock)], base)
        assert step.returncode == 0, step.stderr
    # The dependencies are in place: --no-deps and the locked setuptools as build backend keep
    # this step from reaching any index.
    step = _run([*pip, "--no-deps", "--no-build-isolation", str(source)], base)
    assert step.returncode == 0, step.stderr
    return venv


@pytest.mark.parametrize("command", sorted(SCRIPTS))
def test_pip_install_gives_each_command_by_name(installed: Path, command: str) -> None:
    result = _run([str(installed / "bin" / command), "--help"], installed)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: "), result.stdout


def test_installed_commands_include_the_servers_and_the_tools() -> None:
    assert {"readiness-serve", "readiness-warm", "readiness-builder"} <= set(SCRIPTS)
    assert SCRIPTS["readiness-serve"] == "server:main"


def test_installed_package_requires_exactly_requirements_txt(installed: Path) -> None:
    result = _run([str(installed / "bin" / "python"), "-c",
                   "from importlib import metadata; "
                   "print('\\n'.join(metadata.requires('readiness-index-data-service')))"],
                  installed)
    assert result.returncode == 0, result.stderr
    declared = {str(Requirement(line)) for line in result.stdout.splitlines()}
    wanted = {
        str(Requirement(line))
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert declared == wanted


def test_make_test_lints_first_with_the_pinned_ruff() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test: .*\blint\b", makefile, re.MULTILINE)
    (recipe,) = re.findall(r"^lint: .*\n\t(.*)", makefile, re.MULTILINE)
    assert "-m ruff check" in recipe
    pinned = [line for line in (ROOT / "requirements-dev.txt").read_text().splitlines()
              if line.startswith("ruff==")]
    assert pinned == [f"ruff=={metadata.version('ruff')}"]


def test_the_tree_passes_the_lint() -> None:
    result = _run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
