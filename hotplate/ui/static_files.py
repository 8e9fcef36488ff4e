"""The built page's files: only those in the package's ``static`` directory.

A name with a ``..``, ``.`` or hidden segment, a backslash or a NUL is refused
before the file system is asked, and what the name resolves to must still lie
inside the directory (a symbolic link out of it is refused too). Directories
are never listed. A hashed name (``index-3fA9x0Qe.js``) never changes, so it is
cached for a year; any other name is revalidated on each use.
"""

from __future__ import annotations

import re
from pathlib import Path

from starlette.responses import FileResponse, PlainTextResponse, Response

STATIC_DIR = Path(__file__).resolve().parent / "static"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".txt": "text/plain; charset=utf-8",
}
"""The types of what a built page holds; anything else is served as bytes."""
_HASHED = re.compile(r"[-.](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def not_found() -> Response:
    return PlainTextResponse("Not found", status_code=404)


def resolve(static_dir: Path, name: str) -> Path | None:
    """The file ``name`` names inside ``static_dir``; None when it is no such file."""
    if not name or "\\" in name or "\0" in name or name.startswith("/"):
        return None
    parts = name.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return None
    root = static_dir.resolve()
    try:
        found = root.joinpath(*parts).resolve()
    except (OSError, RuntimeError):
        return None
    if not found.is_relative_to(root) or not found.is_file():
        return None
    return found


def static_response(static_dir: Path, name: str) -> Response:
    found = resolve(static_dir, name)
    if found is None:
        return not_found()
    media_type = CONTENT_TYPES.get(found.suffix.lower(), "application/octet-stream")
    caching = IMMUTABLE if _HASHED.search(found.name) else REVALIDATE
    return FileResponse(found, media_type=media_type, headers={"Cache-Control": caching})


def index_response(static_dir: Path) -> Response:
    """The page's HTML shell (never cached: it names the current bundle)."""
    found = resolve(static_dir, "index.html")
    if found is None:
        return PlainTextResponse("The web view is not built here (make ui).", status_code=404)
    return FileResponse(found, media_type=CONTENT_TYPES[".html"])
