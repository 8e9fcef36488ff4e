"""One resource beyond its view: metadata, signals, and marking it (un)healthy.

- ``GET …/resources/{r}/metadata``  → ``{"metadata": {...}}``
- ``POST …/resources/{r}/signal``   → 200 ``null``; any JSON object, or no body
- ``PATCH …/resources/{r}``         → 200 ``null``; body ``{"mark_unhealthy": bool,
  "resource_status_reason"?: str}``, other keys refused as heat-api refuses them
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request

from hotplate.api import params
from hotplate.api.calls import engine, identity_at
from hotplate.api.faults import bad_request
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")
RESOURCE = "/stacks/{stack_name}/{stack_id}/resources/{resource_name}"
MARK_KEYS = ("mark_unhealthy", "resource_status_reason")


async def _identity(request: Request, project_id: str, stack_name: str,
                    stack_id: str) -> dict[str, Any]:
    return await identity_at(request, project_id, stack_name, stack_id)


@router.get(RESOURCE + "/metadata")
async def resource_metadata(request: Request, project_id: str, stack_name: str,
                            stack_id: str, resource_name: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    # with_attr=False: the metadata alone, without calling the plugin for attributes
    res = await engine(request, project_id, "describe_stack_resource",
                       stack_identity=identity, resource_name=resource_name, with_attr=False)
    return JSONResponse({"metadata": res.get("metadata") or {}})


@router.post(RESOURCE + "/signal")
async def resource_signal(request: Request, project_id: str, stack_name: str,
                          stack_id: str, resource_name: str) -> JSONResponse:
    details = await params.json_body(request)
    identity = await _identity(request, project_id, stack_name, stack_id)
    await engine(request, project_id, "resource_signal", stack_identity=identity,
                 resource_name=resource_name, details=details)
    return JSONResponse(None)


@router.patch(RESOURCE)
async def mark_unhealthy(request: Request, project_id: str, stack_name: str,
                         stack_id: str, resource_name: str) -> JSONResponse:
    body = await params.required_body(request)
    invalid = sorted(set(body) - set(MARK_KEYS))
    if invalid:
        shown = "{" + ", ".join(repr(key) for key in invalid) + "}"
        raise bad_request(f"Invalid keys in resource mark unhealthy {shown}")
    if "mark_unhealthy" not in body:
        raise bad_request("Missing mandatory (mark_unhealthy) key from mark unhealthy "
                          "request")
    mark = params.bool_value("mark_unhealthy", body["mark_unhealthy"])
    reason = body.get("resource_status_reason", "")
    identity = await _identity(request, project_id, stack_name, stack_id)
    await engine(request, project_id, "resource_mark_unhealthy", stack_identity=identity,
                 resource_name=resource_name, mark_unhealthy=mark,
                 resource_status_reason=reason if isinstance(reason, str) else str(reason))
    return JSONResponse(None)
