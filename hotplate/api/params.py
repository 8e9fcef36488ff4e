"""Reading request bodies and query strings the way heat-api does."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from hotplate.api.faults import HTTPError, bad_request

MAX_JSON_BODY_SIZE = 1048576
"""Heat's ``max_json_body_size`` default; ``create_app`` takes another."""


def _too_large(size: int, limit: int) -> HTTPError:
    return HTTPError(413, "Request limit exceeded: JSON body size "
                     f"({size} bytes) exceeds maximum allowed size ({limit} bytes).",
                     error_type="RequestLimitExceeded")


async def read_body(request: Request) -> bytes:
    """The raw body, refused (413) past the app's ``max_json_body_size``.

    A declared Content-Length over the limit is refused before anything is
    read; a body without one (chunked) is read only up to the limit.
    """
    limit: int = getattr(request.app.state, "max_json_body_size", MAX_JSON_BODY_SIZE)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(int(declared), limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(size, limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> dict[str, Any] | None:
    """The body as a JSON object, or None when there is none.

    Heat reads a body only when it is non-empty, has a JSON content type (a
    missing or ``text/plain`` type counts as JSON) and starts with ``{``;
    anything else (such as a literal ``null``) counts as no body.
    """
    raw = await read_body(request)
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype not in ("", "text/plain", "application/json") and not ctype.endswith("+json"):
        return None
    text = raw.decode("utf-8", errors="replace").lstrip()
    if not text.startswith("{"):
        return None
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise bad_request(f"Malformed JSON in request body: {exc}")
    return body if isinstance(body, dict) else None


async def required_body(request: Request) -> dict[str, Any]:
    body = await json_body(request)
    if body is None:
        raise bad_request("No request body given")
    return body


def bool_value(name: str, value: Any) -> bool:
    """``true``/``false`` in any case (or a JSON boolean), as Heat's extract_bool."""
    lowered = str(value).lower()
    if lowered not in ("true", "false"):
        raise bad_request(f'Unrecognized value "{value}" for "{name}", acceptable values '
                          "are: true, false.")
    return lowered == "true"


def query_bool(request: Request, name: str, default: bool) -> bool:
    value = request.query_params.get(name)
    if value is None:
        return default
    return bool_value(name, value)


def query_int(request: Request, name: str) -> int | None:
    value = request.query_params.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or str(number) != value:  # Heat's "int-like": no sign, no spaces
        raise bad_request(f"Only integer is acceptable by '{name}'.")
    if number < 0:
        raise bad_request(f"Value '{value}' is invalid for '{name}' which only accepts "
                          "non-negative integer.")
    return number


def query_list(request: Request, name: str) -> list[str]:
    return request.query_params.getlist(name)


def sort_dir(request: Request) -> str | None:
    value = request.query_params.get("sort_dir")
    if value is not None and value not in ("asc", "desc"):
        raise bad_request(f'Unknown sort direction "{value}", must be "asc" or "desc"')
    return value


def filters(request: Request, allowed: Mapping[str, str]) -> dict[str, Any]:
    """Repeatable filter keys, renamed for the engine; values of one key are ORed."""
    out: dict[str, Any] = {}
    for key, engine_key in allowed.items():
        values = request.query_params.getlist(key)
        if values:
            out.setdefault(engine_key, [])
            out[engine_key].extend(values)
    return out
