"""The app factory: Heat's orchestration API v1 on FastAPI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from hotplate import __version__, heap
from hotplate.api import (
    arn_lookup,
    faults,
    previews,
    resource_actions,
    resource_types,
    services,
    snapshots,
    software_configs,
    software_deployments,
    stack_data,
    stack_parts,
    stacks,
    templates,
    versions,
)
from hotplate.api.auth import authorize
from hotplate.api.context import Authenticator
from hotplate.api.params import MAX_JSON_BODY_SIZE
from hotplate.api.rpc import EngineRpc
from hotplate.ui.headers import UiGate
from hotplate.ui.routes import UiOptions, build


def create_app(rpc: EngineRpc, *, auth: Authenticator | None = None,
               max_json_body_size: int = MAX_JSON_BODY_SIZE,
               ui: UiOptions | None = None) -> FastAPI:
    """An API app reaching the engine only through ``rpc``.

    ``auth`` checks the ``X-Auth-Token`` of every request under
    ``/v1/{project_id}`` (see ``hotplate.api.auth``); None is Heat's noauth
    mode, where every caller is an admin. A request body longer than
    ``max_json_body_size`` bytes is refused (413) before it is read.

    Routers are included in Heat's route order: ``/stacks/preview`` and
    ``/stacks/detail`` before the lookups of ``/stacks/{name}``, the lookups
    of ``/stacks/{name}/{sub}`` before the routes under ``/stacks/{name}/{id}``.

    ``ui`` serves the web view at ``/ui`` (on by default, with a session key of
    this app's own; ``UiOptions(enabled=False)`` switches it off). Its session
    cookie also authenticates ``/v1`` requests that carry no ``X-Auth-Token``
    (``hotplate.api.auth``).

    A server that runs the app's lifespan (``hotplate serve`` and ``hotplate
    api`` do) sets its garbage collector for a server's heap once started
    (``hotplate.heap``).
    """
    app = FastAPI(title="hotplate orchestration API", version=__version__,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json",
                  dependencies=[Depends(authorize)], lifespan=_lifespan)
    app.state.rpc = rpc
    app.state.auth = auth
    app.state.max_json_body_size = max_json_body_size
    faults.install(app)
    for module in (versions, arn_lookup, templates, resource_types, services, previews,
                   stack_parts,
                   stack_data, snapshots, resource_actions, stacks, software_configs,
                   software_deployments):
        app.include_router(module.router)
    ui = ui or UiOptions()
    app.state.ui_sessions = None
    app.state.ui_streams = None
    if ui.enabled:
        ui_app = build(app.state, ui)
        app.state.ui_sessions = ui.codec
        app.state.ui_streams = ui_app.state.streams
        app.add_middleware(UiGate, ui=ui_app)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    heap.settle()
    try:
        yield
    finally:
        if app.state.ui_streams is not None:
            app.state.ui_streams.close()
