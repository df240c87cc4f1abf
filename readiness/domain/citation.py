"""How to cite a snapshot: the catalogue's ``citation`` object and the downloads of
``/api/v1/citation`` as BibTeX, RIS, CSL-JSON and plain text (docs/API.md#get-apiv1citation-the-citation-as-a-file).

Everything comes from the snapshot's manifest (``publisher``, ``license``, ``published``,
``synthetic``: docs/DATA.md#manifestjson), so the citation names whoever published the data,
not whoever runs this service. The downloads are retrieved (``Retrieval``): their URL is
absolute, from the service's public address (``READINESS_PUBLIC_URL``, else the request's
own scheme and host: ``request_base``), and they carry the access date (BibTeX ``urldate``, RIS
``Y2``, CSL ``accessed``, the text's "Accessed"). The catalogue's ``citation`` object, an answer
cached and shared by every host name the service is reached under, keeps the relative URL
(``/api/v1/readiness?snapshot=2026-11``) and no access date
(docs/DECISIONS.md#the-data-routes-indicators-history-the-catalogue-change-reports).
Pure: no I/O, no clock (the handler passes the date).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import Enum
from urllib.parse import quote, urlencode

import orjson

from loaders import JsonValue, Snapshot
from readiness.domain.answer import Answer
from readiness.domain.errors import InvalidParameter
from readiness.domain.meta import AnswerMeta
from readiness.domain.parameters import SNAPSHOT_ANY, Grammar, Parameter
from readiness.domain.query import read_query_string
from readiness.domain.vocabulary import folded

TITLE = "Readiness Index"
"""The data set's name; a snapshot's title adds its id."""

DATA_PATH = "/api/v1/readiness"
"""Where the service serves a snapshot's data: with ``snapshot=<id>``, pinned to it."""

CITATION_PATH = "/api/v1/citation"
"""Where the citation downloads are served."""

DO_NOT_CITE = "Do not cite this snapshot: its data is synthetic, not the published index."
"""What a synthetic snapshot's citation says instead of being citable."""

NO_LICENSE = "No licence stated."
"""The citation text's words for a manifest whose ``license`` is null or absent."""

_SNAPSHOT_ID = re.compile(r"[0-9]{4}-(?:0[1-9]|1[0-2])")
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = re.compile(rf"(?=[^:]{{1,253}}(?::|$))(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9a-f:.]{{2,45}}\])(?::[0-9]{{1,5}})?")
"""A ``Host`` header the downloads' URLs may be built from (lower-cased first): a host name or a
bracketed IPv6 address, and an optional port; nothing a BibTeX, RIS or CSL field would have to
escape, and nothing that is not a host (``evil.org/x``, ``a b``, ``{``)."""
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
"""BibTeX's month macros, unquoted in the ``month`` field."""


class CitationFormat(Enum):
    """A download format of ``/api/v1/citation``, with its media type and file extension."""

    BIBTEX = "bibtex"
    RIS = "ris"
    CSL = "csl"
    TEXT = "text"

    @property
    def content_type(self) -> str:
        """The ``Content-Type`` of a download in this format."""
        return _CONTENT_TYPES[self]

    @property
    def extension(self) -> str:
        """The downloaded file's extension, with its dot."""
        return _EXTENSIONS[self]


_CONTENT_TYPES = {
    CitationFormat.BIBTEX: "application/x-bibtex; charset=utf-8",
    CitationFormat.RIS: "application/x-research-info-systems; charset=utf-8",
    CitationFormat.CSL: "application/vnd.citationstyles.csl+json",
    CitationFormat.TEXT: "text/plain; charset=utf-8",
}
_EXTENSIONS = {
    CitationFormat.BIBTEX: ".bib", CitationFormat.RIS: ".ris", CitationFormat.CSL: ".json", CitationFormat.TEXT: ".txt",
}
ACCEPTED_FORMATS = ", ".join(item.value for item in CitationFormat)


_CITATION_SNAPSHOT = Parameter(
    "snapshot",
    "A snapshot id `YYYY-MM` that `/api/v1/snapshots` lists. Omitted: the current snapshot. An id not listed "
    "gives 404.",
    pattern=SNAPSHOT_ANY,
)
CITATION_QUERY = Grammar((
    Parameter(
        "format",
        "`bibtex` (default: `application/x-bibtex`), `ris` (`application/x-research-info-systems`), `csl` "
        "(`application/vnd.citationstyles.csl+json`) or `text` (`text/plain`: the catalogue's ready-to-paste "
        "`text`); any case. Another value gives 400.",
        choices=tuple(item.value for item in CitationFormat), default=CitationFormat.BIBTEX.value,
    ),
    _CITATION_SNAPSHOT,
))
"""What ``/api/v1/citation``'s query string may say (by the v1 rules: ``Grammar.values``)."""
CITATION_FILE_QUERY = Grammar((_CITATION_SNAPSHOT,))
"""What a citation's download path (``/api/v1/citation.bib``) takes: the path names the format."""


def citation_file_path(chosen: CitationFormat) -> str:
    """The download path of the citation in ``chosen``: ``/api/v1/citation`` with its file extension."""
    return CITATION_PATH + chosen.extension


@dataclass(frozen=True, slots=True)
class CitationRequest:
    """A parsed ``/api/v1/citation`` query: the format (BibTeX by default) and the snapshot id
    (None: the current snapshot)."""

    format: CitationFormat = CitationFormat.BIBTEX
    snapshot: str | None = None

    @classmethod
    def parse(cls, raw: str, chosen: CitationFormat | None = None) -> CitationRequest:
        """Parse a URL query string by the v1 rules, as every route reads one
        (``read_query_string``, ``Grammar.values``: docs/DECISIONS.md#parameter-rules): names
        beginning with ``_`` ignored, any other unknown name refused, the last value of a
        repeated name kept, values trimmed and an empty one absent, ``format`` in any case.

        Raises UnknownParameter for a name it does not take, InvalidParameter naming ``format``
        or ``snapshot`` and what each accepts. ``chosen``: the format a download path names,
        which then takes no ``format`` (``CITATION_FILE_QUERY``).
        """
        params = (CITATION_QUERY if chosen is None else CITATION_FILE_QUERY).values(read_query_string(raw))
        chosen = chosen or CitationFormat.BIBTEX
        if "format" in params:
            found = {item.value: item for item in CitationFormat}.get(folded(params["format"]))
            if found is None:
                raise InvalidParameter("format", params["format"], ACCEPTED_FORMATS)
            chosen = found
        snapshot = params.get("snapshot")
        if snapshot is not None and not _SNAPSHOT_ID.fullmatch(snapshot):
            raise InvalidParameter(
                "snapshot", snapshot, "a snapshot id YYYY-MM such as 2024-06 (GET /api/v1/snapshots lists them)"
            )
        return cls(chosen, snapshot)

    def canonical(self) -> str:
        """The query string of this request, defaults left out, ``format`` then ``snapshot``:
        equal exactly when two requests get the same file. The edge keys citations by it
        (k8s/base/edge-keys.js, docs/OPERATIONS.md#one-key-per-answer)."""
        pairs = [("format", self.format.value)] if self.format is not CitationFormat.BIBTEX else []
        if self.snapshot is not None:
            pairs.append(("snapshot", self.snapshot))
        return urlencode(pairs, quote_via=quote, safe=",:")


def request_base(scheme: str, host: str) -> str:
    """The service's address as a request reached it: ``https://readiness.example.org``, from its
    scheme (``http`` or ``https``: the edge's, through a trusted proxy) and ``Host`` header; "" (a
    relative URL, as before) when either is anything else, so a client's odd ``Host`` never
    reaches a citation. Used only without ``READINESS_PUBLIC_URL``, which wins."""
    host = host.strip().lower()
    if scheme not in ("http", "https") or not host.isascii() or not _HOST.fullmatch(host):
        return ""
    return f"{scheme}://{host}"


DAY_SECONDS = 86400
"""A UTC day in POSIX time (which counts no leap seconds)."""


def access_date(now: float) -> date:
    """The UTC day of ``now`` (seconds since the epoch): a download's access date."""
    return date.fromordinal(date(1970, 1, 1).toordinal() + int(now // DAY_SECONDS))


def until_next_day(now: float) -> int:
    """Whole seconds from ``now`` to the next UTC midnight (1 to 86400), when a download's access
    date changes: how long any cache may keep it (docs/CACHING.md)."""
    return DAY_SECONDS - int(now) % DAY_SECONDS


@dataclass(frozen=True, slots=True)
class Retrieval:
    """Where and when a citation download was retrieved: ``base`` the service's public address,
    no trailing slash ("" keeps the URL relative), and ``accessed`` the day, in UTC, the file was
    served, which every format states (docs/API.md#get-apiv1citation-the-citation-as-a-file)."""

    base: str
    accessed: date


@dataclass(frozen=True, slots=True)
class Citation:
    """What a citation of one snapshot says, from its manifest's words (``Citation.of``)."""

    snapshot: str
    published: str
    publisher: str | None
    license: str | None
    synthetic: bool

    @classmethod
    def of(cls, snapshot: Snapshot) -> Citation:
        """The citation of ``snapshot`` (a loaded snapshot or a summary's series)."""
        return cls(snapshot.id, snapshot.published, snapshot.publisher, snapshot.license, snapshot.synthetic)

    @property
    def title(self) -> str:
        """``Readiness Index, snapshot 2026-11``."""
        return f"{TITLE}, snapshot {self.snapshot}"

    @property
    def url(self) -> str:
        """The service's relative URL of the snapshot's data (module docstring: why relative)."""
        return f"{DATA_PATH}?snapshot={self.snapshot}"

    @property
    def year(self) -> int:
        """The publication year."""
        return int(self.published[:4])

    @property
    def key(self) -> str:
        """The BibTeX key and CSL id: ``readiness_2026_11``."""
        return "readiness_" + self.snapshot.replace("-", "_")

    @property
    def filename(self) -> str:
        """A download's file name without extension, ``-synthetic`` for synthetic data."""
        return f"readiness-{self.snapshot}" + ("-synthetic" if self.synthetic else "")

    @property
    def license_text(self) -> str:
        """``Licence: CC-BY-4.0.``, or NO_LICENSE."""
        return NO_LICENSE if self.license is None else f"Licence: {self.license}."

    @property
    def text(self) -> str:
        """A ready-to-paste citation; a synthetic snapshot's says not to cite it.

        ``Publisher (2026). Readiness Index, snapshot 2026-11 [Data set]. Published 2026-11-05.
        Licence: CC-BY-4.0. /api/v1/readiness?snapshot=2026-11.`` The publisher part is left
        out when the manifest names none; the URL is relative: put the service's address before
        it. No access date: the catalogue's answer is shared by every day and host
        (``retrieved_text`` has both).
        """
        return self._text(self.url, "")

    def retrieved_url(self, retrieval: Retrieval) -> str:
        """``url`` after the service's address: ``https://…/api/v1/readiness?snapshot=2026-11``."""
        return retrieval.base + self.url

    def retrieved_text(self, retrieval: Retrieval) -> str:
        """``text`` with the absolute URL and ``Accessed 2026-11-28.`` after it."""
        return self._text(self.retrieved_url(retrieval), f" Accessed {retrieval.accessed.isoformat()}.")

    def _text(self, url: str, accessed: str) -> str:
        author = f"{self.publisher} ({self.year}). " if self.publisher is not None else ""
        text = f"{author}{self.title} [Data set]. Published {self.published}. {self.license_text} {url}.{accessed}"
        return f"{text} {DO_NOT_CITE}" if self.synthetic else text

    def document(self) -> dict[str, JsonValue]:
        """The catalogue's ``citation`` object (docs/API.md#get-apiv1snapshots-what-data-exists)."""
        return {
            "publisher": self.publisher,
            "title": self.title,
            "snapshot": self.snapshot,
            "published": self.published,
            "url": self.url,
            "license": self.license,
            "text": self.text,
        }

    @property
    def note(self) -> str:
        """The downloads' note: the licence, and for synthetic data not to cite it."""
        return f"{self.license_text} {DO_NOT_CITE}" if self.synthetic else self.license_text


def bibtex_escaped(text: str) -> str:
    """``text`` with BibTeX's special characters escaped (``{ } \\ & % $ # _ ^ ~``), so a
    field's braces stay balanced and LaTeX prints the characters as written."""
    return "".join(_BIBTEX_ESCAPES.get(character, character) for character in text)


_BIBTEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "^": r"\^{}",
    "~": r"\~{}",
}


def to_bibtex(citation: Citation, retrieval: Retrieval) -> str:
    """The citation as one BibTeX ``@misc`` entry (biblatex reads ``date``, ``url`` and
    ``urldate``, the access date, too).

    The publisher is a corporate author: doubly braced, so BibTeX does not split it into
    names. ``url`` is left as it is: it is built from a validated address and snapshot id."""
    fields: list[tuple[str, str]] = []
    if citation.publisher is not None:
        publisher = bibtex_escaped(citation.publisher)
        fields += [("author", f"{{{{{publisher}}}}}"), ("publisher", f"{{{publisher}}}")]
    fields += [
        ("title", f"{{{{{bibtex_escaped(citation.title)}}}}}"),
        ("year", f"{{{citation.year}}}"),
        ("month", _MONTHS[int(citation.published[5:7]) - 1]),
        ("date", f"{{{citation.published}}}"),
        ("version", f"{{{citation.snapshot}}}"),
        ("howpublished", "{Data set}"),
        ("url", f"{{{citation.retrieved_url(retrieval)}}}"),
        ("urldate", f"{{{retrieval.accessed.isoformat()}}}"),
        ("note", f"{{{bibtex_escaped(citation.note)}}}"),
    ]
    body = ",\n".join(f"  {name} = {value}" for name, value in fields)
    return f"@misc{{{citation.key},\n{body}\n}}\n"


def to_ris(citation: Citation, retrieval: Retrieval) -> str:
    """The citation as one RIS record (``TY  - DATA`` ... ``ER  - ``), CRLF line ends; ``Y2`` the
    access date (``2026/11/28``, as Zotero and EndNote read it)."""
    lines = [("TY", "DATA")]
    if citation.publisher is not None:
        lines.append(("AU", citation.publisher))
    lines += [("TI", citation.title), ("PY", str(citation.year)), ("DA", citation.published.replace("-", "/"))]
    if citation.publisher is not None:
        lines.append(("PB", citation.publisher))
    lines += [
        ("ET", citation.snapshot), ("UR", citation.retrieved_url(retrieval)),
        ("Y2", retrieval.accessed.strftime("%Y/%m/%d")), ("N1", citation.note), ("ER", ""),
    ]
    return "".join(f"{tag}  - {_one_line(value)}\r\n" for tag, value in lines)


def _one_line(value: str) -> str:
    """A RIS value on one line: a line break in a manifest's words would end the tag."""
    return " ".join(value.split())


def to_csl(citation: Citation, retrieval: Retrieval) -> bytes:
    """The citation as CSL-JSON: an array of one item of type ``dataset``, ``accessed`` the
    access date."""
    item: dict[str, JsonValue] = {"id": citation.key, "type": "dataset", "title": citation.title}
    if citation.publisher is not None:
        item["author"] = [{"literal": citation.publisher}]
        item["publisher"] = citation.publisher
    year, month, day = (int(part) for part in citation.published.split("-"))
    item.update(
        {
            "issued": {"date-parts": [[year, month, day]]},
            "version": citation.snapshot,
            "URL": citation.retrieved_url(retrieval),
            "accessed": {"date-parts": [[retrieval.accessed.year, retrieval.accessed.month, retrieval.accessed.day]]},
            "note": citation.note,
        }
    )
    if citation.license is not None:
        item["license"] = citation.license
    return orjson.dumps([item], option=orjson.OPT_INDENT_2) + b"\n"


def rendered(citation: Citation, chosen: CitationFormat, retrieval: Retrieval) -> bytes:
    """The download's bytes in ``chosen`` format, UTF-8, retrieved as ``retrieval`` says."""
    if chosen is CitationFormat.BIBTEX:
        return to_bibtex(citation, retrieval).encode()
    if chosen is CitationFormat.RIS:
        return to_ris(citation, retrieval).encode()
    if chosen is CitationFormat.TEXT:  # the catalogue's ready-to-paste text, for a page showing any snapshot
        return f"{citation.retrieved_text(retrieval)}\n".encode()
    return to_csl(citation, retrieval)


def citation_answer(citation: Citation, chosen: CitationFormat, retrieval: Retrieval) -> Answer:
    """The download as an ``Answer``: ETag, Last-Modified and X-Readiness-Snapshot of its
    snapshot, ``chosen.content_type`` and the attachment's file name (``readiness-2026-11.bib``).
    The bytes, and so the ETag, change with the address and the access date."""
    return Answer.of(
        rendered(citation, chosen, retrieval),
        AnswerMeta(snapshot=citation.snapshot, published=citation.published),
        download=(chosen.content_type, f"{citation.filename}{chosen.extension}"),
    )
