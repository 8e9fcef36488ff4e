"""The versions document: ``GET /`` answers 300 with the one API version."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request

from hotplate.api.responses import JSONResponse

router = APIRouter()

SUPPORTED = ("v1", "v1.0")


def versions_document(request: Request) -> dict[str, Any]:
    base = str(request.base_url).rstrip("/")
    return {"versions": [{"id": "v1.0", "status": "CURRENT",
                          "links": [{"rel": "self", "href": f"{base}/v1/"}]}]}


def versions_response(request: Request) -> JSONResponse:
    return JSONResponse(versions_document(request), status_code=300)


def wrong_version(request: Request) -> bool:
    """True when the path names a version this API does not serve (Heat answers 300)."""
    first = request.url.path.strip("/").split("/", 1)[0]
    return bool(first) and first not in SUPPORTED


@router.get("/")
@router.get("/versions")
async def versions(request: Request) -> JSONResponse:
    return versions_response(request)
