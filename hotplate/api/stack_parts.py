"""Routes under one stack: resources, events, outputs, template, actions, drift.

``GET .../drift`` is hotplate's own (Heat has no such route): each resource's
live state against its template (engine/service/drift.py), policy ``stacks:drift``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request

from hotplate import __version__
from hotplate.api import params, views
from hotplate.api.auth import enforce
from hotplate.api.calls import engine, identity_at
from hotplate.api.faults import HTTPError, bad_request
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")
STACK = "/stacks/{stack_name}/{stack_id}"

RESOURCE_FILTERS = ("type", "status", "name", "action", "id", "physical_resource_id")
RESOURCE_QUERY = frozenset({"nested_depth", "with_detail", *RESOURCE_FILTERS})
EVENT_FILTERS = {k: k for k in ("resource_status", "resource_action", "resource_name",
                                "resource_type")}
ACTIONS = ("suspend", "resume", "check", "cancel_update", "cancel_without_rollback")


async def _identity(request: Request, project_id: str, stack_name: str,
                    stack_id: str) -> dict[str, Any]:
    return await identity_at(request, project_id, stack_name, stack_id)


# -- resources ------------------------------------------------------------
@router.get(STACK + "/resources")
async def list_resources(request: Request, project_id: str, stack_name: str,
                         stack_id: str) -> JSONResponse:
    unknown = sorted(set(request.query_params) - RESOURCE_QUERY)
    if unknown:
        raise bad_request(f"Invalid filter parameters {unknown}")
    nested_depth = params.query_int(request, "nested_depth") or 0
    detail = params.query_bool(request, "with_detail", False)
    identity = await _identity(request, project_id, stack_name, stack_id)
    rows = await engine(request, project_id, "list_stack_resources", stack_identity=identity,
                        nested_depth=nested_depth, with_detail=detail)
    wanted = {key: frozenset(values) for key in RESOURCE_FILTERS
              if (values := params.query_list(request, key))}
    links_of = views.Links(request)
    shown = [views.resource_view(request, r, links_of=links_of) for r in rows
             if not wanted or _resource_matches(wanted, r)]
    return JSONResponse({"resources": shown})


def _resource_matches(wanted: dict[str, frozenset[str]], res: dict[str, Any]) -> bool:
    """Whether the resource has, for each filter given, one of its values (a status
    matches alone or joined with the action: ``COMPLETE``, ``CREATE_COMPLETE``)."""
    joined = views.joined_status(res.get("resource_action"), res.get("resource_status"))
    values = {"type": [res.get("resource_type")], "name": [res.get("resource_name")],
              "action": [res.get("resource_action")],
              "status": [res.get("resource_status"), joined],
              "physical_resource_id": [res.get("physical_resource_id")],
              "id": [res.get("id")]}
    return all(not wanted[key].isdisjoint(values[key]) for key in wanted)


@router.get(STACK + "/resources/{resource_name}")
async def show_resource(request: Request, project_id: str, stack_name: str, stack_id: str,
                        resource_name: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    res = await engine(request, project_id, "describe_stack_resource", stack_identity=identity,
                       resource_name=resource_name,
                       with_attr=params.query_list(request, "with_attr") or None)
    return JSONResponse({"resource": views.resource_view(request, res)})


# -- events ---------------------------------------------------------------
async def _events(request: Request, project_id: str, identity: dict[str, Any],
                  extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    filters = {**params.filters(request, EVENT_FILTERS), **(extra or {})}
    sort_keys = params.query_list(request, "sort_keys") or None
    sort_dir = params.sort_dir(request)
    if sort_keys is None and sort_dir is None:
        sort_dir = "desc"  # Heat's default order: newest first
    events: list[dict[str, Any]] = await engine(
        request, project_id, "list_events", stack_identity=identity, filters=filters or None,
        limit=params.query_int(request, "limit"), marker=request.query_params.get("marker"),
        sort_keys=sort_keys, sort_dir=sort_dir,
        nested_depth=params.query_int(request, "nested_depth"),
    )
    return events


@router.get(STACK + "/events")
async def list_events(request: Request, project_id: str, stack_name: str,
                      stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    events = await _events(request, project_id, identity)
    return JSONResponse({"events": _event_views(request, events)})


def _event_views(request: Request, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    links_of = views.Links(request)
    return [views.event_view(request, e, detail=False, links_of=links_of) for e in events]


@router.get(STACK + "/resources/{resource_name}/events")
async def list_resource_events(request: Request, project_id: str, stack_name: str,
                               stack_id: str, resource_name: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    events = await _events(request, project_id, identity, {"resource_name": [resource_name]})
    if not events:
        raise HTTPError(404, f"No events found for resource {resource_name}")
    return JSONResponse({"events": _event_views(request, events)})


@router.get(STACK + "/resources/{resource_name}/events/{event_id}")
async def show_event(request: Request, project_id: str, stack_name: str, stack_id: str,
                     resource_name: str, event_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    events = await engine(request, project_id, "list_events", stack_identity=identity,
                          filters={"resource_name": [resource_name]})
    for event in events:
        if event["id"] == event_id:
            return JSONResponse({"event": views.event_view(request, event, detail=True)})
    raise HTTPError(404, f"No event {event_id} found")


# -- outputs, template ----------------------------------------------------
@router.get(STACK + "/outputs")
async def list_outputs(request: Request, project_id: str, stack_name: str,
                       stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    outputs = await engine(request, project_id, "list_outputs", stack_identity=identity)
    return JSONResponse({"outputs": outputs})


@router.get(STACK + "/outputs/{output_key}")
async def show_output(request: Request, project_id: str, stack_name: str, stack_id: str,
                      output_key: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    output = await engine(request, project_id, "show_output", stack_identity=identity,
                          output_key=output_key)
    return JSONResponse({"output": output})


@router.get(STACK + "/template")
async def get_template(request: Request, project_id: str, stack_name: str,
                       stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse(await engine(request, project_id, "get_template",
                                     stack_identity=identity))


# -- actions --------------------------------------------------------------
@router.post(STACK + "/actions")
async def stack_action(request: Request, project_id: str, stack_name: str,
                       stack_id: str) -> JSONResponse:
    body = await params.json_body(request)
    if not body:
        raise bad_request("No action specified")
    if len(body) > 1:
        raise bad_request("Multiple actions specified")
    action = next(iter(body))
    if action not in ACTIONS:
        raise bad_request(f"Invalid action {action} specified")
    enforce(request, f"actions:{action}")
    identity = await _identity(request, project_id, stack_name, stack_id)
    if action in ("suspend", "resume", "check"):
        await engine(request, project_id, f"stack_{action}", stack_identity=identity)
        return JSONResponse(None)
    await engine(request, project_id, "stack_cancel_update", stack_identity=identity,
                 cancel_with_rollback=action == "cancel_update")
    return JSONResponse(None)


# -- drift (not one of Heat's routes) ---------------------------------------
@router.get(STACK + "/drift")
async def stack_drift(request: Request, project_id: str, stack_name: str,
                      stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse(await engine(request, project_id, "stack_drift",
                                     stack_identity=identity))


# -- service information --------------------------------------------------
@router.get("/build_info")
async def build_info(request: Request, project_id: str) -> JSONResponse:
    revision = await engine(request, project_id, "get_revision")
    return JSONResponse({"api": {"revision": __version__}, "engine": {"revision": revision}})
