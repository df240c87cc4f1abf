"""``readiness.domain.route``: the URL patterns the route table gives, each path served by one."""

from __future__ import annotations

import re

from readiness.domain.route import FromFiles
from readiness.domain.routes import ROUTES


def _paths() -> dict[str, str]:
    """Each data route's and each download's URL pattern, by an example path of its own."""
    patterns = {route.path.replace("{id}", "2025-12"): route.pattern for route in ROUTES}
    patterns.update({download.path.replace("{id}", "2025-12"): download.pattern
                     for route in ROUTES for download in route.downloads})
    return patterns


def test_every_path_matches_its_own_pattern_and_no_other() -> None:
    patterns = _paths()
    assert "/api/v1/snapshots/2025-12/readiness.csv" in patterns  # the bulk table file
    assert "/api/v1/snapshots/2025-12/changes.csv" in patterns  # the change report's download
    assert "/api/v1/readiness.csv" in patterns
    for path, own in patterns.items():
        matching = [pattern for pattern in patterns.values() if re.fullmatch(pattern, path)]
        assert matching == [own], (path, matching)


def test_a_bulk_file_has_no_second_download_path() -> None:
    files = [route for route in ROUTES if isinstance(route.source, FromFiles)]
    assert files and all(route.downloads == () for route in files)
    assert all(download.path.count(".") == 1 for route in ROUTES for download in route.downloads)
