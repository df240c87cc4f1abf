"""The conventions analysts know: the World Bank's and Our World in Data's names for parameters
this API already has (docs/API.md#aliases), each declared once as an ``Alias`` of them.

Each alias resolves to the canonical parameters' values (``per_page=10&page=3`` is
``limit=10&offset=20``), so that ``Query.parse`` reads one meaning one way and the canonical
query, the cache key and the edge's key are the same whichever spelling came; given beside a
parameter it stands for, it is a 400 naming both. The edge mirrors these resolvers in
k8s/base/edge-keys.js (``unaliased``); tests/test_edge_keys.py checks that it agrees. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from readiness.domain.errors import InvalidParameter
from readiness.domain.parameters import LIMIT_PATTERN, MAX_CODES, MAX_LIMIT, MAX_OFFSET, Alias
from readiness.domain.vocabulary import folded, trimmed

WORLD_BANK = "World Bank"
OUR_WORLD_IN_DATA = "Our World in Data"

DEFAULT_PER_PAGE = 50
"""The rows of a page when ``page`` comes without ``per_page`` or ``limit``: the World Bank's default."""
EARLIEST = "0000"
LATEST = "9999"
"""The years an open end of a ``time`` range stands for: every snapshot's year lies between them."""

_LIMIT = re.compile(LIMIT_PATTERN)
_PAGE = re.compile("[0-9]{1,7}")
_TIME_RANGE = re.compile(r"([0-9]{4}|earliest|)(?:\.\.|:)([0-9]{4}|latest|)")
_COUNTRY_SEPARATORS = re.compile("[~;,]")


def _per_page(value: str, values: Mapping[str, str]) -> dict[str, str]:
    return {"limit": value}


def _page(value: str, values: Mapping[str, str]) -> dict[str, str]:
    """``offset`` at the start of page ``value`` (from 1) of ``limit`` rows; ``limit`` the World
    Bank's default when none is given. A ``limit`` that is no number leaves ``offset`` unwritten:
    ``limit``'s own check refuses it."""
    if not _PAGE.fullmatch(value) or int(value) < 1:
        raise InvalidParameter("page", value, _PAGE_ACCEPTED)
    written = {} if "limit" in values else {"limit": str(DEFAULT_PER_PAGE)}
    limit = values.get("limit", str(DEFAULT_PER_PAGE))
    if _LIMIT.fullmatch(limit):
        written["offset"] = str((int(value) - 1) * int(limit))
    return written


def _date(value: str, values: Mapping[str, str]) -> dict[str, str]:
    return {"years": value}


def _time(value: str, values: Mapping[str, str]) -> dict[str, str]:
    """Our World in Data's ``time``: a year, a range ``A..B`` (or ``A:B``) whose ends may be
    ``earliest`` and ``latest`` or left empty (open), or ``latest`` alone (the newest snapshot:
    ``mrv=1``)."""
    text = folded(value)
    if text == "latest":
        return {"mrv": "1"}
    if re.fullmatch("[0-9]{4}", text):
        return {"years": text}
    match = _TIME_RANGE.fullmatch(text)
    if match is None:
        raise InvalidParameter("time", value, _TIME_ACCEPTED)
    first, last = match.groups()
    first = first if first not in ("", "earliest") else EARLIEST
    last = last if last not in ("", "latest") else LATEST
    return {"years": f"{first}:{last}"}


def _country(value: str, values: Mapping[str, str]) -> dict[str, str]:
    """ISO3 codes joined as Our World in Data (``USA~GBR``, ``~USA``) or the World Bank
    (``KEN;BRA``) join them, or with commas: ``codes``."""
    pieces = [piece for piece in (trimmed(piece) for piece in _COUNTRY_SEPARATORS.split(value)) if piece]
    if not pieces:
        raise InvalidParameter("country", value, _COUNTRY_ACCEPTED)
    return {"codes": ",".join(pieces)}


_PAGE_ACCEPTED = (f"a page number from 1, its first row at most {MAX_OFFSET} rows in ((page - 1) * per_page); "
                  f"pages of per_page or limit rows, {DEFAULT_PER_PAGE} when neither is given")
_TIME_ACCEPTED = ("a four-digit year (2024), a range such as 2022..2025 or 2022:2025 whose ends may be earliest, "
                  "latest or empty, or latest (the newest snapshot)")
_COUNTRY_ACCEPTED = (f"ISO3 codes joined with ~, ; or , such as KEN~BRA (Our World in Data), KEN;BRA (World Bank), "
                     f"at most {MAX_CODES} distinct; country names are not read")

PER_PAGE = Alias(
    "per_page", ("limit",), WORLD_BANK,
    f"`limit`: the rows of a page, 1 to {MAX_LIMIT}.",
    f"a whole number of rows per page from 1 to {MAX_LIMIT}", _per_page,
)
PAGE = Alias(
    "page", ("offset",), WORLD_BANK,
    f"`offset`: page 1 starts at the first row, page `N` at row `(N - 1) * per_page` (`per_page` or `limit`; "
    f"{DEFAULT_PER_PAGE} rows a page when neither is given, the World Bank's default, written as `limit`).",
    _PAGE_ACCEPTED, _page,
)
DATE = Alias(
    "date", ("years",), WORLD_BANK,
    "`years`: a year (`2024`) or a range (`2022:2025`).",
    "a four-digit year such as 2024, or an inclusive range such as 2022:2025", _date,
)
TIME = Alias(
    "time", ("years", "mrv"), OUR_WORLD_IN_DATA,
    f"`years`: a year (`2024`), or a range `2022..2025` (or `2022:2025`) whose ends may be `earliest` and "
    f"`latest`, or empty, for an open end (`2022..latest` is `years=2022:{LATEST}`); `latest` alone is `mrv=1`, "
    "the newest snapshot.",
    _TIME_ACCEPTED, _time,
)
COUNTRY = Alias(
    "country", ("codes", "code"), f"{OUR_WORLD_IN_DATA} and {WORLD_BANK}",
    "`codes`: ISO3 codes joined with `~` (Our World in Data's `USA~GBR`, or `~USA`), `;` (the World Bank's "
    "`KEN;BRA`) or `,`. Country names are not read: codes name economies in every snapshot alike.",
    _COUNTRY_ACCEPTED, _country,
)

PAGING_ALIASES: tuple[Alias, ...] = (PER_PAGE, PAGE)
"""Of every paged route: ``per_page`` first, as ``page`` reads the rows of a page from ``limit``."""
COUNTRY_ALIASES: tuple[Alias, ...] = (COUNTRY,)
"""Of every route that takes ``codes``."""
TIME_ALIASES: tuple[Alias, ...] = (DATE, TIME)
"""Of every route that takes ``years``."""
