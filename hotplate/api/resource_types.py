"""The resource type catalogue: list, show a schema, generate a template.

- ``GET /resource_types``: query ``name`` (a regular expression matched at
  the start), ``version``, ``support_status``, ``with_description``;
  ``{"resource_types": ["OS::..."]}`` or ``[{resource_type, description}]``.
- ``GET /resource_types/{type}``: ``{resource_type, properties, attributes,
  support_status, description?}``.
- ``GET /resource_types/{type}/template``: ``template_type`` ``cfn`` (default) or
  ``hot``; the template itself.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request

from hotplate.api import params
from hotplate.api.calls import engine
from hotplate.api.faults import bad_request
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")
TEMPLATE_TYPES = ("cfn", "hot")


@router.get("/resource_types")
async def list_resource_types(request: Request, project_id: str) -> JSONResponse:
    query = request.query_params
    types = await engine(
        request, project_id, "list_resource_types", support_status=query.get("support_status"),
        type_name=query.get("name"), heat_version=query.get("version"),
        with_description=params.query_bool(request, "with_description", False),
    )
    return JSONResponse({"resource_types": types})


@router.get("/resource_types/{type_name}")
async def resource_schema(request: Request, project_id: str, type_name: str) -> JSONResponse:
    return JSONResponse(await engine(
        request, project_id, "resource_schema", type_name=type_name,
        with_description=params.query_bool(request, "with_description", False)))


@router.get("/resource_types/{type_name}/template")
async def generate_template(request: Request, project_id: str,
                            type_name: str) -> JSONResponse:
    template_type = request.query_params.get("template_type", "cfn")
    if template_type.lower() not in TEMPLATE_TYPES:
        raise bad_request(f'Template type is not supported: Invalid template type '
                          f'"{template_type}", valid types are: cfn, hot.')
    return JSONResponse(await engine(request, project_id, "generate_template",
                                     type_name=type_name, template_type=template_type.lower()))
