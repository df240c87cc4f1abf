"""The edge's knowledge of the routes, generated from the route table (``make edge-routes``).

The edge (nginx, k8s/base/edge.conf.template) keys each query by the names its route takes
(k8s/base/edge-keys.js: ``namesOf``, ``strict``, ``isList``) and takes a target that is
already canonical as it came, without running njs (the template's map to ``$edge_target``:
docs/PERFORMANCE.md#what-njs-costs-a-hit). Both are written here from ``readiness/domain/routes.py``,
between ``BEGIN ROUTES`` and ``END ROUTES`` lines in each file, so that a route or parameter is
added in the table alone:

    python -m readiness.edge_routes           # rewrite both files' generated lines
    python -m readiness.edge_routes --check   # exit 1 when a committed file differs

Both files are committed (the Kubernetes manifests mount them as they are), and
tests/test_edge_routes.py fails when either differs from what the table gives. Not on the
request path.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from readiness.domain.route import Route
from readiness.domain.routes import ROUTES
from readiness.edge_config import SCRIPTS, TEMPLATE

KEYS_JS = SCRIPTS / "edge-keys.js"
"""The njs module the edge keys queries with (beside the template it is imported by)."""

MAKE = "make edge-routes"
EDIT = "Edit the table, not these lines: tests/test_edge_routes.py fails when they differ from it."
_WIDTH = 110
"""How long a generated line may get before it is wrapped (the files' own width)."""
_ARGUMENT = re.compile(r"\{[a-z]+\}")
_VALUE = "(?(DEFINE) (?<v> [-.,:0-9A-Za-z]+ (?:(?:%2[06])+[-.,:0-9A-Za-z]+)* (?:&|\\z) ))"
"""The map's plain value: letters, digits, `-.,:`, and `%20` or `%26` inside (``PLAIN`` in
edge-keys.js), then the next pair or the end."""


class MarkersMissing(ValueError):
    """A file lacks its ``BEGIN ROUTES``/``END ROUTES`` lines, or has them more than once."""


def names_of(route: Route) -> str:
    """The names ``route`` takes, sorted, one space around each (as ``namesOf`` returns them)."""
    return " " + "".join(f"{name} " for name in sorted(route.grammar.names))


def js_block(routes: Sequence[Route] = ROUTES) -> list[str]:
    """The generated lines of edge-keys.js: ``namesOf``, ``strict`` and ``isList``."""
    lines = [
        f"// {EDIT}",
        "// The names each of the API's data routes takes (its grammar in readiness/domain/routes.py),",
        "// a trailing slash taken off the path, as one string with a space around each name;",
        "// undefined when `path` is not a data route. Code and string constants, not a table: njs 0.7",
        "// clones the VM for every request, and a global object graph such as {route: {name: true}}",
        "// was copied with it, 5 microseconds a request (docs/PERFORMANCE.md#what-njs-costs-a-hit).",
        "function namesOf(path) {",
        "    switch (path) {",
    ]
    for route in routes:
        if not route.templated:
            lines += [f"    case '{route.path}':", *_returned(names_of(route))]
    lines.append("    }")
    for route in routes:
        if route.templated:
            lines += _templated(route)
    lines += ["    return undefined;", "}", ""]
    lenient = [route.path for route in routes if not route.grammar.strict]
    lines += [
        "// Every route refuses a name it does not take (a 400), except those whose grammar is",
        "// lenient: they ignore it.",
        "function strict(path) {",
        "    return " + (" && ".join(f"path !== '{path}'" for path in lenient) or "true") + ";",
        "}",
        "",
    ]
    lists = sorted({name for route in routes for name in route.grammar.lists})
    lines += [
        "// The list parameters: repeated, their values are joined with commas.",
        "function isList(name) {",
        "    return " + (" || ".join(f"name === '{name}'" for name in lists) or "false") + ";",
        "}",
    ]
    return lines


def _returned(names: str) -> list[str]:
    """``return '<names>';``, wrapped where the line would be too long."""
    first = "        return '"
    if len(first) + len(names) + 2 <= _WIDTH:
        return [f"{first}{names}';"]
    cut = names.rindex(" ", 0, _WIDTH - len(first) - 1)
    return [f"{first}{names[:cut]}'", f"            + '{names[cut:]}';"]


def _templated(route: Route) -> list[str]:
    """``namesOf``'s test for a path with one argument (``/api/v1/snapshots/{id}/changes``): the
    path's fixed start and end, and no ``/`` in between."""
    before, after = _ARGUMENT.split(route.path)
    return [
        f"    // {route.path}",
        f"    if (path.length > {len(before) + len(after)} && path.substring(0, {len(before)}) === '{before}'",
        f"            && path.substring(path.length - {len(after)}) === '{after}'",
        f"            && path.substring({len(before)}, path.length - {len(after)}).indexOf('/') < 0) {{",
        *_returned(names_of(route)),
        "    }",
    ]


def map_block(routes: Sequence[Route] = ROUTES) -> list[str]:
    """The generated entries of the template's map to ``$edge_target``: a target of a strict
    route with a fixed path, whose names the route takes, each once (``code`` or ``codes``),
    sorted, each with a plain value, is taken as it came."""
    lines = [f"    # {EDIT}"]
    for route in routes:
        if route.templated or not route.grammar.strict:
            continue
        if not route.grammar.names:
            lines.append(f'    "{route.path}" $request_uri;')
            continue
        names = sorted(route.grammar.names)
        if "code" in names and "codes" in names:
            names.remove("codes")
        groups = [f"(?:{'codes?' if name == 'code' and 'codes' in route.grammar else name}=(?&v))?" for name in names]
        lines.append(f'    "~(?x) ^{route.path} (?: \\?(?=[a-z])')
        line = "       "
        for group in groups:
            if len(line) + 1 + len(group) > _WIDTH:
                lines.append(line)
                line = "       "
            line += " " + group
        lines += [line, f'        )? \\z (?<!&) {_VALUE}" $request_uri;']
    return lines


def with_block(text: str, block: Sequence[str], comment: str) -> str:
    """``text`` with the lines between its ``BEGIN ROUTES`` and ``END ROUTES`` lines (comments
    starting with ``comment``) replaced by ``block``. Raises MarkersMissing unless each is there once."""
    lines = text.split("\n")
    begins = [n for n, line in enumerate(lines) if line.strip().startswith(f"{comment} BEGIN ROUTES")]
    ends = [n for n, line in enumerate(lines) if line.strip().startswith(f"{comment} END ROUTES")]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise MarkersMissing(f"expected one '{comment} BEGIN ROUTES' line, then one '{comment} END ROUTES' line")
    return "\n".join([*lines[: begins[0] + 1], *block, *lines[ends[0] :]])


def generated(routes: Sequence[Route] = ROUTES) -> dict[Path, str]:
    """Each file as the route table makes it, from its committed text."""
    return {
        KEYS_JS: with_block(KEYS_JS.read_text(), js_block(routes), "//"),
        TEMPLATE: with_block(TEMPLATE.read_text(), map_block(routes), "#"),
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
