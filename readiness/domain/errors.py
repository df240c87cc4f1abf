"""The one hierarchy of errors reported to clients; ``handlers.BaseHandler`` renders them."""

from __future__ import annotations

ALLOWED_METHODS = "GET, HEAD, OPTIONS"
"""The methods every route answers (docs/DECISIONS.md#routes-and-errors)."""


class ReadinessError(Exception):
    """Base for errors reported to clients: ``status`` is the HTTP status to answer with,
    ``headers`` what the response carries besides the route's own (``Allow``, ``Retry-After``)."""

    status = 500
    headers: tuple[tuple[str, str], ...] = ()

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidParameter(ReadinessError):
    """A query parameter has a value the API does not accept (docs/DECISIONS.md#routes-and-errors)."""

    status = 400

    def __init__(self, name: str, value: str, accepted: str) -> None:
        super().__init__(
            f"Invalid request. {name}={_shown(value)} is not valid; use {accepted}."
        )
        self.name = name


class UnknownParameter(ReadinessError):
    """A v1 route got a parameter name it does not take (docs/DECISIONS.md#parameter-rules):
    400 naming it, the nearest accepted name when there is one, and every accepted name."""

    status = 400

    def __init__(self, name: str, suggestion: str | None, accepted: tuple[str, ...]) -> None:
        hint = f" Did you mean {suggestion!r}?" if suggestion is not None else ""
        names = f"Accepted parameters: {', '.join(accepted)}." if accepted else "This route takes no parameters."
        super().__init__(f"Invalid request. Unknown parameter {_shown(name)}.{hint} {names}")
        self.name = name


class ConflictingParameters(ReadinessError):
    """Two names for one parameter given together (an alias and the name it stands for, or two
    aliases of one name: docs/API.md#aliases): 400 naming both, since neither can be chosen
    without guessing which the client meant."""

    status = 400

    def __init__(self, name: str, other: str, target: str) -> None:
        both = f"{name} is another name for {other}" if other == target else f"both stand for {target}"
        super().__init__(f"Invalid request. {name} and {other} were both given, and {both}: give one of them.")
        self.name = name


class InvalidRequest(ReadinessError):
    """The parameters are valid one by one but not together (docs/API.md#errors: level=country, no code)."""

    status = 400

    def __init__(self, problem: str) -> None:
        super().__init__(f"Invalid request. {problem}")


class AnswerTooLarge(ReadinessError):
    """The answer a query asks for would be over the largest one answer may be
    (docs/API.md#errors: an answer too large): 400 saying how large, and how to ask for less."""

    status = 400

    def __init__(self, estimated: int, limit: int, paged: bool, narrowing: tuple[str, ...]) -> None:
        ways = []
        if paged:
            ways.append("ask for it a page at a time (limit= and offset=; the Link header names the next page)")
        if narrowing:
            ways.append(f"narrow it ({', '.join(f'{name}=' for name in narrowing)})")
        advice = " or ".join(ways) or "narrow it"
        super().__init__(
            f"Invalid request. This answer would be about {_megabytes(estimated)}, over the "
            f"{_megabytes(limit)} one answer may be: {advice}."
        )


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


class ArchiveNotFound(ReadinessError):
    """A valid year whose December archive is unavailable (docs/API.md#parameters: year)."""

    status = 404

    def __init__(self, year: int) -> None:
        super().__init__(f"No archived snapshot for year={year:04d}: its December data is unavailable.")


class CountryNotFound(ReadinessError):
    """Legacy route only: a requested code matches no country (docs/DECISIONS.md#routes-and-errors)."""

    status = 404

    def __init__(self, codes: list[str]) -> None:
        super().__init__(f"Country code not found: {', '.join(codes)}")


class NotFound(ReadinessError):
    """A path the service does not serve."""

    status = 404

    def __init__(self, path: str) -> None:
        super().__init__(f"Not found: {_shown(path)}. The API lives at /api/v1/readiness.")


class MethodNotAllowed(ReadinessError):
    """An HTTP method other than GET, HEAD or OPTIONS (docs/DECISIONS.md#routes-and-errors)."""

    status = 405
    headers = (("Allow", ALLOWED_METHODS),)

    def __init__(self, method: str) -> None:
        super().__init__(f"Method {_shown(method)} is not allowed; use GET, HEAD or OPTIONS.")


class UriTooLong(ReadinessError):
    """A request URL over the limit: refused before any parsing."""

    status = 414

    def __init__(self, limit: int) -> None:
        super().__init__(f"Invalid request. The URL is longer than {limit} bytes.")


class NotReady(ReadinessError):
    """No snapshot is loaded (bad data directory): the service cannot answer yet."""

    status = 503

    def __init__(self) -> None:
        super().__init__("No snapshot is loaded; the service is not ready. Try again later.")


class Overloaded(ReadinessError):
    """Too much uncached work is admitted already: this miss is refused rather than queued
    without bound (503 with ``Retry-After``; docs/CACHING.md#the-compute-pool-bounded-work-for-misses)."""

    status = 503

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "The service is busy computing other uncached answers. "
            f"Try again in {retry_after} s, or ask for fewer countries."
        )
        self.retry_after = retry_after
        self.headers = (("Retry-After", str(retry_after)),)


def _shown(value: str, limit: int = 60) -> str:
    """Quote a client's value for a message, cut short so a message stays readable."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


class ProtocolError(ReadinessError):
    """A refusal raised by the HTTP framework itself, rendered in the same envelope."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class SnapshotNotFound(ReadinessError):
    """A well-formed snapshot id the catalogue does not list
    (docs/API.md#get-apiv1snapshotsidchanges-what-changed)."""

    status = 404

    def __init__(self, snapshot_id: str) -> None:
        super().__init__(
            f"No snapshot {_shown(snapshot_id)}: GET /api/v1/snapshots lists the snapshots there are."
        )


class InvalidSnapshotId(ReadinessError):
    """A path segment that is not a snapshot id (``YYYY-MM``): refused before anything looks for it."""

    status = 400

    def __init__(self, value: str) -> None:
        super().__init__(
            f"Invalid request. snapshot id {_shown(value)} is not valid; use a month YYYY-MM "
            "such as 2026-11 (GET /api/v1/snapshots lists them)."
        )


class InvalidFilesSnapshotId(ReadinessError):
    """A bulk file's path segment that is neither ``current`` nor a snapshot id (``YYYY-MM``):
    refused before anything looks for it (docs/API.md#downloads)."""

    status = 400

    def __init__(self, value: str) -> None:
        super().__init__(
            f"Invalid request. snapshot id {_shown(value)} is not valid; use current or a month YYYY-MM "
            "such as 2026-11 (GET /api/v1/snapshots lists them)."
        )


class ChangeReportNotFound(ReadinessError):
    """A listed snapshot without a usable change report (none written, or not readable)."""

    status = 404

    def __init__(self, snapshot_id: str, damaged: bool = False) -> None:
        why = "its change report cannot be read" if damaged else "it has no change report"
        super().__init__(
            f"No change report for snapshot {_shown(snapshot_id)}: {why}. Reports are written "
            "when a snapshot is published (/docs, the API reference)."
        )


class NoSnapshotInYears(ReadinessError):
    """``years`` (history, indicators, aggregates) selects no snapshot
    (docs/API.md#get-apiv1history-scores-over-time): a 404 like ``year`` without a December
    archive, naming the years that have one."""

    status = 404

    def __init__(self, years: tuple[int, int], shown: list[int]) -> None:
        asked = f"{years[0]:04d}" if years[0] == years[1] else f"{years[0]:04d}:{years[1]:04d}"
        have = ", ".join(f"{year:04d}" for year in shown) or "none"
        super().__init__(
            f"No snapshot for years={asked}: years selects the December archives and the current snapshot, "
            f"which exist for {have} (GET /api/v1/snapshots lists them)."
        )


class UnknownQueryRoute(ReadinessError):
    """``/api/v1/query/{route}`` for a name that is not a query route it explains
    (docs/API.md#get-apiv1queryroute-what-a-query-means): 404 naming the ones it does."""

    status = 404

    def __init__(self, name: str, accepted: tuple[str, ...]) -> None:
        super().__init__(
            f"No query route {_shown(name)} to explain: use /api/v1/query/ followed by one of {', '.join(accepted)}."
        )
