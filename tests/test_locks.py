"""The lock files: every package of the dependency tree, direct or not, pinned to one version
with its hashes, for the image (requirements.lock) and for `make test` and CI
(requirements-dev.lock). The requirements*.txt files are what the locks are compiled from
(`make lock`); these tests fail when one was edited without compiling again.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tests.conftest import ROOT

LOCKS = {"requirements.txt": "requirements.lock", "requirements-dev.txt": "requirements-dev.lock"}


def _logical_lines(path: Path) -> list[str]:
    """The file's lines with continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", path.read_text())
    return [
        line.split(" #")[0].strip()
        for line in text.splitlines()
        if line.strip()[:1] not in ("", "#")
    ]


def _inputs(name: str) -> list[Requirement]:
    """The requirements a requirements*.txt file names, following ``-r`` includes."""
    found: list[Requirement] = []
    for line in _logical_lines(ROOT / name):
        if line.startswith("-r "):
            found += _inputs(line.split(None, 1)[1])
        else:
            found.append(Requirement(line))
    return found


def _locked(name: str) -> dict[NormalizedName, tuple[str, list[str], Requirement]]:
    """Each locked package: its version, its hashes and its requirement (with its marker)."""
    locked = {}
    for line in _logical_lines(ROOT / name):
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})\b", line)
        requirement = Requirement(re.sub(r"\s*--hash=\S+", "", line).strip())
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", line
        locked[canonicalize_name(requirement.name)] = (specifier.version, hashes, requirement)
    return locked


@pytest.mark.parametrize(("source", "lock"), LOCKS.items())
def test_lock_pins_every_package_to_one_version_with_hashes(source: str, lock: str) -> None:
    locked = _locked(lock)
    assert locked
    for name, (_, hashes, _) in locked.items():
        assert hashes, f"{lock}: {name} has no --hash (pip's hash-checking mode needs all)"


@pytest.mark.parametrize(("source", "lock"), LOCKS.items())
def test_lock_holds_every_requirement_at_a_version_it_allows(source: str, lock: str) -> None:
    locked = _locked(lock)
    for requirement in _inputs(source):
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{source} names {requirement}, {lock} lacks it: run make lock"
        version = locked[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{source} asks for {requirement}, {lock} has {version}: run make lock"
        )


@pytest.mark.parametrize(("source", "lock"), LOCKS.items())
def test_lock_holds_the_dependencies_of_every_package_in_it(source: str, lock: str) -> None:
    # Closed under "requires": what the installed packages declare, for this platform, with the
    # extras the requirements ask for (redis[hiredis]). A package missing here would make
    # `pip install --require-hashes` fail on a fresh machine.
    locked = _locked(lock)
    extras = {
        canonicalize_name(requirement.name): requirement.extras for requirement in _inputs(source)
    }
    environment = default_environment()
    for name, (_, _, requirement) in locked.items():
        if requirement.marker and not requirement.marker.evaluate(environment):
            continue
        try:
            declared = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            pytest.fail(f"{name} is locked but not installed here: run make test on a fresh .venv")
        for dependency in map(Requirement, declared):
            wanted = dependency.marker is None or any(
                dependency.marker.evaluate({**environment, "extra": extra})
                for extra in ("", *extras.get(name, ()))
            )
            if wanted:
                assert canonicalize_name(dependency.name) in locked, (
                    f"{lock}: {name} needs {dependency}, which is not locked: run make lock"
                )


def test_dev_lock_pins_the_runtime_packages_as_the_image_does() -> None:
    runtime, dev = _locked("requirements.lock"), _locked("requirements-dev.lock")
    assert {name: runtime[name][:2] for name in runtime} == {
        name: dev.get(name, ("missing",))[:2] for name in runtime
    }


def test_make_installs_the_dev_lock_with_hashes_and_reinstalls_when_a_lock_changes() -> None:
    makefile = (ROOT / "Makefile").read_text()
    rule = re.search(r"^\$\(STAMP\):(.*)\n((?:\t.*\n|\t.*\\\n)+)", makefile, re.MULTILINE)
    assert rule, "a $(STAMP) rule"
    assert set(rule[1].split()) >= {"requirements.lock", "requirements-dev.lock"}
    assert re.search(r"pip install .*--require-hashes -r requirements-dev\.lock", rule[2])
