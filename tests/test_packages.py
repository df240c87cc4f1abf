"""The domain layer (readiness/domain/) is pure (docs/ARCHITECTURE.md): importing them loads neither the HTTP
framework, the cache tier's client, the metrics library nor the snapshot validator. And every module of a
package whose inside is layered is in one of its layers, so lint-imports checks what it imports."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from typing import Any

import pytest

from tests.conftest import ROOT

HEAVY = ("tornado", "redis", "prometheus_client", "jsonschema", "fastjsonschema")


DOMAIN = sorted(f"readiness.domain.{path.stem}" for path in (ROOT / "readiness" / "domain").glob("[!_]*.py"))
"""Every module of the domain layer: a new one is held to the rule without being listed here."""


@pytest.mark.parametrize("module", [*DOMAIN, "loaders.contract"])
def test_domain_module_imports_without_the_http_and_cache_stack(module: str) -> None:
    check = f"import sys, {module}; print(sorted(name for name in {HEAVY!r} if name in sys.modules))"
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", f"import {module} loaded {result.stdout.strip()}"


CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
LAYERED = [contract for contract in CONTRACTS if contract["type"] == "layers" and contract.get("containers")]
"""The layers contracts of pyproject.toml that order the modules inside a package (docs/ARCHITECTURE.md#layers)."""


@pytest.mark.parametrize("contract", LAYERED, ids=[contract["containers"][0] for contract in LAYERED])
def test_layers_contract_every_module_of_its_package_is_in_a_layer(contract: dict[str, Any]) -> None:
    # A module in no layer is not checked by the contract: it may import back up unseen.
    layered = {name.strip(" ()") for layer in contract["layers"] for name in re.split(r"[|:]", layer)}
    for container in contract["containers"]:
        package = ROOT.joinpath(*container.split("."))
        modules = {path.stem for path in package.glob("[!_]*.py")}
        modules |= {path.parent.name for path in package.glob("[!_]*/__init__.py")}
        assert sorted(modules - layered) == [], f"{container}: in no layer of {contract['name']!r}"
