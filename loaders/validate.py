"""Validate snapshot directories before publishing: ``python -m loaders.validate DIR [DIR ...]``.

Prints every problem file by file and exits 1 if any file has one (0 when all are clean),
so a refresh job can refuse to publish a snapshot the servers would serve only in part.
``--print-schema country|manifest`` prints the JSON Schema instead.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import orjson

from loaders.reader import read_snapshot
from loaders.schema import COUNTRY_SCHEMA, MANIFEST_SCHEMA

_SCHEMAS = {"country": COUNTRY_SCHEMA, "manifest": MANIFEST_SCHEMA}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return its exit status."""
    parser = argparse.ArgumentParser(prog="python -m loaders.validate", description=__doc__)
    parser.add_argument("directories", nargs="*", type=Path, help="snapshot directories")
    parser.add_argument("--print-schema", choices=sorted(_SCHEMAS), help="print a JSON Schema")
    args = parser.parse_args(argv)
    if args.print_schema:
        sys.stdout.write(orjson.dumps(_SCHEMAS[args.print_schema], option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    if not args.directories:
        parser.error("name at least one snapshot directory")
    clean = True
    for directory in args.directories:
        snapshot, problems = read_snapshot(directory)
        for problem in problems:
            print(f"{directory}/{problem}")
        if snapshot is None:
            print(f"{directory}: REFUSED")
        else:
            print(f"{directory}: {len(snapshot.countries)} countries valid, {len(problems)} problems")
        clean = clean and snapshot is not None and not problems
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
