"""Your own weights (docs/METHOD.md#your-own-weights): a custom composite and rank computed from
the published dimension scores, served beside the published values and never in their place.

Pure: the same weights over the same snapshot give the same values, so the answer is cached under
the canonical query, which holds the weights (``Query.weights``).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence

from loaders import DIMENSIONS, Country, JsonValue
from readiness.domain.parameters import DIMENSION_KEYS
from readiness.domain.vocabulary import CUSTOM_RANK, CUSTOM_SCORE

Custom = tuple[float | None, int | None]
"""An economy's Custom Score and Custom Rank, either of them null."""

NO_CUSTOM: Custom = (None, None)

DECIMALS = 2
"""Published scores have two decimals; the custom composite too."""
WEIGHT_DECIMALS = 4
"""The normalized weights echoed in the envelope."""
RANKED = "Global Rank"
"""An economy with a published Global Rank is ranked (microstates and null composites are not)."""

WEIGHTS_NOTE = (
    f"{CUSTOM_SCORE} and {CUSTOM_RANK} are computed from the published dimension scores with the weights "
    "you gave; they are not the published index (Composite Readiness Score and Global Rank are)."
)

_SCORES: tuple[str, ...] = tuple(f"{dimension} Score" for dimension in DIMENSIONS)


def custom_score(record: Mapping[str, JsonValue], weights: Sequence[int]) -> float | None:
    """The weighted mean of the published two-decimal dimension scores, over the dimensions
    weighing more than 0, rounded to two decimals; null when one of those dimensions is null.

    Computed as the builder computes the published composite (``round(fmean(...), 2)``: an exactly
    rounded sum, then Python's ``round``), so equal weights give exactly the published composite.
    """
    return _score(record, _weighted(weights), sum(weights))


def custom_scores(countries: Iterable[Country], weights: Sequence[int]) -> dict[str, Custom]:
    """Each economy's (Custom Score, Custom Rank) by code.

    The rank is the competition rank (1, 2, 2, 4; 1 = highest score) among the ranked economies
    (those with a published Global Rank) whose Custom Score is not null; null for the others, so
    microstates stay unranked as in the published index.
    """
    weighted, total = _weighted(weights), sum(weights)
    scored = [(country.code, _score(country.record, weighted, total), country.record.get(RANKED) is not None)
              for country in countries]
    descending = sorted(-score for _, score, ranked in scored if ranked and score is not None)
    return {
        code: (score, 1 + bisect_left(descending, -score) if ranked and score is not None else None)
        for code, score, ranked in scored
    }


def _weighted(weights: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """The score fields that weigh more than 0, with their weights: the only ones read."""
    return tuple((name, weight) for name, weight in zip(_SCORES, weights, strict=True) if weight)


def _score(record: Mapping[str, JsonValue], weighted: Sequence[tuple[str, int]], total: int) -> float | None:
    terms: list[float] = []
    for name, weight in weighted:
        value = record.get(name)
        if type(value) is not float and type(value) is not int:  # null, absent (or not a number)
            return None
        terms.append(weight * value)
    return round(math.fsum(terms) / total, DECIMALS) if total else None


def normalized_weights(weights: Sequence[int]) -> dict[str, float]:
    """The weights as shares of their sum, by dimension key, with four decimals: what the
    envelope echoes (``2,1,1,1,0`` -> infrastructure 0.4, human 0.2, ..., governance 0.0)."""
    total = sum(weights)
    return {key: round(weight / total, WEIGHT_DECIMALS) for key, weight in zip(DIMENSION_KEYS, weights, strict=True)}


def envelope_fields(weights: Sequence[int]) -> dict[str, JsonValue]:
    """The keys an answer with weights adds to its envelope: ``weights`` and ``weights_note``."""
    shares: dict[str, JsonValue] = dict(normalized_weights(weights))
    return {"weights": shares, "weights_note": WEIGHTS_NOTE}
