"""``/v1/{project}/software_configs``: Heat's software-config routes and bodies.

- ``GET    /software_configs[?limit=&marker=&global_tenant=]`` -> ``{"software_configs": [...]}``
- ``POST   /software_configs``          -> 200 ``{"software_config": {...}}``
- ``GET    /software_configs/{id}``     -> ``{"software_config": {...}}``
- ``DELETE /software_configs/{id}``     -> 204
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from hotplate.api import params
from hotplate.api.auth import enforce
from hotplate.api.calls import engine
from hotplate.api.faults import HTTPError
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")
CREATE_KEYS = ("name", "group", "config", "inputs", "outputs", "options")


@router.get("/software_configs")
async def list_configs(request: Request, project_id: str) -> JSONResponse:
    if params.query_bool(request, "global_tenant", False):
        enforce(request, "software_configs:global_index")
        # Heat's policy for listing every project's configs denies everybody.
        raise HTTPError(403, "Access was denied to this resource.")
    limit = params.query_int(request, "limit")
    marker = request.query_params.get("marker")
    kwargs = {key: value for key, value in (("limit", limit), ("marker", marker))
              if value is not None}
    configs = await engine(request, project_id, "list_software_configs", **kwargs)
    return JSONResponse({"software_configs": configs})


@router.post("/software_configs")
async def create_config(request: Request, project_id: str) -> JSONResponse:
    body = await params.required_body(request)
    created = await engine(request, project_id, "create_software_config",
                           **{key: body.get(key) for key in CREATE_KEYS})
    return JSONResponse({"software_config": created})


@router.get("/software_configs/{config_id}")
async def show_config(request: Request, project_id: str, config_id: str) -> JSONResponse:
    found = await engine(request, project_id, "show_software_config", config_id=config_id)
    return JSONResponse({"software_config": found})


@router.delete("/software_configs/{config_id}")
async def delete_config(request: Request, project_id: str, config_id: str) -> Response:
    await engine(request, project_id, "delete_software_config", config_id=config_id)
    return Response(status_code=204)
