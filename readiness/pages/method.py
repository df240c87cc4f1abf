"""What the method page shows of a snapshot's indicator catalogue (docs/PAGES.md#the-method-page):
the scoring indicators grouped by dimension, in the catalogue's order, each with the weight
the means give it, and the auxiliary series apart. Pure: built from the catalogue the API's
``/api/v1/snapshots`` serves (``Summary.indicators``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from loaders import DIMENSIONS, JsonValue

NOT_STATED = "not stated"
"""For a catalogue derived from the served data (a snapshot without ``indicators.json``),
which cannot tell direction or transform (the page translates it: data_words.txt)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One indicator of the catalogue, in the catalogue's words: the page translates each
    (method.html), so the transforms and sources stay a list until it joins them."""

    code: str
    name: str
    direction: str
    transform: tuple[str, ...]
    """The transforms in order; empty when not stated."""
    sources: tuple[str, ...]
    """Empty when not stated."""
    purpose: str

    @classmethod
    def of(cls, entry: Mapping[str, JsonValue]) -> Entry:
        transform = entry.get("transform")
        sources = entry.get("sources")
        return cls(
            str(entry.get("code")),
            str(entry.get("name") or entry.get("code")),
            str(entry.get("direction") or NOT_STATED),
            tuple(map(str, transform)) if isinstance(transform, list) else (),
            tuple(map(str, sources)) if isinstance(sources, list) else (),
            str(entry.get("purpose") or ""),
        )


@dataclass(frozen=True, slots=True)
class Dimension:
    """A dimension and its indicators: each weighs 1/n of the dimension (the dimension score
    is their mean) and 1/(5n) of the composite (the mean of the five dimension scores)."""

    name: str
    entries: tuple[Entry, ...]

    @property
    def slug(self) -> str:
        """The dimension's name as a page anchor: ``school-access-and-gender-parity``."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    @property
    def weight(self) -> str:
        """One indicator's weight in this dimension, ``1/4 (25%)``."""
        return share(len(self.entries))

    @property
    def composite_weight(self) -> str:
        """One indicator's weight in the composite, ``1/20 (5%)``."""
        return share(len(DIMENSIONS) * len(self.entries))


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The catalogue as the method page lists it: the five dimensions in the contract's order,
    then the series that enter no score."""

    dimensions: tuple[Dimension, ...]
    auxiliary: tuple[Entry, ...]

    @classmethod
    def of(cls, entries: Sequence[Mapping[str, JsonValue]]) -> Catalogue:
        """Group ``entries`` (catalogue entries, ``loaders.summary.CATALOGUE_KEYS``) by
        dimension; an entry of no dimension of the contract enters no score: auxiliary."""
        return cls(
            tuple(
                Dimension(name, tuple(Entry.of(entry) for entry in entries if entry.get("dimension") == name))
                for name in DIMENSIONS
            ),
            tuple(Entry.of(entry) for entry in entries if entry.get("dimension") not in DIMENSIONS),
        )

    @property
    def scoring(self) -> int:
        """How many indicators enter the scores."""
        return sum(len(dimension.entries) for dimension in self.dimensions)


def share(parts: int) -> str:
    """One of ``parts`` equal shares as a fraction and a percentage: ``1/3 (33.33%)``;
    ``none`` for no parts."""
    if parts <= 0:
        return "none"
    percent = f"{100 / parts:.2f}".rstrip("0").rstrip(".")
    return f"1/{parts} ({percent}%)"
