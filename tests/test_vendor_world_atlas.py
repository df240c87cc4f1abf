"""scripts/vendor_world_atlas.py, which writes the map's geometry (docs/PAGES.md#the-map), and the
file it wrote: the pieces on tiny inputs whose answers are known, and the committed file's promises."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import re
import tarfile
from pathlib import Path
from typing import Any

import pytest

from readiness.pages.assets import STATIC_DIR
from scripts.vendor_world_atlas import (
    BY_NAME,
    INTEGRITY,
    VERSION,
    cut_at_antimeridian,
    decoded_arcs,
    equal_earth,
    path,
    ring,
    serialized,
    simplified,
    topology_of,
    vendored,
    verified,
)
from tests.conftest import SAMPLE

COMMITTED: dict[str, Any] = json.loads((STATIC_DIR / "world-110m.json").read_text(encoding="utf-8"))


def tarball(document: dict[str, Any]) -> bytes:
    """A package tarball holding ``document`` where world-atlas keeps countries-110m.json."""
    body = json.dumps(document).encode()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        info = tarfile.TarInfo("package/countries-110m.json")
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
    return out.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def test_verified_accepts_the_pinned_digest_and_refuses_any_other() -> None:
    data = b"a tarball"
    assert verified(data, integrity(data)) == data
    with pytest.raises(ValueError, match="not the pinned"):
        verified(data + b"!", integrity(data))
    with pytest.raises(ValueError, match="only sha512"):
        verified(data, "sha1-abc")


def test_arcs_are_delta_decoded_then_scaled_and_translated() -> None:
    topology = {"transform": {"scale": [0.5, 2.0], "translate": [-180, -90]}, "arcs": [[[4, 2], [2, -1], [-6, 0]]]}
    # positions 4,2 -> 6,1 -> 0,1, each x * 0.5 - 180 and y * 2 - 90
    assert decoded_arcs(topology) == [[(-178.0, -86.0), (-177.0, -88.0), (-180.0, -88.0)]]


def test_equal_earth_is_symmetric_and_matches_its_published_extent() -> None:
    assert equal_earth(0, 0) == (0.0, 0.0)
    x, y = equal_earth(30, 45)
    assert equal_earth(-30, -45) == pytest.approx((-x, -y))
    # The equator's half-width and the pole's height on the unit sphere (Šavrič et al. 2018).
    assert equal_earth(180, 0)[0] == pytest.approx(2 * math.sqrt(3) * math.pi / (3 * 1.340264))
    assert equal_earth(0, 90)[1] == pytest.approx(1.3173627, abs=1e-6)


def test_simplified_keeps_the_ends_and_the_corners_beyond_the_tolerance() -> None:
    line = [(0.0, 0.0), (1.0, 0.05), (2.0, 0.0), (3.0, 2.0), (4.0, 0.0)]
    assert simplified(line, 0.1) == [0, 2, 3, 4]  # (1, 0.05) is within 0.1 of the chord
    assert simplified(line, 5) == [0, 4]


def test_ring_joins_arcs_and_reverses_negative_indexes() -> None:
    arcs = [[(0.0, 0.0), (1.0, 0.0)], [(1.0, 1.0), (1.0, 0.0)], [(1.0, 1.0), (0.0, 0.0)]]
    assert ring(arcs, [0, ~1, 2]) == [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]


def test_a_ring_across_the_antimeridian_is_cut_into_a_piece_on_each_side() -> None:
    square = [(179.0, 0.0), (-179.0, 0.0), (-179.0, 2.0), (179.0, 2.0), (179.0, 0.0)]
    pieces = cut_at_antimeridian(square)
    assert len(pieces) == 2
    east, west = ({lon for lon, _ in piece} for piece in pieces)
    assert east == {179.0, 180.0} and west == {-180.0, -179.0}
    inland = [(10.0, 0.0), (11.0, 0.0), (11.0, 1.0), (10.0, 0.0)]
    assert cut_at_antimeridian(inland) == [inland]


def test_path_is_relative_in_tenths_and_skips_degenerate_rings() -> None:
    assert path([[(10, 20), (25, 20), (25, 0), (10, 20)]]) == "M1,2l1.5,0 0-2z"
    assert path([[(0, 0), (5, 5)]]) == ""
    assert path([[(0, 0), (-3, 0), (-3, -12)]]) == "M0,0l-.3,0 0-1.2z"


def test_vendored_maps_ids_and_names_and_leaves_antarctica_out() -> None:
    square = [[0, 0], [10, 0], [0, 10], [-10, 0], [0, -10]]
    topology = {
        "type": "Topology",
        "transform": {"scale": [1, 1], "translate": [0, 0]},
        "arcs": [square, [[20, 20], *square[1:]], [[40, 0], *square[1:]], [[0, -80], *square[1:]]],
        "objects": {"countries": {"type": "GeometryCollection", "geometries": [
            {"type": "Polygon", "arcs": [[0]], "id": "404", "properties": {"name": "Kenya"}},
            {"type": "Polygon", "arcs": [[1]], "properties": {"name": "Kosovo"}},
            {"type": "MultiPolygon", "arcs": [[[2]]], "properties": {"name": "Somaliland"}},
            {"type": "Polygon", "arcs": [[3]], "id": "010", "properties": {"name": "Antarctica"}},
        ]}},
    }
    document = vendored(topology_of(tarball(topology)), {"404": "KEN", "010": "ATA"})
    assert [feature["code"] for feature in document["features"]] == ["KEN", "SOM", "XKX"]
    with pytest.raises(ValueError, match="no ISO 3166-1 alpha-3 code for feature '999'"):
        vendored({**topology, "objects": {"countries": {"geometries": [
            {"type": "Polygon", "arcs": [[0]], "id": "999", "properties": {"name": "Atlantis"}}]}}}, {})


def test_the_committed_geometry_is_the_pinned_package_with_its_credit() -> None:
    assert COMMITTED["version"] == VERSION and COMMITTED["integrity"] == INTEGRITY
    for words in ("Natural Earth", "public domain", "ISC"):
        assert words in COMMITTED["license"]
    assert COMMITTED["viewBox"].startswith("0 0 960 ")
    codes = [feature["code"] for feature in COMMITTED["features"]]
    assert codes == sorted(set(codes)) and all(re.fullmatch(r"[A-Z]{3}", code) for code in codes)
    assert all(re.fullmatch(r"(M[-\d.,]+l[-\d., ]+z)+", feature["d"]) for feature in COMMITTED["features"])
    assert set(BY_NAME.values()) <= set(codes)
    # One line a feature, as serialized() writes it: the file is what the script would write.
    text = (STATIC_DIR / "world-110m.json").read_bytes()
    assert serialized(COMMITTED) == text  # type: ignore[arg-type]


def test_most_economies_of_the_data_have_a_shape() -> None:
    data = {path.stem for path in (SAMPLE / "snapshots" / "2026-11" / "countries").glob("*.json")}
    drawn = {feature["code"] for feature in COMMITTED["features"]}
    assert len(data & drawn) >= 170
    assert {"KEN", "BRA", "IND", "XKX", "PSE", "SSD", "RUS", "FJI"} <= drawn
    assert drawn - data <= {"ATF", "ESH", "FLK", "TWN"}  # shapes with no economy: drawn as no data


def test_the_script_runs_without_the_network_on_a_given_tarball(tmp_path: Path) -> None:
    # --check on the committed file, with a tarball that is not the pinned one: refused before anything.
    from scripts.vendor_world_atlas import main

    fake = tmp_path / "world-atlas-2.0.2.tgz"
    fake.write_bytes(tarball({"type": "Topology"}))
    with pytest.raises(ValueError, match="not the pinned"):
        main(["--tarball", str(fake), "--check"])
