"""Process entry point: settings, snapshot, application, listener, signals.

    python server.py [--host HOST] [--port N] [--data-dir DIR]

With no arguments and no ``READINESS_*`` variables it serves the bundled synthetic sample on
127.0.0.1:8080 with the in-process cache only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from config import Settings, SettingsError
from loaders import SnapshotStore
from readiness import make_app
from readiness.logs import configure

log = logging.getLogger("readiness.server")


def parse_args(argv: Sequence[str], defaults: Settings) -> Settings:
    """Command-line flags over the environment's settings."""
    parser = argparse.ArgumentParser(description="Readiness Index Data Service")
    parser.add_argument("--host", help=f"address to listen on (default {defaults.host})")
    parser.add_argument("--port", type=int, help=f"port to listen on (default {defaults.port})")
    parser.add_argument("--data-dir", type=Path, help=f"data directory (default {defaults.data_dir})")
    args = parser.parse_args(argv)
    return replace(
        defaults,
        host=args.host or defaults.host,
        port=defaults.port if args.port is None else args.port,
        data_dir=args.data_dir or defaults.data_dir,
    )


async def serve(settings: Settings) -> None:
    """Load the current snapshot, listen, and run until SIGINT or SIGTERM."""
    store = SnapshotStore(settings.data_dir, settings.archive_slots)
    if store.load_current() is None:
        log.error("no usable snapshot in %s; /readyz fails until one is published", settings.data_dir)
    app = make_app(settings, store)
    server = app.listen(settings.port, settings.host, xheaders=True)
    log.info("listening on http://%s:%d/api/v1/readiness", settings.host, settings.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    server.stop()
    await server.close_all_connections()
    log.info("stopped")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the service; return the process exit status."""
    try:
        settings = parse_args(sys.argv[1:] if argv is None else argv, Settings.from_env(os.environ))
    except SettingsError as error:
        print(f"server.py: {error}", file=sys.stderr)
        return 2
    configure(settings.log_level)
    asyncio.run(serve(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
