"""What a build produces: which month's snapshot, its publication date, and its provenance."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from builder.method import WINDOW_START

_MONTH = re.compile(r"^([0-9]{4})-(0[1-9]|1[0-2])$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


class ReleaseError(ValueError):
    """A snapshot id, publication date, notice, publisher or licence that cannot be built; the
    message says which."""


@dataclass(frozen=True, slots=True)
class Release:
    """One snapshot to build: id ``YYYY-MM``, ``published`` date within that month, a
    ``notice`` that marks the data as synthetic (None for real data), and who publishes it
    under which licence, for the citation (``publisher``, ``license``: None when not given;
    docs/PUBLISHING.md#1-build).

    ``published`` is the manifest's date and every economy's "Last Updated".
    """

    id: str
    published: str
    notice: str | None = None
    publisher: str | None = None
    license: str | None = None

    @classmethod
    def parse(
        cls,
        snapshot_id: str,
        published: str | None = None,
        notice: str | None = None,
        publisher: str | None = None,
        license: str | None = None,
    ) -> Release:
        """Validate a release; ``published`` defaults to the first day of the month.

        Raises ReleaseError naming the bad value: an id that is not a month, a year before
        the data window starts, a date that is not a date in that month, an empty notice,
        publisher or licence.
        """
        match = _MONTH.match(snapshot_id)
        if match is None:
            raise ReleaseError(f"snapshot id {snapshot_id!r} is not a month (YYYY-MM)")
        if int(match.group(1)) < WINDOW_START:
            raise ReleaseError(f"snapshot id {snapshot_id!r} is before the data window ({WINDOW_START})")
        date = published or f"{snapshot_id}-01"
        try:
            parsed = datetime.date.fromisoformat(date) if _DATE.match(date) else None
        except ValueError:
            parsed = None
        if parsed is None:
            raise ReleaseError(f"published date {date!r} is not a date (YYYY-MM-DD)")
        if parsed.strftime("%Y-%m") != snapshot_id:
            raise ReleaseError(f"published date {date!r} is not in {snapshot_id}")
        if notice is not None and not notice.strip():
            raise ReleaseError("the synthetic-data notice is empty")
        if publisher is not None and not publisher.strip():
            raise ReleaseError("the publisher is empty")
        if license is not None and not license.strip():
            raise ReleaseError("the licence is empty")
        return cls(snapshot_id, date, notice, publisher, license)

    @property
    def year(self) -> int:
        """The snapshot's year: the last year of its data window."""
        return int(self.id[:4])

    @property
    def names_provenance(self) -> bool:
        """Whether the manifest says under which licence the snapshot is published: when the
        release names its publisher or its licence (``license`` null: no licence granted)."""
        return self.publisher is not None or self.license is not None

    @property
    def synthetic(self) -> bool:
        """Whether the manifest marks the values as synthetic (a notice says so)."""
        return self.notice is not None
