"""The query API: parsing, selection, the envelope, the cache and the Tornado handlers.

The names below are imported on first use, not with the package: the domain modules
(``readiness.domain.query``, ``readiness.domain.select``, ...) are pure, and importing one must not load
Tornado, redis or prometheus_client through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from readiness.http.app import make_app
    from readiness.cache.answers import Answer, AnswerCache
    from readiness.domain.errors import ReadinessError
    from readiness.domain.query import Query, Route
    from readiness.service import CacheOutcome, ReadinessService, cache_key, compute, request_key

_HOMES = {
    "Answer": "readiness.cache.answers",
    "AnswerCache": "readiness.cache.answers",
    "CacheOutcome": "readiness.service",
    "Query": "readiness.domain.query",
    "ReadinessError": "readiness.domain.errors",
    "ReadinessService": "readiness.service",
    "Route": "readiness.domain.query",
    "cache_key": "readiness.service",
    "compute": "readiness.service",
    "request_key": "readiness.service",
    "make_app": "readiness.http.app",
}

__all__ = [
    "Answer",
    "AnswerCache",
    "CacheOutcome",
    "Query",
    "ReadinessError",
    "ReadinessService",
    "Route",
    "cache_key",
    "compute",
    "make_app",
    "request_key",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module when first asked for (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'readiness' has no attribute {name!r}")
    return getattr(import_module(home), name)
