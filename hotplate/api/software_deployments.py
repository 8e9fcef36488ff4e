"""``/v1/{project}/software_deployments``: Heat's software-deployment routes and bodies.

- ``GET    /software_deployments[?server_id=]``      -> ``{"software_deployments": [...]}``
- ``GET    /software_deployments/metadata/{server}`` -> ``{"metadata": [configs]}``
- ``POST   /software_deployments``                   -> 200 ``{"software_deployment": {...}}``
- ``GET    /software_deployments/{id}``              -> ``{"software_deployment": {...}}``
- ``PUT    /software_deployments/{id}``              -> 200 ``{"software_deployment": {...}}``
- ``DELETE /software_deployments/{id}``              -> 204
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from hotplate.api import params
from hotplate.api.calls import engine
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")
CREATE_KEYS = ("config_id", "server_id", "input_values", "action", "status",
               "status_reason", "stack_user_project_id")
UPDATE_KEYS = ("config_id", "input_values", "output_values", "action", "status",
               "status_reason")


@router.get("/software_deployments")
async def list_deployments(request: Request, project_id: str) -> JSONResponse:
    server_id = request.query_params.get("server_id")
    kwargs = {"server_id": server_id} if server_id is not None else {}
    found = await engine(request, project_id, "list_software_deployments", **kwargs)
    return JSONResponse({"software_deployments": found})


@router.get("/software_deployments/metadata/{server_id}")
async def deployments_metadata(request: Request, project_id: str,
                               server_id: str) -> JSONResponse:
    found = await engine(request, project_id, "metadata_software_deployments",
                         server_id=server_id)
    return JSONResponse({"metadata": found})


@router.post("/software_deployments")
async def create_deployment(request: Request, project_id: str) -> JSONResponse:
    body = await params.required_body(request)
    created = await engine(request, project_id, "create_software_deployment",
                           **{key: body.get(key) for key in CREATE_KEYS})
    return JSONResponse({"software_deployment": created})


@router.get("/software_deployments/{deployment_id}")
async def show_deployment(request: Request, project_id: str,
                          deployment_id: str) -> JSONResponse:
    found = await engine(request, project_id, "show_software_deployment",
                         deployment_id=deployment_id)
    return JSONResponse({"software_deployment": found})


@router.put("/software_deployments/{deployment_id}")
async def update_deployment(request: Request, project_id: str,
                            deployment_id: str) -> JSONResponse:
    body = await params.required_body(request)
    changes = {key: body[key] for key in UPDATE_KEYS if body.get(key) is not None}
    updated = await engine(request, project_id, "update_software_deployment",
                           deployment_id=deployment_id, **changes)
    return JSONResponse({"software_deployment": updated})


@router.delete("/software_deployments/{deployment_id}")
async def delete_deployment(request: Request, project_id: str,
                            deployment_id: str) -> Response:
    await engine(request, project_id, "delete_software_deployment",
                 deployment_id=deployment_id)
    return Response(status_code=204)
