"""builder.sanity: the rank correlation, the typical move and the scale of each indicator."""

from __future__ import annotations

import pytest

from builder.changes import compare
from builder.sanity import Limits, check, spearman
from loaders import COMPOSITE, DIMENSIONS, Country, Snapshot


@pytest.mark.parametrize(("first", "second", "expected"), [
    ([1, 2, 3, 4, 5], [10, 20, 30, 40, 50], 1.0),
    ([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], -1.0),
    ([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], 0.8),
    ([1, 1, 2, 3], [1, 2, 3, 4], 0.9486832980505138),  # a tie takes its mean rank
    ([7, 7, 7], [1, 2, 3], None),  # no spread: no correlation to speak of
])
def test_spearman(first: list[float], second: list[float], expected: float | None) -> None:
    found = spearman(first, second)
    assert found == pytest.approx(expected) if expected is not None else found is None


def snapshot(snapshot_id: str, composites: dict[str, float], reported: dict[str, float | None]) -> Snapshot:
    """Economies with a composite and one indicator's reported value (every dimension scored)."""
    scores = {f"{dimension} Score": 50.0 for dimension in DIMENSIONS}
    countries = {
        code: Country(code, {"Country Name": f"Economy {code}", COMPOSITE: composite, **scores},
                      ({"indicator_code": "SE.TER.ENRR", "indicator_name": "Tertiary",
                        "reported_value": reported[code]},))
        for code, composite in composites.items()
    }
    return Snapshot(snapshot_id, f"{snapshot_id}-05", countries)


CODES = ("AAA", "BBB", "CCC", "DDD", "EEE", "FFF")


def test_a_normal_month_passes_with_its_measures() -> None:
    before = snapshot("2026-10", dict(zip(CODES, (10, 20, 30, 40, 50, 60), strict=True)),
                      dict(zip(CODES, (5, 10, 20, 40, 80, 0), strict=True)))
    after = snapshot("2026-11", dict(zip(CODES, (10.5, 19, 30, 41, 50, 60.2), strict=True)),
                     dict(zip(CODES, (5.5, 10, 21, 40, 79, 0), strict=True)))
    checked = check(after, before, compare(before, after), Limits())
    assert checked.findings == [] and checked.rank_correlation == 1.0 and checked.compared == 6
    assert checked.median_move == pytest.approx(0.35)
    assert checked.scale_change is not None and checked.scale_change[0] == "SE.TER.ENRR"
    assert checked.summary() == ("passed (rank correlation 1.0000, median move 0.35 points, largest scale "
                                 "change x1.03 (SE.TER.ENRR) over 6 economies)")


@pytest.mark.parametrize(("factor", "refused"), [(10, True), (0.01, True), (2.9, False), (1 / 2.9, False)])
def test_a_unit_change_either_way_is_refused(factor: float, refused: bool) -> None:
    composites = dict(zip(CODES, (10, 20, 30, 40, 50, 60), strict=True))
    values = dict(zip(CODES, (5.0, 10.0, 20.0, 40.0, 80.0, None), strict=True))
    before = snapshot("2026-10", composites, values)
    after = snapshot("2026-11", composites, {c: v * factor if v else v for c, v in values.items()})
    findings = check(after, before, compare(before, after), Limits()).findings
    assert bool(findings) is refused
    if refused:
        assert findings[0].check == "scale-change"
        assert findings[0].text.startswith("SE.TER.ENRR (Tertiary) changed scale: its median reported value is ")


def test_too_few_economies_say_nothing_about_a_distribution() -> None:
    before = snapshot("2026-10", dict(zip(CODES[:4], (10, 20, 30, 40), strict=True)), dict.fromkeys(CODES[:4], 1.0))
    after = snapshot("2026-11", dict(zip(CODES[:4], (40, 30, 20, 10), strict=True)), dict.fromkeys(CODES[:4], 100.0))
    checked = check(after, before, compare(before, after), Limits())
    assert checked.findings == [] and checked.rank_correlation is None and checked.scale_change is None


def test_a_ranking_reordered_among_close_economies_is_a_routine_month() -> None:
    # A new data year reorders economies whose composites are close: the review's routine
    # January had a rank correlation of 0.946, which the first limit (0.98) refused, while the
    # typical economy moved about a point.
    codes = [f"E{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(20)]
    composites = [40 + 0.5 * i for i in range(20)]
    moves = (-2.3, 0.4, -2.4, 0.1, 2.4, -1.0, 2.4, 0.7, 1.9, -2.4, 1.2, 0.1, 0.5, -0.6, 2.4, 0.8, 1.1, 0.9, 0.2, 1.6)
    values = dict.fromkeys(codes, 10.0)
    before = snapshot("2026-12", dict(zip(codes, composites, strict=True)), values)
    after = snapshot("2027-01", {code: c + m for code, c, m in zip(codes, composites, moves, strict=True)}, values)
    checked = check(after, before, compare(before, after), Limits())
    assert checked.rank_correlation is not None and 0.94 < checked.rank_correlation < 0.95
    assert checked.median_move == pytest.approx(1.05) and checked.findings == []
    strict = check(after, before, compare(before, after), Limits(rank_correlation=0.98)).findings
    assert [finding.check for finding in strict] == ["rank-shift"], "what the first limit made of it"
