"""The query API: parsing, selection, the envelope, the cache and the Tornado handlers.

The names below are imported on first use, not with the package: the domain modules
(``readiness.query``, ``readiness.select``, ...) are pure, and importing one must not load
Tornado, redis or prometheus_client through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from readiness.app import make_app
    from readiness.cache import Answer, AnswerCache
    from readiness.errors import ReadinessError
    from readiness.query import Query
    from readiness.service import CacheOutcome, ReadinessService, Route, cache_key, compute, request_key

_HOMES = {
    "Answer": "readiness.cache",
    "AnswerCache": "readiness.cache",
    "CacheOutcome": "readiness.service",
    "Query": "readiness.query",
    "ReadinessError": "readiness.errors",
    "ReadinessService": "readiness.service",
    "Route": "readiness.service",
    "cache_key": "readiness.service",
    "compute": "readiness.service",
    "request_key": "readiness.service",
    "make_app": "readiness.app",
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
