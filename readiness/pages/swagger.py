"""Swagger UI's distribution files, from the pinned ``swagger-ui-bundle-v2`` package
(docs/DECISIONS.md#the-pages): served from ``/static/`` like our own, never from a CDN."""

from __future__ import annotations

from pathlib import Path

from swagger_ui_bundle import swagger_ui_path

SWAGGER_FILES = ("swagger-ui-bundle.js", "swagger-ui.css")
"""What /docs loads: the bundle (Swagger UI with React) and its style sheet."""


def swagger_files() -> tuple[Path, ...]:
    """The paths of SWAGGER_FILES in the installed package."""
    root = Path(str(swagger_ui_path))
    return tuple(root / name for name in SWAGGER_FILES)
