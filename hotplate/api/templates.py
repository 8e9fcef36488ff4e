"""Templates without a stack: ``POST /validate`` and the template versions catalogue.

- ``POST /validate``: the body as a create's (less the name); query
  ``show_nested`` and ``ignore_errors`` (comma-separated error codes). A
  template error answers 400 with the engine's message, as heat-api turns
  the engine's ``{"Error": ...}`` into ``HTTPBadRequest``.
- ``GET /template_versions``: ``{"template_versions": [{version, type, aliases}]}``.
- ``GET /template_versions/{v}/functions``: ``{"template_functions":
  [{functions, description}]}``; ``with_condition_func`` adds the functions only
  conditions use. An unknown version is a 404.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request

from hotplate.api import bodies, params
from hotplate.api.calls import engine
from hotplate.api.faults import bad_request
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")


@router.post("/validate")
async def validate_template(request: Request, project_id: str) -> JSONResponse:
    body = await params.required_body(request)
    show_nested = params.query_bool(request, "show_nested", False)
    ignore = request.query_params.get("ignore_errors")
    result = await engine(
        request, project_id, "validate_template", template=bodies.template(body),
        params=bodies.environment(body), files=bodies.files(body),
        environment_files=bodies.environment_files(body), show_nested=show_nested,
        ignorable_errors=ignore.split(",") if ignore else None,
    )
    if "Error" in result:
        raise bad_request(str(result["Error"]))
    return JSONResponse(result)


@router.get("/template_versions")
async def list_template_versions(request: Request, project_id: str) -> JSONResponse:
    versions = await engine(request, project_id, "list_template_versions")
    return JSONResponse({"template_versions": versions})


@router.get("/template_versions/{template_version}/functions")
async def list_template_functions(request: Request, project_id: str,
                                  template_version: str) -> JSONResponse:
    with_condition = params.query_bool(request, "with_condition_func", False)
    functions = await engine(request, project_id, "list_template_functions",
                             template_version=template_version, with_condition=with_condition)
    return JSONResponse({"template_functions": functions})
