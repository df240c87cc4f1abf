"""What a query means: ``/api/v1/query/{route}`` (docs/API.md#get-apiv1queryroute-what-a-query-means).

The request's own query string, parsed by the service's parser for the data route named, and
said back in its canonical form: the URL that gives the same answer, and each parameter's
canonical value (``sort=score`` is ``sort=Composite Readiness Score``, ``region=lac`` is
``region=Latin America & Caribbean``). It checks the form of a query, never whether what it
names exists: no snapshot is read, so a ``year`` without an archive is explained, not refused.
Pure: no I/O.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import orjson

from readiness.domain.envelope import API_VERSION
from readiness.domain.errors import UnknownQueryRoute
from readiness.domain.query import Query
from readiness.domain.route import Route
from readiness.domain.routes import EXPLAINED


def explained_route(name: str) -> Route:
    """The data route ``/api/v1/query/{name}`` explains, by the name it declares
    (``Route.explained``: ``readiness`` is ``/api/v1/readiness``). Raises UnknownQueryRoute,
    naming the accepted names, for any other."""
    found = EXPLAINED.get(name)
    if found is None:
        raise UnknownQueryRoute(name, tuple(EXPLAINED))
    return found


def explain(query: Query, path: str) -> dict[str, object]:
    """What ``query`` means on the data route at ``path``: its canonical query string, the URL
    that asks exactly that (the path alone when the query is empty) and the canonical
    parameters, name to value, in canonical order (defaults left out, as ``Query.canonical``)."""
    canonical = query.canonical()
    return {
        "apiVersion": API_VERSION,
        "route": path,
        "query": canonical,
        "url": f"{path}?{canonical}" if canonical else path,
        "parameters": dict(parse_qsl(canonical, keep_blank_values=True)),
    }


def explain_body(query: Query, path: str) -> bytes:
    """``explain`` serialized: the body of ``/api/v1/query/{route}``."""
    return orjson.dumps(explain(query, path))
