"""Run by tests/test_client_package.py with the python of a virtualenv into which only the
client's wheel and its dependencies were installed: it uses readiness_client as an analyst would
and prints what it got as one JSON object, for the test to compare with the service's own JSON.

    python client_package_script.py SERVICE_URL FAKE_URL CACHE_DIR

Standard library, pandas and readiness_client only: nothing of the project is importable there.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import importlib.util
import json
import sys
import time
import warnings
from typing import Any

import pandas as pd

import readiness_client
from readiness_client import Client, NoticeWarning


def table(frame: pd.DataFrame) -> dict[str, Any]:
    """A DataFrame as JSON: its rows (missing values as null), dtypes and provenance."""
    attrs = {key: frame.attrs.get(key) for key in ("snapshot", "total", "pages", "revalidated", "notice")}
    return {"rows": json.loads(frame.to_json(orient="records")), "dtypes": {str(name): str(dtype) for name, dtype
                                                                         in frame.dtypes.items()}, **attrs}


def main(service: str, fake: str, cache_dir: str) -> dict[str, Any]:
    client = Client(service, cache_dir=cache_dir)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        readiness = client.readiness(region="lac")
    history = Client(service, page_size=50, cache_dir=cache_dir).history(codes=["KEN", "BRA"], shape="long")
    again = Client(service, page_size=50, cache_dir=cache_dir).history(codes=["KEN", "BRA"], shape="long")
    began = time.monotonic()
    retried = Client(fake, cache=False, max_wait=5).readiness()
    waited = time.monotonic() - began
    return {
        "readiness": table(readiness),
        "history": table(history),
        "history_again": table(again),
        "aggregates": table(client.aggregates(by="region")),
        "pinned": table(Client(service, snapshot="2024-06", cache_dir=cache_dir).readiness(codes=["KEN"])),
        "pinned_current": client.pin().snapshot,
        "retried": {"table": table(retried), "waited": waited},
        "warnings": [{"category": warning.category.__name__, "message": str(warning.message),
                      "user_warning": issubclass(warning.category, UserWarning),
                      "notice_warning": issubclass(warning.category, NoticeWarning)} for warning in caught],
        "citations": {format_: client.citation(format_) for format_ in ("bibtex", "ris", "csl", "text")},
        "module": readiness_client.__file__,
        "project_importable": [name for name in ("readiness", "loaders", "tests", "server")
                               if importlib.util.find_spec(name) is not None],
        "typed": importlib.resources.files("readiness_client").joinpath("py.typed").is_file(),
        "version": readiness_client.__version__,
        "distribution": importlib.metadata.version("readiness-client"),
    }


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoticeWarning)
        print(json.dumps(main(*sys.argv[1:4])))
