#!/usr/bin/env python3
"""Vendor the map's geometry: world-atlas 2.0.2's ``countries-110m.json`` (Natural Earth 1:110m)
as ready-to-draw SVG paths in ``readiness/pages/static/world-110m.json`` (docs/PAGES.md#the-map).

A developer runs this once per new pin; the file it writes is committed, so neither the service
nor CI needs Node, npm or the network:

    python3 scripts/vendor_world_atlas.py                      # npm pack world-atlas@2.0.2, then vendor
    python3 scripts/vendor_world_atlas.py --tarball FILE.tgz   # a tarball fetched some other way
    python3 scripts/vendor_world_atlas.py --check              # fails when the committed file differs

Steps: the package's tarball (``npm pack``, npm's own client, by package name) is checked against
the sha512 ``integrity`` the registry's metadata gives for 2.0.2, pinned below, so another file
is refused; the TopoJSON's quantized, delta-encoded arcs are decoded, projected with the Equal
Earth projection (Šavrič, Patterson and Jenny 2018), simplified (Douglas-Peucker, tolerance
``TOLERANCE`` in viewBox units, on the shared arcs so that neighbours keep one border) and
rounded to 0.1 unit; each feature's ISO 3166-1 numeric id is mapped to its alpha-3 code (the
data's ``Country Code``) with Debian's iso-codes table (``apt-get install iso-codes``); the
features without an id are mapped by name (``BY_NAME``). Antarctica, no economy, is left out.
Output is deterministic: the same tarball gives the same bytes.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import math
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "readiness" / "pages" / "static" / "world-110m.json"
ISO_CODES = Path("/usr/share/iso-codes/json/iso_3166-1.json")

PACKAGE = "world-atlas"
VERSION = "2.0.2"
INTEGRITY = "sha512-IXfV0qwlKXpckz1FhwXVwKRjiIhOnWttOskm5CtxMsjgE/MXAYRHWJqgXOpM8IkcPBoXnyTU5lFHcYa5ChG0LQ=="
"""The ``dist.integrity`` of world-atlas 2.0.2 in the npm registry's metadata (Subresource
Integrity form: the tarball's SHA-512, base64)."""
MEMBER = "package/countries-110m.json"

SOURCE = (f"Natural Earth 1:110m Cultural Vectors (Admin 0 countries, version 4.1.0), as TopoJSON in the npm "
          f"package {PACKAGE} {VERSION} ({MEMBER.removeprefix('package/')}), Equal Earth projection")
LICENSE = "Natural Earth: public domain. world-atlas: ISC licence, Copyright 2013-2019 Michael Bostock."
ATTRIBUTION = f"Natural Earth 1:110m (public domain), via {PACKAGE} {VERSION} (ISC licence); Equal Earth projection"
"""The credit the map shows under it and in a downloaded file."""

WIDTH = 960.0
"""The viewBox's width; its height follows from the projected extent."""
PAD = 4.0
TOLERANCE = 0.35
"""Douglas-Peucker tolerance in viewBox units (about a third of a pixel at 960 px wide)."""

BY_NAME: Mapping[str, str] = {"Kosovo": "XKX", "N. Cyprus": "CYP", "Somaliland": "SOM"}
"""Features world-atlas gives no ISO id, by name: Kosovo is the World Bank's XKX; Northern
Cyprus and Somaliland are drawn as part of Cyprus and Somalia, the economies the World Bank's
data (and so ours) counts them in (docs/DECISIONS.md#the-pages)."""
LEFT_OUT = frozenset({"010"})
"""Antarctica (ISO 010): no economy, and a third of the map's height."""

Point = tuple[float, float]


class Geometry(TypedDict):
    """The vendored file: where the shapes come from and one feature per economy code."""

    source: str
    license: str
    attribution: str
    package: str
    version: str
    integrity: str
    viewBox: str
    features: list[dict[str, str]]


def verified(tarball: bytes, integrity: str = INTEGRITY) -> bytes:
    """``tarball`` if its SHA-512 is the pinned ``integrity``; ValueError naming both otherwise."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise ValueError(f"integrity {integrity!r}: only sha512 is supported")
    actual = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if actual != expected:
        raise ValueError(f"the tarball's integrity is sha512-{actual}, not the pinned {integrity}")
    return tarball


def topology_of(tarball: bytes) -> dict[str, object]:
    """The TopoJSON document ``MEMBER`` of the package's tarball."""
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        member = archive.extractfile(MEMBER)
        if member is None:
            raise ValueError(f"{MEMBER} is not a file in the tarball")
        document: dict[str, object] = json.load(member)
        return document


def decoded_arcs(topology: Mapping[str, object]) -> list[list[Point]]:
    """Every arc as longitude, latitude pairs: quantized positions are deltas from the previous
    one (TopoJSON specification, 2.1.4), scaled and translated by the topology's transform."""
    transform, encoded = topology.get("transform"), topology.get("arcs")
    if not isinstance(transform, dict) or not isinstance(encoded, list):
        raise ValueError("not a quantized TopoJSON topology: no transform or no arcs")
    (kx, ky), (dx, dy) = transform["scale"], transform["translate"]
    arcs: list[list[Point]] = []
    for arc in encoded:
        x = y = 0
        points: list[Point] = []
        for delta in arc:
            x, y = x + delta[0], y + delta[1]
            points.append((x * kx + dx, y * ky + dy))
        arcs.append(points)
    return arcs


_A1, _A2, _A3, _A4 = 1.340264, -0.081106, 0.000893, 0.003796
_M = math.sqrt(3) / 2


def equal_earth(longitude: float, latitude: float) -> Point:
    """The Equal Earth projection of a point in degrees, on the unit sphere, y up (Šavrič,
    Patterson and Jenny, 2018, equations 2)."""
    lam, phi = math.radians(longitude), math.radians(latitude)
    theta = math.asin(_M * math.sin(phi))
    t2 = theta * theta
    t6 = t2 * t2 * t2
    x = lam * math.cos(theta) / (_M * (_A1 + 3 * _A2 * t2 + t6 * (7 * _A3 + 9 * _A4 * t2)))
    y = theta * (_A1 + _A2 * t2 + t6 * (_A3 + _A4 * t2))
    return x, y


def simplified(points: Sequence[Point], tolerance: float) -> list[int]:
    """Douglas-Peucker: the indexes of the points of ``points`` needed to stay within
    ``tolerance`` of it; the ends are always kept (they join neighbouring arcs)."""
    if len(points) < 3:
        return list(range(len(points)))
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        (ax, ay), (bx, by) = points[first], points[last]
        length = math.hypot(bx - ax, by - ay)
        farthest, distance = 0, 0.0
        for index in range(first + 1, last):
            px, py = points[index]
            if length == 0:
                d = math.hypot(px - ax, py - ay)
            else:
                d = abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / length
            if d > distance:
                farthest, distance = index, d
        if distance > tolerance:
            keep[farthest] = True
            stack += [(first, farthest), (farthest, last)]
    return [index for index, kept in enumerate(keep) if kept]


def simplified_arc(arc: Sequence[Point], place: Callable[[Point], Point], tolerance: float) -> list[Point]:
    """The longitude, latitude points of ``arc`` that Douglas-Peucker keeps in the map's units,
    both points of a step across the antimeridian kept (the rings are cut there later)."""
    runs: list[list[int]] = [[0]]
    for index in range(1, len(arc)):
        if abs(arc[index][0] - arc[index - 1][0]) > 180:
            runs.append([])
        runs[-1].append(index)
    kept: list[Point] = []
    for run in runs:
        placed = [place(arc[index]) for index in run]
        kept += [arc[run[index]] for index in simplified(placed, tolerance)]
    return kept


def ring(arcs: Sequence[Sequence[Point]], indexes: Sequence[int]) -> list[Point]:
    """A ring from its arcs (a negative index ``~i`` is arc ``i`` reversed), each arc's first
    point dropped after the first arc (it is the previous arc's last)."""
    points: list[Point] = []
    for index in indexes:
        arc = list(arcs[index]) if index >= 0 else list(reversed(arcs[~index]))
        points += arc[1:] if points else arc
    return points


def cut_at_antimeridian(points: Sequence[Point]) -> list[list[Point]]:
    """A ring that crosses the antimeridian (Fiji, Chukotka) as its pieces on either side; any
    other ring as it is. Longitudes are unwrapped along the ring, then each side is clipped
    (Sutherland-Hodgman against the meridian 180 or -180) and brought back into range."""
    unwrapped = [points[0]]
    for lon, lat in points[1:]:
        previous = unwrapped[-1][0]
        unwrapped.append((lon + 360 * round((previous - lon) / 360), lat))
    lons = [lon for lon, _ in unwrapped]
    if max(lons) <= 180 and min(lons) >= -180:
        return [list(points)]
    limit = 180.0 if max(lons) > 180 else -180.0
    inside = _clipped(unwrapped, limit, keep_below=limit > 0)
    outside = _clipped(unwrapped, limit, keep_below=limit < 0)
    shift = -360.0 if limit > 0 else 360.0
    return [piece for piece in (inside, [(lon + shift, lat) for lon, lat in outside]) if len(piece) >= 3]


def _clipped(points: Sequence[Point], limit: float, keep_below: bool) -> list[Point]:
    def inside(point: Point) -> bool:
        return point[0] <= limit if keep_below else point[0] >= limit

    result: list[Point] = []
    for index, current in enumerate(points):
        previous = points[index - 1]
        if inside(current) != inside(previous):
            t = (limit - previous[0]) / (current[0] - previous[0])
            result.append((limit, previous[1] + t * (current[1] - previous[1])))
        if inside(current):
            result.append(current)
    return result


def rounded(points: Sequence[Point]) -> list[tuple[int, int]]:
    """Points in tenths of a unit, repeats removed."""
    result: list[tuple[int, int]] = []
    for x, y in points:
        point = (round(x * 10), round(y * 10))
        if not result or result[-1] != point:
            result.append(point)
    return result


def path(rings: Sequence[Sequence[tuple[int, int]]]) -> str:
    """SVG path data for rings in tenths of a unit: an absolute move, then relative lines (exact:
    the differences of rounded positions), each ring closed; rings of under 3 points skipped."""
    parts: list[str] = []
    for points in rings:
        distinct = points[:-1] if len(points) > 1 and points[0] == points[-1] else points
        if len(distinct) < 3:
            continue
        (x, y), text = distinct[0], [f"M{_tenths(distinct[0][0])},{_tenths(distinct[0][1])}l"]
        for px, py in distinct[1:]:
            dx, dy = px - x, py - y
            text.append(_tenths(dx) + ("," if dy >= 0 else "") + _tenths(dy) + " ")
            x, y = px, py
        parts.append("".join(text).rstrip() + "z")
    return "".join(parts)


def _tenths(value: int) -> str:
    whole, tenth = divmod(abs(value), 10)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}" if tenth == 0 else f"{sign}{whole}.{tenth}" if whole else f"{sign}.{tenth}"


def alpha3_by_numeric(table: Path = ISO_CODES) -> dict[str, str]:
    """ISO 3166-1 numeric code (``"404"``) to alpha-3 (``"KEN"``), from Debian's iso-codes."""
    entries = json.loads(table.read_text(encoding="utf-8"))["3166-1"]
    return {entry["numeric"]: entry["alpha_3"] for entry in entries}


def geometries(topology: Mapping[str, object]) -> Iterator[tuple[str | None, str, list[list[int]]]]:
    """Each country geometry's id, name and polygons (each a list of rings of arc indexes)."""
    objects = topology.get("objects")
    if not isinstance(objects, dict) or "countries" not in objects:
        raise ValueError("the topology has no countries object")
    for geometry in objects["countries"]["geometries"]:
        kind = geometry.get("type")
        polygons = [geometry["arcs"]] if kind == "Polygon" else geometry["arcs"] if kind == "MultiPolygon" else []
        yield geometry.get("id"), geometry["properties"]["name"], [r for polygon in polygons for r in polygon]


def vendored(topology: Mapping[str, object], codes: Mapping[str, str]) -> Geometry:
    """The document the map reads: source, licence, the viewBox and one feature per code
    (``code``, ``name``, ``d``), sorted by code."""
    kept = [(geo_id, name, rings) for geo_id, name, rings in geometries(topology) if geo_id not in LEFT_OUT]
    used = {index if index >= 0 else ~index for _, _, rings in kept for r in rings for index in r}
    latlon = {index: arc for index, arc in enumerate(decoded_arcs(topology)) if index in used}
    projected = {index: [equal_earth(*point) for point in arc] for index, arc in latlon.items()}
    xs = [x for arc in projected.values() for x, _ in arc]
    ys = [y for arc in projected.values() for _, y in arc]
    scale = (WIDTH - 2 * PAD) / (max(xs) - min(xs))
    left, top = min(xs), max(ys)
    height = round((max(ys) - min(ys)) * scale + 2 * PAD)

    def place(point: Point) -> Point:
        return (point[0] - left) * scale + PAD, (top - point[1]) * scale + PAD

    arcs = {index: simplified_arc(arc, lambda p: place(equal_earth(*p)), TOLERANCE) for index, arc in latlon.items()}
    table: list[Sequence[Point]] = [arcs.get(index, []) for index in range(max(arcs) + 1)]
    features: dict[str, dict[str, str]] = {}
    for geo_id, name, rings in kept:
        code = codes.get(geo_id) if geo_id is not None else BY_NAME.get(name)
        if code is None:
            raise ValueError(f"no ISO 3166-1 alpha-3 code for feature {geo_id!r} ({name})")
        pieces = [piece for indexes in rings for piece in cut_at_antimeridian(ring(table, indexes))]
        d = path([rounded([place(equal_earth(*point)) for point in piece]) for piece in pieces])
        if code in features:  # a part drawn with its economy (BY_NAME)
            features[code]["d"] += d
        else:
            features[code] = {"code": code, "name": name, "d": d}
    return {
        "source": SOURCE,
        "license": LICENSE,
        "attribution": ATTRIBUTION,
        "package": PACKAGE,
        "version": VERSION,
        "integrity": INTEGRITY,
        "viewBox": f"0 0 {WIDTH:g} {height}",
        "features": [features[code] for code in sorted(features)],
    }


def serialized(document: Geometry) -> bytes:
    """The committed file's bytes: one feature a line, so a diff shows which ones changed."""
    head = {key: value for key, value in document.items() if key != "features"}
    lines = ",\n".join(json.dumps(feature, ensure_ascii=False) for feature in document["features"])
    return (json.dumps(head, ensure_ascii=False)[:-1] + ',\n"features": [\n' + lines + "\n]}\n").encode()


def packed() -> bytes:
    """The pinned version's tarball, fetched by npm's own client (``npm pack``)."""
    with tempfile.TemporaryDirectory() as directory:
        subprocess.run(["npm", "pack", "--silent", f"{PACKAGE}@{VERSION}"], cwd=directory, check=True,
                       stdout=subprocess.DEVNULL)
        return (Path(directory) / f"{PACKAGE}-{VERSION}.tgz").read_bytes()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tarball", type=Path, help=f"{PACKAGE}-{VERSION}.tgz, instead of npm pack")
    parser.add_argument("--iso-codes", type=Path, default=ISO_CODES, help="iso-codes' iso_3166-1.json")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--check", action="store_true", help="fail if the output file differs, write nothing")
    options = parser.parse_args(argv)
    tarball = verified(options.tarball.read_bytes() if options.tarball else packed())
    body = serialized(vendored(topology_of(tarball), alpha3_by_numeric(options.iso_codes)))
    if options.check:
        same = options.output.exists() and options.output.read_bytes() == body
        print(f"{options.output}: {'up to date' if same else 'differs from the vendored geometry'}")
        return 0 if same else 1
    options.output.write_bytes(body)
    print(f"{options.output}: {len(body)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
