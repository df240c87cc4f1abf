"""The query API: parsing, selection, the envelope, the cache and the Tornado handlers."""

from readiness.app import make_app
from readiness.cache import Answer, AnswerCache
from readiness.errors import ReadinessError
from readiness.query import Query
from readiness.service import CacheOutcome, ReadinessService, Route, compute

__all__ = [
    "Answer",
    "AnswerCache",
    "CacheOutcome",
    "Query",
    "ReadinessError",
    "ReadinessService",
    "Route",
    "compute",
    "make_app",
]
