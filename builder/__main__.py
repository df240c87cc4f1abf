"""Command line: ``python -m builder fetch|import-wdi|build|publish|refresh|list``
(see docs/PUBLISHING.md).

    python -m builder fetch --out raw/2026-11 --fcv fcv.csv [--source-url URL]
    python -m builder import-wdi WDI_CSV.zip [WGI.zip] --out raw/2026-11 --fcv fcv.csv
    python -m builder build --raw data/raw --snapshot 2026-11 --out build/
    python -m builder publish build/2026-11 --data-dir /srv/readiness [--warm CMD] [--replace]
    python -m builder refresh --data-dir /srv/readiness --work /srv/work --fcv fcv.csv [--warm CMD]
    python -m builder list --data-dir /srv/readiness

Exit status 0 on success (a refresh of a month already published with the same content and
current is one: it changes nothing; so is a publish whose warm-up gave up, with a warning), 1
when a fetch, build, refresh or publish is refused or fails, including an unavailable source,
a month a rollback took out of service and a file system error (the message on stderr says why
and in which step), 2 for a usage error. ``fetch``, ``publish`` and ``refresh`` say what they are
doing on stderr as they go (builder/progress.py); the result is on stdout.
"""

from __future__ import annotations

import argparse
import datetime
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from builder.build import BuildInvalid, Built, build_snapshot
from builder.datadir import Listed, list_snapshots
from builder.fetch import announced, fetch_raw, fetched_summary, requests_of
from builder.inputs import InputError, read_raw
from builder.progress import Progress
from builder.publish import (
    Conflict,
    Outcome,
    Placement,
    PublishError,
    Rollback,
    publish,
    shell_hook,
)
from builder.rawtables import FcvError, read_fcv, write_tables
from builder.refresh import (
    Accepted,
    Plan,
    Refreshed,
    built_summary,
    inherited_provenance,
    publication_date,
    refresh,
)
from builder.release import Release, ReleaseError
from builder.sanity import CHECKS, Limits
from builder.warmup import DEADLINE as WARM_DEADLINE
from builder.warmup import WarmUp, shell_warm
from builder.wdi import WdiError, import_wdi
from builder.worldbank import MAX_PARALLEL, MAX_PER_PAGE, PUBLIC_API, SourceError, SourceSettings
from loaders import read_current_id

Clock = Callable[[], datetime.datetime]

_ERRORS = (InputError, ReleaseError, BuildInvalid, PublishError, OSError, SourceError, FcvError,
           WdiError)


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def main(argv: Sequence[str] | None = None, clock: Clock = _utc_now) -> int:
    """Run one subcommand; return the exit status. ``clock`` says what time it is (the
    default month and publication date, the fetch's date, each progress line's time)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "refresh" and bool(args.accept or args.force) != bool(args.reason):
        parser.error("--accept and --force need --reason TEXT (why what they accept is real: the manifest "
                     "records it), and --reason needs one of them")
    args.clock = clock
    # urllib3 warns of each retry in its own words (its Retry's state, no series); the fetch says
    # each one with the series, the cause and the wait (builder.waits).
    logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
    commands = {"fetch": _fetch, "import-wdi": _import_wdi, "build": _build, "publish": _publish,
                "refresh": _refresh, "list": _list}
    try:
        return commands[args.command](args)
    except _ERRORS as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m builder", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    fetch = commands.add_parser("fetch", help="fetch the raw tables from the World Bank API")
    fetch.add_argument("--out", type=Path, required=True,
                       help="directory for countries.csv, indicators.csv and provenance.json")
    fetch.add_argument("--year", type=int, default=None,
                       help="last year of the data window (default: this year)")
    _source_arguments(fetch)

    wdi = commands.add_parser("import-wdi", help="read the raw tables from the WDI CSV archive")
    wdi.add_argument("archives", type=Path, nargs="+", metavar="FILE",
                     help="WDI_CSV.zip (or its extracted directory); more archives in the same "
                          "layout (e.g. the WGI) add their series")
    wdi.add_argument("--out", type=Path, required=True,
                     help="directory for countries.csv, indicators.csv and provenance.json")
    wdi.add_argument("--year", type=int, default=None,
                     help="last year of the data window (default: this year)")
    wdi.add_argument("--fcv", type=Path, required=True, help=_FCV_HELP)

    build = commands.add_parser("build", help="build one snapshot directory from the raw tables")
    build.add_argument("--raw", type=Path, required=True,
                       help="directory holding countries.csv and indicators.csv")
    build.add_argument("--snapshot", required=True, help="snapshot id, YYYY-MM")
    build.add_argument("--out", type=Path, required=True,
                       help="directory to write the snapshot into, as OUT/<id>")
    build.add_argument("--published", help="publication date in that month (default: its 1st)")
    build.add_argument("--synthetic-notice", metavar="TEXT",
                       help='mark the values as synthetic: "synthetic": true and this notice')
    _provenance_arguments(build, "")

    publish_ = commands.add_parser("publish", help="validate a snapshot, put it in place, flip CURRENT")
    publish_.add_argument("snapshot", type=Path, help="built snapshot directory, named YYYY-MM")
    publish_.add_argument("--data-dir", type=Path, required=True, help="the servers' data directory")
    _step_arguments(publish_)
    publish_.add_argument("--replace", action="store_true",
                          help="if the id is published with other content, swap it atomically")
    publish_.add_argument("--undo-rollback", action="store_true", help=_UNDO_HELP)
    publish_.add_argument("--quiet", action="store_true", help="no progress lines on stderr")

    refresh_ = commands.add_parser(
        "refresh", help="fetch, build, check, publish with the hook and flip CURRENT: one month")
    refresh_.add_argument("--data-dir", type=Path, required=True, help="the servers' data directory")
    refresh_.add_argument("--work", type=Path, required=True,
                          help="working directory: raw/<id>/ keeps the fetched tables, build/ "
                               "is temporary")
    refresh_.add_argument("--snapshot", help="snapshot id, YYYY-MM (default: this month)")
    refresh_.add_argument("--published",
                          help="publication date in that month (default: the date it was published "
                               "with if it is, else today in this month, else the 1st)")
    _step_arguments(refresh_)
    limits = Limits()
    refresh_.add_argument("--max-economy-drop", type=float, default=limits.economy_drop,
                          metavar="SHARE",
                          help="refuse when more than this share of the current snapshot's "
                               f"economies is missing (default {limits.economy_drop})")
    refresh_.add_argument("--min-rank-correlation", type=float, default=limits.rank_correlation,
                          metavar="RHO",
                          help="refuse when the composite's Spearman rank correlation with the "
                               f"current snapshot is below this (default {limits.rank_correlation:g})")
    refresh_.add_argument("--max-median-move", type=float, default=limits.median_move,
                          metavar="POINTS",
                          help="refuse when the median absolute change of the composite is more "
                               f"than this (default {limits.median_move:g})")
    refresh_.add_argument("--max-scale-change", type=float, default=limits.scale_change,
                          metavar="FACTOR",
                          help="refuse when an indicator's median reported value changes by more "
                               f"than this factor either way (default {limits.scale_change:g})")
    refresh_.add_argument("--accept", action="append", choices=list(CHECKS), default=[], metavar="CHECK",
                          help="publish even when this check refuses the month (repeat for more; each "
                               "finding is reported and recorded in the manifest with --reason): "
                               + "; ".join(f"{name}: {what}" for name, what in CHECKS.items()))
    refresh_.add_argument("--force", action="store_true",
                          help="accept every check (recorded as each check that refused)")
    refresh_.add_argument("--reason", metavar="TEXT",
                          help="why the accepted checks' findings are real, e.g. 'the 2026 data year "
                               "entered the window': recorded in the manifest and the catalogue")
    refresh_.add_argument("--replace", action="store_true",
                          help="if the month is published with other content, swap it atomically "
                               "(otherwise that is refused)")
    refresh_.add_argument("--undo-rollback", action="store_true", help=_UNDO_HELP)
    refresh_.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    _provenance_arguments(refresh_, " (default: as the month's manifest if it is published, else "
                                    "the current snapshot's)")
    _source_arguments(refresh_)

    list_ = commands.add_parser("list", help="list snapshots and which one is current")
    list_.add_argument("--data-dir", type=Path, required=True, help="the servers' data directory")
    return parser


def _step_arguments(parser: argparse.ArgumentParser) -> None:
    """The commands a publish runs before CURRENT flips: a check that may refuse it, and the
    warm-up, which never does (builder.warmup)."""
    parser.add_argument("--hook", metavar="COMMAND",
                        help="shell command run before CURRENT flips (READINESS_DATA_DIR and "
                             "READINESS_SNAPSHOT_ID set); a non-zero exit undoes the publish")
    parser.add_argument("--warm", metavar="COMMAND",
                        help="the cache warm-up: shell command run before CURRENT flips, as --hook, but best "
                             "effort: tried again until --warm-deadline, then the publish goes on with a warning")
    parser.add_argument("--warm-deadline", type=float, default=WARM_DEADLINE, metavar="SECONDS",
                        help=f"how long the warm-up's tries may take in all (default {WARM_DEADLINE:g})")


def _warm_up(args: argparse.Namespace) -> WarmUp | None:
    return WarmUp(shell_warm(args.warm), max(0.0, args.warm_deadline)) if args.warm else None


_UNDO_HELP = ("publish a month a rollback took out of service, making it current again (otherwise "
              "that is refused before anything is done; the rollbacks are in <data-dir>/publish-log.jsonl)")

_FCV_HELP = ("CSV of the FCV list with columns iso3 and fcv_type (a previous raw countries.csv "
             "works as is); no World Bank API serves it")


def _provenance_arguments(parser: argparse.ArgumentParser, default: str) -> None:
    """The manifest's publisher and licence, which the citation names (docs/DATA.md#manifestjson)."""
    parser.add_argument("--publisher", metavar="TEXT",
                        help=f'who publishes the snapshot, for the citation: "publisher" in the manifest{default}')
    parser.add_argument("--license", metavar="TEXT",
                        help='the licence of the data, e.g. an SPDX id such as CC-BY-4.0: "license" in '
                             f'the manifest (null when only --publisher is given: none granted){default}')


def _source_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = SourceSettings()
    parser.add_argument("--fcv", type=Path, required=True, help=_FCV_HELP)
    parser.add_argument("--source-url", default=PUBLIC_API,
                        help=f"the API's base URL, e.g. a mirror (default {PUBLIC_API})")
    parser.add_argument("--timeout", type=float, default=defaults.timeout,
                        help=f"seconds per request (default {defaults.timeout:g})")
    parser.add_argument("--retries", type=int, default=defaults.retries,
                        help="retries of a request after a 5xx answer, a timeout or a dropped "
                             f"connection (default {defaults.retries})")
    parser.add_argument("--backoff", type=float, default=defaults.backoff,
                        help="backoff factor: waits of BACKOFF x 2^n seconds before retry n+1 "
                             f"(default {defaults.backoff:g}: 2, 4, 8, 16 s)")
    parser.add_argument("--per-page", type=_bounded(1, MAX_PER_PAGE), default=defaults.per_page,
                        help=f"rows asked per page, 1 to the API's {MAX_PER_PAGE} (default {defaults.per_page}: "
                             "a series in one page)")
    parser.add_argument("--parallel", type=_bounded(1, MAX_PARALLEL), default=defaults.parallel,
                        help=f"series fetched at once, 1 to {MAX_PARALLEL} (default {defaults.parallel})")


def _bounded(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value

    return parse


def _source(args: argparse.Namespace) -> SourceSettings:
    return SourceSettings(args.source_url, args.timeout, max(0, args.retries), max(0.0, args.backoff),
                          args.per_page, args.parallel)


def _progress(args: argparse.Namespace) -> Progress:
    if getattr(args, "quiet", False):
        return Progress.quiet()
    return Progress(sys.stderr, wall=args.clock)


def _fetch(args: argparse.Namespace) -> int:
    now = args.clock()
    said = _progress(args)
    year = args.year or now.year
    asked = requests_of(year)
    source = _source(args)
    with said.step("fetch", announced(source, len(asked))), said.counting(len(asked), "series"):
        fetched = fetch_raw(source, year, read_fcv(args.fcv), now, heard=said)
    out = write_tables(fetched.tables, args.out)
    _warn_fetch(fetched.skipped, fetched.unknown_fcv)
    print(f"fetched {out}: {fetched_summary(fetched)}")
    return 0


def _warn_fetch(skipped: tuple[str, ...], unknown_fcv: tuple[str, ...]) -> None:
    if skipped:
        print(f"warning: left out (no population in the window): {', '.join(skipped)}",
              file=sys.stderr)
    if unknown_fcv:
        print(f"warning: FCV list codes that are not economies of the source: "
              f"{', '.join(unknown_fcv)}", file=sys.stderr)


def _import_wdi(args: argparse.Namespace) -> int:
    now = args.clock()
    imported = import_wdi(tuple(args.archives), args.year or now.year, read_fcv(args.fcv), now)
    out = write_tables(imported.tables, args.out)
    _warn_fetch(imported.skipped, ())
    if imported.missing:
        print(f"warning: series not in the archive(s), to be imputed or missing: "
              f"{', '.join(imported.missing)}", file=sys.stderr)
    print(f"imported {out}: {len(imported.tables.economies)} economies, "
          f"{sum(len(o) for o in imported.tables.series.values())} values")
    return 0


def _refresh(args: argparse.Namespace) -> int:
    now = args.clock()
    today = now.astimezone(datetime.UTC).date()
    snapshot_id = args.snapshot or today.strftime("%Y-%m")
    published = args.published or publication_date(args.data_dir, snapshot_id, today)
    publisher, license_ = inherited_provenance(args.data_dir, snapshot_id)
    if args.publisher is not None or args.license is not None:
        publisher, license_ = args.publisher, args.license  # named: the release says both anew
    plan = Plan(
        release=Release.parse(snapshot_id, published, publisher=publisher, license=license_),
        source=_source(args),
        work=args.work,
        data_dir=args.data_dir,
        fcv=read_fcv(args.fcv),
        hook=shell_hook(args.hook) if args.hook else None,
        warm=_warm_up(args),
        limits=Limits(args.max_economy_drop, args.min_rank_correlation, args.max_median_move,
                      args.max_scale_change),
        accepted=_accepted(args),
        conflict=Conflict.REPLACE if args.replace else Conflict.REFUSE,
        rollback=Rollback.UNDO if args.undo_rollback else Rollback.KEEP,
    )
    done = refresh(plan, now, progress=_progress(args))
    _warn_fetch(done.fetched.skipped, done.fetched.unknown_fcv)
    print(_refreshed_lines(done))
    return 0


def _accepted(args: argparse.Namespace) -> Accepted | None:
    """The checks accepted by --accept, or every one (--force), with --reason; None: none."""
    if not (args.accept or args.force):
        return None
    return Accepted(frozenset(CHECKS if args.force else args.accept), args.reason)


def _refreshed_lines(done: Refreshed) -> str:
    lines = [f"fetched {done.raw}: {len(done.fetched.tables.economies)} economies",
             f"built {done.built.directory.name}: {built_summary(done.built)}"]
    lines += [f"warning: published despite {finding}" for finding in done.overridden]
    if done.report is not None:  # None: the month was already published as built
        lines.append(f"changes: {done.report.document['summary']}")
    lines.append(_outcome_line(done.outcome))
    return "\n".join(lines)


def _build(args: argparse.Namespace) -> int:
    release = Release.parse(args.snapshot, args.published, args.synthetic_notice, args.publisher, args.license)
    built = build_snapshot(read_raw(args.raw), release, args.out)
    print(_built_line(built))
    return 0


def _built_line(built: Built) -> str:
    return f"built {built.directory}: {built_summary(built)}"


def _publish(args: argparse.Namespace) -> int:
    outcome = publish(
        args.snapshot,
        args.data_dir,
        hook=shell_hook(args.hook) if args.hook else None,
        warm=_warm_up(args),
        conflict=Conflict.REPLACE if args.replace else Conflict.REFUSE,
        rollback=Rollback.UNDO if args.undo_rollback else Rollback.KEEP,
        progress=_progress(args),
        clock=args.clock,
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
    lines = [f"{placed}; CURRENT: {outcome.previous or '(none)'} -> {outcome.snapshot_id}"]
    if outcome.warmed is not None and outcome.warmed.failure is not None:
        lines.append(f"warning: published with a cold cache ({outcome.warmed}); the servers re-warm Redis "
                     "on their own once it answers")
    if outcome.rolled_back:
        lines.append(f"rolled back: {', '.join(outcome.rolled_back)} out of service; publishing or "
                     "refreshing it again is refused until run with --undo-rollback")
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    listed = list_snapshots(args.data_dir)
    for entry in listed:
        mark = "*" if entry.current else " "
        line = f"{mark} {entry.snapshot_id}  {_listed(entry)}".rstrip()
        print(f"{line}  (current)" if entry.current else line)
    current = read_current_id(args.data_dir)
    if current is None:
        print("no usable CURRENT: no snapshot is current")
    elif not any(entry.current for entry in listed):
        print(f"CURRENT names {current}, which is not in snapshots/")
    return 0


def _listed(entry: Listed) -> str:
    """``published 2026-11-05  215 economies valid, 2 skipped (AGO, KEN)``, whether forced, and
    the rollback that took it out of service."""
    if entry.published is None:
        return "manifest unreadable"
    if entry.valid is None:
        return f"published {entry.published}  refused by the servers' reader (loaders.validate says why)"
    named = ", ".join(entry.skipped[:10]) + (" ..." if len(entry.skipped) > 10 else "")
    skipped = f", {len(entry.skipped)} skipped ({named})" if entry.skipped else ""
    forced = ""
    if entry.forced is not None:
        forced = f"  forced past {', '.join(entry.forced.checks) or 'the checks'}"
    rollback = entry.rolled_back
    held = f"  rolled back on {rollback.at} to {rollback.snapshot}" if rollback is not None else ""
    return f"published {entry.published}  {entry.valid} economies valid{skipped}{forced}{held}"


if __name__ == "__main__":
    sys.exit(main())
