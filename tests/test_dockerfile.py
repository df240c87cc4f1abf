"""The Dockerfile, checked without a Docker engine (none runs here; the image is built by the
release pipeline): its bases, what it copies, who runs it, and that its command is one the
server accepts and the Deployment runs.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

import server
from config import Settings
from tests.conftest import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()
DOCKERIGNORE = (ROOT / ".dockerignore").read_text().splitlines()


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    joined = re.sub(
        r"\\\n",
        " ",
        "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")),
    )
    return [
        (word.upper(), rest.strip())
        for word, _, rest in (line.strip().partition(" ") for line in joined.splitlines())
        if word
    ]


INSTRUCTIONS = _instructions(DOCKERFILE)
ARGS = dict(rest.split("=", 1) for name, rest in INSTRUCTIONS if name == "ARG" and "=" in rest)


def _stages() -> dict[str, list[tuple[str, str]]]:
    """The instructions of each stage by its name (``FROM ... AS name``), its FROM first."""
    stages: dict[str, list[tuple[str, str]]] = {}
    for instruction in INSTRUCTIONS:
        if instruction[0] == "FROM":
            stages[instruction[1].split()[-1]] = []
        if stages:
            stages[list(stages)[-1]].append(instruction)
    return stages


def _image(target: str | None = None) -> list[tuple[str, str]]:
    """What an image built with ``--target`` (default: the last stage) is made of: the
    instructions of that stage and of the stages it is built on, the first FROM first."""
    stages = _stages()
    name = target or list(stages)[-1]
    chain: list[tuple[str, str]] = []
    while name in stages:
        chain = stages[name] + chain
        name = stages[name][0][1].split()[0]
    return chain


def _copies(stage: list[tuple[str, str]]) -> list[list[str]]:
    return [shlex.split(rest) for name, rest in stage if name == "COPY"]


def _context_sources(stage: list[tuple[str, str]] = INSTRUCTIONS) -> list[str]:
    """What the COPY instructions take from the build context (not from another stage)."""
    return [
        path
        for copy in _copies(stage)
        if not copy[0].startswith("--from")
        for path in copy[:-1]
    ]


def _command() -> list[str]:
    (command,) = [json.loads(rest) for name, rest in _image() if name == "CMD"]
    return list(command)


@functools.cache
def server_options() -> frozenset[str]:
    """The option names ``server.py --help`` lists. Exact names: argparse would also accept an
    abbreviation such as ``--data``, which a later option could make ambiguous.
    """
    result = subprocess.run(
        [sys.executable, "server.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return frozenset(re.findall(r"(?<![\w-])--[a-z][a-z-]*", result.stdout))


def check_server_command(command: list[str]) -> Settings:
    """Assert a container command runs server.py with exact flags it has; return its settings."""
    assert command[:2] == ["python", "server.py"], command
    flags = [part.split("=", 1)[0] for part in command[2:] if part.startswith("--")]
    assert set(flags) <= server_options(), set(flags) - server_options()
    return server.parse_args(command[2:], Settings())  # exits 2 on a bad value


def _api_container() -> dict[str, object]:
    deployment = yaml.safe_load((ROOT / "k8s" / "base" / "api-deployment.yaml").read_text())
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return dict(container)


def test_dockerfile_builds_in_stages_on_slim_python_311() -> None:
    stages = _stages()
    assert len(stages) >= 2
    earlier: set[str] = set()
    for name, stage in stages.items():
        base = stage[0][1].split()[0]
        base = re.sub(r"\$\{(\w+)\}", lambda match: ARGS[match.group(1)], base)
        assert base in earlier or base.startswith("python:3.11-slim"), base
        earlier.add(name)


def test_dockerfile_needs_no_frontend_from_a_registry() -> None:
    # A "# syntax=" directive makes BuildKit pull that frontend image before building.
    assert not re.search(r"^#\s*syntax\s*=", DOCKERFILE, re.IGNORECASE | re.MULTILINE)


def test_dockerfile_copies_only_files_that_exist() -> None:
    sources = _context_sources()
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), source


def test_dockerignore_lets_through_exactly_what_the_dockerfile_copies() -> None:
    # An allow-list: ignore everything, then re-include each copied path.
    entries = [line for line in DOCKERIGNORE if line and not line.startswith("#")]
    assert entries[0] == "*"
    allowed = {line[1:].rstrip("/") for line in DOCKERIGNORE if line.startswith("!")}
    assert allowed == {path.rstrip("/") for path in _context_sources()}


def test_dockerfile_final_stage_installs_nothing_and_copies_from_the_build() -> None:
    final = _image()
    assert len([name for name, _ in final if name == "FROM"]) >= 1
    for name, rest in final:
        if name == "RUN":
            assert not re.search(r"\b(apt-get|apt|apk|pip|gcc|make)\b", rest), rest
        if name == "COPY":
            assert rest.startswith("--from="), rest


def test_dockerfile_runs_as_a_numeric_non_root_user_the_deployment_agrees_on() -> None:
    (user,) = [rest for name, rest in _image() if name == "USER"]
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) != 0 and (not gid or int(gid) != 0)
    deployment = yaml.safe_load((ROOT / "k8s" / "base" / "api-deployment.yaml").read_text())
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == int(uid)


def test_dockerfile_command_uses_the_servers_flags() -> None:
    settings = check_server_command(_command())
    assert (settings.host, settings.port, str(settings.data_dir)) == ("0.0.0.0", 8080, "/data")
    exposed = [int(rest) for name, rest in _image() if name == "EXPOSE"]
    assert exposed == [settings.port]


def test_dockerfile_command_is_the_deployments() -> None:
    assert _api_container()["command"] == _command()


def _commands(node: object) -> list[str]:
    """Every container command in a manifest, as one string (scripts and hooks included)."""
    found: list[str] = []
    if isinstance(node, dict):
        command = node.get("command")
        if isinstance(command, list) and all(isinstance(part, str) for part in command):
            found.append(" ".join(command))
        for value in node.values():
            found += _commands(value)
    elif isinstance(node, list):
        for value in node:
            found += _commands(value)
    return found


def test_image_holds_every_python_module_the_manifests_run() -> None:
    # python -m MODULE anywhere in k8s/ (the refresh job's builder and warm-up hook included).
    modules = set()
    for path in (ROOT / "k8s").rglob("*.yaml"):
        for document in yaml.safe_load_all(path.read_text()):
            for command in _commands(document):
                modules.update(re.findall(r"\bpython -m ([\w.]+)", command))
    copied = {Path(source).name for source in _context_sources()}
    assert modules
    for module in modules:
        assert module.split(".")[0] in copied, module


def test_production_image_holds_no_sample_and_the_dev_target_adds_only_it() -> None:
    # The synthetic sample (16 MB) is for k8s/overlays/dev only; production must not carry it.
    assert list(_stages())[-1] == "runtime", "the default target is the production image"
    assert not any(path.startswith("data") for path in _context_sources(_image()))
    dev = _image("dev")
    assert _context_sources(dev) == ["data/sample/"]
    assert [step for step in dev if step not in _image()] == [
        ("FROM", "service AS dev"),
        ("COPY", "data/sample/ data/sample/"),
    ]


def test_dockerfile_installs_the_hashed_lock_into_a_venv_without_pip() -> None:
    build = _stages()["build"]
    runs = [rest for name, rest in build if name == "RUN"]
    assert any(re.search(r"-m venv --without-pip /venv\b", run) for run in runs)
    (install,) = [run for run in runs if re.search(r"\bpip\b.*\binstall\b", run)]
    words = shlex.split(install)
    assert {"--require-hashes", "--no-deps", "--only-binary=:all:"} <= set(words)
    assert words[words.index("--python") + 1] == "/venv/bin/python"
    (lock,) = [copy for copy in _copies(build) if copy[0] == "requirements.lock"]
    assert words[words.index("--requirement") + 1] == lock[-1]
