"""Hidden staging directories: a snapshot is assembled out of sight, then renamed into place.

A staging directory is named ``.tmp-<id>-<random>`` inside the directory that will hold the
snapshot, so the final rename stays on one file system and is atomic. Readers never see it:
``loaders.reader.snapshot_ids`` lists only ``YYYY-MM`` names.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger("readiness.builder")

TEMP_PREFIX = ".tmp-"


@contextmanager
def staging_area(parent: Path, snapshot_id: str) -> Iterator[Path]:
    """Create ``parent/.tmp-<id>-<random>/`` and remove it with its content on exit."""
    parent.mkdir(parents=True, exist_ok=True)
    area = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{snapshot_id}-", dir=parent))
    try:
        yield area
    finally:
        shutil.rmtree(area, ignore_errors=True)


def leftovers(parent: Path) -> list[Path]:
    """Staging directories under ``parent`` left by a process that was killed."""
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.iterdir() if p.name.startswith(TEMP_PREFIX) and p.is_dir())


def remove_leftovers(data_dir: Path, snapshots: str, temporary_prefix: str, what: str) -> None:
    """Remove what a killed ``what`` (a publish, a pull) left in ``data_dir``: staging
    directories under ``data_dir/snapshots`` and its temporary files (``temporary_prefix``)."""
    for directory in leftovers(data_dir / snapshots):
        log.warning("removing %s, left by an interrupted %s", directory, what)
        shutil.rmtree(directory, ignore_errors=True)
    for temporary in data_dir.glob(f"{temporary_prefix}*"):
        temporary.unlink(missing_ok=True)
