"""Passwords kept out of messages: no error or log line shows the password of a URL.

A Redis URL may carry one (``redis://user:password@host:6379/0``, or ``?password=``), and so
may a source URL given to the builder. Every message that can show such a URL, or an error
raised while using it, goes through ``redact``; the server's log formatter applies it to every
log line as well (readiness/http/logs.py).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

MASK = "***"
"""What a password is replaced with."""

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]*")
"""A URL inside a message: a scheme, ``://``, then anything up to a space or a quote."""

_QUERY_PASSWORD = re.compile(r"([?&;]password=)[^&#;\s'\"<>]*", re.IGNORECASE)
"""A ``password=`` query parameter (redis-py reads one as the password)."""


def redact(text: str, *urls: str | None) -> str:
    """``text`` with passwords replaced by ``***``.

    In every URL ``text`` contains, the userinfo password (``redis://user:***@host:6379/0``)
    and a ``password=`` query parameter are replaced. Then the passwords of ``urls`` are
    replaced wherever they still appear: give the URL behind a library's error message, which
    may quote part of it without its scheme, or a password a URL in ``text`` does not end
    cleanly (a space in it). A URL shown on its own: ``redact(url, url)``.
    """
    text = _URL.sub(lambda match: _redact_url(match.group()), text)
    secrets = {secret for url in urls if url for secret in _passwords(url)}
    for secret in sorted(secrets, key=len, reverse=True):  # a longer one may contain a shorter
        text = text.replace(secret, MASK)
    return text


def _split(url: str) -> tuple[str, str, str, str]:
    """(scheme and ``://``, userinfo, host and port, the rest), as redis-py's ``urlparse``
    splits them: the authority ends at the first ``/``, ``?`` or ``#``, and the userinfo at its
    last ``@``."""
    scheme, separator, after = url.partition("://")
    if not separator:
        return "", "", "", url
    end = min((index for index in map(after.find, "/?#") if index >= 0), default=len(after))
    userinfo, _, host = after[:end].rpartition("@")
    return scheme + separator, userinfo, host, after[end:]


def _redact_url(url: str) -> str:
    prefix, userinfo, host, rest = _split(url)
    if not prefix:
        return url
    user, colon, _ = userinfo.partition(":")
    authority = f"{user}:{MASK}@{host}" if colon else (f"{userinfo}@{host}" if userinfo else host)
    return prefix + authority + _QUERY_PASSWORD.sub(rf"\g<1>{MASK}", rest)


def _passwords(url: str) -> set[str]:
    """The passwords ``url`` carries, as written and percent-decoded; none empty."""
    _, userinfo, _, rest = _split(url)
    found = [userinfo.partition(":")[2]]
    found += [match.group().partition("=")[2] for match in _QUERY_PASSWORD.finditer(rest)]
    decoded = []
    for secret in found:
        try:
            decoded.append(unquote(secret, errors="strict"))
        except (UnicodeError, ValueError):  # undecodable: only its written form can appear
            pass
    return {secret for secret in (*found, *decoded) if secret}
