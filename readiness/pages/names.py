"""The names people type for an economy that its World Bank name does not contain: "DRC" for
"Congo, Dem. Rep.", "Turkey" for "Turkiye", "South Korea" for "Korea, Rep.".

One table, written into every page with a search (the landing page's, the explorer's and
compare's) as a JSON block, and read there by one matcher (``static/search.js``), so every
search finds the same economies for the same text (docs/PAGES.md#finding-an-economy). Searches match names,
codes and these names alike, case- and accent-insensitively; a name listed here need not
repeat what the economy's own name already contains.
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

ALTERNATIVE_NAMES: Mapping[str, tuple[str, ...]] = {
    "ARE": ("UAE", "Emirates"),
    "BHS": ("The Bahamas",),
    "BRN": ("Brunei",),
    "CIV": ("Ivory Coast",),
    "COD": ("DRC", "DR Congo", "Democratic Republic of the Congo", "Congo-Kinshasa", "Zaire"),
    "COG": ("Republic of the Congo", "Congo-Brazzaville"),
    "CPV": ("Cape Verde",),
    "CZE": ("Czech Republic",),
    "EGY": ("Egypt",),
    "FSM": ("Micronesia", "Federated States of Micronesia"),
    "GBR": ("UK", "Britain", "Great Britain", "England", "Scotland", "Wales", "Northern Ireland"),
    "GMB": ("The Gambia",),
    "HKG": ("Hong Kong",),
    "IRN": ("Iran", "Persia"),
    "KGZ": ("Kyrgyzstan",),
    "KNA": ("Saint Kitts and Nevis",),
    "KOR": ("South Korea", "Republic of Korea"),
    "LAO": ("Laos",),
    "LCA": ("Saint Lucia",),
    "MAC": ("Macau", "Macao"),
    "MAF": ("Saint Martin",),
    "MKD": ("Macedonia",),
    "MMR": ("Burma",),
    "NLD": ("Holland", "The Netherlands"),
    "PRK": ("North Korea", "DPRK"),
    "PSE": ("Palestine", "Gaza"),
    "RUS": ("Russia",),
    "SVK": ("Slovakia",),
    "SWZ": ("Swaziland",),
    "SYR": ("Syria",),
    "TLS": ("East Timor",),
    "TUR": ("Turkey",),
    "USA": ("US", "United States of America", "America"),
    "VCT": ("Saint Vincent and the Grenadines",),
    "VEN": ("Venezuela",),
    "VIR": ("US Virgin Islands",),
    "VNM": ("Vietnam",),
    "YEM": ("Yemen",),
}
"""Other names by ISO3 code: short forms, former names and the English names in common use."""

NAMES_JSON = orjson.dumps(ALTERNATIVE_NAMES).decode().replace("<", "\\u003c")
"""ALTERNATIVE_NAMES for the pages' scripts, in a JSON block: ``<`` escaped, so no name could
close the block."""
