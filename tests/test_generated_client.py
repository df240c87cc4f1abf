"""A real generated client: openapi-python-client, run on the served OpenAPI document as is, and
every operation of that document called through the package it generates (docs/TESTING.md#the-generated-client).

The operations come from the document itself, so a route added to it is called here without a
change to this module, and a path with no generated function fails. Each answer is compared with
a direct GET of the same query: the client sends the arrays ``codes``, ``fields`` and
``indicators`` exploded (``fields=A&fields=B``), the direct GET comma-joined (``fields=A,B``), and
the service merges repeated list parameters, so the bytes must be the same, and the client's
parsed models must give back exactly the JSON that was sent.

The client is generated once per module (about 2 s) into a temporary directory, with no
post-hooks (no formatter, nothing from the network).
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import subprocess
import sys
import threading
import typing
from collections.abc import Iterator, Mapping
from enum import Enum
from types import ModuleType
from typing import Any

import httpx
import orjson
import pytest
from openapi_python_client.strings import snake_case

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app
from readiness.http.openapi import DOCUMENT_PATH, openapi_document
from tests.conftest import SAMPLE
from tests.openapi_server import serving

PACKAGE = "readiness_generated_client"
"""The generated package's name: unlike any module of the project, so its import cannot shadow one."""

CONFIG = (f"package_name_override: {PACKAGE}\npost_hooks: []\ncontent_type_overrides:\n"
          "  application/zip: application/octet-stream\n  application/vnd.apache.parquet: application/octet-stream\n")
"""openapi-python-client's configuration: no post-hooks (by default it runs ruff over the code);
the bulk files' media types read as bytes, which it does only for octet-stream
(docs/API.md#generated-clients)."""

LIST_VALUES: dict[str, list[str]] = {
    "codes": ["KEN", "BRA", "IND"],
    "indicators": ["GE.EST", "IT.NET.USER.ZS"],
    "fields": ["Country Name", "Population, total", "Composite Readiness Score", "Global Rank"],
}
"""A list for each array parameter; a route's ``fields`` keeps those its enum names (history has
no ``Population, total``, whose comma also shows that an exploded value is read whole)."""

PATH_VALUES = {"id": "2026-11"}
"""A value for each path parameter: the sample's current snapshot."""

BUILT: Any = openapi_document()
"""The document as built; the served one is the same (tests/test_openapi.py)."""
OPERATIONS = [
    pytest.param(path, method, id=f"{method.upper()} {path}")
    for path, item in BUILT["paths"].items() for method in item
]
"""Every operation of the document."""


# --- the server and the generated package ---------------------------------------------------


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """The real app over the sample on a free 127.0.0.1 port; every snapshot's summary read
    first, so history answers at once."""
    store = SnapshotStore(SAMPLE)
    store.load_current()
    # On a thread of its own: asyncio.run on the main thread upsets pytest-tornado's loops.
    reader = threading.Thread(target=asyncio.run, args=(store.summaries(),), name="summaries")
    reader.start()
    reader.join(300)
    # No compute budget: whole-sample tables in quick succession are not what this checks.
    with serving(make_app(Settings(compute_bytes_per_second=0), store)) as url:
        yield url


@pytest.fixture(scope="module")
def document(served: str) -> dict[str, Any]:
    """The OpenAPI document as the service serves it."""
    response = httpx.get(served + DOCUMENT_PATH, timeout=30)
    assert response.status_code == 200
    parsed: dict[str, Any] = response.json()
    return parsed


@pytest.fixture(scope="module")
def generated(document: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package openapi-python-client generates from the served document, imported;
    ``--fail-on-warning``: a part of the document it cannot read fails here."""
    folder = tmp_path_factory.mktemp("generated")
    (folder / "openapi.json").write_bytes(orjson.dumps(document))
    (folder / "config.yml").write_text(CONFIG)
    command = [
        sys.executable, "-m", "openapi_python_client", "generate", "--path", "openapi.json",
        "--config", "config.yml", "--meta", "none", "--output-path", PACKAGE, "--fail-on-warning",
    ]
    run = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def functions(generated: ModuleType) -> dict[str, ModuleType]:
    """The generated endpoint modules (one per operation), by module name."""
    api = importlib.import_module(f"{PACKAGE}.api")
    return {
        info.name.rpartition(".")[2]: importlib.import_module(info.name)
        for info in pkgutil.walk_packages(api.__path__, api.__name__ + ".") if not info.ispkg
    }


class Sent:
    """The URLs the generated client sent, recorded by an httpx event hook."""

    def __init__(self) -> None:
        self.urls: list[httpx.URL] = []

    def __call__(self, request: httpx.Request) -> None:
        self.urls.append(request.url)


@pytest.fixture
def sent() -> Sent:
    return Sent()


@pytest.fixture
def client(generated: ModuleType, served: str, sent: Sent) -> Iterator[Any]:
    """The generated package's ``Client`` for the server, as a user builds it."""
    client_module = importlib.import_module(f"{PACKAGE}.client")
    with client_module.Client(
        base_url=served, raise_on_unexpected_status=True, timeout=httpx.Timeout(30),
        httpx_args={"event_hooks": {"request": [sent]}},
    ) as made:
        yield made


# --- calling an operation ---------------------------------------------------------------------


def _operation(document: Mapping[str, Any], path: str, method: str) -> dict[str, Any]:
    operation: dict[str, Any] = document["paths"][path][method]
    return operation


def _function(functions: Mapping[str, ModuleType], operation: Mapping[str, Any]) -> ModuleType:
    """The generated module of ``operation``; fails when there is none."""
    module = functions.get(snake_case(operation["operationId"]))
    if module is None or not hasattr(module, "sync_detailed"):
        pytest.fail(f"no generated function for {operation['operationId']}")
    return module


def _queries(operation: Mapping[str, Any]) -> list[dict[str, str | list[str]]]:
    """The queries to send: none, and, where the operation takes arrays, each array given a list.

    An operation whose default answer is not JSON (the citation file: BibTeX) is asked for its
    JSON format (CSL-JSON), the one a generated client parses (docs/API.md#generated-clients)."""
    lists: dict[str, str | list[str]] = {}
    for parameter in operation.get("parameters", []):
        name, schema = parameter["name"], parameter["schema"]
        if name == "format" and "json" not in schema.get("enum", ["json"]) and "csl" in schema.get("enum", []):
            return [{"format": "csl"}]
        if parameter["in"] == "query" and name in LIST_VALUES:
            assert schema["type"] == "array", f"{name} is a list: the document must declare an array"
            values = [value for value in LIST_VALUES[name] if value in schema["items"].get("enum", [value])]
            lists[name] = values
    return [{}, lists] if lists else [{}]


def _is_enum(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, Enum)


def _argument(value: str | list[str], annotation: Any) -> Any:
    """``value`` as the generated function's parameter wants it: an enum member for a closed set,
    a list (of enum members for an enum array) for an array."""
    for option in typing.get_args(annotation) or (annotation,):
        if isinstance(value, list) and typing.get_origin(option) is list:
            (item,) = typing.get_args(option)
            return [item(one) if _is_enum(item) else one for one in value]
        if isinstance(value, str) and _is_enum(option):
            return option(value)
        if isinstance(value, str) and option is str:
            return value
    raise AssertionError(f"{value!r} does not fit the generated parameter type {annotation}")


def _arguments(
    module: ModuleType, operation: Mapping[str, Any], query: Mapping[str, str | list[str]]
) -> dict[str, Any]:
    """The keyword arguments of ``module.sync_detailed`` for the path values and ``query``."""
    signature = typing.get_type_hints(module.sync_detailed)
    arguments: dict[str, Any] = {}
    given = {**{p["name"]: PATH_VALUES[p["name"]] for p in operation.get("parameters", []) if p["in"] == "path"},
             **query}
    for name, value in given.items():
        python_name = next((n for n in (snake_case(name), snake_case(name) + "_") if n in signature), None)
        assert python_name is not None, f"the generated function has no parameter for {name}"
        arguments[python_name] = _argument(value, signature[python_name])
    return arguments


def _target(path: str, query: Mapping[str, str | list[str]]) -> tuple[str, dict[str, str]]:
    """The direct request of the same query: path values filled in, lists comma-joined."""
    for name, value in PATH_VALUES.items():
        path = path.replace("{" + name + "}", value)
    return path, {name: ",".join(value) if isinstance(value, list) else value for name, value in query.items()}


def _plain(parsed: Any) -> Any:
    """A parsed answer as plain JSON values: the generated models' ``to_dict`` (an array's items too)."""
    if isinstance(parsed, list):
        return [_plain(item) for item in parsed]
    return parsed.to_dict() if hasattr(parsed, "to_dict") else parsed


def _difference(parsed: Any, sent: Any, where: str = "") -> str | None:
    """Where the client's parsed answer first differs from the JSON sent (a key the document
    does not declare is dropped by the models), or None."""
    if isinstance(parsed, dict) and isinstance(sent, dict):
        if set(parsed) != set(sent):  # JSON objects are unordered: the models keep their own order
            lost, added = sorted(set(sent) - set(parsed)), sorted(set(parsed) - set(sent))
            return f"{where or '/'}: keys {lost} lost, {added} added"
        found = (_difference(parsed[key], sent[key], f"{where}/{key}") for key in sent)
        return next((difference for difference in found if difference), None)
    if isinstance(parsed, list) and isinstance(sent, list) and len(parsed) == len(sent):
        pairs = enumerate(zip(parsed, sent, strict=True))
        found = (_difference(one, other, f"{where}/{index}") for index, (one, other) in pairs)
        return next((difference for difference in found if difference), None)
    return None if parsed == sent and type(parsed) is type(sent) else f"{where}: {parsed!r} for {sent!r}"


# --- the tests -------------------------------------------------------------------------------------


def test_generated_client_has_a_function_for_every_operation(
    document: dict[str, Any], functions: dict[str, ModuleType]
) -> None:
    operations = [operation for item in document["paths"].values() for operation in item.values()]
    assert len(operations) == len(OPERATIONS) >= 19
    for operation in operations:
        _function(functions, operation)


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_generated_client_answers_as_a_direct_request(
    document: dict[str, Any], functions: dict[str, ModuleType], client: Any, sent: Sent, served: str,
    path: str, method: str,
) -> None:
    """Each operation, called through the generated function with and without its arrays, gets
    the bytes a direct request of the same query gets, and parses them without loss."""
    operation = _operation(document, path, method)
    module = _function(functions, operation)
    for query in _queries(operation):
        response = module.sync_detailed(client=client, **_arguments(module, operation, query))
        target, params = _target(path, query)
        direct = httpx.request(method.upper(), served + target, params=params, timeout=30)
        assert response.status_code == direct.status_code == 200, (path, query, response.content[:300])
        assert response.content == direct.content, (path, query)
        assert response.headers.get("ETag") == direct.headers.get("ETag"), (path, query)
        for name, values in query.items():  # sent exploded: one pair per value
            expected = values if isinstance(values, list) else [values]
            assert sent.urls[-1].params.get_list(name) == expected, sent.urls[-1]
        if method == "head":
            assert response.content == b""
        elif _is_file(operation):  # a download: the generated client's File, the bytes sent
            assert response.parsed.payload.read() == direct.content, (path, query)
        elif operation["tags"] == ["downloads"] and "application/json" not in operation["responses"]["200"]["content"]:
            # a bulk file: Parquet and zip as a File of bytes, CSV as text
            file = response.parsed
            assert (file.payload.read() if hasattr(file, "payload") else file.encode()) == direct.content
        else:
            difference = _difference(_plain(response.parsed), orjson.loads(direct.content))
            assert difference is None, (path, query, difference)


def _is_file(operation: Mapping[str, Any]) -> bool:
    """The operation is a download: its 200 is ``application/octet-stream`` bytes."""
    return list(operation["responses"]["200"].get("content", {})) == ["application/octet-stream"]


DOWNLOADS = [
    pytest.param(path, id=f"GET {path}") for path, item in BUILT["paths"].items() if _is_file(item["get"])
]


def test_every_csv_answer_and_citation_format_has_a_download_operation() -> None:
    paths = [param.values[0] for param in DOWNLOADS]
    for path, item in BUILT["paths"].items():
        formats = next((p["schema"].get("enum", []) for p in item["get"].get("parameters", [])
                        if p["name"] == "format"), [])
        bulk = item["get"]["tags"] == ["downloads"]  # a snapshot's bulk file: a file by its own path already
        if "text/csv" in item["get"]["responses"]["200"].get("content", {}) and not item["get"].get("deprecated"):
            assert (f"{path}.csv" in paths) != bulk, path
        if path == "/api/v1/citation":
            assert {f"{path}.{extension}" for extension in ("bib", "ris", "json", "txt")} <= set(paths)
            assert len(formats) == 5  # the four formats and the empty value


@pytest.mark.parametrize("path", DOWNLOADS)
def test_generated_client_downloads_come_as_files(
    document: dict[str, Any], functions: dict[str, ModuleType], client: Any, served: str, path: str,
) -> None:
    """A download path through the generated client (docs/API.md#generated-clients): its function
    returns a ``File`` whose payload is exactly the bytes of the route's own ``format=`` answer
    (the CSV's byte order mark and CRLF line ends included), arrays sent exploded all the same;
    the file's name and type are in the headers."""
    operation = _operation(document, path, "get")
    module = _function(functions, operation)
    query = _queries(operation)[-1]
    response = module.sync_detailed(client=client, **_arguments(module, operation, query))
    stem, _, extension = path.rpartition(".")
    fmt = {"bib": "bibtex", "json": "csl", "txt": "text"}.get(extension, extension)
    target, params = _target(stem, {**query, "format": fmt})
    direct = httpx.get(served + target, params=params, timeout=30)
    assert response.status_code == direct.status_code == 200
    assert response.headers["Content-Type"] == "application/octet-stream"
    assert response.headers["Content-Disposition"] == direct.headers["Content-Disposition"]
    file = response.parsed
    assert type(file).__name__ == "File" and file.payload.read() == direct.content
    if extension == "csv":
        assert direct.content.startswith(b"\xef\xbb\xbf")
        assert direct.headers["Content-Type"] == "text/csv; charset=utf-8"


def test_generated_client_types_whole_numbers_as_int(
    document: dict[str, Any], functions: dict[str, ModuleType], client: Any, served: str,
) -> None:
    """``limit``, ``offset``, ``year`` and ``mrv`` are integers in the document, so the generated
    functions take ``int`` (openapi-python-client 0.29 gave ``str`` for the patterns they were),
    and a call with them gets the direct request's answer."""
    for path, names in (("/api/v1/readiness", ("limit", "offset", "year")), ("/api/v1/history", ("mrv",))):
        module = _function(functions, _operation(document, path, "get"))
        hints = typing.get_type_hints(module.sync_detailed)
        for name in names:
            assert int in typing.get_args(hints[name]), (path, name, hints[name])
    module = _function(functions, _operation(document, "/api/v1/readiness", "get"))
    response = module.sync_detailed(client=client, limit=3, offset=2)
    direct = httpx.get(served + "/api/v1/readiness", params={"limit": "3", "offset": "2"}, timeout=30)
    assert response.status_code == 200 and response.content == direct.content
    assert (response.parsed.page, response.parsed.per_page, response.parsed.total) == (1, 3, direct.json()["total"])
