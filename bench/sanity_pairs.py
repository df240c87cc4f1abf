"""The refresh's sanity checks measured on pairs of months: the calibration of their limits.

Each pair is a snapshot and the one published before it, built from the same kind of source;
for each, the measures the checks compare with their limits (builder/sanity.py): the composite's
Spearman rank correlation, its median absolute move, the largest change of an indicator's median
reported value, and which checks would refuse it under the limits of ``builder.sanity.Limits``.

Real months (the checks must pass them):

- the sample's consecutive snapshots (data/raw, as data/make_sample.py builds them), four of
  the five with a new data year;
- a new data year entering the window of an unchanged source: data/make_raw.py's generator run
  one and two years further (every value of the years before unchanged), the December before
  against the January after;
- the same with the new year's noise three and ten times the generator's (a source that moves
  values more than its usual releases do);
- a month of revisions: one value in twenty revised by up to 3 %, one gap in ten of the last
  two years filled (as tests/test_builder_refresh.py's ``next_month``).

Noisier stand-ins (shown, not judged: where the limits start to refuse): the new year's noise
twenty and forty times the generator's.

Broken sources (the checks must refuse them): every value of the WDI series given to other
economies (a broken extract); each dimension's series redrawn alone (Governance's are the WGI);
one series' unit changed (x10, x0.01).

    .venv/bin/python bench/sanity_pairs.py

Prints one Markdown table (docs/DECISIONS.md#the-refreshs-sanity-checks quotes it). Exit status
0 when every real month passes and every broken source is refused, 1 otherwise, 2 when it cannot
run (no raw tables). The values are synthetic (data/make_raw.py); run it again on real months
when they are at hand, and move the limits with the flags of ``builder refresh`` if they say so.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

from support import REPO_ROOT  # first: it puts the repository root on sys.path

from builder import Release, build_snapshot, compare, read_raw
from builder.inputs import Observation, RawData
from builder.method import INDICATORS, POPULATION
from builder.sanity import Checked, Limits, check
from loaders import Snapshot, read_snapshot

RAW = REPO_ROOT / "data" / "raw"
SAMPLE = ("2022-06", "2023-12", "2024-06", "2024-12", "2025-12", "2026-11")
"""The sample's snapshots, in order (data/make_sample.py)."""
WGI = frozenset({"GE.EST", "RQ.EST", "CC.EST", "VA.EST"})


REAL, STAND_IN, BROKEN = "real", "stand-in", "broken"


@dataclass(frozen=True, slots=True)
class Pair:
    """A snapshot and the one before it, and its kind: REAL (the checks must pass it), BROKEN
    (they must refuse it) or STAND_IN (shown only)."""

    name: str
    before: tuple[RawData, str]
    after: tuple[RawData, str]
    kind: str


@contextmanager
def generator(last_year: int, noise: float = 1.0) -> Iterator[ModuleType]:
    """data/make_raw.py with its years running to ``last_year`` and its noise times ``noise``
    (its module, restored on exit)."""
    sys.path.insert(0, str(REPO_ROOT / "data"))
    import make_raw  # noqa: PLC0415 (a script of data/, not a package)

    years, series = make_raw.YEARS, make_raw.SERIES
    make_raw.YEARS = range(years[0], last_year + 1)
    make_raw.SERIES = tuple(replace(spec, jitter=spec.jitter * noise) for spec in series)
    try:
        yield make_raw
    finally:
        make_raw.YEARS, make_raw.SERIES = years, series
        sys.path.remove(str(REPO_ROOT / "data"))


def generated(work: Path, last_year: int, noise: float = 1.0) -> RawData:
    """The generator's raw tables up to ``last_year``, read back."""
    out = work / f"raw-{last_year}-x{noise:g}"
    with generator(last_year, noise) as make_raw:
        make_raw.write_tables(out)
    return read_raw(out)


def new_year_from(base: RawData, noisy: RawData, year: int) -> RawData:
    """``base`` with the observations of ``year`` taken from ``noisy``."""
    series = {}
    for key in base.series.keys() | noisy.series.keys():
        kept = [o for o in base.observations(*key) if o.year != year]
        series[key] = tuple(sorted(kept + [o for o in noisy.observations(*key) if o.year == year],
                                   key=lambda observation: observation.year))
    return RawData(base.economies, {key: values for key, values in series.items() if values})


def revised(raw: RawData, seed: int = 11) -> RawData:
    """A month of revisions: one value in twenty by up to 3 %, one gap in ten of the last two
    years filled with the year before's value, give or take 3 %."""
    rng = random.Random(seed)
    last = max(o.year for values in raw.series.values() for o in values)
    series: dict[tuple[str, str], tuple[Observation, ...]] = {}
    for key, values in raw.series.items():
        if key[1] == POPULATION:
            series[key] = values
            continue
        years = {o.year: o for o in values}
        for year in (last - 1, last):
            before = years.get(year - 1)
            if year not in years and before is not None and rng.random() < 0.1:
                years[year] = replace(before, year=year, value=round(before.value * (1 + rng.uniform(-0.03, 0.03)), 4))
        series[key] = tuple(
            replace(o, value=round(o.value * (1 + rng.uniform(-0.03, 0.03)), 4)) if rng.random() < 0.05 else o
            for o in (years[year] for year in sorted(years))
        )
    return RawData(raw.economies, series)


def redrawn(raw: RawData, codes: frozenset[str], seed: int = 23) -> RawData:
    """Every series of ``codes`` given to other economies: each economy gets another's values."""
    rng = random.Random(seed)
    economies = [economy.code for economy in raw.economies]
    series = dict(raw.series)
    for code in sorted(codes):
        donors = economies[:]
        rng.shuffle(donors)
        for economy, donor in zip(economies, donors, strict=True):
            values = raw.observations(donor, code)
            if values:
                series[(economy, code)] = values
            else:
                series.pop((economy, code), None)
    return RawData(raw.economies, series)


def rescaled(raw: RawData, code: str, factor: float) -> RawData:
    """One series' values times ``factor``: its unit changed."""
    series = {key: tuple(replace(o, value=o.value * factor) for o in values) if key[1] == code else values
              for key, values in raw.series.items()}
    return RawData(raw.economies, series)


def pairs(work: Path) -> list[Pair]:
    """Every pair measured, real months first."""
    raw = read_raw(RAW)
    found = [Pair(f"sample {a} -> {b}", (raw, a), (raw, b), REAL) for a, b in zip(SAMPLE, SAMPLE[1:], strict=False)]
    year_2027, year_2028 = generated(work, 2027), generated(work, 2028)
    found += [
        Pair("new data year 2027 (2026-12 -> 2027-01)", (raw, "2026-12"), (year_2027, "2027-01"), REAL),
        Pair("new data year 2028 (2027-12 -> 2028-01)", (year_2027, "2027-12"), (year_2028, "2028-01"), REAL),
    ]
    for noise, kind in ((3.0, REAL), (10.0, REAL), (20.0, STAND_IN), (40.0, STAND_IN)):
        noisy = new_year_from(year_2027, generated(work, 2027, noise), 2027)
        found.append(Pair(f"new data year 2027, its noise x{noise:g}", (raw, "2026-12"), (noisy, "2027-01"), kind))
    found.append(Pair("a month of revisions (2026-11 -> 2026-12)", (raw, "2026-11"), (revised(raw), "2026-12"), REAL))
    scoring = {indicator.code for indicator in INDICATORS if indicator.dimension is not None}
    broken: list[tuple[str, Callable[[RawData], RawData]]] = [
        ("WDI redrawn", lambda r: redrawn(r, frozenset(scoring - WGI))),
        *((f"{dimension} redrawn" + (" (the WGI)" if dimension == "Governance" else ""), lambda r, d=dimension: redrawn(
            r, frozenset(i.code for i in INDICATORS if i.dimension == d)))
          for dimension in sorted({i.dimension for i in INDICATORS if i.dimension is not None})),
        ("SE.TER.ENRR x10", lambda r: rescaled(r, "SE.TER.ENRR", 10)),
        ("SE.TER.ENRR x0.01", lambda r: rescaled(r, "SE.TER.ENRR", 0.01)),
    ]
    found += [Pair(name, (raw, "2026-11"), (change(raw), "2026-12"), BROKEN) for name, change in broken]
    return found


def built(work: Path, raw: RawData, snapshot_id: str) -> Snapshot:
    """``raw`` built as ``snapshot_id`` and read back as the servers read it."""
    parent = Path(tempfile.mkdtemp(dir=work))
    snapshot, _ = read_snapshot(build_snapshot(raw, Release.parse(snapshot_id), parent).directory)
    assert snapshot is not None, "build_snapshot validated it"
    return snapshot


def measured(work: Path, pair: Pair, limits: Limits) -> Checked:
    """The checks' measures and findings for ``pair``."""
    before, after = built(work, *pair.before), built(work, *pair.after)
    return check(after, before, compare(before, after), limits)


def row(pair: Pair, checked: Checked) -> str:
    """One Markdown row: the pair, its measures, and what the checks say."""
    refused = sorted({finding.check for finding in checked.findings})
    scale = f"x{checked.scale_change[1]:.2f} ({checked.scale_change[0]})" if checked.scale_change else "-"
    verdict = ("refused: " + ", ".join(refused)) if refused else "passed"
    return (f"| {pair.name} | {pair.kind} | {checked.rank_correlation or 0:.4f} | "
            f"{checked.median_move or 0:.2f} | {scale} | {verdict} |")


def main() -> int:
    """Measure every pair; print the table; 0 when the limits sort them all right."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.parse_args()
    if not (RAW / "indicators.csv").is_file():
        print(f"no raw tables in {RAW}", file=sys.stderr)
        return 2
    limits = Limits()
    wrong = []
    print("| Pair | Kind | Rank correlation | Median move | Largest scale change | Checks |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as directory:
        for pair in pairs(Path(directory)):
            checked = measured(Path(directory), pair, limits)
            print(row(pair, checked), flush=True)
            if (pair.kind == REAL and checked.findings) or (pair.kind == BROKEN and not checked.findings):
                wrong.append(pair.name)
    if wrong:
        print(f"FAIL: the limits sort these wrongly: {', '.join(wrong)}", file=sys.stderr)
        return 1
    print("PASS: every real month passes, every broken source is refused", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
