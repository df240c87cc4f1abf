"""The domain layer (readiness/domain/) is pure (docs/ARCHITECTURE.md): importing them loads neither the HTTP
framework, the cache tier's client, the metrics library nor the snapshot validator."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

HEAVY = ("tornado", "redis", "prometheus_client", "jsonschema")


DOMAIN = sorted(f"readiness.domain.{path.stem}" for path in (ROOT / "readiness" / "domain").glob("[!_]*.py"))
"""Every module of the domain layer: a new one is held to the rule without being listed here."""


@pytest.mark.parametrize("module", [*DOMAIN, "loaders.contract"])
def test_domain_module_imports_without_the_http_and_cache_stack(module: str) -> None:
    check = f"import sys, {module}; print(sorted(name for name in {HEAVY!r} if name in sys.modules))"
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", f"import {module} loaded {result.stdout.strip()}"
