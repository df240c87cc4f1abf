"""builder.write, builder.build and builder.release: snapshot directories the loaders accept."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import builder.build
import builder.write
from builder.build import BuildInvalid, build_snapshot
from builder.release import Release, ReleaseError
from builder.score import ScoredSnapshot, score_snapshot
from builder.write import country_document, encode, indicator_element, manifest_document
from loaders import COUNTRY_FIELDS, DETAILS, DIMENSIONS, INDICATOR_FIELDS, JsonValue, load_snapshot, read_snapshot
from loaders.schema import SCHEMA_VERSION
from tests.builder_world import STANDARD, YEAR, world

RELEASE = Release.parse("2024-12", "2024-12-05", "SYNTHETIC: test data")


@pytest.fixture(scope="module")
def documents() -> dict[str, dict[str, JsonValue]]:
    return {e.economy.code: country_document(e, RELEASE) for e in score_snapshot(world(STANDARD), YEAR).economies}


def test_country_document_keys_in_contract_order_confidence_after_score(
    documents: dict[str, dict[str, JsonValue]],
) -> None:
    expected: list[str] = []
    for field in COUNTRY_FIELDS:
        expected.append(field.name)
        if field.name.removesuffix(" Score") in DIMENSIONS:
            expected.append(field.name.removesuffix(" Score") + " Confidence")
    assert list(documents["AAA"]) == [*expected, DETAILS]


def test_country_document_values(documents: dict[str, dict[str, JsonValue]]) -> None:
    ccc = documents["CCC"]
    assert (ccc["Country Name"], ccc["Region"], ccc["Income Level"]) == (
        "Economy CCC", "Sub-Saharan Africa", "Low income"
    )
    assert (ccc["Population, total"], ccc["Composite Readiness Score"], ccc["Infrastructure Score"]) == (
        2_000_000, 92.0, 100.0
    )
    assert (ccc["Global Rank"], ccc["Regional Rank"], ccc["Microstate"]) == (1, 1, False)
    assert (ccc["FCV Status"], ccc["FCV Type"], ccc["Last Updated"]) == (False, None, "2024-12-05")
    assert ccc["Infrastructure Confidence"] == "High"


def test_country_document_microstate_ranks_null(documents: dict[str, dict[str, JsonValue]]) -> None:
    assert (documents["MMM"]["Global Rank"], documents["MMM"]["Regional Rank"], documents["MMM"]["Microstate"]) == (
        None, None, True)


def test_indicator_elements_every_series_with_contract_keys(documents: dict[str, dict[str, JsonValue]]) -> None:
    details = documents["AAA"][DETAILS]
    assert isinstance(details, list) and len(details) == 23
    assert all(isinstance(element, dict) and list(element) == list(INDICATOR_FIELDS) for element in details)


def test_indicator_element_reported_and_auxiliary() -> None:
    aaa = score_snapshot(world(STANDARD), YEAR).economies[0]
    electricity, population = indicator_element(aaa.entries[0]), indicator_element(aaa.entries[-2])
    assert electricity == {
        "indicator_code": "EG.ELC.ACCS.ZS", "indicator_name": "Access to electricity (% of population)",
        "component": "Infrastructure", "year": YEAR, "reported_value": 10.0, "data_source": "Test source",
        "normalized_value": 0.0, "global_percentile": "25th", "regional_percentile": "33rd", "notes": "",
    }
    assert (population["indicator_code"], population["component"], population["reported_value"]) == (
        "SP.POP.TOTL", None, 2_000_000)
    assert (population["normalized_value"], population["global_percentile"]) == (None, None)


def test_manifest_document_synthetic_with_notice() -> None:
    manifest = manifest_document(RELEASE, {"BBB": "sha256:b", "AAA": "sha256:a"})
    assert manifest == {
        "id": "2024-12", "published": "2024-12-05", "schema_version": SCHEMA_VERSION, "synthetic": True,
        "notice": "SYNTHETIC: test data", "countries": ["AAA", "BBB"],
        "checksums": {"AAA": "sha256:a", "BBB": "sha256:b"},
    }


def test_manifest_document_real_data_has_no_notice() -> None:
    manifest = manifest_document(Release.parse("2024-12"), {})
    assert manifest["synthetic"] is False and "notice" not in manifest


def test_manifest_document_names_publisher_and_licence_before_the_codes() -> None:
    release = Release.parse("2024-12", publisher="Example Institute", license="CC-BY-4.0")
    manifest = manifest_document(release, {"AAA": "sha256:a"})
    assert list(manifest) == ["id", "published", "schema_version", "synthetic", "publisher", "license",
                              "countries", "checksums"]
    assert (manifest["publisher"], manifest["license"]) == ("Example Institute", "CC-BY-4.0")


def test_manifest_document_publisher_alone_states_no_licence_and_neither_writes_none() -> None:
    alone = manifest_document(Release.parse("2024-12", publisher="Example Institute"), {})
    assert alone["publisher"] == "Example Institute" and "license" in alone and alone["license"] is None
    licensed = manifest_document(Release.parse("2024-12", license="CC0-1.0"), {})
    assert "publisher" not in licensed and licensed["license"] == "CC0-1.0"
    neither = manifest_document(Release.parse("2024-12"), {})
    assert "publisher" not in neither and "license" not in neither


def test_build_snapshot_with_publisher_and_licence_loads_them(tmp_path: Path) -> None:
    release = Release.parse("2024-12", publisher="Example & Co", license="CC-BY-4.0")
    snapshot, problems = read_snapshot(build_snapshot(world(STANDARD), release, tmp_path).directory)
    assert problems == [] and snapshot is not None
    assert (snapshot.publisher, snapshot.license) == ("Example & Co", "CC-BY-4.0")


def test_encode_is_stable_indented_utf8() -> None:
    assert encode({"b": "Côte", "a": [1, None]}) == '{\n  "b": "Côte",\n  "a": [\n    1,\n    null\n  ]\n}\n'.encode()


def test_build_snapshot_loaders_accept_without_problems(tmp_path: Path) -> None:
    built = build_snapshot(world(STANDARD), RELEASE, tmp_path)
    assert built.directory == tmp_path / "2024-12"
    snapshot, problems = read_snapshot(built.directory)
    assert problems == [] and snapshot is not None
    assert list(snapshot.countries) == ["AAA", "BBB", "CCC", "DDD", "MMM"]
    assert snapshot.published == "2024-12-05"
    assert built.unreported == 1  # MMM's articles


def test_build_snapshot_checksums_are_of_the_exact_bytes(tmp_path: Path) -> None:
    directory = build_snapshot(world(STANDARD), RELEASE, tmp_path).directory
    manifest = json.loads((directory / "manifest.json").read_text())
    for code, checksum in manifest["checksums"].items():
        raw = (directory / "countries" / f"{code}.json").read_bytes()
        assert checksum == "sha256:" + hashlib.sha256(raw).hexdigest()


def test_build_snapshot_served_without_confidence_keys(tmp_path: Path) -> None:
    directory = build_snapshot(world(STANDARD), RELEASE, tmp_path).directory
    assert "Governance Confidence" in json.loads((directory / "countries" / "AAA.json").read_text())
    record = load_snapshot(directory).countries["AAA"].record
    assert not any(key.endswith("Confidence") for key in record)


def test_build_snapshot_is_deterministic(tmp_path: Path) -> None:
    first = build_snapshot(world(STANDARD), RELEASE, tmp_path / "one").directory
    second = build_snapshot(world(STANDARD), RELEASE, tmp_path / "two").directory
    files = sorted(p.relative_to(first) for p in first.rglob("*.json"))
    assert files == sorted(p.relative_to(second) for p in second.rglob("*.json"))
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)


def test_build_snapshot_existing_target_refused(tmp_path: Path) -> None:
    (tmp_path / "2024-12").mkdir()
    with pytest.raises(FileExistsError):
        build_snapshot(world(STANDARD), RELEASE, tmp_path)


def test_build_snapshot_invalid_output_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write = builder.write.write_snapshot

    def broken(snapshot: ScoredSnapshot, release: Release, directory: Path) -> None:
        write(snapshot, release, directory)
        (directory / "countries" / "AAA.json").write_text("{}")

    monkeypatch.setattr(builder.build, "write_snapshot", broken)
    with pytest.raises(BuildInvalid, match="countries/AAA.json: checksum"):
        build_snapshot(world(STANDARD), RELEASE, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_release_parse_defaults_to_first_of_month() -> None:
    assert Release.parse("2026-11") == Release("2026-11", "2026-11-01", None)
    assert (RELEASE.year, RELEASE.synthetic) == (2024, True)


@pytest.mark.parametrize(("publisher", "license_", "fragment"), [(" ", None, "publisher is empty"),
                                                               (None, "", "licence is empty")])
def test_release_parse_empty_publisher_or_licence_named(publisher: str | None, license_: str | None,
                                                        fragment: str) -> None:
    with pytest.raises(ReleaseError, match=fragment):
        Release.parse("2026-11", publisher=publisher, license=license_)


@pytest.mark.parametrize(
    ("snapshot_id", "published", "notice", "fragment"),
    [
        ("2026-13", None, None, "is not a month"),
        ("26-11", None, None, "is not a month"),
        ("2016-12", None, None, "before the data window"),
        ("2026-11", "2026-12-01", None, "is not in 2026-11"),
        ("2026-11", "2026-11-31", None, "is not a date"),
        ("2026-11", "20261105", None, "is not a date"),
        ("2026-11", None, "  ", "notice is empty"),
    ],
)
def test_release_parse_bad_values_named(
    snapshot_id: str, published: str | None, notice: str | None, fragment: str
) -> None:
    with pytest.raises(ReleaseError, match=fragment):
        Release.parse(snapshot_id, published, notice)
