"""Read snapshot directories (docs/DATA.md) into validated in-memory Snapshots.

Bad files never stop the service: a country file that is missing, not JSON, fails its
checksum or breaks the schema is skipped with a Problem; only a snapshot with an unusable
manifest or no valid country at all is refused.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import fastjsonschema
import orjson
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from loaders.contract import COUNTRY_FIELDS, DETAILS, INDICATOR_FIELDS
from loaders.model import Country, Forced, JsonValue, Snapshot
from loaders.schema import COUNTRY_SCHEMA, MANIFEST_SCHEMA

log = logging.getLogger("readiness.loaders")

SNAPSHOT_ID = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])$")
"""A snapshot id is a month, ``YYYY-MM``; it is also the snapshot's directory name."""



class _Schema:
    """A schema checked fast and described exactly: fastjsonschema's compiled check (20 times
    jsonschema's speed on a country file, which is most of reading a snapshot) for a document
    that conforms, jsonschema's ``best_match`` (the message a builder's author reads) for one
    that does not. Only jsonschema refuses: where the two disagree on a document, it decides
    (tests/test_reader.py checks that the fast check never accepts what jsonschema refuses). The
    schemas use keywords that mean the same in drafts 7 and 2020-12, so the compiled check is of
    draft 7, fastjsonschema's default."""

    def __init__(self, schema: dict[str, JsonValue]) -> None:
        self._fast = fastjsonschema.compile({key: value for key, value in schema.items() if key != "$schema"})
        self._full = Draft202012Validator(schema)

    def validated(self, document: JsonValue) -> dict[str, JsonValue]:
        """``document``, which must be an object conforming to the schema. Raises _BadFile
        naming where it breaks it and how."""
        try:
            self._fast(document)
        except fastjsonschema.JsonSchemaException:
            error = best_match(self._full.iter_errors(document))
            if error is not None:
                where = "" if error.json_path == "$" else f"{error.json_path}: "
                raise _BadFile(f"breaks the schema: {where}{error.message}") from None
        return cast(dict[str, JsonValue], document)  # every schema here requires an object


_MANIFEST = _Schema(MANIFEST_SCHEMA)
_COUNTRY = _Schema(COUNTRY_SCHEMA)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with one file of a snapshot, relative to the snapshot directory."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


class SnapshotRefused(Exception):
    """A snapshot directory that cannot be served at all (bad manifest, no valid country)."""

    def __init__(self, directory: Path, problems: list[Problem]) -> None:
        super().__init__(f"snapshot {directory} refused: {problems[-1] if problems else '?'}")
        self.directory = directory
        self.problems = problems


def read_current_id(data_dir: Path) -> str | None:
    """Return the snapshot id named by ``<data_dir>/CURRENT``, or None if it is missing or
    does not name a month. Not logged: servers poll it, and a data directory has no CURRENT
    before its first publish; callers say what None means for them."""
    try:
        text = (data_dir / "CURRENT").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if SNAPSHOT_ID.match(text) else None


def snapshot_ids(data_dir: Path) -> tuple[str, ...]:
    """Ids of the snapshot directories present under ``<data_dir>/snapshots``, oldest first."""
    try:
        names = [entry.name for entry in (data_dir / "snapshots").iterdir() if entry.is_dir()]
    except OSError as error:
        log.error("cannot list snapshots in %s: %s", data_dir, error)
        return ()
    return tuple(sorted(name for name in names if SNAPSHOT_ID.match(name)))


def load_snapshot(directory: Path) -> Snapshot:
    """Read a snapshot directory, logging every skipped file.

    Raises SnapshotRefused when the manifest is unusable or no country file is valid.
    """
    snapshot, problems = read_snapshot(directory)
    for problem in problems:
        log.warning("snapshot %s: skipped %s", directory.name, problem)
    if snapshot is None:
        raise SnapshotRefused(directory, problems)
    return snapshot


def read_snapshot(directory: Path) -> tuple[Snapshot | None, list[Problem]]:
    """Read and validate a snapshot directory; return it (None if refused) and its problems."""
    problems: list[Problem] = []
    read = _read_manifest(directory, problems)
    if read is None:
        return None, problems
    manifest, raw_manifest = read
    checksums = cast(dict[str, JsonValue], manifest["checksums"])  # MANIFEST_SCHEMA: an object
    countries: dict[str, Country] = {}
    for code in sorted(str(code) for code in _as_list(manifest["countries"])):
        country = _read_country(directory, code, checksums.get(code), problems)
        if country is not None:
            countries[code] = country
    if not countries:
        problems.append(Problem("countries/", "no valid country file; snapshot refused"))
        return None, problems
    skipped = len({str(code) for code in _as_list(manifest["countries"])}) - len(countries)
    # The manifest holds every file's checksum; the codes loaded tell apart a copy with a bad file.
    digest = hashlib.sha256(raw_manifest + b"\n" + ",".join(countries).encode()).hexdigest()
    notice, publisher, license_ = (manifest.get(key) for key in ("notice", "publisher", "license"))
    snapshot = Snapshot(
        str(manifest["id"]), str(manifest["published"]), countries, digest, skipped,
        synthetic=manifest.get("synthetic") is True, notice=notice if isinstance(notice, str) else None,
        publisher=publisher if isinstance(publisher, str) else None,
        license=license_ if isinstance(license_, str) else None,
        forced=forced_of(manifest.get("forced")),
    )
    return snapshot, problems


def forced_of(value: JsonValue) -> Forced | None:
    """The manifest's ``forced`` (MANIFEST_SCHEMA's two forms) as a Forced; None without one."""
    if isinstance(value, list):  # before the checks had names: the findings only
        return Forced((), None, tuple(str(finding) for finding in value))
    if not isinstance(value, dict):
        return None
    checks = value.get("checks")
    reason = value.get("reason")
    found = checks if isinstance(checks, dict) else {}
    return Forced(
        tuple(found),
        reason if isinstance(reason, str) else None,
        tuple(str(finding) for findings in found.values() if isinstance(findings, list) for finding in findings),
    )


def manifest_digest(directory: Path) -> str | None:
    """SHA-256 of the snapshot's ``manifest.json`` bytes, or None when it cannot be read.

    The manifest lists every country file's checksum, so this names the snapshot's whole
    content: two directories of one id with other content (a publish with ``--replace``)
    have different digests. Cheap enough to compare on every poll.
    """
    try:
        return hashlib.sha256((directory / "manifest.json").read_bytes()).hexdigest()
    except OSError:
        return None


class _BadFile(Exception):
    """One file is unusable; the message says why."""


def _read_manifest(directory: Path, problems: list[Problem]) -> tuple[dict[str, JsonValue], bytes] | None:
    """The manifest and its bytes, or None (a Problem recorded)."""
    try:
        raw = _read(directory / "manifest.json")
        manifest = _MANIFEST.validated(_parse(raw))
        if manifest["id"] != directory.name:
            raise _BadFile(f"id {manifest['id']!r} does not match the directory name")
    except _BadFile as error:
        problems.append(Problem("manifest.json", str(error)))
        return None
    return manifest, raw


def _read_country(
    directory: Path, code: str, checksum: JsonValue, problems: list[Problem]
) -> Country | None:
    name = f"countries/{code}.json"
    try:
        raw = _read(directory / name)
        digest = "sha256:" + hashlib.sha256(raw).hexdigest()
        if checksum != digest:
            raise _BadFile(f"checksum {digest} does not match the manifest's {checksum}")
        document = _COUNTRY.validated(_parse(raw))
        if document["Country Code"] != code:
            raise _BadFile(f"Country Code {document['Country Code']!r} is not {code!r}")
    except _BadFile as error:
        problems.append(Problem(name, str(error)))
        return None
    return _country(code, document)


def _country(code: str, document: dict[str, JsonValue]) -> Country:
    """Keep exactly the contract's served fields, in serving order, at both depths.

    This projection is what keeps the "<Dimension> Confidence" keys of the files (and any
    other key) out of every answer (docs/API.md#country-object): no served field is a confidence key
    (docs/DECISIONS.md#country-objects).
    """
    record = {field.name: document[field.name] for field in COUNTRY_FIELDS if field.name in document}
    details = tuple(
        {key: element[key] for key in INDICATOR_FIELDS if key in element}
        for element in _as_list(document.get(DETAILS))
        if isinstance(element, dict)
    )
    return Country(code, record, details)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise _BadFile(f"cannot read: {error.strerror or error}") from None


def _parse(raw: bytes) -> JsonValue:
    try:
        document: JsonValue = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise _BadFile(f"not valid JSON: {error}") from None
    return document


def _as_list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []
