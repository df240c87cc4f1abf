"""Babel's extractors for the pages' Tornado templates and the data's words (babel.cfg, ``make i18n``).

Babel reads Python and JavaScript but not Tornado's template syntax. The templates mark a
message as ``_("...")`` (or ``ngettext("...", "...", n)``, ``pgettext("context", "...")``)
inside ``{{ }}`` or ``{% %}``: a double-quoted Python string, which this finds with its line number and the translator's
comment of a ``{# Translators: ... #}`` on the line before.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

_STRING = r'"(?:[^"\\\n]|\\.)*"'
_CALL = re.compile(rf"\b(_|ngettext|pgettext)\(\s*({_STRING})(?:\s*,\s*({_STRING}))?")
_COMMENT = re.compile(r"\{#\s*Translators:(.*?)#\}", re.S)

Message = tuple[int, str, "str | tuple[str, str]", list[str]]


def extract(fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str],
            options: Mapping[str, Any]) -> Iterator[Message]:
    """Yield (line, function, message, comments) for each marked message of a template."""
    text = fileobj.read().decode(options.get("encoding", "utf-8"))
    comments = {text.count("\n", 0, m.end()) + 1: m.group(1).strip() for m in _COMMENT.finditer(text)}
    for match in _CALL.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        function, first, second = match.groups()
        message: str | tuple[str, str] = ast.literal_eval(first)
        if function in ("ngettext", "pgettext") and second is not None:
            message = (ast.literal_eval(first), ast.literal_eval(second))
        noted = [comments[line - 1]] if line - 1 in comments else []
        yield line, function, message, noted


def extract_lines(fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str],
                  options: Mapping[str, Any]) -> Iterator[Message]:
    """Yield each line of a list of messages (readiness/pages/data_words.txt) but comments and
    blanks; a line ``code<TAB>name`` is the message ``code`` with ``name`` as the translator's note."""
    for number, line in enumerate(fileobj.read().decode(options.get("encoding", "utf-8")).splitlines(), start=1):
        if line and not line.startswith("#"):
            code, _, name = line.partition("\t")
            yield number, "", code, [name] if name else []
