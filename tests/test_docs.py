"""The docs keep up with the code: settings, parameters, the README's examples, and every citation
of a doc's section leads to a heading that exists."""

from __future__ import annotations

import functools
import re
import subprocess
import unicodedata
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import orjson
import pytest

from config import Settings
from readiness.domain.parameters import COUNTRY_QUERY
from readiness.domain.routes import ROUTES
from tests.conftest import ROOT, gen_test, unavailable

README = (ROOT / "README.md").read_text()
API = (ROOT / "docs" / "API.md").read_text()
CONFIGURATION = (ROOT / "docs" / "CONFIGURATION.md").read_text()


@pytest.mark.parametrize("setting", [field.name for field in fields(Settings)])
def test_every_setting_documented(setting: str) -> None:
    variable = f"READINESS_{setting.upper()}"
    assert variable in CONFIGURATION
    assert variable in README


@pytest.mark.parametrize("parameter", sorted({name for route in ROUTES for name in route.grammar.names}))
def test_every_query_parameter_of_every_route_documented(parameter: str) -> None:
    assert f"| `{parameter}` |" in API


@pytest.mark.parametrize("parameter", COUNTRY_QUERY.names)
def test_every_country_query_parameter_in_the_readme(parameter: str) -> None:
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


# --- Citations of the docs: a link to a heading that exists ------------------------------------
#
# Code cites a section of a doc as a link to its heading, `docs/CACHING.md#live-snapshot-swap`,
# the id GitHub gives that heading, so a reader (or an editor) lands on it. A doc named as a
# whole (`docs/OPERATIONS.md`) needs no anchor. A renamed heading breaks its citations here,
# not silently in a reader's browser.

NOT_CITING_SUFFIXES = frozenset({".json", ".csv", ".lock", ".png", ".svg", ".ico", ".mo"})
"""Data, locks, images and compiled catalogues: nothing in them cites a doc."""

CITATION = re.compile(r"(?<![\w/.-])((?:\w[\w.-]*/)*[A-Z][A-Z_]*\.md)#([\w-]*)")
"""A doc path from the repository's root, then ``#`` and a heading's id."""

FREE_TEXT = re.compile(
    r"(?<![\w/.-])(?:\w[\w.-]*/)*[A-Z][A-Z_]*\.md(?:,|\s*§)"
    r"(?!\s*(?:#\s*)?(?:and\s+)?(?:\w[\w.-]*/)*[A-Z][A-Z_]*\.md\b)"
)
"""The old free-text form, ``docs/CACHING.md, live swap`` or ``docs/API.md §3``: a comma or a
section sign right after the doc's name, unless another doc's name follows (a list of docs)."""

MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def heading_id(text: str) -> str:
    """The id GitHub gives a heading of ``text``: links and inline code reduced to their text,
    lower case, everything but letters, digits, spaces, ``-`` and ``_`` dropped, each space a
    ``-`` (github-slugger, which GitHub uses)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("`", "")
    kept = "".join(c for c in text.strip().lower() if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def heading_ids(markdown: str) -> set[str]:
    """Every heading id of a Markdown page; a repeated one gets ``-1``, ``-2``, ... Lines in
    fenced code blocks (a shell comment, say) are not headings."""
    ids: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        heading = None if fenced else re.match(r" {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", line)
        if heading:
            base = heading_id(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            ids.add(base if count == 0 else f"{base}-{count}")
    return ids


def outside_fences(markdown: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of a Markdown page that are not in a fenced code block."""
    fenced = False
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            yield number, line


@functools.cache
def _ids_of(path: Path) -> frozenset[str]:
    return frozenset(heading_ids(path.read_text(encoding="utf-8")))


def unreachable(target: Path, anchor: str) -> str | None:
    """Why ``target#anchor`` leads nowhere, or None when it reaches a heading."""
    if not target.is_file():
        return "no such file"
    if anchor and target.suffix == ".md" and anchor not in _ids_of(target):
        return f"no heading with the id {anchor!r}"
    return None


def dangling_citations(name: str, text: str) -> list[str]:
    """The citations in ``text`` (a file of code, named ``name``) that lead to no heading."""
    return [
        f"{name}:{text.count(chr(10), 0, found.start()) + 1}: {found.group(0)}: {why}"
        for found in CITATION.finditer(text)
        if (why := unreachable(ROOT / found.group(1), found.group(2)))
    ]


def dangling_links(path: Path, text: str) -> list[str]:
    """The links of a Markdown page to a file of the repository, or to a heading, that lead
    nowhere (targets relative to the page, as GitHub reads them)."""
    broken = []
    for number, line in outside_fences(text):
        for found in MARKDOWN_LINK.finditer(line):
            target, _, anchor = found.group(1).partition("#")
            if re.match(r"[a-z][a-z+.-]*:", target):
                continue  # https:, mailto:: not a file of the repository
            if why := unreachable((path.parent / target) if target else path, anchor):
                broken.append(f"{path.relative_to(ROOT)}:{number}: {found.group(1)}: {why}")
    return broken


def free_text_citations(name: str, text: str) -> list[str]:
    return [
        f"{name}:{text.count(chr(10), 0, found.start()) + 1}: {text[found.start():found.end() + 30]!r}"
        for found in FREE_TEXT.finditer(text)
    ]


@functools.cache
def tracked() -> tuple[Path, ...]:
    """The repository's files, as git lists them (what a clone has)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        unavailable(f"the docs' citations are checked in a git checkout only: git ls-files: {error}")
    return tuple(ROOT / name for name in listed.stdout.decode().split("\0") if name and (ROOT / name).is_file())


def citing() -> list[tuple[str, str]]:
    """(name, text) of every tracked file that may cite a doc: all but the docs themselves,
    the data (data/, JSON, CSV, locks), images, and this module (its examples are wrong on
    purpose)."""
    own = Path(__file__).resolve()
    files = []
    for path in tracked():
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("data/") or path.suffix in NOT_CITING_SUFFIXES:
            continue
        if (name.startswith("docs/") and path.suffix == ".md") or path == own:
            continue
        files.append((name, path.read_text(encoding="utf-8")))
    return files


def test_heading_ids_are_the_ones_github_gives() -> None:
    page = "\n".join([
        "# Caching, warm-up and the live snapshot swap",
        "### `GET /api/v1/indicators`: the indicator values as one long table",
        "### Another snapshot under an existing id: `--replace`",
        "## 0. Fetch: the raw tables from the World Bank API",
        "### indicator_details element",
        "## Tier-2 hits: where the time went (2026-11-23)",
        "## A hung snapshot volume",
        "## A hung snapshot volume",
        "```sh",
        "# not a heading",
        "```",
    ])
    assert heading_ids(page) == {
        "caching-warm-up-and-the-live-snapshot-swap",
        "get-apiv1indicators-the-indicator-values-as-one-long-table",
        "another-snapshot-under-an-existing-id---replace",
        "0-fetch-the-raw-tables-from-the-world-bank-api",
        "indicator_details-element",
        "tier-2-hits-where-the-time-went-2026-11-23",
        "a-hung-snapshot-volume",
        "a-hung-snapshot-volume-1",
    }


def test_code_cites_headings_that_exist() -> None:
    files = citing()
    citations = sum(len(CITATION.findall(text)) for _, text in files)
    assert citations > 100, f"only {citations} citations found: is CITATION still matching them?"
    dangling = [line for name, text in files for line in dangling_citations(name, text)]
    assert not dangling, "cite a heading of the doc (its id as GitHub shows it):\n" + "\n".join(dangling)


def test_markdown_links_reach_files_and_headings_that_exist() -> None:
    pages = [path for path in tracked() if path.suffix == ".md"]
    assert ROOT / "docs" / "CACHING.md" in pages and ROOT / "README.md" in pages
    dangling = [line for path in pages for line in dangling_links(path, path.read_text(encoding="utf-8"))]
    assert not dangling, "\n".join(dangling)


def test_no_free_text_citation_of_a_section() -> None:
    offenders = [line for name, text in citing() for line in free_text_citations(name, text)]
    assert not offenders, (
        "cite a section as a link to its heading, docs/CACHING.md#live-snapshot-swap:\n" + "\n".join(offenders)
    )


def test_the_checks_catch_a_dangling_anchor_and_the_free_text_form() -> None:
    # The three tests above pass by finding nothing: each check must still find what it is for.
    assert dangling_citations("x.py", '"""Swapped live (docs/CACHING.md#live-snapshot-swap)."""') == []
    assert dangling_citations("x.py", "# Swapped live (docs/CACHING.md#live-swap).")
    assert dangling_citations("x.py", "# See docs/NOWHERE.md#anything.")
    assert dangling_citations("x.py", "# See README.md#citing, docs/API.md#parameters: year.") == []
    page = ROOT / "docs" / "API.md"
    assert dangling_links(page, "As [CACHING.md](CACHING.md#metrics) says; [below](#csv).") == []
    assert dangling_links(page, "As [CACHING.md](CACHING.md#live-swap) says.")
    assert dangling_links(page, "As [below](#no-such-heading) says.")
    assert dangling_links(page, "As [NOWHERE.md](NOWHERE.md) says.")
    for old in ('(docs/CACHING.md, "Live swap")', "(docs/API.md, Headers)", "docs/CACHING.md,\n# live swap",
                "docs/API.md §3"):
        assert free_text_citations("x.py", old), old
    for fine in ("(docs/API.md, docs/DECISIONS.md)", "docs/API.md, DECISIONS.md, CACHING.md",
                 "(docs/CACHING.md#popularity, docs/API.md#limits)", "docs/OPERATIONS.md says how"):
        assert free_text_citations("x.py", fine) == [], fine
