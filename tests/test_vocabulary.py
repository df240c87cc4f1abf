"""What a client may type: aliases, region names, field lists (docs/API.md#field-names-and-aliases,
docs/DECISIONS.md#parameter-rules)."""

from __future__ import annotations

import pytest

from loaders import COUNTRY_FIELDS, REGION_SHORT
from readiness.domain.errors import InvalidParameter
from readiness.domain.vocabulary import (
    ALIAS_OF,
    FIELD_ALIASES,
    INCOME_GROUPS,
    REGION_ALIASES,
    canonical_income,
    canonical_region,
    field_list,
    nearest_name,
    sort_field,
)


def test_every_field_alias_names_a_real_field() -> None:
    names = {field.name for field in COUNTRY_FIELDS}
    assert set(FIELD_ALIASES.values()) <= names
    assert {ALIAS_OF[field]: field for field in ALIAS_OF} == FIELD_ALIASES


@pytest.mark.parametrize("alias", list(REGION_ALIASES))
def test_canonical_region_every_spec_alias_any_case(alias: str) -> None:
    assert canonical_region(alias.lower()) == REGION_ALIASES[alias]
    assert canonical_region(alias.upper()) == REGION_ALIASES[alias]


@pytest.mark.parametrize(("region", "short"), list(REGION_SHORT.items()))
def test_canonical_region_names_and_short_codes(region: str, short: str) -> None:
    assert canonical_region(region.upper()) == region
    assert canonical_region(short.lower()) == region


def test_sort_field_every_field_and_alias() -> None:
    for field in COUNTRY_FIELDS:
        assert sort_field(field.name.swapcase()) == field.name
    for alias, field_name in FIELD_ALIASES.items():
        assert sort_field(alias.upper()) == field_name


def test_field_list_keeps_given_order_and_details() -> None:
    assert field_list("indicator_details, infra ,,Country Code") == (
        "indicator_details", "Infrastructure Score", "Country Code")


def test_field_list_comma_inside_a_name() -> None:
    assert field_list("Population, total") == ("Population, total",)
    assert field_list("Population,total,Region") == ("Population, total", "Region")


@pytest.mark.parametrize("raw", ["Population", "total", "score,,bogus", "RegionShort"])
def test_field_list_unknown_names_the_piece(raw: str) -> None:
    with pytest.raises(InvalidParameter, match="fields="):
        field_list(raw)


@pytest.mark.parametrize(
    ("raw", "income"),
    [("LIC", "Low income"), ("lic", "Low income"), ("Lower Middle Income", "Lower middle income"),
     ("UMC", "Upper middle income"), ("\tHIGH INCOME ", "High income")],
)
def test_canonical_income_full_names_and_short_forms(raw: str, income: str) -> None:
    assert canonical_income(raw) == income


@pytest.mark.parametrize("raw", ["", "middle", "LMIC", "Low", "ℓic", "Low\u00a0income"])
def test_canonical_income_unknown_lists_every_accepted_name(raw: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        canonical_income(raw)
    assert raised.value.name == "income"
    for name in [*INCOME_GROUPS, *INCOME_GROUPS.values()]:
        assert name in raised.value.message


ACCEPTED = ("code", "codes", "level", "region", "income", "fcv", "year", "limit", "format")


@pytest.mark.parametrize(
    ("name", "nearest"),
    [("CODE", "code"), ("Region", "region"), ("regoin", "region"), ("yaer", "year"), ("limt", "limit"),
     ("fromat", "format"), ("incomes", "income"), ("callback", None), ("", None), ("x" * 10_000, None),
     ("ſode", "code")],  # a look-alike letter is not case-folded, but difflib still finds the name
)
def test_nearest_name_case_variant_then_difflib(name: str, nearest: str | None) -> None:
    assert nearest_name(name, ACCEPTED) == nearest


def test_nearest_name_with_nothing_accepted_is_none() -> None:
    assert nearest_name("format", ()) is None
