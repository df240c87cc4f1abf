"""Response examples of the OpenAPI document: real answers of the bundled (synthetic) sample.

The requests are listed here; their answers are recorded in ``openapi_examples.json`` next to
this module by ``python -m tests.openapi_examples``, which runs them against the real app over
the sample. ``tests/test_openapi.py`` runs them again and fails when a recorded answer differs
from today's, so an example can never drift from what the service answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import orjson

from loaders import JsonValue

EXAMPLES_FILE = Path(__file__).with_name("openapi_examples.json")


@dataclass(frozen=True, slots=True)
class Example:
    """One request whose real answer the document shows under ``path``'s ``status`` response."""

    name: str
    summary: str
    path: str
    target: str
    status: int = 200


_READINESS = "/api/v1/readiness"

EXAMPLES: tuple[Example, ...] = (
    Example("global", "Global list: the three best scores", _READINESS, f"{_READINESS}?sort=score&limit=3"),
    Example("country", "Country mode, one code (two indicators kept)", _READINESS,
            f"{_READINESS}?code=KEN&indicators=IT.NET.USER.ZS,GE.EST"),
    Example("codes", "Country mode, several codes", _READINESS,
            f"{_READINESS}?codes=KEN,BRA,IND&fields=Country%20Name,score,Global%20Rank&indicators=GE.EST"),
    Example("unmatched", "A code and an indicator that match nothing, named in unmatched", _READINESS,
            f"{_READINESS}?codes=KEN,XXX&fields=score&indicators=GE.EST,NO.SUCH"),
    Example("region", "Region filter", _READINESS, f"{_READINESS}?region=NA"),
    Example("fields", "Fields, sorted", _READINESS,
            f"{_READINESS}?region=SAS&fields=Country%20Name,score,Global%20Rank&sort=score"),
    Example("archive", "December archive of a year", _READINESS,
            f"{_READINESS}?year=2025&region=NA&fields=Country%20Name,score"),
    Example("weights", "Your own weights: ranked by a custom composite (not the published index)", _READINESS,
            f"{_READINESS}?weights=infrastructure:2,human:1&fields=Country%20Name,score,Global%20Rank&sort=custom"
            "&limit=3"),
    Example("csv", "CSV", _READINESS,
            f"{_READINESS}?region=NA&fields=Country%20Name,Country%20Code,score&format=csv"),
    Example("bad-value", "A value the parameter does not accept", _READINESS,
            f"{_READINESS}?region=atlantis", 400),
    Example("unknown-name", "An unknown parameter name", _READINESS, f"{_READINESS}?regoin=LAC", 400),
    Example("no-archive", "A year without a December archive", _READINESS, f"{_READINESS}?year=2022", 404),
    Example("legacy-unknown-code", "A code that matches nothing (legacy route only)", "/api/readiness",
            "/api/readiness?code=XYZ", 404),
    Example("indicators", "Two indicators of one economy", "/api/v1/indicators",
            "/api/v1/indicators?code=KEN&indicators=IT.NET.USER.ZS,GE.EST"),
    Example("indicators-csv", "The same as CSV", "/api/v1/indicators",
            "/api/v1/indicators?code=KEN&indicators=IT.NET.USER.ZS,GE.EST&format=csv"),
    Example("indicators-june", "A June archive, by its snapshot id", "/api/v1/indicators",
            "/api/v1/indicators?snapshot=2024-06&code=KEN&indicators=GE.EST"),
    Example("indicators-years", "One indicator over the years", "/api/v1/indicators",
            "/api/v1/indicators?codes=KEN,BRA&indicators=IT.NET.USER.ZS&years=2025:2026"),
    Example("indicators-long", "One row per measure (shape=long)", "/api/v1/indicators",
            "/api/v1/indicators?code=KEN&indicators=IT.NET.USER.ZS&shape=long"),
    Example("history", "One economy across the snapshots", "/api/v1/history", "/api/v1/history?code=KEN"),
    Example("history-long", "One row per value (shape=long) as CSV", "/api/v1/history",
            "/api/v1/history?code=KEN&years=2025:2026&fields=score,Global%20Rank&shape=long&format=csv"),
    Example("history-no-years", "Years without a snapshot history shows", "/api/v1/history",
            "/api/v1/history?years=2010:2012", 404),
    Example("aggregates", "The scores of FCV and other economies", "/api/v1/aggregates", "/api/v1/aggregates?by=fcv"),
    Example("snapshots", "The catalogue", "/api/v1/snapshots", "/api/v1/snapshots"),
    Example("changes", "A change report", "/api/v1/snapshots/{id}/changes", "/api/v1/snapshots/2024-12/changes"),
    Example("changes-csv", "Its movers as a file", "/api/v1/snapshots/{id}/changes.csv",
            "/api/v1/snapshots/2024-12/changes.csv"),
    Example("no-changes", "A snapshot without a change report", "/api/v1/snapshots/{id}/changes",
            "/api/v1/snapshots/1999-12/changes", 404),
    Example("citation-bibtex", "A snapshot's citation as BibTeX", "/api/v1/citation",
            "/api/v1/citation?format=bibtex&snapshot=2026-11"),
    Example("citation-ris", "As RIS", "/api/v1/citation", "/api/v1/citation?format=ris&snapshot=2026-11"),
    Example("citation-csl", "As CSL-JSON", "/api/v1/citation", "/api/v1/citation?format=csl&snapshot=2026-11"),
    Example("citation-bad-format", "A format there is none of", "/api/v1/citation",
            "/api/v1/citation?format=endnote", 400),
    Example("query-readiness", "Aliases, any case and 1/0 in their canonical form", "/api/v1/query/readiness",
            "/api/v1/query/readiness?sort=score&order=DESC&region=lac&fcv=1&_=1"),
    Example("query-history", "A history query, codes sorted", "/api/v1/query/history",
            "/api/v1/query/history?codes=ken,bra&years=2025:2026&fields=score,Global%20Rank"),
    Example("query-bad-value", "The data route's own 400", "/api/v1/query/readiness",
            "/api/v1/query/readiness?sort=bogus", 400),
    Example("index", "The index", "/api/v1/", "/api/v1/"),
)
"""One example per request shape of docs/API.md#examples, plus errors; ``target`` is what a client sends."""


@lru_cache(maxsize=1)
def recorded() -> dict[str, JsonValue]:
    """The recorded answers, by example name: ``{"contentType": ..., "value": ...}``; empty when
    the file is missing (the document then has no examples, and the drift test fails)."""
    try:
        data = orjson.loads(EXAMPLES_FILE.read_bytes())
    except FileNotFoundError:
        return {}
    return data if isinstance(data, dict) else {}
