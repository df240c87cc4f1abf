"""OpenAPI 3.1 description of the service (placeholder until written)."""

from __future__ import annotations

from loaders import JsonValue


def openapi_document() -> dict[str, JsonValue]:
    """The OpenAPI document served at /api/v1/openapi.json."""
    return {"openapi": "3.1.0", "info": {"title": "Readiness Index Data Service", "version": "1"}, "paths": {}}
