"""The index's bands (readiness/domain/bands.py, docs/METHOD.md#bands): each boundary belongs
to the band above it, and the bands cover every score without a gap."""

from __future__ import annotations

import pytest

from readiness.domain.bands import BANDS, band_of, bands_document


@pytest.mark.parametrize(
    ("score", "band"),
    [
        (100, "Leading"),
        (75, "Leading"),
        (74.99, "Strong"),
        (60, "Strong"),
        (59.99, "Emerging"),
        (40, "Emerging"),
        (39.99, "Low readiness"),
        (0, "Low readiness"),
        (-1, "Low readiness"),
    ],
)
def test_band_of_a_boundary_is_the_band_above_it(score: float, band: str) -> None:
    found = band_of(score)
    assert found is not None and found.name == band


def test_band_of_no_score_is_none() -> None:
    assert band_of(None) is None


def test_bands_run_from_the_top_each_ceiling_the_next_floor() -> None:
    assert [band.name for band in BANDS] == ["Leading", "Strong", "Emerging", "Low readiness"]
    assert BANDS[0].ceiling is None and BANDS[-1].floor == 0
    assert all(upper.floor == lower.ceiling for upper, lower in zip(BANDS, BANDS[1:], strict=False))


def test_band_ranges_say_which_side_a_boundary_is_on() -> None:
    assert [band.range for band in BANDS] == ["75 and above", "60 to under 75", "40 to under 60", "under 40"]


def test_bands_document_is_what_the_pages_scripts_read() -> None:
    assert bands_document()[1] == {"name": "Strong", "floor": 60, "ceiling": 75, "range": "60 to under 75"}
    assert len(bands_document()) == len(BANDS)
