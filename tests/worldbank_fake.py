"""A fake World Bank Indicators API on 127.0.0.1, serving the recorded answers of
tests/fixtures/worldbank/, with scripted failures.

It answers like the real API: ``/v2/country?page=N`` and
``/v2/country/all/indicator/<code>?source=S&page=N`` give the recorded pages; an unknown
indicator, or a governance series asked without ``source=3``, gives the API's error message
(status 200, as the API does). ``faults`` scripts what the next requests of a path get
instead: an HTTP status, a hang (until the test ends: the client's timeout fires), or a body.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from collections.abc import Callable, Iterator
from urllib.parse import parse_qs, urlsplit

RECORDED = Path(__file__).resolve().parent / "fixtures" / "worldbank"
WGI = {"GE.EST", "RQ.EST", "CC.EST", "VA.EST"}
NOT_FOUND = (b'[{"message":[{"id":"175","key":"Invalid format","value":"The indicator was not '
             b'found. It may have been deleted or archived."}]}]')
HANG = -1
"""A fault: hold the request without answering until the server stops."""


@dataclass
class FakeWorldBank:
    """The running fake: its base URL, the requests it saw, and faults to serve next.

    ``faults[path]`` is a list consumed one request at a time: an int status (503), HANG, or
    bytes served as a 200 body. ``edit`` may rewrite any recorded answer before it is served.
    """

    base_url: str
    requests: list[str] = field(default_factory=list)
    faults: dict[str, list[int | bytes]] = field(default_factory=lambda: defaultdict(list))
    edit: Callable[[str, bytes], bytes] = lambda name, body: body
    stop: threading.Event = field(default_factory=threading.Event)

    def seen(self, path: str) -> int:
        """How many requests asked for ``path`` (any page)."""
        return sum(urlsplit(url).path == path for url in self.requests)


def _answer(fake: FakeWorldBank, url: str) -> tuple[int, bytes]:
    parts = urlsplit(url)
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    page = query.get("page", "1")
    if parts.path == "/v2/country":
        name = f"country-p{page}.json"
    elif parts.path.startswith("/v2/country/all/indicator/"):
        code = parts.path.rsplit("/", 1)[-1]
        if (code in WGI) != (query.get("source") == "3"):
            return 200, NOT_FOUND
        name = f"{code}-p{page}.json"
    else:
        return 404, b"<html><body>Resource not found</body></html>"
    path = RECORDED / name
    if query.get("format") != "json" or not path.is_file():
        return 200, NOT_FOUND
    return 200, fake.edit(name, path.read_bytes())


def _handler(fake: FakeWorldBank) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            fake.requests.append(self.path)
            faults = fake.faults.get(urlsplit(self.path).path)
            fault = faults.pop(0) if faults else None
            if fault == HANG:
                fake.stop.wait(60)
                return
            if isinstance(fault, int):
                status, body = fault, b"<html><body>Service Unavailable</body></html>"
            elif isinstance(fault, bytes):
                status, body = 200, fault
            else:
                status, body = _answer(fake, self.path)
            self.send_response(status)
            self.send_header("Content-Type", "application/json;charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


def serve() -> Iterator[FakeWorldBank]:
    """Run the fake until the generator is closed (a pytest fixture's body)."""
    fake = FakeWorldBank("")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v2"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.stop.set()
        server.shutdown()
        server.server_close()
