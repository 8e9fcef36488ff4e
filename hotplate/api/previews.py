"""Dry runs: ``POST /stacks/preview`` and ``PUT|PATCH /stacks/{name}/{id}/preview``.

Included before the stack routes, so ``/stacks/preview`` is never taken for
a stack called "preview" (Heat's route order). The bodies are read as a
create's and an update's are; PATCH keeps the stored template and parameters
where the body gives none.

An update's preview answers Heat's ``resource_changes`` and, beside it,
hotplate's ``resource_changes_detail`` (each resource's changed properties,
nested stacks under their resource): Heat's clients read only the first key,
so ``openstack stack update --dry-run`` prints what it prints against Heat.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request

from hotplate.api import bodies, params, views
from hotplate.api.calls import canonical, engine
from hotplate.api.responses import JSONResponse
from hotplate.api.stacks import required_stack_name

router = APIRouter(prefix="/v1/{project_id}")


@router.post("/stacks/preview")
async def preview_stack(request: Request, project_id: str) -> JSONResponse:
    body = await params.required_body(request)
    name = required_stack_name(body)
    stack = await engine(request, project_id, "preview_stack", stack_name=name,
                         **bodies.instantiation(body))
    return JSONResponse({"stack": views.preview_view(request, stack)})


def _show_nested(request: Request, args: dict[str, object]) -> None:
    if "show_nested" in request.query_params:
        args["show_nested"] = params.query_bool(request, "show_nested", False)


@router.put("/stacks/{stack_name}/{stack_id}/preview")
async def preview_update(request: Request, project_id: str, stack_name: str,
                         stack_id: str) -> JSONResponse:
    body = await params.required_body(request)
    stack = await canonical(request, project_id, stack_name, stack_id)
    kwargs = bodies.instantiation(body, update=True)
    _show_nested(request, kwargs["args"])
    plan = await engine(request, project_id, "plan_update_stack",
                        stack_identity=stack["stack_identity"], **kwargs)
    return JSONResponse(plan)


@router.patch("/stacks/{stack_name}/{stack_id}/preview")
async def preview_update_patch(request: Request, project_id: str, stack_name: str,
                               stack_id: str) -> JSONResponse:
    body = await params.json_body(request) or {}
    stack = await canonical(request, project_id, stack_name, stack_id)
    kwargs = await bodies.patched(request, project_id, stack, body)
    _show_nested(request, kwargs["args"])
    plan = await engine(request, project_id, "plan_update_stack",
                        stack_identity=stack["stack_identity"], **kwargs)
    return JSONResponse(plan)
