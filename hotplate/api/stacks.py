"""Stack routes: list (and Heat's ``/stacks/detail``), create, lookup (302), show, update,
delete.

Route order follows Heat's: the lookups of ``/stacks/{name_or_id}/{sub}``
are tried before ``/stacks/{name}/{id}``, so ``GET /stacks/web/resources``
redirects to the stack's resources.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from hotplate.api import bodies, params, views
from hotplate.api.auth import enforce
from hotplate.api.calls import canonical, engine, identify, identity_at
from hotplate.api.faults import HTTPError, bad_request
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")

LOOKUP_GET = ("resources", "events", "template", "actions", "environment", "files", "drift")
LOOKUP_POST = ("resources", "events", "template", "actions")
SORT_KEYS = {"stack_name": "name", "stack_status": "status", "creation_time": "created_at",
             "updated_time": "updated_at"}
STACK_FILTERS = {"id": "id", "name": "name", "stack_name": "name", "status": "status",
                 "stack_status": "status", "action": "action", "stack_action": "action",
                 "tenant": "tenant", "username": "username", "stack_owner": "username",
                 "owner_id": "owner_id", "parent": "owner_id"}


# -- the collection -------------------------------------------------------
@router.get("/stacks")
async def list_stacks(request: Request, project_id: str) -> JSONResponse:
    limit = params.query_int(request, "limit")
    filters = _stack_filters(request)
    global_tenant = params.query_bool(request, "global_tenant", False)
    if global_tenant:
        enforce(request, "stacks:global_index")
    query: dict[str, Any] = {
        "filters": filters or None,
        "sort_keys": [SORT_KEYS[k] for k in params.query_list(request, "sort_keys")
                      if k in SORT_KEYS] or None,
        "sort_dir": params.sort_dir(request),
        "tenant_safe": not global_tenant,
        "show_deleted": params.query_bool(request, "show_deleted", False),
        "show_nested": params.query_bool(request, "show_nested", False),
    }
    if query["sort_keys"] and not query["sort_dir"]:
        query["sort_dir"] = "asc"
    stacks = await engine(request, project_id, "list_stacks", limit=limit,
                          marker=request.query_params.get("marker"), **query)
    links_of = views.Links(request)
    body: dict[str, Any] = {"stacks": [
        views.stack_view(request, s, detail=False, include_project=True, links_of=links_of)
        for s in stacks]}
    if limit and len(stacks) == limit:
        pairs = [(k, v) for k, v in request.query_params.multi_items() if k != "marker"]
        pairs.append(("marker", stacks[-1]["stack_identity"]["stack_id"]))
        href = f"{views.base_url(request)}{request.url.path}?{urlencode(pairs)}"
        body["links"] = [views.link(href, "next")]
    if params.query_bool(request, "with_count", False):
        counted = {k: v for k, v in query.items() if k not in ("sort_keys", "sort_dir")}
        body["count"] = await engine(request, project_id, "count_stacks", **counted)
    return JSONResponse(body)


def _stack_filters(request: Request) -> dict[str, Any]:
    filters = params.filters(request, STACK_FILTERS)
    statuses = filters.pop("status", [])
    plain = [s for s in statuses if "_" not in s]
    joined = [s.split("_", 1) for s in statuses if "_" in s]
    if plain:
        filters["status"] = plain
    elif len(joined) == 1:
        filters.setdefault("action", []).append(joined[0][0])
        filters["status"] = [joined[0][1]]
    elif joined:
        filters["status"] = [status for _, status in joined]
    return filters


@router.get("/stacks/detail")
async def list_stacks_detail(request: Request, project_id: str) -> JSONResponse:
    """Every stack of the project with the list's keys (Heat's ``detail``; no client uses it).

    Registered before ``/stacks/{name}``, so "detail" is never a stack name here.
    """
    stacks = await engine(request, project_id, "list_stacks")
    links_of = views.Links(request)
    return JSONResponse({"stacks": [views.stack_view(request, s, detail=False,
                                                     links_of=links_of) for s in stacks]})


def required_stack_name(body: dict[str, Any]) -> Any:
    name = body.get("stack_name")
    if not name:
        raise bad_request("No stack name specified")
    return name


@router.post("/stacks")
async def create_stack(request: Request, project_id: str) -> JSONResponse:
    body = await params.required_body(request)
    name = required_stack_name(body)
    identity = await engine(request, project_id, "create_stack", stack_name=name,
                            **bodies.instantiation(body))
    created = views.stack_created(request, identity)
    return JSONResponse({"stack": created}, status_code=201,
                        headers={"Location": created["links"][0]["href"]})


# -- lookups --------------------------------------------------------------
async def lookup(request: Request, project_id: str, stack_name: str) -> Response:
    return await _redirect(request, project_id, stack_name, "")


# One route per method, so that each has its own operation id in /openapi.json.
for _method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
    router.add_api_route("/stacks/{stack_name}", lookup, methods=[_method],
                         name=f"lookup_{_method.lower()}")


@router.post("/stacks/{stack_name}/{sub}")
async def lookup_post(request: Request, project_id: str, stack_name: str, sub: str) -> Response:
    if sub not in LOOKUP_POST:
        raise HTTPError(405, "The method specified is not allowed for this resource.",
                        {"Allow": "GET,PUT,PATCH,DELETE"})
    return await _redirect(request, project_id, stack_name, f"/{sub}")


async def _redirect(request: Request, project_id: str, name_or_id: str, sub: str) -> Response:
    identity = await identify(request, project_id, name_or_id)
    location = views.stack_url(request, identity, sub)
    if request.url.query:
        location += "?" + urlencode(request.query_params.multi_items())
    return Response(status_code=302, headers={"Location": location})


# -- one stack ------------------------------------------------------------
@router.get("/stacks/{stack_name}/{stack_id}")
async def show_stack(request: Request, project_id: str, stack_name: str,
                     stack_id: str) -> Response:
    if stack_id in LOOKUP_GET:
        return await _redirect(request, project_id, stack_name, f"/{stack_id}")
    resolve = params.query_bool(request, "resolve_outputs", True)
    stack = await canonical(request, project_id, stack_name, stack_id, resolve_outputs=resolve)
    view = views.stack_view(request, stack, detail=True)
    if stack.get("stack_action") == "DELETE" and stack.get("stack_status") == "COMPLETE":
        view.pop("outputs", None)
    return JSONResponse({"stack": view})


@router.put("/stacks/{stack_name}/{stack_id}")
async def update_stack(request: Request, project_id: str, stack_name: str,
                       stack_id: str) -> Response:
    body = await params.required_body(request)
    identity = await identity_at(request, project_id, stack_name, stack_id)
    await engine(request, project_id, "update_stack", stack_identity=identity,
                 **bodies.instantiation(body, update=True))
    return JSONResponse(None, status_code=202)


@router.patch("/stacks/{stack_name}/{stack_id}")
async def patch_stack(request: Request, project_id: str, stack_name: str,
                      stack_id: str) -> Response:
    """Update keeping the stored template and parameters where the body gives none."""
    body = await params.json_body(request) or {}
    stack = await canonical(request, project_id, stack_name, stack_id)
    await engine(request, project_id, "update_stack", stack_identity=stack["stack_identity"],
                 **await bodies.patched(request, project_id, stack, body))
    return JSONResponse(None, status_code=202)


@router.delete("/stacks/{stack_name}/{stack_id}")
async def delete_stack(request: Request, project_id: str, stack_name: str,
                       stack_id: str) -> Response:
    identity = await identity_at(request, project_id, stack_name, stack_id)
    await engine(request, project_id, "delete_stack", stack_identity=identity)
    return Response(status_code=204)
