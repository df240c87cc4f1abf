"""The index method as data: every decision the builder makes is a row or a constant here.

The scoring code only applies these tables: ``builder.steps`` has one small pure function
per rule (what a window, a bound, a median, a rank, a percentile is) and ``builder.score``
runs them in order. Changing a parameter of the method means changing this module, and
``docs/METHOD.md``, which explains every decision. Dimension names come from
``loaders.contract.DIMENSIONS``; a test checks that every dimension has its indicators.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from loaders import DIMENSIONS

INFRASTRUCTURE, HUMAN_CAPITAL, ACCESS, INNOVATION, GOVERNANCE = DIMENSIONS


@dataclass(frozen=True, slots=True)
class Indicator:
    """One series of the index: how its latest value becomes a 0-100 score.

    ``dimension`` is None for an auxiliary series, which is shown but enters no score.
    The transforms apply in this order: ``per_million`` (divide by the economy's population
    in millions; only for economies of at least PER_MILLION_MIN_POPULATION), ``log1p``,
    min-max scaling, then ``lower_is_better`` (100 minus the scaled value).
    """

    code: str
    name: str
    dimension: str | None
    log1p: bool = False
    lower_is_better: bool = False
    per_million: bool = False
    purpose: str = ""
    """For an auxiliary series: what it is used for (shown in ``notes``)."""


INDICATORS: tuple[Indicator, ...] = (
    Indicator("EG.ELC.ACCS.ZS", "Access to electricity (% of population)", INFRASTRUCTURE),
    Indicator("IT.NET.USER.ZS", "Individuals using the Internet (% of population)", INFRASTRUCTURE),
    Indicator("IT.NET.SECR.P6", "Secure Internet servers (per 1 million people)", INFRASTRUCTURE,
              log1p=True),
    Indicator("IT.CEL.SETS.P2", "Mobile cellular subscriptions (per 100 people)", INFRASTRUCTURE),
    Indicator("SE.XPD.TOTL.GD.ZS", "Government expenditure on education, total (% of GDP)",
              HUMAN_CAPITAL),
    Indicator("SE.ADT.LITR.ZS", "Literacy rate, adult total (% of people ages 15 and above)",
              HUMAN_CAPITAL),
    Indicator("SE.SEC.ENRR", "School enrollment, secondary (% gross)", HUMAN_CAPITAL),
    Indicator("SE.TER.ENRR", "School enrollment, tertiary (% gross)", HUMAN_CAPITAL),
    Indicator("SE.ENR.SECO.FM.ZS",
              "School enrollment, secondary (gross), gender parity index (GPI)", ACCESS),
    Indicator("SE.ENR.TERT.FM.ZS",
              "School enrollment, tertiary (gross), gender parity index (GPI)", ACCESS),
    Indicator("SE.PRM.UNER.ZS", "Children out of school (% of primary school age)", ACCESS,
              lower_is_better=True),
    Indicator("SE.SEC.UNER.LO.ZS", "Adolescents out of school (% of lower secondary school age)",
              ACCESS, lower_is_better=True),
    Indicator("SE.SEC.CMPT.LO.FE.ZS",
              "Lower secondary completion rate, female (% of relevant age group)", ACCESS),
    Indicator("GB.XPD.RSDV.GD.ZS", "Research and development expenditure (% of GDP)", INNOVATION),
    Indicator("SP.POP.SCIE.RD.P6", "Researchers in R&D (per million people)", INNOVATION,
              log1p=True),
    Indicator("IP.JRN.ARTC.SC", "Scientific and technical journal articles", INNOVATION,
              log1p=True, per_million=True),
    Indicator("TX.VAL.TECH.CD", "High-technology exports (current US$)", INNOVATION, log1p=True),
    Indicator("GE.EST", "Government Effectiveness: Estimate", GOVERNANCE),
    Indicator("RQ.EST", "Regulatory Quality: Estimate", GOVERNANCE),
    Indicator("CC.EST", "Control of Corruption: Estimate", GOVERNANCE),
    Indicator("VA.EST", "Voice and Accountability: Estimate", GOVERNANCE),
    Indicator("SP.POP.TOTL", "Population, total", None,
              purpose="sets the microstate flag and the per-million rates"),
    Indicator("SE.SEC.CMPT.LO.MA.ZS",
              "Lower secondary completion rate, male (% of relevant age group)", None,
              purpose="shown beside the female completion rate for context"),
)
"""Every series, in the order of each economy's indicator_details: scoring, then auxiliary."""

SCORING: tuple[Indicator, ...] = tuple(i for i in INDICATORS if i.dimension is not None)
AUXILIARY: tuple[Indicator, ...] = tuple(i for i in INDICATORS if i.dimension is None)
INDICATOR_BY_CODE: dict[str, Indicator] = {indicator.code: indicator for indicator in INDICATORS}

POPULATION = "SP.POP.TOTL"
"""The auxiliary series that gives an economy's population in a snapshot."""

WINDOW_START = 2017
"""Each series takes its latest value from WINDOW_START up to the snapshot's year."""

MICROSTATE_POPULATION = 300_000
"""Economies with fewer people are microstates: scored, never ranked, never setting bounds."""

PER_MILLION_MIN_POPULATION = 1_000_000
"""Per-million rates of smaller economies are too noisy to score; they are imputed instead."""

INCOME_GROUPS: tuple[str, ...] = (
    "Low income",
    "Lower middle income",
    "Upper middle income",
    "High income",
)
"""The World Bank income groups an economy may have (or none: unclassified)."""


@dataclass(frozen=True, slots=True)
class ImputationLevel:
    """One rung of the imputation ladder: which peers' median fills a missing value."""

    label: str
    """The ``data_source`` of a value imputed at this level."""
    same_region: bool
    same_income: bool

    def group(self, region: str, income: str | None) -> str:
        """Name the donor group of an economy of ``region`` and ``income``, for ``notes``."""
        income_words = f"{(income or '').lower()} " if self.same_income else ""
        where = f" in {region}" if self.same_region else ""
        if not income_words and not where:
            return "all non-microstate economies"
        return f"non-microstate {income_words}economies{where}"


IMPUTATION_LEVELS: tuple[ImputationLevel, ...] = (
    ImputationLevel("Imputed: region and income median", same_region=True, same_income=True),
    ImputationLevel("Imputed: region median", same_region=True, same_income=False),
    ImputationLevel("Imputed: income median", same_region=False, same_income=True),
    ImputationLevel("Imputed: global median", same_region=False, same_income=False),
)
"""Tried in order; the first level with MIN_DONORS donors is used."""

MIN_DONORS = 3
"""A median of fewer observed values is not trusted: the next, wider level is tried."""

NOT_AVAILABLE = "Not available"
"""The ``data_source`` of a value that is neither reported nor imputable."""

HIGH, MODERATE, LOW = "High", "Moderate", "Low"
MODERATE_MAX_SHARE = Fraction(1, 3)
"""Confidence of a dimension: High when none of its indicators lacks a scored reported
value, Moderate when at most this share do, Low otherwise (and when the score is null)."""

DECIMALS = 2
"""Normalized values, dimension scores and composites are published with two decimals;
each step computes from the published (rounded) values of the step before."""
