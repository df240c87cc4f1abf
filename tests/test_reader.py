"""loaders.reader: the data contract (docs/DATA.md), and bad files skipped, never fatal."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import orjson
import pytest

from loaders import COUNTRY_FIELDS, INDICATOR_FIELDS, Forced, SnapshotRefused, load_snapshot, read_snapshot
from loaders.reader import read_current_id, snapshot_ids
from tests.conftest import SAMPLE, copy_tree


@pytest.fixture
def current(tmp_path: Path) -> Path:
    """A damageable copy of the sample's current snapshot directory."""
    data = copy_tree(SAMPLE, tmp_path / "data")
    return data / "snapshots" / "2026-11"


def rewrite_country(directory: Path, code: str, content: bytes, fix_checksum: bool = True) -> None:
    (directory / "countries" / f"{code}.json").write_bytes(content)
    if fix_checksum:
        manifest = orjson.loads((directory / "manifest.json").read_bytes())
        manifest["checksums"][code] = "sha256:" + hashlib.sha256(content).hexdigest()
        (directory / "manifest.json").write_bytes(orjson.dumps(manifest))


def country_document(directory: Path, code: str) -> dict[str, object]:
    return orjson.loads((directory / "countries" / f"{code}.json").read_bytes())


def test_read_sample_every_snapshot_loads_cleanly() -> None:
    for snapshot_id in snapshot_ids(SAMPLE):
        snapshot, problems = read_snapshot(SAMPLE / "snapshots" / snapshot_id)
        assert problems == []
        assert snapshot is not None and snapshot.id == snapshot_id
        assert len(snapshot.countries) >= 12


def test_read_current_id_names_the_current_snapshot() -> None:
    assert read_current_id(SAMPLE) == "2026-11"


@pytest.mark.parametrize("content", ["", "../etc", "2026-13", "garbage\n"])
def test_read_current_id_unusable_is_none(tmp_path: Path, content: str) -> None:
    (tmp_path / "CURRENT").write_text(content)
    assert read_current_id(tmp_path) is None


def test_read_current_id_missing_is_none(tmp_path: Path) -> None:
    assert read_current_id(tmp_path) is None


def test_snapshot_ids_only_month_directories(tmp_path: Path) -> None:
    for name in ["2024-12", "2025-06", "latest", "2025-13"]:
        (tmp_path / "snapshots" / name).mkdir(parents=True)
    (tmp_path / "snapshots" / "2026-01").write_text("a file, not a directory")
    assert snapshot_ids(tmp_path) == ("2024-12", "2025-06")


def test_load_countries_keep_serving_order_without_confidence(current: Path) -> None:
    raw = country_document(current, "KEN")
    assert "Infrastructure Confidence" in raw  # the files keep the confidence keys
    kenya = load_snapshot(current).countries["KEN"]
    order = [field.name for field in COUNTRY_FIELDS]
    assert list(kenya.record) == [name for name in order if name in kenya.record]
    assert not any(key.lower().endswith("confidence") for key in kenya.record)
    assert all(list(element) == [k for k in INDICATOR_FIELDS if k in element] for element in kenya.details)


def test_contract_serves_no_confidence_key() -> None:
    # The reader keeps only the contract's fields (docs/DECISIONS.md#country-objects): that keeps confidence
    # keys out of every answer only while none of those fields is one.
    served = [field.name for field in COUNTRY_FIELDS] + list(INDICATOR_FIELDS)
    assert not [name for name in served if name.lower().endswith("confidence")]


def test_load_countries_iterate_in_code_order(current: Path) -> None:
    codes = list(load_snapshot(current).countries)
    assert codes == sorted(codes)


def test_read_missing_country_file_skipped(current: Path) -> None:
    (current / "countries" / "KEN.json").unlink()
    snapshot, problems = read_snapshot(current)
    assert snapshot is not None and "KEN" not in snapshot.countries and "BRA" in snapshot.countries
    assert [p.file for p in problems] == ["countries/KEN.json"]
    assert "cannot read" in problems[0].message


def test_read_corrupt_country_file_skipped_and_logged(current: Path, caplog: pytest.LogCaptureFixture) -> None:
    rewrite_country(current, "KEN", b'{"Country Name": "Kenya", ')
    with caplog.at_level(logging.WARNING, logger="readiness.loaders"):
        snapshot = load_snapshot(current)
    assert "KEN" not in snapshot.countries
    assert "countries/KEN.json: not valid JSON" in caplog.text


def test_read_checksum_mismatch_skipped(current: Path) -> None:
    document = country_document(current, "KEN")
    document["Composite Readiness Score"] = 99.0
    rewrite_country(current, "KEN", orjson.dumps(document), fix_checksum=False)
    snapshot, problems = read_snapshot(current)
    assert snapshot is not None and "KEN" not in snapshot.countries
    assert "does not match the manifest" in problems[0].message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"Composite Readiness Score": 101}, "Composite Readiness Score"),
        ({"Region": "Atlantis"}, "Region"),
        ({"Global Rank": "1st"}, "Global Rank"),
        ({"Unknown Field": 1}, "Unknown Field"),
        ({"Infrastructure Confidence": "Very High"}, "Infrastructure Confidence"),
        ({"Country Code": "XXX"}, "Country Code 'XXX' is not 'KEN'"),
    ],
)
def test_read_country_breaking_schema_skipped(current: Path, change: dict[str, object], expected: str) -> None:
    document = country_document(current, "KEN")
    document.update(change)
    rewrite_country(current, "KEN", orjson.dumps(document))
    snapshot, problems = read_snapshot(current)
    assert snapshot is not None and "KEN" not in snapshot.countries
    assert len(problems) == 1 and expected in problems[0].message


def test_read_optional_field_absent_is_absent_not_null(current: Path) -> None:
    document = country_document(current, "KEN")
    del document["Governance Score"]
    rewrite_country(current, "KEN", orjson.dumps(document))
    kenya = load_snapshot(current).countries["KEN"]
    assert "Governance Score" not in kenya.record


def test_read_no_valid_country_refused(current: Path) -> None:
    for path in (current / "countries").iterdir():
        path.write_bytes(b"not json")
    with pytest.raises(SnapshotRefused) as refused:
        load_snapshot(current)
    assert "no valid country" in str(refused.value)


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (b"[]", "breaks the schema"),
        (b"{", "not valid JSON"),
        (b'{"id": "2026-11"}', "breaks the schema"),
    ],
)
def test_read_unusable_manifest_refused(current: Path, manifest: bytes, expected: str) -> None:
    (current / "manifest.json").write_bytes(manifest)
    snapshot, problems = read_snapshot(current)
    assert snapshot is None
    assert problems[0].file == "manifest.json" and expected in problems[0].message


def test_read_manifest_id_must_match_directory(current: Path) -> None:
    moved = current.rename(current.parent / "2026-10")
    snapshot, problems = read_snapshot(moved)
    assert snapshot is None and "does not match the directory name" in problems[0].message


def forced_manifest(directory: Path, forced: object) -> None:
    """Give the snapshot's manifest a ``forced`` key (as a refresh past its checks writes it)."""
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    (directory / "manifest.json").write_bytes(orjson.dumps({**manifest, "forced": forced}))


@pytest.mark.parametrize(("forced", "read"), [
    ({"reason": "the 2026 data year entered the window",
      "checks": {"rank-shift": ["the composite's ranking reshuffled"], "median-move": ["moved 2.40 points"]}},
     Forced(("rank-shift", "median-move"), "the 2026 data year entered the window",
            ("the composite's ranking reshuffled", "moved 2.40 points"))),
    # As a refresh forced before the checks had names wrote it: the findings only.
    (["3 economies, 3 fewer than 2026-10's 6"], Forced((), None, ("3 economies, 3 fewer than 2026-10's 6",))),
])
def test_read_forced_manifest_in_either_form(current: Path, forced: object, read: Forced) -> None:
    forced_manifest(current, forced)
    snapshot, problems = read_snapshot(current)
    assert problems == [] and snapshot is not None and snapshot.forced == read


@pytest.mark.parametrize("forced", [
    {"reason": "why", "checks": {}},
    {"reason": "", "checks": {"rank-shift": ["moved"]}},
    {"checks": {"rank-shift": ["moved"]}},
    {"reason": "why", "checks": {"Rank Shift": ["moved"]}},
    {"reason": "why", "checks": {"rank-shift": []}},
    {"reason": "why", "checks": {"rank-shift": ["moved"]}, "by": "someone"},
    [],
    "forced",
])
def test_read_forced_manifest_malformed_refused(current: Path, forced: object) -> None:
    from loaders import reader

    forced_manifest(current, forced)
    snapshot, problems = read_snapshot(current)
    assert snapshot is None and "breaks the schema" in problems[0].message
    assert not reader._MANIFEST._full.is_valid(orjson.loads((current / "manifest.json").read_bytes()))


def test_read_manifest_without_forced_is_not_forced(current: Path) -> None:
    snapshot, _ = read_snapshot(current)
    assert snapshot is not None and snapshot.forced is None


# --- the fast schema check never accepts what jsonschema refuses --------------------------------

_WRONG_VALUES: tuple[object, ...] = (None, "x", "", 1, -1, 1.5, True, [], {}, ["x"], {"a": 1}, 101, "87th")


def _mutations(document: dict[str, object]) -> list[dict[str, object]]:
    """``document`` with one change each: every key removed, every value replaced by each of
    ``_WRONG_VALUES``, an unknown key added; for a country, the same inside its first detail."""
    mutated: list[dict[str, object]] = [{**document, "Unknown Key": 1}]
    for key in document:
        mutated.append({name: value for name, value in document.items() if name != key})
        mutated += [{**document, key: wrong} for wrong in _WRONG_VALUES]
    details = document.get("indicator_details")
    if isinstance(details, list) and details and isinstance(details[0], dict):
        for element in _mutations(details[0]):
            mutated.append({**document, "indicator_details": [element, *details[1:]]})
    return mutated


@pytest.mark.parametrize("schema", ["_COUNTRY", "_MANIFEST"])
def test_fast_schema_check_agrees_with_jsonschema_on_every_mutation(schema: str) -> None:
    import fastjsonschema

    from loaders import reader

    checked = getattr(reader, schema)
    file = "countries/KEN.json" if schema == "_COUNTRY" else "manifest.json"
    document = orjson.loads((SAMPLE / "snapshots" / "2026-11" / file).read_bytes())
    refused = 0
    for mutated in _mutations(document):
        try:
            checked._fast(mutated)
            fast = True
        except fastjsonschema.JsonSchemaException:
            fast = False
        full = checked._full.is_valid(mutated)
        assert not (fast and not full), f"the fast check accepted what jsonschema refuses: {mutated}"
        refused += not full
    assert refused > 100  # the mutations do break the schema
