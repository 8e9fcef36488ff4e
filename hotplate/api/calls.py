"""Reaching the engine from a route: the request's context, a call off the event loop."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from hotplate.api import idempotency
from hotplate.api.context import noauth_context
from hotplate.api.rpc import EngineRpc
from hotplate.model.errors import EntityNotFound


async def engine(request: Request, project_id: str, method: str, **kwargs: Any) -> Any:
    """Call ``method`` on the engine topic as the request's caller, acting in ``project_id``."""
    rpc: EngineRpc = request.app.state.rpc
    context = getattr(request.state, "context", None) or noauth_context(request, project_id)
    ctxt = context.to_rpc()
    idempotency.keyed(request, project_id, method, ctxt)
    return await run_in_threadpool(rpc.call, ctxt, method, **kwargs)


async def identify(request: Request, project_id: str, name_or_id: str) -> dict[str, Any]:
    """The stack's identity: tried as an id first (deleted stacks included), then as the
    name of a live stack; one call (the engine's ``identify_stack`` looks both ways)."""
    return dict(await engine(request, project_id, "identify_stack", stack_name=name_or_id))


async def canonical(request: Request, project_id: str, stack_name: str, stack_id: str, *,
                    resolve_outputs: bool = False) -> dict[str, Any]:
    """The engine's view of the stack at ``/stacks/{name}/{id}``.

    The stack is loaded by id; a name in the path that is not that stack's
    name is a 404, as in Heat.
    """
    identity = {"tenant": project_id, "stack_name": stack_name, "stack_id": stack_id,
                "path": ""}
    found = await engine(request, project_id, "show_stack", stack_identity=identity,
                         resolve_outputs=resolve_outputs)
    if not found:
        raise EntityNotFound("Stack", stack_name)
    stack: dict[str, Any] = found[0]
    ident = stack["stack_identity"]
    if ident["stack_id"] != stack_id or ident["stack_name"] != stack_name:
        raise EntityNotFound("Stack", stack_name)
    return stack


async def identity_at(request: Request, project_id: str, stack_name: str,
                      stack_id: str) -> dict[str, Any]:
    """The identity of the stack at ``/stacks/{name}/{id}``, as ``canonical`` finds it
    (by id, deleted stacks too; a name that is not its name is a 404) without building
    its view: the routes under a stack need only its identity."""
    try:
        found = await engine(request, project_id, "identify_stack", stack_name=stack_id)
    except EntityNotFound:
        raise EntityNotFound("Stack", stack_name) from None
    if found["stack_id"] != stack_id or found["stack_name"] != stack_name:
        raise EntityNotFound("Stack", stack_name)
    return dict(found)
