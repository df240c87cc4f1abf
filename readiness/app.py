"""The route table: builds the Tornado Application from a store and settings."""

from __future__ import annotations

import orjson
from config import Settings
from loaders import SnapshotStore
from tornado.web import Application

from readiness.cache import Answer, AnswerCache
from readiness.handlers import (
    DocumentHandler,
    HealthHandler,
    LegacyReadinessHandler,
    NotFoundHandler,
    ReadinessHandler,
    ReadyHandler,
)
from readiness.logs import log_request
from readiness.openapi import openapi_document
from readiness.service import ReadinessService


def make_app(settings: Settings, store: SnapshotStore) -> Application:
    """Wire handlers to one ReadinessService over ``store`` with an in-process cache."""
    service = ReadinessService(store, AnswerCache(settings.cache_bytes))
    openapi = Answer(orjson.dumps(openapi_document()))
    return Application(
        [
            (r"/api/v1/readiness/?", ReadinessHandler, {"service": service}),
            (r"/api/readiness/?", LegacyReadinessHandler, {"service": service}),
            (r"/api/v1/openapi.json", DocumentHandler, {"document": openapi}),
            (r"/healthz", HealthHandler),
            (r"/readyz", ReadyHandler, {"store": store}),
        ],
        default_handler_class=NotFoundHandler,
        log_function=log_request,
    )
