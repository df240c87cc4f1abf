"""Turn a scored snapshot into the files of the data contract (docs/DATA.md).

Country files hold the fields of ``loaders.contract.COUNTRY_FIELDS`` in that order, each
"<Dimension> Confidence" right after its "<Dimension> Score", then indicator_details with
the keys of ``INDICATOR_FIELDS`` in order. The manifest lists the codes and the sha256 of
each file's exact bytes, as ``loaders.reader`` checks them. Output is deterministic: the
same scored snapshot always gives byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from builder.method import INDICATORS, Indicator
from builder.release import Release
from builder.score import Entry, ScoredEconomy, ScoredSnapshot
from loaders import (
    COMPOSITE,
    COUNTRY_FIELDS,
    DETAILS,
    DIMENSIONS,
    INDICATOR_FIELDS,
    INDICATORS_FILE,
    SCHEMA_VERSION,
    JsonValue,
)

MANIFEST = "manifest.json"
COUNTRIES = "countries"
CATALOGUE_FORMAT = 1

_CONFIDENCE_AFTER = {f"{dimension} Score": f"{dimension} Confidence" for dimension in DIMENSIONS}
"""Where each confidence key goes: right after its dimension's score."""


def indicator_element(entry: Entry) -> dict[str, JsonValue]:
    """One indicator_details element, keys in the contract's order (docs/API.md#indicator_details-element)."""
    reported = entry.reported
    values: dict[str, JsonValue] = {
        "indicator_code": entry.indicator.code,
        "indicator_name": entry.indicator.name,
        "component": entry.indicator.dimension,
        "year": None if reported is None else reported.year,
        "reported_value": None if reported is None else reported.value,
        "data_source": entry.data_source,
        "normalized_value": entry.normalized,
        "global_percentile": entry.global_percentile,
        "regional_percentile": entry.regional_percentile,
        "notes": entry.notes,
    }
    return {key: values[key] for key in INDICATOR_FIELDS}


def country_document(scored: ScoredEconomy, release: Release) -> dict[str, JsonValue]:
    """One country file's object: contract fields in order, confidence after each score."""
    economy = scored.economy
    values: dict[str, JsonValue] = {
        "Country Name": economy.name,
        "Country Code": economy.code,
        "Region": economy.region,
        "Income Level": economy.income,
        "Population, total": scored.population,
        COMPOSITE: scored.composite,
        **{f"{dimension} Score": scored.dimensions[dimension] for dimension in DIMENSIONS},
        "FCV Status": economy.fcv_status,
        "FCV Type": economy.fcv_type,
        "Global Rank": scored.global_rank,
        "Regional Rank": scored.regional_rank,
        "Microstate": scored.microstate,
        "Last Updated": release.published,
    }
    confidence = {f"{dimension} Confidence": level for dimension, level in scored.confidence.items()}
    document: dict[str, JsonValue] = {}
    for field in COUNTRY_FIELDS:
        document[field.name] = values[field.name]
        if field.name in _CONFIDENCE_AFTER:
            key = _CONFIDENCE_AFTER[field.name]
            document[key] = confidence[key]
    document[DETAILS] = [indicator_element(entry) for entry in scored.entries]
    return document


def catalogue_document(snapshot: ScoredSnapshot) -> dict[str, JsonValue]:
    """``indicators.json``: the method's indicators as this snapshot was scored with them
    (docs/DATA.md): code, name, dimension, direction, transform, purpose and the sources of
    the reported values used, so the service's catalogue describes the method that built the
    numbers it serves rather than whatever method its own code holds."""
    sources: dict[str, set[str]] = {indicator.code: set() for indicator in INDICATORS}
    for economy in snapshot.economies:
        for entry in economy.entries:
            if entry.reported is not None:
                sources[entry.indicator.code].add(entry.reported.source)
    return {
        "format": CATALOGUE_FORMAT,
        "indicators": [
            {
                "code": indicator.code,
                "name": indicator.name,
                "dimension": indicator.dimension,
                "direction": _direction(indicator),
                "transform": list[JsonValue](_transform(indicator)),
                "purpose": indicator.purpose or None,
                "sources": list[JsonValue](sorted(sources[indicator.code])),
            }
            for indicator in INDICATORS
        ],
    }


def _direction(indicator: Indicator) -> str | None:
    if indicator.dimension is None:
        return None  # auxiliary: enters no score
    return "lower is better" if indicator.lower_is_better else "higher is better"


def _transform(indicator: Indicator) -> tuple[str, ...]:
    """The steps from reported value to 0-100 score, in the order the builder applies them."""
    if indicator.dimension is None:
        return ()
    steps = ["per million people"] if indicator.per_million else []
    steps += ["log(1 + x)"] if indicator.log1p else []
    steps.append("min-max scaled to 0-100")
    steps += ["100 minus the scaled value"] if indicator.lower_is_better else []
    return tuple(steps)


def manifest_document(release: Release, checksums: Mapping[str, str]) -> dict[str, JsonValue]:
    """The manifest: id, dates, schema version, provenance, codes and checksums. ``publisher``
    is written when the release names one, ``license`` when it names either
    (docs/DATA.md#manifestjson)."""
    manifest: dict[str, JsonValue] = {
        "id": release.id,
        "published": release.published,
        "schema_version": SCHEMA_VERSION,
        "synthetic": release.synthetic,
    }
    if release.notice is not None:
        manifest["notice"] = release.notice
    if release.publisher is not None:
        manifest["publisher"] = release.publisher
    if release.names_provenance:  # a named publisher states its licence: null grants none
        manifest["license"] = release.license
    manifest["countries"] = list[JsonValue](sorted(checksums))
    manifest["checksums"] = {code: checksums[code] for code in sorted(checksums)}
    return manifest


FORCED = "forced"
"""The manifest's optional record of a refresh published past some of its sanity checks: the
operator's reason and, by check name, what each accepted check found (docs/DATA.md#manifestjson)."""


def mark_forced(directory: Path, reason: str, checks: Mapping[str, Sequence[str]]) -> None:
    """Record in the snapshot's manifest that it was published despite ``checks`` (each
    check's name, with its findings) for ``reason``: written before ``countries``; the country
    files and their checksums are untouched."""
    path = directory / MANIFEST
    manifest = json.loads(path.read_bytes())
    listed = ("countries", "checksums", FORCED)
    marked: dict[str, JsonValue] = {key: value for key, value in manifest.items() if key not in listed}
    marked[FORCED] = {
        "reason": reason,
        "checks": {name: list[JsonValue](findings) for name, findings in checks.items()},
    }
    marked["countries"] = manifest["countries"]
    marked["checksums"] = manifest["checksums"]
    path.write_bytes(encode(marked))


def encode(document: JsonValue) -> bytes:
    """Stable JSON bytes: two-space indent, UTF-8 as is, a final newline."""
    return (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()


def checksum(raw: bytes) -> str:
    """The manifest's checksum of a file's exact bytes."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def write_snapshot(snapshot: ScoredSnapshot, release: Release, directory: Path) -> None:
    """Write ``directory`` (which must not exist yet): country files, the indicator
    catalogue, then the manifest.

    Raises FileExistsError if ``directory`` exists.
    """
    directory.mkdir(parents=True)
    (directory / COUNTRIES).mkdir()
    checksums: dict[str, str] = {}
    for scored in snapshot.economies:
        raw = encode(country_document(scored, release))
        (directory / COUNTRIES / f"{scored.economy.code}.json").write_bytes(raw)
        checksums[scored.economy.code] = checksum(raw)
    (directory / INDICATORS_FILE).write_bytes(encode(catalogue_document(snapshot)))
    (directory / MANIFEST).write_bytes(encode(manifest_document(release, checksums)))
