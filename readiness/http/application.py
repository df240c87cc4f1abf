"""``ReadinessApplication``: Tornado's Application with the hit lane in front of the data
routes, and absolute-form request targets rewritten before routing."""

from __future__ import annotations

from typing import Any

from tornado.httputil import HTTPMessageDelegate, HTTPServerRequest, split_host_and_port
from tornado.web import Application, RequestHandler

from readiness.domain.route import Route
from readiness.http.handlers import DataHandler
from readiness.http.hits import HitDelegate, HitLane, LaneTarget


class ReadinessApplication(Application):
    """Tornado's Application, with GET and HEAD requests to the data routes sent through the
    hit lane first."""

    def __init__(self, lane: HitLane, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lane = lane
        self._targets: dict[Route, LaneTarget] = {}
        """Per route with a fixed path, its LaneTarget, made once (the hit path allocates nothing for it)."""

    def find_handler(self, request: HTTPServerRequest, **kwargs: Any) -> Any:
        """Route ``request``, an absolute-form target first rewritten to origin form
        (``to_origin_form``): the one place before routing, the lane and the handlers."""
        if not request.path.startswith("/"):
            to_origin_form(request)
        return super().find_handler(request, **kwargs)

    # Tornado annotates the return as its private _HandlerDelegate; its docs promise only an
    # HTTPMessageDelegate, which is what the server needs.
    def get_handler_delegate(  # type: ignore[override]
        self,
        request: HTTPServerRequest,
        target_class: type[RequestHandler],
        target_kwargs: dict[str, Any] | None = None,
        path_args: list[bytes] | None = None,
        path_kwargs: dict[str, bytes] | None = None,
    ) -> HTTPMessageDelegate:
        """The handler's delegate, wrapped in a HitDelegate for the lane's requests."""
        delegate = super().get_handler_delegate(request, target_class, target_kwargs, path_args, path_kwargs)
        if request.method in ("GET", "HEAD") and issubclass(target_class, DataHandler) and target_kwargs:
            route: Route = target_kwargs["route"]
            if path_args:  # Tornado gives the path's arguments as bytes, decoded for the handler as here
                path = tuple(argument.decode("utf-8", "replace") for argument in path_args)
                target = LaneTarget(route, target_class, path)
            else:
                target = self._targets.get(route) or self._targets.setdefault(route, LaneTarget(route, target_class))
            return HitDelegate(self.lane, target, request, delegate)
        return delegate


def to_origin_form(request: HTTPServerRequest) -> None:
    """Rewrite an absolute-form request target (``GET http://host/path?query``) to origin form
    (``/path?query``), and take the host from it.

    RFC 9112 (section 3.2.2) has a server accept the absolute form, which proxies send, and
    use its authority instead of the Host header. Tornado keeps the whole URL as the path, so
    no route would match. Other forms (``*``, ``host:port``) are left to be refused (404).
    """
    scheme, separator, rest = request.path.partition("://")
    if not separator or scheme.lower() not in ("http", "https"):
        return
    authority, _, path = rest.partition("/")
    after_path = (request.uri or "")[len(request.path) :]  # "?query", or nothing
    request.path = "/" + path
    request.uri = request.path + after_path
    host = authority.rpartition("@")[2]  # without any user information
    if host:
        request.host = host
        request.host_name = split_host_and_port(host.lower())[0]
