"""The docs keep up with the code: settings, parameters, and the README's examples."""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

import orjson
import pytest

from config import Settings
from readiness.domain.query import PARAMETERS

from tests.conftest import ROOT, gen_test

README = (ROOT / "README.md").read_text()
API = (ROOT / "docs" / "API.md").read_text()
CONFIGURATION = (ROOT / "docs" / "CONFIGURATION.md").read_text()


@pytest.mark.parametrize("setting", [field.name for field in fields(Settings)])
def test_every_setting_documented(setting: str) -> None:
    variable = f"READINESS_{setting.upper()}"
    assert variable in CONFIGURATION
    assert variable in README


@pytest.mark.parametrize("parameter", PARAMETERS)
def test_every_query_parameter_documented(parameter: str) -> None:
    assert f"| `{parameter}` |" in API
    assert f"`{parameter}`" in README


def test_readme_shows_make_run_and_make_test() -> None:
    assert "make run" in README and "make test" in README


def test_readme_and_docs_say_the_sample_is_synthetic() -> None:
    for text in (README, API, (ROOT / "docs" / "DATA.md").read_text()):
        assert "synthetic" in text.lower()


# The README's error examples: "GET <path> → <status>" followed by the exact body.
ERROR_EXAMPLES = re.findall(r"^GET (\S+) +→ (\d{3}).*\n(\{.*\})$", README, flags=re.MULTILINE)


def test_readme_has_error_examples() -> None:
    assert len(ERROR_EXAMPLES) >= 3


@gen_test
@pytest.mark.parametrize(("path", "status", "body"), ERROR_EXAMPLES)
async def test_readme_error_example_is_what_the_service_says(
    http_client: Any, base_url: str, path: str, status: str, body: str
) -> None:
    response = await http_client.fetch(base_url + path, raise_error=False)
    assert response.code == int(status)
    assert orjson.loads(response.body) == orjson.loads(body)


OUTSIDE_REFERENCE = re.compile(r"\b(SPEC|DESIGN)\b( ?§? ?\d)?|shared/(SPEC|DESIGN)\.md")
"""A citation of the product owner's documents, which are not in this repository."""


def test_code_and_docs_cite_only_documents_in_the_repository() -> None:
    tracked = [
        path
        for pattern in ("*.py", "*.md", "*.yaml")
        for path in ROOT.rglob(pattern)
        if not {".venv", ".venv-tools", "node_modules"} & set(path.relative_to(ROOT).parts)
        and path != ROOT / "tests" / "test_docs.py"
    ]
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in tracked
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE_REFERENCE.search(line)
    ]
    assert not offenders, f"cite docs/API.md, DECISIONS.md, DATA.md, ... instead: {offenders}"
