"""The app factory: Heat's orchestration API v1 on FastAPI."""

from __future__ import annotations

from fastapi import Depends, FastAPI

from hotplate import __version__
from hotplate.api import faults, stack_parts, stacks, versions
from hotplate.api.auth import authorize
from hotplate.api.context import Authenticator
from hotplate.api.rpc import EngineRpc


def create_app(rpc: EngineRpc, *, auth: Authenticator | None = None) -> FastAPI:
    """An API app reaching the engine only through ``rpc``.

    ``auth`` checks the ``X-Auth-Token`` of every request under
    ``/v1/{project_id}`` (see ``hotplate.api.auth``); None is Heat's noauth
    mode, where every caller is an admin.

    Routers are included in Heat's route order: the collection, then the
    lookups, then the deeper routes under ``/stacks/{name}/{id}``.
    """
    app = FastAPI(title="hotplate orchestration API", version=__version__,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json",
                  dependencies=[Depends(authorize)])
    app.state.rpc = rpc
    app.state.auth = auth
    faults.install(app)
    app.include_router(versions.router)
    app.include_router(stack_parts.router)
    app.include_router(stacks.router)
    return app
