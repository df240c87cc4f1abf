"""builder.method: the method table is complete and agrees with the data contract."""

from __future__ import annotations

import re
from collections import Counter

from builder.method import (
    AUXILIARY,
    IMPUTATION_LEVELS,
    INDICATORS,
    POPULATION,
    SCORING,
    ImputationLevel,
)
from loaders.contract import DIMENSIONS, INDICATOR_FIELDS


def test_method_has_21_scoring_and_2_auxiliary_series() -> None:
    assert (len(SCORING), len(AUXILIARY)) == (21, 2)
    assert {i.code for i in AUXILIARY} == {POPULATION, "SE.SEC.CMPT.LO.MA.ZS"}


def test_method_indicators_per_dimension_as_published() -> None:
    per_dimension = Counter(i.dimension for i in SCORING)
    assert [per_dimension[d] for d in DIMENSIONS] == [4, 4, 5, 4, 4]


def test_method_codes_unique_and_valid_for_the_contract() -> None:
    pattern = INDICATOR_FIELDS["indicator_code"]["pattern"]
    assert isinstance(pattern, str)
    codes = [i.code for i in INDICATORS]
    assert len(set(codes)) == len(codes)
    assert all(re.match(pattern, code) for code in codes)


def test_method_transforms_as_published() -> None:
    assert {i.code for i in INDICATORS if i.log1p} == {
        "IT.NET.SECR.P6", "SP.POP.SCIE.RD.P6", "IP.JRN.ARTC.SC", "TX.VAL.TECH.CD"}
    assert {i.code for i in INDICATORS if i.lower_is_better} == {"SE.PRM.UNER.ZS", "SE.SEC.UNER.LO.ZS"}
    assert {i.code for i in INDICATORS if i.per_million} == {"IP.JRN.ARTC.SC"}


def test_method_auxiliary_series_say_what_they_are_for() -> None:
    assert all(i.purpose for i in AUXILIARY)
    assert not any(i.purpose for i in SCORING)


def test_method_imputation_ladder_narrows_to_widens() -> None:
    assert [(level.same_region, level.same_income) for level in IMPUTATION_LEVELS] == [
        (True, True), (True, False), (False, True), (False, False)]
    assert IMPUTATION_LEVELS[0].label == "Imputed: region and income median"


def test_imputation_level_group_names() -> None:
    region = "South Asia"
    assert [level.group(region, "Low income") for level in IMPUTATION_LEVELS] == [
        "non-microstate low income economies in South Asia",
        "non-microstate economies in South Asia",
        "non-microstate low income economies",
        "all non-microstate economies",
    ]
    assert ImputationLevel("x", False, False).group(region, None) == "all non-microstate economies"
