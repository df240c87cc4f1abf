"""The suite's own rules (docs/TESTING.md) that a reviewer would otherwise have to remember."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SEAM = TESTS / "conftest.py"
"""The one module that may name pytest-tornado (its docstring says how to replace it)."""


@pytest.mark.parametrize("name", ["pytest.mark.gen_test", "pytest_tornado"])
def test_only_conftest_names_pytest_tornado(name: str) -> None:
    # Replacing pytest-tornado must stay a change to tests/conftest.py alone.
    offenders = [path.name for path in sorted(TESTS.glob("*.py")) if path not in (SEAM, Path(__file__).resolve()) and name in path.read_text()]
    assert not offenders, f"{offenders} use {name}; use tests.conftest.gen_test and its fixtures"
