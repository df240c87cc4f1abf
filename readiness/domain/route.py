"""``Route``: one data route declared as data, and where its answers come from.

A route is its path, its grammar (``readiness/domain/parameters.py``), its source (what its
answers are computed from, with its compute and cost functions) and what the docs say of it.
The table of every route is ``readiness/domain/routes.py``; everything else reads a route's
declaration rather than asking which route it is: the parser, the service, the Tornado URL
table, the OpenAPI document, ``/api/v1/query/{route}`` and the edge's names
(docs/ARCHITECTURE.md#adding-a-route). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from loaders import JsonValue, Snapshot, Summary
from readiness.domain.answer import Answer
from readiness.domain.meta import Format
from readiness.domain.parameters import Grammar
from readiness.domain.query import Query, parse_query_string


@dataclass(frozen=True, slots=True)
class FromSnapshots:
    """Answers computed from whole loaded snapshots: the current one, the one ``year`` or
    ``snapshot`` pins, or (with ``years``) every December and the current snapshot in the range,
    oldest first. Kept in the caches for as long as that snapshot's answers: an archive's
    lifetimes when the query pins one, the current lifetimes otherwise.

    ``compute(snapshots, current_id, query, route)`` makes the answer (``current_id``: the current
    snapshot's, which its envelope's ``current`` compares with); ``cost(snapshots, query)`` says about
    how many bytes it will have, which is how the compute pool prices it (``readiness/work.py``)."""

    compute: Callable[[Sequence[Snapshot], str, Query, Route], Answer]
    cost: Callable[[Sequence[Snapshot], Query], int]


@dataclass(frozen=True, slots=True)
class FromSummaries:
    """Answers computed from every listed snapshot's summary (``loaders.Summary``), never from
    a loaded archive: they change whenever any snapshot is published, so they are kept for the
    current lifetimes, under a key naming every snapshot.

    ``compute(summaries, current, query, route)`` makes the answer; ``cost(summaries, current,
    query)`` prices it, and raises the route's 404s before any work is admitted."""

    compute: Callable[[Sequence[Summary], Snapshot, Query, Route], Answer]
    cost: Callable[[Sequence[Summary], Snapshot, Query], int]


@dataclass(frozen=True, slots=True)
class FromReport:
    """Answers computed from the change report beside the snapshot whose id is the path's one
    argument (``{id}``); priced by the report's size. Kept in Redis as long as an archive's
    answers (its key names the snapshot's content digest), sent with the current
    ``Cache-Control`` (a republished snapshot may bring a new report).

    ``compute(series, current_id, report_bytes, query, route)`` makes the answer."""

    compute: Callable[[Snapshot, str, bytes, Query, Route], Answer]


@dataclass(frozen=True, slots=True)
class FromFiles:
    """Answers computed from the one whole snapshot the path's argument names (``{id}``: an id
    ``/api/v1/snapshots`` lists, or ``current``) and its summary (the indicator catalogue): the
    snapshot's bulk files (``readiness/domain/package.py``), one file in ``format`` per route.
    Built on the first request for them and kept like any answer, under the snapshot's id and
    content digest; sent with the current ``Cache-Control`` (``current`` moves on).

    ``compute(snapshot, summary, query, route)`` makes the file; ``cost(snapshot)`` prices it."""

    compute: Callable[[Snapshot, Summary, Query, Route], Answer]
    cost: Callable[[Snapshot], int]
    format: Format


Source = FromSnapshots | FromSummaries | FromReport | FromFiles
"""What a route's answers are computed from: the service has one way of answering per source."""

_PATH_ARGUMENT = re.compile(r"\{[a-z]+\}")


@dataclass(frozen=True, eq=False)
class Route:
    """One data route (docs/API.md): what the service, the URL table, the OpenAPI document and
    the edge read of it.

    ``name`` is the route's own word in cache keys, popularity and the warm-up (``v1``,
    ``indicators``), and its ``route`` label in the metrics. ``path`` may hold one ``{id}``.
    ``explained``: the name ``/api/v1/query/{explained}`` explains the route's queries by (None:
    not explained). ``deprecated``: the legacy route (its deprecation headers and error body).
    ``operation`` names its OpenAPI operations (``get<operation>``, ``head<operation>``),
    ``schema`` its answer's schema in the document; ``rows``, when given, are the JSON Schemas of
    its rows' columns, from which the document builds that schema (a table envelope).
    ``summary``, ``description``, ``tag`` and ``not_found`` (the 404 it may answer, None for
    none) are what the docs say of it. Identity is equality: a route is declared once.
    """

    name: str
    path: str
    grammar: Grammar
    source: Source
    operation: str
    summary: str
    description: str
    schema: str
    not_found: str | None = None
    tag: str = "data"
    explained: str | None = None
    deprecated: bool = False
    rows: tuple[tuple[str, JsonValue], ...] | None = None
    pattern: str = field(init=False)
    """The path as a Tornado URL pattern: each ``{argument}`` one path segment, a trailing slash allowed."""

    def __post_init__(self) -> None:
        literal = (re.escape(piece) for piece in _PATH_ARGUMENT.split(self.path))  # a "." is a dot
        object.__setattr__(self, "pattern", "([^/]+)".join(literal) + "/?")

    @property
    def paged(self) -> bool:
        """Whether its answers page with ``offset``: they link to the next page while rows remain."""
        return "offset" in self.grammar

    @property
    def formats(self) -> tuple[Format, ...]:
        """The formats its answers come in: CSV too when it takes ``format``; a bulk file's own."""
        if isinstance(self.source, FromFiles):
            return (self.source.format,)
        return (Format.JSON, Format.CSV) if "format" in self.grammar else (Format.JSON,)

    @property
    def templated(self) -> bool:
        """Whether its path holds an argument (``{id}``)."""
        return _PATH_ARGUMENT.search(self.path) is not None

    def parse(self, raw: str) -> Query:
        """The request's URL query string as this route reads it (``parse_query_string``).
        Raises UnknownParameter, InvalidParameter or InvalidRequest, as ``Query.parse``."""
        return parse_query_string(raw, self.grammar)

    @property
    def downloads(self) -> tuple[Download, ...]:
        """Its answers in each file format it has, each at a path of its own (``Download``); none
        for the deprecated route, whose clients have its ``format=csv``, nor for a bulk file
        (``FromFiles``), whose own path is already the file's."""
        if self.deprecated or isinstance(self.source, FromFiles):
            return ()
        return tuple(Download.of(self, chosen) for chosen in self.formats if chosen is not Format.JSON)

    def __repr__(self) -> str:
        return f"Route({self.name!r}, {self.path!r})"


DOWNLOAD_TYPE = "application/octet-stream"
"""The ``Content-Type`` of every download path: bytes to save, whatever the format (a generated
client reads them as a file: docs/DECISIONS.md#answers-as-files-a-path-per-file-format)."""


@dataclass(frozen=True, eq=False)
class Download:
    """A route's answer in one file format at a path of its own, ``{path}.{extension}``
    (``/api/v1/readiness.csv``, ``/api/v1/snapshots/{id}/changes.csv``): the route's query
    without ``format`` (the path says it), the same bytes as ``format=`` gives, sent as
    ``application/octet-stream`` with its file name (docs/API.md#answers-as-files). So that a generated
    client, which reads an answer by the first media type the document lists, gets a file's
    bytes rather than trying JSON (docs/DECISIONS.md#answers-as-files-a-path-per-file-format). Another
    format (Parquet) is one more ``Format`` a route takes: its download follows."""

    route: Route
    format: Format
    path: str
    grammar: Grammar
    pattern: str

    @classmethod
    def of(cls, route: Route, chosen: Format) -> Download:
        """``route``'s download in ``chosen``: its path with the extension, its grammar without ``format``."""
        path = f"{route.path}.{chosen.extension}"
        grammar = Grammar(tuple(p for p in route.grammar.parameters if p.name != "format"), route.grammar.strict,
                          route.grammar.aliases)
        return cls(route, chosen, path, grammar, _PATH_ARGUMENT.sub("([^/]+)", route.path) + re.escape(
            f".{chosen.extension}"))

    @property
    def name(self) -> str:
        """Its word in the edge's keys and the metrics: the route's, with the extension (``v1.csv``)."""
        return f"{self.route.name}.{self.format.extension}"

    def parse(self, raw: str) -> Query:
        """The query of the route's answer in this format: ``raw`` read by the download's grammar,
        in its format. Raises as ``Route.parse``; ``format`` is an unknown parameter here."""
        return replace(parse_query_string(raw, self.grammar), format=self.format)

    def canonical(self, raw: str) -> str:
        """The canonical query of ``raw`` at this path (the format left to the path)."""
        return parse_query_string(raw, self.grammar).canonical()
