"""The in-memory snapshot the query API answers from.

A Snapshot is built once by the reader and never changes: requests share it without locks,
and a refresh swaps in a whole new one (docs/DATA.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]
"""A value as it comes out of a JSON document."""


@dataclass(frozen=True, slots=True)
class Country:
    """One economy, ready to serve.

    ``record`` holds the top-level fields in serving order, without indicator_details and
    without any confidence key; ``details`` holds the indicator_details elements, cleaned
    the same way. Nothing may change them after loading: requests share them.
    """

    code: str
    record: dict[str, JsonValue]
    details: tuple[dict[str, JsonValue], ...]


@dataclass(frozen=True, slots=True)
class Forced:
    """How a snapshot was published past the refresh's sanity checks (its manifest's
    ``forced``, docs/DATA.md#manifestjson): the checks accepted, by name, the operator's reason,
    and what they found. A manifest forced before the checks had names lists only what they
    found: ``checks`` empty and ``reason`` None."""

    checks: tuple[str, ...]
    reason: str | None
    findings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One month's data: its id (``YYYY-MM``), publication date and countries by code.

    ``countries`` iterates in Country Code order, which the query API relies on to break
    sort ties (docs/DECISIONS.md#query-parameters). ``digest`` names the content: two snapshots with the same id
    but other files (another data directory, a replaced publish) have different digests, so
    cached answers are keyed by it as well as by the id (docs/CACHING.md). ``skipped`` counts
    the country files the manifest lists but the reader could not serve (docs/DATA.md).
    ``synthetic`` and ``notice`` are the manifest's own words about what the data is
    (the bundled sample says it is synthetic); the catalogue serves them (docs/API.md).
    ``publisher`` and ``license`` are the manifest's too, for the citation (None when an older
    manifest does not say; docs/DATA.md#manifestjson), and ``forced``: the sanity checks a
    refresh published it past, and why (None: none).
    """

    id: str
    published: str
    countries: Mapping[str, Country]
    digest: str = ""
    skipped: int = 0
    synthetic: bool = False
    notice: str | None = None
    publisher: str | None = None
    license: str | None = None
    forced: Forced | None = None

    @property
    def skipped_percent(self) -> float:
        """Share of the manifest's country files that were skipped, 0 to 100."""
        listed = len(self.countries) + self.skipped
        return 100.0 * self.skipped / listed if listed else 0.0
