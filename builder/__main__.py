"""Command line: ``python -m builder build|publish|list`` (see docs/PUBLISHING.md).

    python -m builder build --raw data/raw --snapshot 2026-11 --out build/
    python -m builder publish build/2026-11 --data-dir /srv/readiness [--hook CMD] [--replace]
    python -m builder list --data-dir /srv/readiness

Exit status 0 on success, 1 when the build or publish is refused or fails, including a file
system error (the message on stderr says why), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from collections.abc import Sequence

from loaders import read_current_id

from builder.build import BuildInvalid, Built, build_snapshot
from builder.datadir import list_snapshots
from builder.inputs import InputError, read_raw
from builder.publish import (
    Conflict,
    Outcome,
    Placement,
    PublishError,
    publish,
    shell_hook,
)
from builder.release import Release, ReleaseError


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            return _build(args)
        if args.command == "publish":
            return _publish(args)
        return _list(args)
    except (InputError, ReleaseError, BuildInvalid, PublishError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m builder", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="build one snapshot directory from the raw tables")
    build.add_argument("--raw", type=Path, required=True,
                       help="directory holding countries.csv and indicators.csv")
    build.add_argument("--snapshot", required=True, help="snapshot id, YYYY-MM")
    build.add_argument("--out", type=Path, required=True,
                       help="directory to write the snapshot into, as OUT/<id>")
    build.add_argument("--published", help="publication date in that month (default: its 1st)")
    build.add_argument("--synthetic-notice", metavar="TEXT",
                       help='mark the values as synthetic: "synthetic": true and this notice')

    publish_ = commands.add_parser("publish", help="validate a snapshot, put it in place, flip CURRENT")
    publish_.add_argument("snapshot", type=Path, help="built snapshot directory, named YYYY-MM")
    publish_.add_argument("--data-dir", type=Path, required=True, help="the servers' data directory")
    publish_.add_argument("--hook", metavar="COMMAND",
                          help="shell command run before CURRENT flips (READINESS_DATA_DIR and "
                               "READINESS_SNAPSHOT_ID set); a non-zero exit undoes the publish")
    publish_.add_argument("--replace", action="store_true",
                          help="if the id is published with other content, swap it atomically")

    list_ = commands.add_parser("list", help="list snapshots and which one is current")
    list_.add_argument("--data-dir", type=Path, required=True, help="the servers' data directory")
    return parser


def _build(args: argparse.Namespace) -> int:
    release = Release.parse(args.snapshot, args.published, args.synthetic_notice)
    built = build_snapshot(read_raw(args.raw), release, args.out)
    print(_built_line(built))
    return 0


def _built_line(built: Built) -> str:
    economies = built.snapshot.economies
    microstates = sum(economy.microstate for economy in economies)
    ranked = sum(economy.global_rank is not None for economy in economies)
    values = sum(
        entry.indicator.dimension is not None for economy in economies for entry in economy.entries
    )
    return (f"built {built.directory}: {len(economies)} economies ({microstates} microstates, "
            f"{ranked} ranked), {built.unreported} of {values} scoring values imputed or missing")


def _publish(args: argparse.Namespace) -> int:
    outcome = publish(
        args.snapshot,
        args.data_dir,
        hook=shell_hook(args.hook) if args.hook else None,
        conflict=Conflict.REPLACE if args.replace else Conflict.REFUSE,
    )
    print(_outcome_line(outcome))
    return 0


def _outcome_line(outcome: Outcome) -> str:
    if not outcome.changed:
        return (f"{outcome.snapshot_id} is already published with the same content and current: "
                "nothing changed")
    placed = {
        Placement.NEW: f"published {outcome.snapshot_id} to {outcome.directory}",
        Placement.SAME: f"{outcome.snapshot_id} was already in place in {outcome.directory}",
        Placement.REPLACED: f"replaced {outcome.snapshot_id} in {outcome.directory}",
    }[outcome.placement]
    if outcome.previous == outcome.snapshot_id:
        return f"{placed}; CURRENT still names {outcome.snapshot_id}"
    return f"{placed}; CURRENT: {outcome.previous or '(none)'} -> {outcome.snapshot_id}"


def _list(args: argparse.Namespace) -> int:
    listed = list_snapshots(args.data_dir)
    for entry in listed:
        published = f"published {entry.published}" if entry.published else "manifest unreadable"
        countries = f"{entry.countries} countries" if entry.countries is not None else ""
        mark = "*" if entry.current else " "
        line = f"{mark} {entry.snapshot_id}  {published}  {countries}".rstrip()
        print(f"{line}  (current)" if entry.current else line)
    current = read_current_id(args.data_dir)
    if current is None:
        print("no usable CURRENT: no snapshot is current")
    elif not any(entry.current for entry in listed):
        print(f"CURRENT names {current}, which is not in snapshots/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
