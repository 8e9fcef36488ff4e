"""What a stack was made from: its environment and files; export and abandon.

``DELETE …/abandon`` and ``GET …/export`` answer the abandon document, and
only when the engine enables abandon (off by default, as in Heat; otherwise
400 "Stack Abandon is not supported.").
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request

from hotplate.api.calls import engine, identity_at
from hotplate.api.responses import JSONResponse

router = APIRouter(prefix="/v1/{project_id}")
STACK = "/stacks/{stack_name}/{stack_id}"


async def _identity(request: Request, project_id: str, stack_name: str,
                    stack_id: str) -> dict[str, Any]:
    return await identity_at(request, project_id, stack_name, stack_id)


@router.get(STACK + "/environment")
async def get_environment(request: Request, project_id: str, stack_name: str,
                          stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse(await engine(request, project_id, "get_environment",
                                     stack_identity=identity))


@router.get(STACK + "/files")
async def get_files(request: Request, project_id: str, stack_name: str,
                    stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse(await engine(request, project_id, "get_files",
                                     stack_identity=identity))


@router.delete(STACK + "/abandon")
async def abandon_stack(request: Request, project_id: str, stack_name: str,
                        stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse(await engine(request, project_id, "abandon_stack",
                                     stack_identity=identity))


@router.get(STACK + "/export")
async def export_stack(request: Request, project_id: str, stack_name: str,
                       stack_id: str) -> JSONResponse:
    identity = await _identity(request, project_id, stack_name, stack_id)
    return JSONResponse(await engine(request, project_id, "export_stack",
                                     stack_identity=identity))
