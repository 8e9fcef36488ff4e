"""``GET /services``: the engines in the service table, for admins only.

A caller without the admin role gets 403 from Heat's policy (``service:index``,
``hotplate.api.policy``); no engine answering at all is Heat's 503 "All heat
engines are down.".
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request

from hotplate.api.calls import engine
from hotplate.api.faults import HTTPError
from hotplate.api.responses import JSONResponse
from hotplate.rpc.errors import MessagingTimeout

router = APIRouter(prefix="/v1/{project_id}")


@router.get("/services")
async def list_services(request: Request, project_id: str) -> JSONResponse:
    try:
        services = await engine(request, project_id, "list_services")
    except MessagingTimeout:
        raise HTTPError(503, "All heat engines are down.",
                        error_type="HTTPServiceUnavailable")
    return JSONResponse({"services": services})
