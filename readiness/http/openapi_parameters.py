"""The query parameters of the OpenAPI document (docs/API.md#parameters): the declarations of
``readiness/domain/parameters.py`` as parameter objects, placed on each operation (Swagger UI 5
shows path-level ``$ref`` parameters as nameless "any" and sends none of them).

Each schema says exactly what ``Query.parse`` accepts, so that schemathesis' positive and
negative data agree with the service (docs/DECISIONS.md#the-openapi-document-and-the-route-index):

- closed sets (region, income, sort, order, level, booleans, format, fields) are enums of their
  canonical spellings; the service also accepts any ASCII letter case, which the description
  says (an enum cannot, and a case-insensitive pattern would lose Swagger UI's drop-down), and
  ``level=country`` beside a code, which the enum leaves out because it is a 400 alone;
- open sets (codes, indicator codes, years) are anchored patterns as strict as the parser;
- whole numbers (limit, offset, year, mrv: ``Parameter.bounds``) are integers with their bounds,
  which a generated client types ``int``;
- an empty value counts as absent: the patterns and enums admit the empty string (an integer
  schema cannot; tests/schemathesis_hooks.py says why an empty one is excused).

No parameter has an ``example`` or ``default``: Swagger UI pre-fills "Try it out" with them, and
every pre-filled parameter would be sent with the one a reader typed (``code=KEN`` filtered by an
example ``region``).
"""

from __future__ import annotations

from loaders import JsonValue
from readiness.domain.parameters import Grammar, Parameter

Json = dict[str, JsonValue]

EMPTY = " An empty value counts as absent."
REPEATED = (" An array: comma-separated (`{name}=A,B`), or repeated (`{name}=A&{name}=B`, as generated "
            "clients send arrays), the values merged.")


def _schema(parameter: Parameter) -> Json:
    """What ``parameter`` accepts, as a JSON Schema: an integer between its ``bounds`` (a
    generated client's ``int``), an enum of a closed set (without the values valid only beside
    another parameter, ``Parameter.joint``), an open set's pattern, an array of either for a list
    (its elements never empty)."""
    if parameter.bounds is not None:
        least, most = parameter.bounds
        return {"type": "integer", "minimum": least, "maximum": most}
    choices: list[JsonValue] = [choice for choice in parameter.choices if choice not in parameter.joint]
    item: Json = {"type": "string", "enum": choices} if choices else {"type": "string", "pattern": parameter.pattern}
    if parameter.many:
        return {"type": "array", "items": item}
    if choices:
        return {"type": "string", "enum": ["", *choices]}
    return item


def query_parameter(parameter: Parameter) -> Json:
    """The parameter object of ``parameter``: inline, never a ``$ref``."""
    text = parameter.text + (REPEATED.format(name=parameter.name) if parameter.many else "") + EMPTY
    document: Json = {"name": parameter.name, "in": "query", "required": False, "description": text,
                      "schema": _schema(parameter)}
    if parameter.many:
        # An array: explode false sends codes=a,b, as the service reads it; a generated client
        # that sends codes=a&codes=b (exploded) is read alike, repeated values merged.
        document.update(style="form", explode=False)
    return document


def grammar_parameters(grammar: Grammar) -> list[JsonValue]:
    """The query parameters of a route's ``grammar``, in the order the service lists them in its errors."""
    return [query_parameter(parameter) for parameter in grammar.parameters]


IF_NONE_MATCH: Json = {
    "name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
    "description": "An `ETag` from an earlier answer: 304 without a body if it still matches.",
}
IF_MODIFIED_SINCE: Json = {
    "name": "If-Modified-Since", "in": "header", "required": False, "schema": {"type": "string"},
    "description": ("An HTTP date: 304 without a body when the snapshot was published no later. "
                    "Read only without `If-None-Match` (RFC 9110)."),
}
