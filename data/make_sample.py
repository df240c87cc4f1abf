"""Generate the bundled SYNTHETIC sample data set under ``data/sample/`` (DESIGN §2).

Every value here is hand-made for development and tests; none of it is the published index.
The hand-chosen inputs are the tables at the top; everything else (archive drift, composites,
ranks, normalized values, percentiles, checksums) is computed. The output is deterministic:
running the script twice gives byte-identical files.

    .venv/bin/python data/make_sample.py

This is a stand-in until the real monthly builder exists.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loaders.contract import COMPOSITE, COUNTRY_FIELDS, DETAILS, DIMENSIONS  # noqa: E402

OUT = ROOT / "data" / "sample"

# --------------------------------------------------------------------------------------------
# Hand-chosen inputs
# --------------------------------------------------------------------------------------------

CURRENT = "2026-11"
SNAPSHOTS: tuple[str, ...] = ("2026-11", "2025-12", "2024-12", "2023-06")
"""Current first; 2023-06 is a non-December archive in a year without a December one."""

NOTICE = (
    "SYNTHETIC SAMPLE DATA: hand-made values for development and tests; not the published index."
)
WDI = "World Bank WDI (synthetic sample value)"
MICROSTATE_POPULATION = 300_000

LAC, EAP, ECA = "Latin America & Caribbean", "East Asia & Pacific", "Europe & Central Asia"
MENA, NAM = "Middle East & North Africa", "North America"
SAS, SSA = "South Asia", "Sub-Saharan Africa"
HIGH, UMI, LMI = "High income", "Upper middle income", "Lower middle income"

# fmt: off
ECONOMIES: tuple[tuple[str, str, str, str, int, str | None], ...] = (
    # code   Country Name        Region  Income  Population     FCV Type
    ("ARG", "Argentina",         LAC,    UMI,       46_654_581, None),
    ("BRA", "Brazil",            LAC,    UMI,      216_422_446, None),
    ("CAN", "Canada",            NAM,    HIGH,      40_097_761, None),
    ("DEU", "Germany",           ECA,    HIGH,      84_482_267, None),
    ("EGY", "Egypt, Arab Rep.",  MENA,   LMI,      112_716_598, None),
    ("IDN", "Indonesia",         EAP,    UMI,      277_534_122, None),
    ("IND", "India",             SAS,    LMI,    1_428_627_663, None),
    ("JPN", "Japan",             EAP,    HIGH,     124_516_650, None),
    ("KEN", "Kenya",             SSA,    LMI,       55_100_586, None),
    ("MAR", "Morocco",           MENA,   LMI,       37_840_044, None),
    ("MEX", "Mexico",            LAC,    UMI,      128_455_567, None),
    ("NGA", "Nigeria",           SSA,    LMI,      223_804_632, "Conflict"),
    ("TUV", "Tuvalu",            EAP,    UMI,           11_396, None),
    ("USA", "United States",     NAM,    HIGH,     334_914_895, None),
)
"""One row per economy; FCV Status is true exactly when FCV Type is set."""

SCORES: dict[str, tuple[float, float, float, float, float, str]] = {
    # code   Infra  Human  Access Innov  Gov    Confidence per dimension (High/Moderate/Low)
    "ARG": (71.30, 74.85, 86.60, 48.25, 52.10, "HHHMM"),
    "BRA": (70.45, 66.30, 84.75, 52.90, 50.35, "HHHMM"),
    "CAN": (86.75, 86.90, 92.10, 79.45, 85.20, "HHHHH"),
    "DEU": (89.10, 83.35, 91.40, 85.70, 83.95, "HHHHH"),
    "EGY": (64.70, 58.25, 76.40, 44.10, 38.65, "HMMLM"),
    "IDN": (62.15, 60.90, 80.35, 39.80, 55.25, "HMHMM"),
    "IND": (57.60, 56.75, 72.30, 47.35, 53.40, "HMMMH"),
    "JPN": (90.55, 87.20, 93.05, 88.15, 82.40, "HHHHH"),
    "KEN": (45.20, 52.40, 70.15, 38.75, 44.30, "MMMLM"),
    "MAR": (63.95, 55.10, 74.85, 36.20, 49.80, "HMMLM"),
    "MEX": (67.80, 63.45, 83.10, 41.60, 45.70, "HHHMM"),
    "NGA": (38.90, 41.65, 58.20, 31.40, 29.85, "MLMLL"),
    "TUV": (58.40, 55.60, 78.90, 22.35, 61.75, "LLMLM"),
    "USA": (88.40, 84.10, 90.25, 91.30, 78.60, "HHHHH"),
}
"""Dimension scores of the current snapshot, in DIMENSIONS order; archives drift from these."""

INDICATORS: tuple[tuple[str, str, str, int, float, float | None], ...] = (
    # code               indicator_name                                     component    lag drift ceiling
    ("EG.ELC.ACCS.ZS",    "Access to electricity (% of population)",          "Infrastructure", 2, 1.20, 100.0),
    ("IT.NET.USER.ZS",    "Individuals using the Internet (% of population)", "Infrastructure", 1, 2.50, 100.0),
    ("SE.TER.ENRR",       "School enrollment, tertiary (% gross)",            "Human Capital",  2, 1.00, None),
    ("GB.XPD.RSDV.GD.ZS", "Research and development expenditure (% of GDP)",  "Innovation",     3, 0.04, None),
    ("GE.EST",            "Government Effectiveness: Estimate",               "Governance",     1, 0.05, None),
)
"""Data year = snapshot year - lag (2019 at the earliest); older values are lower by ~drift/yr."""

REPORTED: dict[str, tuple[float | None, ...]] = {
    # code   EG.ELC  IT.NET  SE.TER  RSDV   GE.EST   (None: imputed, see IMPUTED)
    "ARG": (100.00, 89.20, 99.10, 0.52, -0.29),
    "BRA": (100.00, 84.00, 57.20, 1.15, -0.40),
    "CAN": (100.00, 94.00, 76.20, 1.70,  1.48),
    "DEU": (100.00, 92.80, 74.50, 3.11,  1.30),
    "EGY": (100.00, 72.70, 38.80, 1.02, -0.45),
    "IDN": ( 99.30, 69.20, 39.50, 0.28,  0.59),
    "IND": ( 99.60, 46.30, 32.70, 0.65,  0.28),
    "JPN": (100.00, 87.00, 64.10, 3.41,  1.40),
    "KEN": ( 76.50, 35.00, 11.90, 0.69, -0.37),
    "MAR": ( 99.80, 90.70, 45.50, 0.75, -0.07),
    "MEX": ( 99.60, 81.20, 45.90, 0.27, -0.26),
    "NGA": ( 61.20, 39.20, 12.70, None, -1.05),
    "TUV": (100.00, 72.00,  None, 0.05,  0.12),
    "USA": (100.00, 92.50, 79.40, 3.46,  1.27),
}
"""Reported indicator values of the current snapshot, in INDICATORS order."""
# fmt: on

IMPUTED: frozenset[tuple[str, str]] = frozenset(
    {("NGA", "GB.XPD.RSDV.GD.ZS"), ("TUV", "SE.TER.ENRR")}
)
"""(economy, indicator) pairs imputed with the region median in every snapshot."""

MISSING: frozenset[tuple[str, str, str]] = frozenset({("2024-12", "ARG", "GB.XPD.RSDV.GD.ZS")})
"""(snapshot, economy, indicator) with no value at all: that dimension score is null there."""

MISSING_SCORE: dict[str, str] = {"GB.XPD.RSDV.GD.ZS": "Innovation"}
"""Which dimension score a MISSING indicator leaves uncomputable."""

CONFIDENCE = {"H": "High", "M": "Moderate", "L": "Low"}
REGION = {code: region for code, _, region, *_ in ECONOMIES}

# --------------------------------------------------------------------------------------------
# Derived values
# --------------------------------------------------------------------------------------------

Json = dict[str, Any]


@dataclass(frozen=True)
class Economy:
    """One row of ECONOMIES."""

    code: str
    name: str
    region: str
    income: str
    population: int
    fcv_type: str | None

    @property
    def microstate(self) -> bool:
        """Scored but never ranked (DESIGN §3, ranks and microstates)."""
        return self.population < MICROSTATE_POPULATION


def age_in_years(snapshot: str) -> float:
    """How long before the current snapshot ``snapshot`` was published, in years."""
    year, month = map(int, snapshot.split("-"))
    current_year, current_month = map(int, CURRENT.split("-"))
    return ((current_year - year) * 12 + current_month - month) / 12


def drift(key: str) -> float:
    """A fixed per-series speed factor in [0.5, 1.5], seeded by the series name (deterministic)."""
    return random.Random(key).uniform(0.5, 1.5)


def dimension_scores(snapshot: str, economy: Economy) -> dict[str, float | None]:
    """The five dimension scores in ``snapshot``: the current ones lowered by 0.3-0.9 a year."""
    age = age_in_years(snapshot)
    scores: dict[str, float | None] = {}
    for dimension, base in zip(DIMENSIONS, SCORES[economy.code][:5]):
        scores[dimension] = round(base - age * 0.6 * drift(f"{economy.code}/{dimension}"), 2)
    for snap, code, indicator in MISSING:
        if (snap, code) == (snapshot, economy.code):
            scores[MISSING_SCORE[indicator]] = None
    return scores


def reported_value(snapshot: str, code: str, index: int) -> float | None:
    """An indicator's reported value in ``snapshot``; economies at the ceiling stay there."""
    indicator, _, _, _, per_year, ceiling = INDICATORS[index]
    base = REPORTED[code][index]
    if base is None or (snapshot, code, indicator) in MISSING:
        return None
    if base == ceiling:
        return base
    return round(base - age_in_years(snapshot) * per_year * drift(f"{code}/{indicator}"), 2)


def present(values: dict[str, float | None]) -> dict[str, float]:
    """The entries of ``values`` that are not None."""
    return {key: value for key, value in values.items() if value is not None}


def ranks(values: dict[str, float | None]) -> dict[str, int]:
    """Competition ranks (1 = highest) of the non-null values."""
    known = present(values)
    return {code: 1 + sum(other > v for other in known.values()) for code, v in known.items()}


def scale(value: float, low: float, high: float) -> float:
    """Min-max normalize to 0-100, two decimals, clamped (a microstate may lie outside)."""
    return round(min(100.0, max(0.0, 100 * (value - low) / (high - low))), 2)


def ordinal(n: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 21 -> "21st"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def percentile(value: float, peers: list[float]) -> str:
    """Share of ``peers`` at or below ``value``, times 100, rounded, at least 1, as an ordinal."""
    return ordinal(max(1, round(100 * sum(peer <= value for peer in peers) / len(peers))))


def indicator_details(snapshot: str, economies: list[Economy]) -> dict[str, list[Json]]:
    """indicator_details for every economy of ``snapshot``.

    Normalization is min-max over the reported values of ranked (non-microstate) economies;
    percentiles compare an economy with the ranked economies of the world (or its region)
    that have a value for that indicator, imputed values included.
    """
    year = int(snapshot[:4])
    details: dict[str, list[Json]] = {economy.code: [] for economy in economies}
    for index, (indicator, name, component, lag, _, _) in enumerate(INDICATORS):
        reported = {e.code: reported_value(snapshot, e.code, index) for e in economies}
        ranked = [e for e in economies if not e.microstate]
        pool = present({e.code: reported[e.code] for e in ranked})
        low, high = min(pool.values()), max(pool.values())
        value: dict[str, float | None] = {}
        for e in economies:
            if (e.code, indicator) in IMPUTED:
                same_region = [v for code, v in pool.items() if REGION[code] == e.region]
                value[e.code] = round(statistics.median(same_region), 2)
            else:
                value[e.code] = reported[e.code]
        normalized = {code: None if v is None else scale(v, low, high) for code, v in value.items()}
        peers = present({e.code: normalized[e.code] for e in ranked})
        for e in economies:
            own = normalized[e.code]
            regional = [v for code, v in peers.items() if REGION[code] == e.region]
            element: Json = {
                "indicator_code": indicator,
                "indicator_name": name,
                "component": component,
                "year": max(2019, year - lag),
                "reported_value": reported[e.code],
                "data_source": WDI,
                "normalized_value": own,
                "global_percentile": None,
                "regional_percentile": None,
                "notes": "",
            }
            if own is not None and not e.microstate:
                element["global_percentile"] = percentile(own, list(peers.values()))
                element["regional_percentile"] = percentile(own, regional)
            if (e.code, indicator) in IMPUTED:
                element |= {
                    "year": None,
                    "data_source": "Imputed: region median",
                    "notes": f"No reported value since 2019; imputed with the {e.region} median "
                    f"({value[e.code]:.2f}) of ranked economies.",
                }
            elif reported[e.code] is None:
                element |= {
                    "year": None,
                    "data_source": "Not available",
                    "notes": f"No reported value for 2019-{year} and not imputed; "
                    f"{MISSING_SCORE[indicator]} Score not computed in this snapshot.",
                }
            details[e.code].append(element)
    return details


def country_files(snapshot: str) -> dict[str, Json]:
    """Every country document of ``snapshot``, keys in serving order (confidence after score)."""
    economies = [Economy(*row) for row in ECONOMIES]
    scores = {e.code: dimension_scores(snapshot, e) for e in economies}
    composite: dict[str, float | None] = {}
    for code, by_dimension in scores.items():
        known = present(by_dimension)
        complete = len(known) == len(DIMENSIONS)
        composite[code] = round(statistics.fmean(known.values()), 2) if complete else None
    ranked = {e.code: composite[e.code] for e in economies if not e.microstate}
    global_rank = ranks(ranked)
    regional_rank: dict[str, int] = {}
    for region in sorted({e.region for e in economies}):
        regional_rank |= ranks({code: v for code, v in ranked.items() if REGION[code] == region})
    details = indicator_details(snapshot, economies)
    documents: dict[str, Json] = {}
    for e in economies:
        confidence = SCORES[e.code][5]
        values: Json = {
            "Country Name": e.name,
            "Country Code": e.code,
            "Region": e.region,
            "Income Level": e.income,
            "Population, total": e.population,
            COMPOSITE: composite[e.code],
            **{f"{d} Score": scores[e.code][d] for d in DIMENSIONS},
            **{
                f"{d} Confidence": "Low" if scores[e.code][d] is None else CONFIDENCE[c]
                for d, c in zip(DIMENSIONS, confidence)
            },
            "FCV Status": e.fcv_type is not None,
            "FCV Type": e.fcv_type,
            "Global Rank": global_rank.get(e.code),
            "Regional Rank": regional_rank.get(e.code),
            "Microstate": e.microstate,
            "Last Updated": f"{snapshot}-03",
        }
        document: Json = {}
        for field in COUNTRY_FIELDS:
            document[field.name] = values[field.name]
            if field.name.endswith(" Score") and field.name != COMPOSITE:
                confidence_key = field.name.removesuffix(" Score") + " Confidence"
                document[confidence_key] = values[confidence_key]
        document[DETAILS] = details[e.code]
        documents[e.code] = document
    return documents


def dump(document: Json) -> bytes:
    """Stable JSON bytes: indent 2, UTF-8, trailing newline."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_snapshot(snapshot: str) -> None:
    """Write ``snapshots/<snapshot>/`` with its country files and manifest."""
    directory = OUT / "snapshots" / snapshot
    (directory / "countries").mkdir(parents=True)
    checksums: dict[str, str] = {}
    for code, document in sorted(country_files(snapshot).items()):
        raw = dump(document)
        (directory / "countries" / f"{code}.json").write_bytes(raw)
        checksums[code] = "sha256:" + hashlib.sha256(raw).hexdigest()
    manifest: Json = {
        "id": snapshot,
        "published": f"{snapshot}-05",
        "schema_version": 1,
        "synthetic": True,
        "notice": NOTICE,
        "countries": sorted(checksums),
        "checksums": checksums,
    }
    (directory / "manifest.json").write_bytes(dump(manifest))


def main() -> None:
    """Rebuild ``data/sample/snapshots`` from scratch and point CURRENT at the current one."""
    shutil.rmtree(OUT / "snapshots", ignore_errors=True)
    for snapshot in SNAPSHOTS:
        write_snapshot(snapshot)
    (OUT / "CURRENT").write_text(f"{CURRENT}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
