"""Stack snapshots: Heat's routes under ``/stacks/{name}/{id}/snapshots``.

``POST`` takes a snapshot (200 with the snapshot, ``CREATE_IN_PROGRESS``);
``GET`` lists them or shows one; ``DELETE`` starts a deletion (204);
``POST .../{snapshot_id}/restore`` starts a restore (202).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from hotplate.api import params
from hotplate.api.calls import engine, identity_at
from hotplate.api.faults import bad_request
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")
SNAPSHOTS = "/stacks/{stack_name}/{stack_id}/snapshots"


async def _identity(request: Request, project_id: str, stack_name: str,
                    stack_id: str) -> dict[str, Any]:
    return await identity_at(request, project_id, stack_name, stack_id)


@router.post(SNAPSHOTS)
async def stack_snapshot(request: Request, project_id: str, stack_name: str,
                         stack_id: str) -> JSONResponse:
    body = await params.json_body(request) or {}
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object.")
    name = body.get("name")
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse(await engine(request, project_id, "stack_snapshot",
                                     stack_identity=identity,
                                     name=None if name is None else str(name)))


@router.get(SNAPSHOTS)
async def list_snapshots(request: Request, project_id: str, stack_name: str,
                         stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse({"snapshots": await engine(request, project_id, "stack_list_snapshots",
                                                   stack_identity=identity)})


@router.get(SNAPSHOTS + "/{snapshot_id}")
async def show_snapshot(request: Request, project_id: str, stack_name: str, stack_id: str,
                        snapshot_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse({"snapshot": await engine(request, project_id, "show_snapshot",
                                                  stack_identity=identity,
                                                  snapshot_id=snapshot_id)})


@router.delete(SNAPSHOTS + "/{snapshot_id}")
async def delete_snapshot(request: Request, project_id: str, stack_name: str, stack_id: str,
                          snapshot_id: str) -> Response:
    identity = await _identity(request, project_id, stack_name, stack_id)
    await engine(request, project_id, "delete_snapshot", stack_identity=identity,
                 snapshot_id=snapshot_id)
    return Response(status_code=204)


@router.post(SNAPSHOTS + "/{snapshot_id}/restore")
async def restore_snapshot(request: Request, project_id: str, stack_name: str,
                           stack_id: str, snapshot_id: str) -> Response:
    identity = await _identity(request, project_id, stack_name, stack_id)
    await engine(request, project_id, "stack_restore", stack_identity=identity,
                 snapshot_id=snapshot_id)
    return Response(status_code=202)
