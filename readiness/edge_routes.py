"""The edge's knowledge of the API, generated from the route table and the parser
(``make edge-routes``).

The edge (nginx, k8s/base/edge.conf.template) keys each request by the API's own canonical
query (k8s/base/edge-keys.js: the routes it keys and the vocabulary its rules read,
readiness/edge_script.py) and takes a target that is already canonical as it came, without
running njs (the template's map to ``$edge_target``, readiness/edge_fast_path.py:
docs/PERFORMANCE.md#what-njs-costs-a-hit). Both are written here, between ``BEGIN ROUTES`` and
``END ROUTES`` lines in each file, so that a route, parameter or spelling is added in the
domain alone:

    python -m readiness.edge_routes           # rewrite both files' generated lines
    python -m readiness.edge_routes --check   # exit 1 when a committed file differs

Both files are committed (the Kubernetes manifests mount them as they are), and
tests/test_edge_routes.py fails when either differs from what the domain gives. Not on the
request path.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from readiness.domain.route import Route
from readiness.domain.routes import ROUTES
from readiness.edge_config import SCRIPTS, TEMPLATE
from readiness.edge_fast_path import lane_entry, lane_maps, map_entries
from readiness.edge_script import js_block
from readiness.edge_vocabulary import keyed

KEYS_JS = SCRIPTS / "edge-keys.js"
"""The njs module the edge keys queries with (beside the template it is imported by)."""

MAKE = "make edge-routes"
EDIT = "Edit the table, not these lines: tests/test_edge_routes.py fails when they differ from it."


class MarkersMissing(ValueError):
    """A file lacks its ``BEGIN ROUTES``/``END ROUTES`` lines, or has them more than once."""


def map_block(routes: Sequence[Route] = ROUTES) -> list[str]:
    """The generated entries of the template's map to ``$edge_target``: each strict data route's
    canonical targets, taken as they came (readiness/edge_fast_path.py)."""
    among = keyed(routes)
    return [f"    # {EDIT}", *(line for route in among if route.fast
                                 for line in (*map_entries(route), *lane_entry(route, among)))]


def lanes_block(routes: Sequence[Route] = ROUTES) -> list[str]:
    """The maps writing the lanes' canonical targets (readiness/edge_fast_path.py's second lane:
    aliases, another case, pairs out of order), before the map to ``$edge_target`` that uses them."""
    return [f"# {EDIT}", *lane_maps(keyed(routes))]


def with_block(text: str, block: Sequence[str], comment: str, marker: str = "ROUTES") -> str:
    """``text`` with the lines between its ``BEGIN ROUTES`` and ``END ROUTES`` lines (comments
    starting with ``comment``; ``marker`` for another word than ROUTES) replaced by ``block``.
    Raises MarkersMissing unless each is there once."""
    lines = text.split("\n")
    begins = [n for n, line in enumerate(lines) if line.strip().startswith(f"{comment} BEGIN {marker}")]
    ends = [n for n, line in enumerate(lines) if line.strip().startswith(f"{comment} END {marker}")]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise MarkersMissing(f"expected one '{comment} BEGIN {marker}' line, then one '{comment} END {marker}' line")
    return "\n".join([*lines[: begins[0] + 1], *block, *lines[ends[0] :]])


def generated(routes: Sequence[Route] = ROUTES) -> dict[Path, str]:
    """Each file as the route table makes it, from its committed text."""
    return {
        KEYS_JS: with_block(KEYS_JS.read_text(), [f"// {EDIT}", *js_block(routes)], "//"),
        TEMPLATE: with_block(with_block(TEMPLATE.read_text(), lanes_block(routes), "#", "LANES"),
                             map_block(routes), "#"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Write the generated lines (exit 0), or with ``--check`` exit 1 naming each file that differs."""
    parser = argparse.ArgumentParser(prog="python -m readiness.edge_routes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a file differs")
    arguments = parser.parse_args(argv)
    stale = [path for path, text in generated().items() if path.read_text() != text]
    if arguments.check:
        for path in stale:
            print(f"{path}: differs from the route table; run {MAKE}", file=sys.stderr)
        return 1 if stale else 0
    for path, text in generated().items():
        if path in stale:
            path.write_text(text)
            print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
