"""Generate the SYNTHETIC raw input tables of the sample: ``data/raw/{countries,indicators}.csv``.

The economies are real: the 217 economies of the World Bank's World Development Indicators
(its income classification lists 218; Taiwan, China has no WDI data), with World Bank names,
ISO3 codes, the seven-region scheme of WDI (Afghanistan and Pakistan in South Asia, Malta in
Middle East & North Africa), income groups as of the FY2025 classification (Venezuela, RB is
unclassified), approximate 2024 populations and the FY2025 list of fragile and
conflict-affected situations.

**Every indicator value is invented.** No real values are available offline, so each series
is drawn from a distribution that depends on the economy's income group (and, for the
governance estimates, on its FCV status), with a trend over 2015-2026, year-to-year noise,
publication lags and realistic gaps: whole series missing (adult literacy is rarely reported
for high-income economies, R&D data for low-income ones, small territories miss many
series) and missing years. The values are plausible, not true: they are not the published
index and must not be cited or used for analysis.

Deterministic: every series has its own seeded generator, so running the script twice gives
byte-identical files.

    .venv/bin/python data/make_raw.py [--out data/raw]
"""

from __future__ import annotations

import argparse
import csv
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = "readiness-sample-v1"
YEARS = range(2015, 2027)
POPULATION_YEAR = 2024
"""The year the populations below are (approximately) of."""

WDI = "World Bank WDI (synthetic sample value)"
WGI = "World Bank WGI (synthetic sample value)"

EAP, ECA = "East Asia & Pacific", "Europe & Central Asia"
LAC, MENA = "Latin America & Caribbean", "Middle East & North Africa"
NAM, SAS, SSA = "North America", "South Asia", "Sub-Saharan Africa"
LIC, LMI, UMI, HIC = "Low income", "Lower middle income", "Upper middle income", "High income"

# fmt: off
ECONOMIES: tuple[tuple[str, str, str, str | None, int], ...] = (
    # code   World Bank name                      region income  population (about 2024)
    ("ASM", "American Samoa",                     EAP, HIC,        44_000),
    ("AUS", "Australia",                          EAP, HIC,    26_640_000),
    ("BRN", "Brunei Darussalam",                  EAP, HIC,       452_000),
    ("KHM", "Cambodia",                           EAP, LMI,    17_640_000),
    ("CHN", "China",                              EAP, UMI, 1_410_710_000),
    ("FJI", "Fiji",                               EAP, UMI,       936_000),
    ("PYF", "French Polynesia",                   EAP, HIC,       308_900),
    ("GUM", "Guam",                               EAP, HIC,       172_000),
    ("HKG", "Hong Kong SAR, China",               EAP, HIC,     7_536_000),
    ("IDN", "Indonesia",                          EAP, UMI,   277_534_000),
    ("JPN", "Japan",                              EAP, HIC,   124_516_000),
    ("KIR", "Kiribati",                           EAP, LMI,       133_500),
    ("PRK", "Korea, Dem. People's Rep.",          EAP, LIC,    26_160_000),
    ("KOR", "Korea, Rep.",                        EAP, HIC,    51_713_000),
    ("LAO", "Lao PDR",                            EAP, LMI,     7_664_000),
    ("MAC", "Macao SAR, China",                   EAP, HIC,       704_000),
    ("MYS", "Malaysia",                           EAP, UMI,    34_308_000),
    ("MHL", "Marshall Islands",                   EAP, UMI,        42_000),
    ("FSM", "Micronesia, Fed. Sts.",              EAP, LMI,       115_200),
    ("MNG", "Mongolia",                           EAP, UMI,     3_447_000),
    ("MMR", "Myanmar",                            EAP, LMI,    54_578_000),
    ("NRU", "Nauru",                              EAP, HIC,        12_780),
    ("NCL", "New Caledonia",                      EAP, HIC,       269_200),
    ("NZL", "New Zealand",                        EAP, HIC,     5_223_000),
    ("MNP", "Northern Mariana Islands",           EAP, HIC,        49_800),
    ("PLW", "Palau",                              EAP, HIC,        17_700),
    ("PNG", "Papua New Guinea",                   EAP, LMI,    10_330_000),
    ("PHL", "Philippines",                        EAP, LMI,   117_337_000),
    ("WSM", "Samoa",                              EAP, LMI,       225_700),
    ("SGP", "Singapore",                          EAP, HIC,     5_918_000),
    ("SLB", "Solomon Islands",                    EAP, LMI,       740_400),
    ("THA", "Thailand",                           EAP, UMI,    71_702_000),
    ("TLS", "Timor-Leste",                        EAP, LMI,     1_384_000),
    ("TON", "Tonga",                              EAP, UMI,       107_800),
    ("TUV", "Tuvalu",                             EAP, UMI,        11_400),
    ("VUT", "Vanuatu",                            EAP, LMI,       334_500),
    ("VNM", "Viet Nam",                           EAP, LMI,    98_859_000),
    ("ALB", "Albania",                            ECA, UMI,     2_746_000),
    ("AND", "Andorra",                            ECA, HIC,        80_100),
    ("ARM", "Armenia",                            ECA, UMI,     2_990_000),
    ("AUT", "Austria",                            ECA, HIC,     9_132_000),
    ("AZE", "Azerbaijan",                         ECA, UMI,    10_113_000),
    ("BLR", "Belarus",                            ECA, UMI,     9_179_000),
    ("BEL", "Belgium",                            ECA, HIC,    11_822_000),
    ("BIH", "Bosnia and Herzegovina",             ECA, UMI,     3_211_000),
    ("BGR", "Bulgaria",                           ECA, HIC,     6_446_000),
    ("CHI", "Channel Islands",                    ECA, HIC,       175_000),
    ("HRV", "Croatia",                            ECA, HIC,     3_854_000),
    ("CYP", "Cyprus",                             ECA, HIC,     1_345_000),
    ("CZE", "Czechia",                            ECA, HIC,    10_873_000),
    ("DNK", "Denmark",                            ECA, HIC,     5_946_000),
    ("EST", "Estonia",                            ECA, HIC,     1_367_000),
    ("FRO", "Faroe Islands",                      ECA, HIC,        54_700),
    ("FIN", "Finland",                            ECA, HIC,     5_584_000),
    ("FRA", "France",                             ECA, HIC,    68_170_000),
    ("GEO", "Georgia",                            ECA, UMI,     3_761_000),
    ("DEU", "Germany",                            ECA, HIC,    84_482_000),
    ("GIB", "Gibraltar",                          ECA, HIC,        32_700),
    ("GRC", "Greece",                             ECA, HIC,    10_361_000),
    ("GRL", "Greenland",                          ECA, HIC,        56_900),
    ("HUN", "Hungary",                            ECA, HIC,     9_589_000),
    ("ISL", "Iceland",                            ECA, HIC,       393_600),
    ("IRL", "Ireland",                            ECA, HIC,     5_307_000),
    ("IMN", "Isle of Man",                        ECA, HIC,        84_100),
    ("ITA", "Italy",                              ECA, HIC,    58_761_000),
    ("KAZ", "Kazakhstan",                         ECA, UMI,    20_033_000),
    ("XKX", "Kosovo",                             ECA, UMI,     1_756_000),
    ("KGZ", "Kyrgyz Republic",                    ECA, LMI,     7_100_000),
    ("LVA", "Latvia",                             ECA, HIC,     1_883_000),
    ("LIE", "Liechtenstein",                      ECA, HIC,        39_600),
    ("LTU", "Lithuania",                          ECA, HIC,     2_871_000),
    ("LUX", "Luxembourg",                         ECA, HIC,       668_600),
    ("MDA", "Moldova",                            ECA, UMI,     2_486_000),
    ("MCO", "Monaco",                             ECA, HIC,        38_960),
    ("MNE", "Montenegro",                         ECA, UMI,       616_200),
    ("NLD", "Netherlands",                        ECA, HIC,    17_879_000),
    ("MKD", "North Macedonia",                    ECA, UMI,     1_831_000),
    ("NOR", "Norway",                             ECA, HIC,     5_520_000),
    ("POL", "Poland",                             ECA, HIC,    36_687_000),
    ("PRT", "Portugal",                           ECA, HIC,    10_526_000),
    ("ROU", "Romania",                            ECA, HIC,    19_056_000),
    ("RUS", "Russian Federation",                 ECA, HIC,   143_826_000),
    ("SMR", "San Marino",                         ECA, HIC,        33_600),
    ("SRB", "Serbia",                             ECA, UMI,     6_623_000),
    ("SVK", "Slovak Republic",                    ECA, HIC,     5_429_000),
    ("SVN", "Slovenia",                           ECA, HIC,     2_120_000),
    ("ESP", "Spain",                              ECA, HIC,    48_373_000),
    ("SWE", "Sweden",                             ECA, HIC,    10_536_000),
    ("CHE", "Switzerland",                        ECA, HIC,     8_849_000),
    ("TJK", "Tajikistan",                         ECA, LMI,    10_143_000),
    ("TUR", "Turkiye",                            ECA, UMI,    85_326_000),
    ("TKM", "Turkmenistan",                       ECA, UMI,     7_364_000),
    ("UKR", "Ukraine",                            ECA, UMI,    37_733_000),
    ("GBR", "United Kingdom",                     ECA, HIC,    68_350_000),
    ("UZB", "Uzbekistan",                         ECA, LMI,    36_412_000),
    ("ATG", "Antigua and Barbuda",                LAC, HIC,        94_300),
    ("ARG", "Argentina",                          LAC, UMI,    46_655_000),
    ("ABW", "Aruba",                              LAC, HIC,       107_400),
    ("BHS", "Bahamas, The",                       LAC, HIC,       412_600),
    ("BRB", "Barbados",                           LAC, HIC,       282_300),
    ("BLZ", "Belize",                             LAC, UMI,       410_800),
    ("BOL", "Bolivia",                            LAC, LMI,    12_388_000),
    ("BRA", "Brazil",                             LAC, UMI,   216_422_000),
    ("VGB", "British Virgin Islands",             LAC, HIC,        38_980),
    ("CYM", "Cayman Islands",                     LAC, HIC,        69_310),
    ("CHL", "Chile",                              LAC, HIC,    19_630_000),
    ("COL", "Colombia",                           LAC, UMI,    52_086_000),
    ("CRI", "Costa Rica",                         LAC, UMI,     5_213_000),
    ("CUB", "Cuba",                               LAC, UMI,    11_194_000),
    ("CUW", "Curacao",                            LAC, HIC,       148_000),
    ("DMA", "Dominica",                           LAC, UMI,        73_000),
    ("DOM", "Dominican Republic",                 LAC, UMI,    11_332_000),
    ("ECU", "Ecuador",                            LAC, UMI,    18_190_000),
    ("SLV", "El Salvador",                        LAC, UMI,     6_365_000),
    ("GRD", "Grenada",                            LAC, UMI,       126_200),
    ("GTM", "Guatemala",                          LAC, UMI,    18_092_000),
    ("GUY", "Guyana",                             LAC, HIC,       813_800),
    ("HTI", "Haiti",                              LAC, LMI,    11_724_000),
    ("HND", "Honduras",                           LAC, LMI,    10_594_000),
    ("JAM", "Jamaica",                            LAC, UMI,     2_826_000),
    ("MEX", "Mexico",                             LAC, UMI,   128_456_000),
    ("NIC", "Nicaragua",                          LAC, LMI,     6_823_000),
    ("PAN", "Panama",                             LAC, HIC,     4_468_000),
    ("PRY", "Paraguay",                           LAC, UMI,     6_862_000),
    ("PER", "Peru",                               LAC, UMI,    34_353_000),
    ("PRI", "Puerto Rico",                        LAC, HIC,     3_206_000),
    ("SXM", "Sint Maarten (Dutch part)",          LAC, HIC,        44_200),
    ("KNA", "St. Kitts and Nevis",                LAC, HIC,        47_800),
    ("LCA", "St. Lucia",                          LAC, UMI,       180_200),
    ("MAF", "St. Martin (French part)",           LAC, HIC,        32_080),
    ("VCT", "St. Vincent and the Grenadines",     LAC, UMI,       103_700),
    ("SUR", "Suriname",                           LAC, UMI,       623_200),
    ("TTO", "Trinidad and Tobago",                LAC, HIC,     1_534_000),
    ("TCA", "Turks and Caicos Islands",           LAC, HIC,        46_060),
    ("URY", "Uruguay",                            LAC, HIC,     3_423_000),
    ("VEN", "Venezuela, RB",                      LAC, None,   28_838_000),
    ("VIR", "Virgin Islands (U.S.)",              LAC, HIC,       104_900),
    ("DZA", "Algeria",                            MENA, UMI,   45_606_000),
    ("BHR", "Bahrain",                            MENA, HIC,    1_485_000),
    ("DJI", "Djibouti",                           MENA, LMI,    1_136_000),
    ("EGY", "Egypt, Arab Rep.",                   MENA, LMI,  112_717_000),
    ("IRN", "Iran, Islamic Rep.",                 MENA, UMI,   89_173_000),
    ("IRQ", "Iraq",                               MENA, UMI,   45_505_000),
    ("ISR", "Israel",                             MENA, HIC,    9_757_000),
    ("JOR", "Jordan",                             MENA, UMI,   11_337_000),
    ("KWT", "Kuwait",                             MENA, HIC,    4_311_000),
    ("LBN", "Lebanon",                            MENA, LMI,    5_353_000),
    ("LBY", "Libya",                              MENA, UMI,    6_888_000),
    ("MLT", "Malta",                              MENA, HIC,      535_100),
    ("MAR", "Morocco",                            MENA, LMI,   37_840_000),
    ("OMN", "Oman",                               MENA, HIC,    4_644_000),
    ("QAT", "Qatar",                              MENA, HIC,    2_716_000),
    ("SAU", "Saudi Arabia",                       MENA, HIC,   36_947_000),
    ("SYR", "Syrian Arab Republic",               MENA, LIC,   23_227_000),
    ("TUN", "Tunisia",                            MENA, LMI,   12_459_000),
    ("ARE", "United Arab Emirates",               MENA, HIC,    9_517_000),
    ("PSE", "West Bank and Gaza",                 MENA, LMI,    5_165_000),
    ("YEM", "Yemen, Rep.",                        MENA, LIC,   34_450_000),
    ("BMU", "Bermuda",                            NAM, HIC,        64_070),
    ("CAN", "Canada",                             NAM, HIC,    40_098_000),
    ("USA", "United States",                      NAM, HIC,   334_915_000),
    ("AFG", "Afghanistan",                        SAS, LIC,    42_240_000),
    ("BGD", "Bangladesh",                         SAS, LMI,   172_954_000),
    ("BTN", "Bhutan",                             SAS, LMI,       787_400),
    ("IND", "India",                              SAS, LMI, 1_428_628_000),
    ("MDV", "Maldives",                           SAS, UMI,       521_000),
    ("NPL", "Nepal",                              SAS, LMI,    30_897_000),
    ("PAK", "Pakistan",                           SAS, LMI,   240_486_000),
    ("LKA", "Sri Lanka",                          SAS, LMI,    22_037_000),
    ("AGO", "Angola",                             SSA, LMI,    36_685_000),
    ("BEN", "Benin",                              SSA, LMI,    13_712_000),
    ("BWA", "Botswana",                           SSA, UMI,     2_676_000),
    ("BFA", "Burkina Faso",                       SSA, LIC,    23_251_000),
    ("BDI", "Burundi",                            SSA, LIC,    13_238_000),
    ("CPV", "Cabo Verde",                         SSA, LMI,       598_700),
    ("CMR", "Cameroon",                           SSA, LMI,    28_647_000),
    ("CAF", "Central African Republic",           SSA, LIC,     5_742_000),
    ("TCD", "Chad",                               SSA, LIC,    18_279_000),
    ("COM", "Comoros",                            SSA, LMI,       852_100),
    ("COD", "Congo, Dem. Rep.",                   SSA, LIC,   102_263_000),
    ("COG", "Congo, Rep.",                        SSA, LMI,     6_106_000),
    ("CIV", "Cote d'Ivoire",                      SSA, LMI,    28_873_000),
    ("GNQ", "Equatorial Guinea",                  SSA, UMI,     1_714_000),
    ("ERI", "Eritrea",                            SSA, LIC,     3_748_000),
    ("SWZ", "Eswatini",                           SSA, LMI,     1_210_000),
    ("ETH", "Ethiopia",                           SSA, LIC,   126_527_000),
    ("GAB", "Gabon",                              SSA, UMI,     2_436_000),
    ("GMB", "Gambia, The",                        SSA, LIC,     2_773_000),
    ("GHA", "Ghana",                              SSA, LMI,    34_121_000),
    ("GIN", "Guinea",                             SSA, LMI,    14_190_000),
    ("GNB", "Guinea-Bissau",                      SSA, LIC,     2_150_000),
    ("KEN", "Kenya",                              SSA, LMI,    55_101_000),
    ("LSO", "Lesotho",                            SSA, LMI,     2_330_000),
    ("LBR", "Liberia",                            SSA, LIC,     5_418_000),
    ("MDG", "Madagascar",                         SSA, LIC,    30_326_000),
    ("MWI", "Malawi",                             SSA, LIC,    20_932_000),
    ("MLI", "Mali",                               SSA, LIC,    23_294_000),
    ("MRT", "Mauritania",                         SSA, LMI,     4_863_000),
    ("MUS", "Mauritius",                          SSA, UMI,     1_262_000),
    ("MOZ", "Mozambique",                         SSA, LIC,    33_897_000),
    ("NAM", "Namibia",                            SSA, LMI,     2_604_000),
    ("NER", "Niger",                              SSA, LIC,    27_202_000),
    ("NGA", "Nigeria",                            SSA, LMI,   223_805_000),
    ("RWA", "Rwanda",                             SSA, LIC,    14_095_000),
    ("STP", "Sao Tome and Principe",              SSA, LMI,       231_900),
    ("SEN", "Senegal",                            SSA, LMI,    17_763_000),
    ("SYC", "Seychelles",                         SSA, HIC,       119_800),
    ("SLE", "Sierra Leone",                       SSA, LIC,     8_791_000),
    ("SOM", "Somalia",                            SSA, LIC,    18_143_000),
    ("ZAF", "South Africa",                       SSA, UMI,    60_415_000),
    ("SSD", "South Sudan",                        SSA, LIC,    11_089_000),
    ("SDN", "Sudan",                              SSA, LIC,    48_109_000),
    ("TZA", "Tanzania",                           SSA, LMI,    67_438_000),
    ("TGO", "Togo",                               SSA, LIC,     9_054_000),
    ("UGA", "Uganda",                             SSA, LIC,    48_582_000),
    ("ZMB", "Zambia",                             SSA, LMI,    20_570_000),
    ("ZWE", "Zimbabwe",                           SSA, LMI,    16_665_000),
)
"""The 217 WDI economies: ISO3 code, World Bank name, region, income group, population."""

CONFLICT = "Conflict"
FRAGILITY = "Institutional and Social Fragility"
FCV: dict[str, str] = {
    **dict.fromkeys(
        ("AFG", "BFA", "CMR", "CAF", "COD", "ETH", "HTI", "IRQ", "LBN", "MLI", "MOZ", "MMR",
         "NER", "NGA", "SOM", "SSD", "SDN", "SYR", "UKR", "PSE", "YEM"),
        CONFLICT,
    ),
    **dict.fromkeys(
        ("BDI", "TCD", "COM", "COG", "ERI", "GNB", "KIR", "XKX", "LBY", "MHL", "FSM", "PNG",
         "STP", "SLB", "TLS", "TUV", "VEN", "ZWE"),
        FRAGILITY,
    ),
}
"""The FY2025 list of fragile and conflict-affected situations, with the type of each."""
# fmt: on

DEVELOPMENT = {LIC: 0.15, LMI: 0.38, UMI: 0.58, HIC: 0.82, None: 0.50}
"""Mean of the latent development level by income group (unclassified: middle)."""

POPULATION_GROWTH = {LIC: 0.027, LMI: 0.017, UMI: 0.007, HIC: 0.004, None: 0.0}
"""Mean yearly population growth by income group."""


@dataclass(frozen=True)
class Profile:
    """What an economy's synthetic values are drawn from."""

    code: str
    income: str | None
    population: int
    development: float
    """0-1; sets the level of every education, infrastructure and innovation series."""
    governance: float
    """0-1; development with noise, lower for FCV economies; sets the WGI estimates."""
    small: bool
    """Under 300,000 people: territories and small islands miss many series."""
    fcv: bool


@dataclass(frozen=True)
class Series:
    """How one indicator's values are drawn; ``level`` is the 2020 value (log if ``log``)."""

    code: str
    level: Callable[[Profile], float]
    spread: float
    trend: float
    jitter: float
    low: float
    high: float
    decimals: int
    coverage: tuple[float, float, float, float]
    """Chance that the series exists at all, for LIC, LMI, UMI, HIC."""
    density: float
    """Chance that a year between the first and the last reported year is reported."""
    lag: int
    """Years between 2026 and the series' last value (one more for some economies)."""
    log: bool = False
    source: str = WDI
    scale: Callable[[Profile, int], float] = lambda profile, year: 1.0
    """Multiplies the drawn value: turns per-capita levels into totals (articles, exports)."""


def _population_in(profile: Profile, year: int) -> float:
    growth = _rng(profile.code, "growth").gauss(POPULATION_GROWTH[profile.income], 0.004)
    return profile.population * (1 + growth) ** (year - POPULATION_YEAR)


def _per_million(profile: Profile, year: int) -> float:
    return _population_in(profile, year) / 1_000_000


def _per_capita(profile: Profile, year: int) -> float:
    return _population_in(profile, year)


ALL = (0.99, 0.99, 0.99, 0.99)

# fmt: off
SERIES: tuple[Series, ...] = (
    Series("EG.ELC.ACCS.ZS", lambda p: 100 * (0.12 + 1.6 * p.development), 8, 1.0, 0.6, 1, 100, 2,
           (0.98, 0.98, 0.98, 0.95), 0.95, 1),
    Series("IT.NET.USER.ZS", lambda p: 100 * (0.05 + 1.05 * p.development), 7, 2.5, 1.0, 0.5, 99.5, 2,
           (0.97, 0.97, 0.97, 0.97), 0.9, 0),
    Series("IT.NET.SECR.P6", lambda p: 1.0 + 11 * p.development, 0.8, 0.12, 0.1, 0.1, 1e6, 2,
           (0.98, 0.98, 0.98, 0.98), 0.95, 0, log=True),
    Series("IT.CEL.SETS.P2", lambda p: 60 + 75 * p.development, 15, 1.0, 2.0, 5, 200, 2,
           (0.97, 0.97, 0.97, 0.97), 0.9, 0),
    Series("SE.XPD.TOTL.GD.ZS", lambda p: 3.0 + 2.0 * p.development, 1.0, 0.0, 0.25, 0.8, 9, 2,
           (0.8, 0.85, 0.85, 0.85), 0.6, 1),
    Series("SE.ADT.LITR.ZS", lambda p: 100 * (0.3 + 1.1 * p.development), 7, 0.4, 0.5, 15, 99.9, 2,
           (0.75, 0.75, 0.6, 0.12), 0.25, 1),
    Series("SE.SEC.ENRR", lambda p: 25 + 95 * p.development, 8, 0.6, 1.5, 8, 160, 2,
           (0.85, 0.9, 0.9, 0.9), 0.6, 1),
    Series("SE.TER.ENRR", lambda p: 2 + 90 * p.development ** 1.4, 7, 0.8, 1.2, 0.5, 140, 2,
           (0.8, 0.85, 0.9, 0.9), 0.6, 1),
    Series("SE.ENR.SECO.FM.ZS", lambda p: 0.78 + 0.25 * p.development, 0.05, 0.004, 0.01, 0.4, 1.25, 4,
           (0.85, 0.9, 0.9, 0.9), 0.6, 1),
    Series("SE.ENR.TERT.FM.ZS", lambda p: 0.45 + 0.85 * p.development, 0.12, 0.01, 0.02, 0.1, 2.0, 4,
           (0.75, 0.85, 0.88, 0.9), 0.6, 1),
    Series("SE.PRM.UNER.ZS", lambda p: 45 * (1 - p.development) ** 2.2, 3, -0.3, 0.6, 0.05, 80, 2,
           (0.7, 0.75, 0.75, 0.7), 0.5, 1),
    Series("SE.SEC.UNER.LO.ZS", lambda p: 60 * (1 - p.development) ** 1.8, 4, -0.4, 0.8, 0.1, 90, 2,
           (0.6, 0.7, 0.72, 0.7), 0.5, 1),
    Series("SE.SEC.CMPT.LO.FE.ZS", lambda p: 15 + 95 * p.development, 8, 0.6, 1.5, 3, 110, 2,
           (0.7, 0.8, 0.8, 0.8), 0.55, 1),
    Series("SE.SEC.CMPT.LO.MA.ZS", lambda p: 20 + 85 * p.development, 8, 0.5, 1.5, 3, 110, 2,
           (0.7, 0.8, 0.8, 0.8), 0.55, 1),
    Series("GB.XPD.RSDV.GD.ZS", lambda p: math.log(0.06) + 3.9 * p.development, 0.4, 0.02, 0.05, 0.01, 6, 2,
           (0.35, 0.55, 0.75, 0.92), 0.6, 1, log=True),
    Series("SP.POP.SCIE.RD.P6", lambda p: 2.8 + 6.0 * p.development, 0.45, 0.03, 0.05, 1, 10000, 2,
           (0.3, 0.5, 0.7, 0.9), 0.55, 1, log=True),
    Series("IP.JRN.ARTC.SC", lambda p: 1.0 + 7.5 * p.development, 0.5, 0.04, 0.05, 0.1, 1e7, 2,
           (0.95, 0.97, 0.98, 0.98), 0.95, 1, log=True, scale=_per_million),
    Series("TX.VAL.TECH.CD", lambda p: -1.5 + 9.5 * p.development, 1.0, 0.04, 0.15, 1000, 1e13, 0,
           (0.6, 0.8, 0.9, 0.92), 0.8, 0, log=True, scale=_per_capita),
    *(
        Series(code, lambda p: -2.3 + 4.4 * p.governance, 0.25, 0.0, 0.06, -2.5, 2.5, 2,
               ALL, 1.0, 0, source=WGI)
        for code in ("GE.EST", "RQ.EST", "CC.EST", "VA.EST")
    ),
)
"""Every series but population, in the method's order."""
# fmt: on


def _rng(*key: str) -> random.Random:
    """A generator seeded by the seed and ``key``: each series draws independently."""
    return random.Random("/".join((SEED, *key)))


def profile(code: str, income: str | None, population: int) -> Profile:
    """Draw an economy's latent levels."""
    rng = _rng(code, "profile")
    development = min(0.98, max(0.02, rng.gauss(DEVELOPMENT[income], 0.07)))
    fcv = code in FCV
    governance = min(0.99, max(0.01, development + rng.gauss(0, 0.12) - (0.15 if fcv else 0)))
    return Profile(code, income, population, development, governance, population < 300_000, fcv)


def series_values(spec: Series, economy: Profile) -> list[tuple[int, str]]:
    """The (year, formatted value) pairs of one economy's series, with its gaps."""
    rng = _rng(economy.code, spec.code)
    coverage = spec.coverage[(LIC, LMI, UMI, HIC).index(economy.income or UMI)]
    coverage *= (0.6 if economy.small else 1.0) * (0.85 if economy.fcv else 1.0)
    if rng.random() >= coverage:
        return []
    base = spec.level(economy) + rng.gauss(0, spec.spread)
    last = YEARS[-1] - spec.lag - (1 if rng.random() < 0.3 else 0)
    first = YEARS[0] + (rng.randrange(4) if rng.random() < 0.3 else 0)
    values: list[tuple[int, str]] = []
    for year in range(first, last + 1):
        drawn = base + spec.trend * (year - 2020) + rng.gauss(0, spec.jitter)
        reported = rng.random() < spec.density or year == last
        value = (math.exp(drawn) if spec.log else drawn) * spec.scale(economy, year)
        if reported:
            values.append((year, _format(min(spec.high, max(spec.low, value)), spec.decimals)))
    return values


def population_values(economy: Profile) -> list[tuple[int, str]]:
    """Population every year, no gaps."""
    return [(year, str(round(_population_in(economy, year)))) for year in YEARS]


def _format(value: float, decimals: int) -> str:
    return str(round(value)) if decimals == 0 else f"{value:.{decimals}f}"


def write_tables(out: Path) -> None:
    """Write ``countries.csv`` and ``indicators.csv`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    economies = sorted(ECONOMIES)
    with (out / "countries.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("iso3", "name", "region", "income_group", "population", "fcv_status", "fcv_type"))
        for code, name, region, income, population in economies:
            fcv_type = FCV.get(code, "")
            writer.writerow((code, name, region, income or "", population, str(bool(fcv_type)).lower(), fcv_type))
    with (out / "indicators.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("iso3", "indicator", "year", "value", "source"))
        for code, _, _, income, population in economies:
            economy = profile(code, income, population)
            for year, value in population_values(economy):
                writer.writerow((code, "SP.POP.TOTL", year, value, WDI))
            for spec in SERIES:
                for year, value in series_values(spec, economy):
                    writer.writerow((code, spec.code, year, value, spec.source))


def main() -> None:
    """Regenerate the raw tables (default ``data/raw``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "raw", help="output directory")
    write_tables(parser.parse_args().out)


if __name__ == "__main__":
    main()
