"""readiness-client: the Readiness Index Data Service as pandas DataFrames.

    from readiness_client import Client
    Client().readiness(region="lac")

See the package's README.md for a worked example.
"""

from readiness_client.client import Client, NoticeWarning, SnapshotChanged
from readiness_client.transport import ApiError, __version__

__all__ = ["ApiError", "Client", "NoticeWarning", "SnapshotChanged", "__version__"]
