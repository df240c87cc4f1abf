"""The index's bands: four named ranges of the composite score (docs/METHOD.md#bands).

The one definition: the method page lists these, and the country page's script reads the
same list from a JSON block the server writes into the page, so no number is written twice.
A score belongs to the first band, from the top, whose lower bound it reaches: 75 is Leading,
74.99 Strong. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from loaders import JsonValue


@dataclass(frozen=True, slots=True)
class Band:
    """One band: its name and its lower bound, which belongs to it (a score ``>= floor``)."""

    name: str
    floor: float
    ceiling: float | None
    """The next band's floor, which does not belong to this band; None for the top band."""

    @property
    def range(self) -> str:
        """The band's scores in words: ``60 to under 75``, ``75 and above``, ``under 40``."""
        if self.ceiling is None:
            return f"{_number(self.floor)} and above"
        if self.floor <= 0:
            return f"under {_number(self.ceiling)}"
        return f"{_number(self.floor)} to under {_number(self.ceiling)}"

    def document(self) -> dict[str, JsonValue]:
        """The band as the pages' scripts read it: name, floor (included), ceiling (excluded)."""
        return {"name": self.name, "floor": self.floor, "ceiling": self.ceiling, "range": self.range}


BANDS: tuple[Band, ...] = (
    Band("Leading", 75, None),
    Band("Strong", 60, 75),
    Band("Emerging", 40, 60),
    Band("Low readiness", 0, 40),
)
"""From the top: a composite of 75 or more is Leading, 60 or more Strong, 40 or more
Emerging, anything lower Low readiness (docs/METHOD.md#bands)."""


def band_of(score: float | None) -> Band | None:
    """The band of a composite ``score``; None for no score (a null composite has no band).
    A score below 0 (which the method never gives) is Low readiness."""
    if score is None:
        return None
    return next((band for band in BANDS if score >= band.floor), BANDS[-1])


def bands_document() -> list[JsonValue]:
    """Every band, from the top, as the pages' scripts read them (``Band.document``)."""
    return [band.document() for band in BANDS]


def _number(value: float) -> str:
    return f"{value:g}"
