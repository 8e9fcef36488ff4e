"""The app factory: Heat's orchestration API v1 on FastAPI."""

from __future__ import annotations

from fastapi import FastAPI

from hotplate import __version__
from hotplate.api import faults, stack_parts, stacks, versions
from hotplate.api.rpc import EngineRpc


def create_app(rpc: EngineRpc) -> FastAPI:
    """An API app reaching the engine only through ``rpc`` (noauth: every caller is admin).

    Routers are included in Heat's route order: the collection, then the
    lookups, then the deeper routes under ``/stacks/{name}/{id}``.
    """
    app = FastAPI(title="hotplate orchestration API", version=__version__,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json")
    app.state.rpc = rpc
    faults.install(app)
    app.include_router(versions.router)
    app.include_router(stack_parts.router)
    app.include_router(stacks.router)
    return app
